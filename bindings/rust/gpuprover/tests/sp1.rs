// SPDX-License-Identifier: MIT OR Apache-2.0
//! SP1's conventions: its Poseidon2 instances against SP1's own known
//! answers (the all-zero state, tests/vectors/sp1_poseidon2.json) and its
//! tensor commitment of a 4 x 3 KoalaBear matrix (expected values from the
//! naive model of tests/test_hash_sp1.cpp, itself checked against SP1's
//! known answers).
mod common;

use common::*;
use gpuprover::{Buffer, Field, Layout, MerkleKind, MerkleOptions, Permutation, Status};

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
