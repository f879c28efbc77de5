// SPDX-License-Identifier: MIT OR Apache-2.0
//! SP1's conventions: its Poseidon2 instances against SP1's own known
//! answers (the all-zero state, tests/vectors/sp1_poseidon2.json) and its
//! tensor commitment of a 4 x 3 KoalaBear matrix (expected values from the
//! naive model of tests/test_hash_sp1.cpp, itself checked against SP1's
//! known answers).
mod common;

use common::*;
use gpuprover::{
    Buffer, Field, Layout, LdeInput, LdeOptions, MerkleKind, MerkleOptions, NttOptions, Permutation, Status,
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b)).collect()
}

#[test]
fn sp1_permutations_known_answers() {
    let ctx = cpu();
    for (perm, field, first2) in [
        (Permutation::Poseidon2KoalaBear16Sp1, Field::KoalaBear, [145589356u32, 1876041682]),
        (Permutation::Poseidon2BabyBear16Sp1, Field::BabyBear, [348670919, 1568590631]),
    ] {
        let info = perm.info().unwrap();
        assert_eq!((info.width, info.field), (16, Some(field)));
        let mut state = [0u32; 16];
        ctx.permute_batch(perm, &mut state).unwrap();
        assert_eq!(state[..2], first2, "{:?}", perm);
    }
}

#[test]
fn sp1_tensor_commitment() {
    let ctx = cpu();
    let data: Vec<u32> = (0..12).collect();
    let buf = Buffer::from_host::<u32>(&ctx, Field::KoalaBear, 1, 4, 3, Layout::RowMajor, &data).unwrap();
    let options = MerkleOptions {
        kind: MerkleKind::FieldSponge,
        perm: Some(Permutation::Poseidon2KoalaBear16Sp1),
        ..MerkleOptions::default()
    };
    let tree = ctx.merkle_commit(&[&buf], &options).unwrap();
    assert_eq!(
        hex(&tree.root().unwrap()),
        "78d03539b94e9664a007dc79502f2437044bc9561d108f09f52e2e05b594347d"
    );
    assert_eq!(
        hex(&tree.sp1_commitment().unwrap()),
        "c9de43374309654003feb36db1659245e116377abbb66808fef0c3343060cd64"
    );
    let keccak = MerkleOptions {
        kind: MerkleKind::KeccakPlonky3,
        ..MerkleOptions::default()
    };
    let tree = ctx.merkle_commit(&[&buf], &keccak).unwrap();
    let err = tree.sp1_commitment().unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
    assert!(err.message().contains("GP_MERKLE_KECCAK_PLONKY3"), "{}", err.message());
}

/// Basefold's encoding: the LDE of coefficients equals the forward transform
/// of the zero-padded coefficients on the same coset, and differs from the
/// LDE of the same values read as evaluations.
#[test]
fn sp1_encoding_is_the_padded_transform() {
    let ctx = cpu();
    // 4 rows x 3 columns, column-major.
    let coeffs: Vec<u32> = (0..12u64).map(|i| ((i * 2654435761 + 17) % 2130706433) as u32).collect();
    for shift in [1u64, 31] {
        let options = LdeOptions {
            shift: Some(shift),
            input: LdeInput::Coefficients,
            ..LdeOptions::default()
        };
        let mut enc = Buffer::new(&ctx, Field::KoalaBear, 1, 8, 3).unwrap();
        ctx.lde_host(Field::KoalaBear, 1, &coeffs, 4, 3, &options, &mut enc).unwrap();
        let mut padded = vec![0u32; 24];
        for c in 0..3 {
            padded[8 * c..8 * c + 4].copy_from_slice(&coeffs[4 * c..4 * c + 4]);
        }
        let mut reference = Buffer::from_host::<u32>(&ctx, Field::KoalaBear, 1, 8, 3, Layout::ColMajor, &padded).unwrap();
        let ntt = NttOptions {
            shift: Some(shift),
            ..NttOptions::default()
        };
        ctx.ntt(&mut reference, &ntt).unwrap();
        let (mut got, mut want) = (vec![0u32; 24], vec![0u32; 24]);
        enc.to_host(Layout::ColMajor, &mut got).unwrap();
        reference.to_host(Layout::ColMajor, &mut want).unwrap();
        assert_eq!(got, want, "shift {}", shift);
        let evaluations = LdeOptions {
            shift: Some(shift),
            ..LdeOptions::default()
        };
        ctx.lde_host(Field::KoalaBear, 1, &coeffs, 4, 3, &evaluations, &mut enc).unwrap();
        enc.to_host(Layout::ColMajor, &mut got).unwrap();
        assert_ne!(got, want, "shift {}", shift);
    }
}
