// SPDX-License-Identifier: MIT OR Apache-2.0
//! gpuprover inside Plonky3.
//!
//! - [`GpuMmcs`]: an [`Mmcs`](p3_commit::Mmcs) that wraps the configuration's
//!   stock `MerkleTreeMmcs` and builds its trees in gpuprover (on the GPU
//!   with the CUDA backend), with the stock commitments, openings and
//!   verifier: proofs are byte-identical to the stock prover's (on
//!   Plonky3 main, FRI's multi-openings with pruned paths included).
//! - [`GpuDft`]: a [`TwoAdicSubgroupDft`](p3_dft::TwoAdicSubgroupDft) with
//!   the results of `Radix2DitParallel` (the commitment LDE of
//!   `TwoAdicFriPcs` in one library call).
//! - [`GpuPcs`]: `TwoAdicFriPcs` over both whose trace commitments are one
//!   library call each (LDE and tree on the device, the trace crossing
//!   PCIe once); the rest is `TwoAdicFriPcs`'s.
//! - [`prove`] / [`prove_with_preprocessed`]:
//!   `p3_uni_stark`'s prover whose quotient is evaluated on the device from
//!   the AIR's symbolic constraints ([`compile_air`]); proofs are
//!   byte-identical to `p3_uni_stark::prove`'s.
//!
//! Swap them into a `TwoAdicFriPcs` and prove as before:
//!
//! ```ignore
//! let ctx = gpuprover::Context::new()?;
//! let val_mmcs = GpuMmcs::new(MerkleTreeMmcs::new(hash, compress, 0), &ctx);
//! let challenge_mmcs = ExtensionMmcs::<Val, Challenge, _>::new(val_mmcs.clone());
//! let pcs = TwoAdicFriPcs::new(GpuDft::new(&ctx), val_mmcs, fri_params(challenge_mmcs));
//! let proof = p3_uni_stark::prove(&StarkConfig::new(pcs, challenger), &air, trace, &pis);
//! ```
//!
//! Fields: BabyBear, KoalaBear, Goldilocks ([`GpuField`]). Builds against
//! Plonky3 0.6.2 and, with the `plonky3-main` feature, Plonky3 main
//! (5dc50e51 and later).

mod dft;
mod field;
mod mmcs;
mod pcs;
mod prover;
mod quotient;

pub use dft::{default_context, GpuDft};
pub use field::{DigestWord, GpuField, WordKind};
pub use pcs::GpuPcs;
pub use mmcs::{GpuMmcs, GpuProverData, MmcsStats, StockMmcs};
pub use prover::{prove, prove_with_preprocessed, DeviceLde, StarkAir};
pub use quotient::{compile_air, QuotientStats};
