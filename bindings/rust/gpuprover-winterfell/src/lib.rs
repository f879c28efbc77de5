// SPDX-License-Identifier: MIT OR Apache-2.0
//! gpuprover inside winterfell 0.13.
//!
//! - [`GpuTraceLde`]: winterfell's `TraceLde` for `f64` (main segment over
//!   the base field, auxiliary segment over `BaseElement`, `QuadExtension`
//!   or `CubeExtension`) whose LDE (on `offset * <g_lde>`, natural order,
//!   winterfell's roots of unity), trace polynomials and row commitment
//!   (winter-crypto's `MerkleTree<H>`) are computed by the library.
//! - [`GpuConstraintCommitment`]: winterfell's `ConstraintCommitment` whose
//!   composition columns are extended and committed by the library.
//! - [`GpuProver`]: any winterfell `Prover` over `f64` with those two
//!   swapped in and everything else forwarded; its proofs are
//!   byte-identical to the wrapped prover's, and winterfell's `verify`
//!   accepts them.
//!
//! ```ignore
//! let ctx = gpuprover::Context::new()?; // CUDA if present, else the CPU
//! let prover = gpuprover_winterfell::GpuProver::new(MyProver::new(options), &ctx);
//! let proof = prover.prove(trace)?;
//! println!("{:?}", prover.stats()); // which commitments the library made
//! ```
//!
//! Hashers with a library profile: `Blake3_256`, `Blake3_192`,
//! `Sha3_256`, `Rp64_256`. Everything the library does not commit (other
//! hashers, rows hashed in several partitions, a call the library refuses)
//! is committed by winterfell's own code, counted in
//! [`GpuProver::stats`]: the bytes are the stock ones in every case.
//!
//! Values cross the ABI canonical (winterfell keeps `f64` elements in
//! Montgomery form). Each LDE is downloaded once, column-major, into a
//! staging area of the context's `gp_host_alloc` memory (page-locked on
//! CUDA, kept by the [`Committer`] at the size of the largest LDE so far,
//! [`Committer::release_staging`] drops it), and converted and transposed
//! into winterfell's rows on all cores. Each LDE and its tree stay on the
//! device until the proof's openings are made.
//!
//! The composition polynomial's columns come from winterfell's
//! `CompositionPoly::new` (its only constructor), which interpolates on the
//! CPU; see [`GpuConstraintCommitment`]. winter-prover's `async` feature is
//! not supported. With winterfell's `concurrent` feature its parallel
//! proof-of-work search returns whichever nonce a thread checks first, even
//! at grinding factor 0, so proofs (stock ones too) then differ from run to
//! run in the nonce and what follows from it; without it they are
//! byte-identical.

mod committer;
mod constraint;
mod convert;
mod hasher;
mod prover;
mod segment;
mod trace_lde;

pub use committer::{winterfell_root, CommitStats, Committer, PhaseTimes};
pub use constraint::GpuConstraintCommitment;
pub use hasher::library_hash;
pub use prover::GpuProver;
pub use trace_lde::GpuTraceLde;
