// SPDX-License-Identifier: MIT OR Apache-2.0
//! gp_permute_batch: Keccak-f[1600] against a reference written here, and
//! the Rust-side argument checks.
mod common;

use common::*;
use gpuprover::{Permutation, Status};

const RC: [u64; 24] = [
    0x0000000000000001,
    0x0000000000008082,
    0x800000000000808a,
    0x8000000080008000,
    0x000000000000808b,
    0x0000000080000001,
    0x8000000080008081,
    0x8000000000008009,
    0x000000000000008a,
    0x0000000000000088,
    0x0000000080008009,
    0x000000008000000a,
    0x000000008000808b,
    0x800000000000008b,
    0x8000000000008089,
    0x8000000000008003,
    0x8000000000008002,
    0x8000000000000080,
    0x000000000000800a,
    0x800000008000000a,
    0x8000000080008081,
    0x8000000000008080,
    0x0000000080000001,
    0x8000000080008008,
];

/// Rotation offsets r[x][y] of the Keccak reference, lane (x, y) at x + 5y.
const ROT: [[u32; 5]; 5] = [
    [0, 36, 3, 41, 18],
    [1, 44, 10, 45, 2],
    [62, 6, 43, 15, 61],
    [28, 55, 25, 21, 56],
    [27, 20, 39, 8, 14],
];

/// Keccak-f[1600] as in the Keccak reference (theta, rho, pi, chi, iota).
fn keccak_f(a: &mut [u64; 25]) {
    for rc in RC.iter() {
        let mut c = [0u64; 5];
        for x in 0..5 {
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        }
        for x in 0..5 {
            let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                a[x + 5 * y] ^= d;
            }
        }
        let mut b = [0u64; 25];
        for x in 0..5 {
            for y in 0..5 {
                b[y + 5 * ((2 * x + 3 * y) % 5)] = a[x + 5 * y].rotate_left(ROT[x][y]);
            }
        }
        for x in 0..5 {
            for y in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        a[0] ^= rc;
    }
}

#[test]
fn keccak_of_the_zero_state() {
    let mut reference = [0u64; 25];
    keccak_f(&mut reference);
    assert_eq!(reference[0], 0xF1258F7940E1DDE7);

    let ctx = cpu();
    let mut state = [0u64; 25];
    ctx.permute_batch(Permutation::KeccakF1600, &mut state)
        .unwrap();
    assert_eq!(state[0], 0xF1258F7940E1DDE7);
    assert_eq!(state, reference);

    // Applying it again gives Keccak-f twice.
    ctx.permute_batch(Permutation::KeccakF1600, &mut state)
        .unwrap();
    keccak_f(&mut reference);
    assert_eq!(state, reference);
}

#[test]
fn keccak_batch_of_random_states() {
    let ctx = cpu();
    let count = 7;
    let mut rng = Rng::new(20);
    let mut states: Vec<u64> = (0..25 * count).map(|_| rng.next_u64()).collect();
    let mut want = states.clone();
    for chunk in want.chunks_mut(25) {
        let mut lanes = [0u64; 25];
        lanes.copy_from_slice(chunk);
        keccak_f(&mut lanes);
        chunk.copy_from_slice(&lanes);
    }
    ctx.permute_batch(Permutation::KeccakF1600, &mut states)
        .unwrap();
    assert_eq!(states, want);
}

#[test]
fn permutation_info() {
    let k = Permutation::KeccakF1600.info().unwrap();
    assert_eq!((k.width, k.field), (25, None));
    let p = Permutation::Poseidon2BabyBear24.info().unwrap();
    assert_eq!((p.width, p.field), (24, Some(gpuprover::Field::BabyBear)));
    let t = Permutation::Tip5.info().unwrap();
    assert_eq!((t.width, t.field), (16, Some(gpuprover::Field::Goldilocks)));
}

#[test]
fn field_permutations_run_and_check_their_input() {
    let ctx = cpu();
    // Poseidon2 over Goldilocks, width 8: two states.
    let mut states: Vec<u64> = (0..16).collect();
    let before = states.clone();
    ctx.permute_batch(Permutation::Poseidon2Goldilocks8, &mut states)
        .unwrap();
    assert_ne!(states, before);
    assert!(states.iter().all(|&v| v < GOLDILOCKS_P));
    // Deterministic, and states are permuted independently.
    let mut first: Vec<u64> = (0..8).collect();
    ctx.permute_batch(Permutation::Poseidon2Goldilocks8, &mut first)
        .unwrap();
    assert_eq!(&states[..8], &first[..]);

    // BabyBear states are u32.
    let mut bb: Vec<u32> = (0..16).collect();
    ctx.permute_batch(Permutation::Poseidon2BabyBear16, &mut bb)
        .unwrap();
    assert!(bb.iter().all(|&v| v < gpuprover::BABYBEAR_MODULUS));

    // Non-canonical state: rejected by the library, state usable after.
    let mut bad: Vec<u64> = vec![0; 8];
    bad[3] = GOLDILOCKS_P;
    let err = ctx
        .permute_batch(Permutation::Poseidon2Goldilocks8, &mut bad)
        .unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical);
    assert!(!err.message().is_empty());

    // Rust-side checks: element type and length.
    let mut wrong_type: Vec<u32> = vec![0; 8];
    let err = ctx
        .permute_batch(Permutation::Poseidon2Goldilocks8, &mut wrong_type)
        .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch);
    let mut wrong_len: Vec<u64> = vec![0; 24];
    let err = ctx
        .permute_batch(Permutation::KeccakF1600, &mut wrong_len)
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    // No states: nothing to do.
    let mut empty: Vec<u64> = Vec::new();
    ctx.permute_batch(Permutation::KeccakF1600, &mut empty)
        .unwrap();
}

#[test]
fn blake3_is_a_hash_not_a_permutation() {
    assert_eq!(Permutation::Blake3.to_raw().0, 19);
    let b = Permutation::Blake3.info().unwrap();
    assert_eq!((b.width, b.field), (16, None));
    // Refused whatever the states, as gp_permute_batch does.
    let ctx = cpu();
    let mut full: Vec<u64> = vec![0; 16];
    let mut short: Vec<u64> = vec![0; 5];
    let mut words: Vec<u32> = vec![0; 16];
    let mut empty: Vec<u64> = Vec::new();
    for err in [
        ctx.permute_batch(Permutation::Blake3, &mut full),
        ctx.permute_batch(Permutation::Blake3, &mut short),
        ctx.permute_batch(Permutation::Blake3, &mut words),
        ctx.permute_batch(Permutation::Blake3, &mut empty),
    ] {
        let err = err.unwrap_err();
        assert_eq!(err.status(), Status::Unsupported, "{}", err);
        assert!(err.message().contains("BLAKE3"), "{}", err);
    }
    assert_eq!(full, vec![0; 16]);
}
