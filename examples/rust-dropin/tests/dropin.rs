// SPDX-License-Identifier: MIT OR Apache-2.0
//! The drop-in against gpuprover's CPU backend and against a tiny recursive
//! MerkleTreeMmcs written here on top of the Poseidon2 permutation alone
//! (`permute_batch`, one state at a time).
use gpuprover::{Backend, Context, ContextOptions, Permutation, Status};
use gpuprover_dropin::{koalabear_poseidon2_mmcs_root, try_koalabear_poseidon2_mmcs_root};

const P: u32 = 0x7f00_0001; // KoalaBear

fn cpu() -> Context {
    Context::with_options(&ContextOptions {
        backend: Backend::Cpu,
        cpu_threads: 2,
        ..ContextOptions::default()
    })
    .unwrap()
}

fn matrix(seed: u64, len: usize) -> Vec<u32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_f491_4f6c_dd1d) % P as u64) as u32
        })
        .collect()
}

/// Poseidon2 KoalaBear width 16 on one state.
fn permute(ctx: &Context, state: &mut [u32; 16]) {
    ctx.permute_batch(Permutation::Poseidon2KoalaBear16, &mut state[..])
        .unwrap();
}

/// PaddingFreeSponge<_, 16, 8, 8>: chunks of 8 overwrite state[0..len),
/// one permutation per chunk; the digest is state[0..8).
fn hash_row(ctx: &Context, row: &[u32]) -> [u32; 8] {
    let mut state = [0u32; 16];
    for chunk in row.chunks(8) {
        state[..chunk.len()].copy_from_slice(chunk);
        permute(ctx, &mut state);
    }
    let mut out = [0u32; 8];
    out.copy_from_slice(&state[..8]);
    out
}

/// TruncatedPermutation<_, 2, 8, 16>: left || right, first 8 out.
fn compress(ctx: &Context, left: &[u32; 8], right: &[u32; 8]) -> [u32; 8] {
    let mut state = [0u32; 16];
    state[..8].copy_from_slice(left);
    state[8..].copy_from_slice(right);
    permute(ctx, &mut state);
    let mut out = [0u32; 8];
    out.copy_from_slice(&state[..8]);
    out
}

/// The root over rows [lo, hi) of a row-major matrix, recursively.
fn naive_root(ctx: &Context, values: &[u32], width: usize, lo: usize, hi: usize) -> [u32; 8] {
    if hi - lo == 1 {
        return hash_row(ctx, &values[lo * width..hi * width]);
    }
    let mid = (lo + hi) / 2;
    compress(
        ctx,
        &naive_root(ctx, values, width, lo, mid),
        &naive_root(ctx, values, width, mid, hi),
    )
}

#[test]
fn equals_a_naive_recursive_mmcs() {
    let reference = cpu();
    // Rows shorter than, equal to and longer than the rate; one row.
    for &(height, width) in &[(1usize, 3usize), (2, 8), (8, 11), (16, 16), (4, 1), (32, 7)] {
        let values = matrix(height as u64 * 100 + width as u64, height * width);
        let want = naive_root(&reference, &values, width, 0, height);
        assert_eq!(
            koalabear_poseidon2_mmcs_root(&values, width),
            want,
            "{} x {}",
            height,
            width
        );
    }
}

#[test]
fn equals_the_cpu_backend() {
    // The drop-in runs on the best backend present; the CPU backend must
    // give the same root (on a machine without a GPU both are the CPU).
    let cpu = cpu();
    let auto = Context::new().unwrap();
    for &(height, width) in &[(1024usize, 13usize), (256, 64), (4096, 2)] {
        let values = matrix(height as u64 + width as u64, height * width);
        let on_cpu = try_koalabear_poseidon2_mmcs_root(&cpu, &values, width).unwrap();
        assert_eq!(koalabear_poseidon2_mmcs_root(&values, width), on_cpu);
        assert_eq!(
            try_koalabear_poseidon2_mmcs_root(&auto, &values, width).unwrap(),
            on_cpu
        );
    }
}

#[test]
fn rejects_what_it_cannot_commit() {
    let ctx = cpu();
    let status = |values: &[u32], width| {
        try_koalabear_poseidon2_mmcs_root(&ctx, values, width)
            .unwrap_err()
            .status()
    };
    assert_eq!(status(&[1, 2, 3, 4], 0), Status::InvalidArgument);
    assert_eq!(status(&[1, 2, 3], 2), Status::ShapeMismatch);
    assert_eq!(status(&[], 2), Status::ShapeMismatch);
    assert_eq!(status(&[1, P], 1), Status::NonCanonical);
    let panicked = std::panic::catch_unwind(|| koalabear_poseidon2_mmcs_root(&[1, 2, 3], 0));
    assert!(panicked.is_err());
    // A height that is not a power of two commits, as Plonky3's MMCS does.
    assert!(try_koalabear_poseidon2_mmcs_root(&ctx, &[1, 2, 3, 4, 5, 6], 2).is_ok());
}
