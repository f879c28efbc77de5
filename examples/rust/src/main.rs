// SPDX-License-Identifier: MIT OR Apache-2.0
//! The cross-language example (examples/c/lde_checksum.c): a deterministic
//! Goldilocks trace, its LDE on the best backend present, and a checksum that
//! every binding's example must print identically.
//!
//!   trace:    n = 1024 rows x 8 columns, value(r, c) = x^3 mod p, x = r*8 + c + 1
//!   LDE:      blowup 4, default coset shift (7), bit-reversed output
//!   checksum: FNV-1a 64 over the output downloaded column-major, each element
//!             as 8 little-endian bytes
//!   root:     the LDE buffer committed as one matrix with Plonky3's Poseidon2
//!             default for Goldilocks (field sponge, Poseidon2 width 8, digest
//!             4, rate 4, cap height 0); the root's 32 bytes as hex, in order
//!
//! Prints
//!
//! ```text
//! lde checksum: 0x40445ea8c51c1e87
//! merkle root: 0x1b2845fdf79a57eb43cfdb86c67607b10c03817fe2d482098171bfd73b594adc
//! ```
use gpuprover::{
    Buffer, Context, Error, Field, Layout, LdeOptions, MerkleKind, MerkleOptions, Order,
    Permutation,
};
use std::process::ExitCode;

const ROWS: usize = 1024;
const COLS: usize = 8;
const BLOWUP: usize = 4;
const P: u64 = 0xffff_ffff_0000_0001;

/// Like the C example's check(): "what: GP_ERR_...: message" on stderr.
fn check<T>(result: Result<T, Error>, what: &str) -> Result<T, ExitCode> {
    result.map_err(|e| {
        eprintln!("{}: {}: {}", what, e.status().name(), e.message());
        ExitCode::FAILURE
    })
}

fn run() -> Result<(), ExitCode> {
    // Column-major trace, as in the C example.
    let mut trace = vec![0u64; ROWS * COLS];
    for c in 0..COLS {
        for r in 0..ROWS {
            let x = (r * COLS + c + 1) as u64;
            trace[c * ROWS + r] = x.wrapping_mul(x).wrapping_mul(x) % P;
        }
    }

    let ctx = check(Context::new(), "gp_context_create")?;
    let mut lde = check(
        Buffer::new(&ctx, Field::Goldilocks, 1, ROWS * BLOWUP, COLS),
        "gp_buffer_create",
    )?;
    let options = LdeOptions {
        blowup: BLOWUP as u32,
        output_order: Order::BitReversed,
        ..LdeOptions::default()
    };
    check(
        ctx.lde_host(Field::Goldilocks, 1, &trace, ROWS, COLS, &options, &mut lde),
        "gp_lde_batch_host",
    )?;
    let mut out = vec![0u64; ROWS * BLOWUP * COLS];
    check(lde.to_host(Layout::ColMajor, &mut out), "gp_buffer_to_host")?;

    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in &out {
        for byte in v.to_le_bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    println!("lde checksum: 0x{:016x}", h);

    let merkle = MerkleOptions {
        kind: MerkleKind::FieldSponge,
        perm: Some(Permutation::Poseidon2Goldilocks8),
        ..MerkleOptions::default()
    };
    let tree = check(ctx.merkle_commit(&[&lde], &merkle), "gp_merkle_commit")?;
    let root = check(tree.root(), "gp_merkle_root")?;
    let hex: String = root.iter().map(|b| format!("{:02x}", b)).collect();
    println!("merkle root: 0x{}", hex);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
