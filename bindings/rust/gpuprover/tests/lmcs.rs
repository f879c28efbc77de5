// SPDX-License-Identifier: MIT OR Apache-2.0
//! Miden's lifted MMCS ([`MerkleKind::MidenLmcs`]) and matrices of 0
//! columns: known roots, openings and their verification, and what the
//! library refuses.
mod common;

use common::*;
use gpuprover::{
    elements_from_le_bytes, merkle_verify, Buffer, Context, Field, Layout, LdeOptions, MatrixDims,
    MerkleKind, MerkleOptions, Permutation, Status,
};

const GL: Field = Field::Goldilocks;

fn lmcs() -> MerkleOptions {
    MerkleOptions {
        kind: MerkleKind::MidenLmcs,
        ..MerkleOptions::default()
    }
}

#[test]
fn miden_lmcs_kind_and_defaults() {
    assert_eq!(MerkleKind::MidenLmcs.to_raw().0, 10);
    assert_eq!(
        lmcs().permutation_for(GL),
        Permutation::Poseidon2Goldilocks12
    );
}

#[test]
fn miden_lmcs_root_of_one_row_is_rpo_hash_elements() {
    let ctx = cpu();
    let data: Vec<u64> = (0..8).collect();
    let buf = Buffer::from_host(&ctx, GL, 1, 1, 8, Layout::RowMajor, &data).unwrap();
    let options = MerkleOptions {
        perm: Some(Permutation::Rpo256),
        ..lmcs()
    };
    let tree = ctx.merkle_commit(&[&buf], &options).unwrap();
    assert_eq!(tree.digest_size(), 32);
    // One leaf, one full rate block: miden-crypto's RPO256 hash_elements of
    // [0..7] (current layout), from tests/vectors/rpo256.json
    // (sponge_variants[0], the vector of 8 elements).
    assert_eq!(
        elements_from_le_bytes::<u64>(&tree.root().unwrap()),
        [
            0x4b3c_1822_15fa_152d,
            0x8726_76ff_4576_e410,
            0x6164_4a79_a8db_9653,
            0x77d8_ddd0_a921_8f81
        ]
    );
}

// Heights 4 then 8 (widths 3 and `tall_cols`): openings hold row i mod 4 of
// the short matrix and row i of the tall one, and verify; a flipped path
// byte does not. Returns the tall matrix's buffer and the short one's.
fn check_lifted(
    ctx: &Context,
    options: &MerkleOptions,
    seed: u64,
    tall_cols: usize,
) -> (Buffer, Buffer) {
    let mut rng = Rng::new(seed);
    let short: Vec<u64> = rng.vec(4 * 3, GOLDILOCKS_P);
    let tall: Vec<u64> = rng.vec(8 * tall_cols, GOLDILOCKS_P);
    let sb = Buffer::from_host(ctx, GL, 1, 4, 3, Layout::RowMajor, &short).unwrap();
    let tb = Buffer::from_host(ctx, GL, 1, 8, tall_cols, Layout::RowMajor, &tall).unwrap();
    {
        let tree = ctx.merkle_commit(&[&sb, &tb], options).unwrap();
        assert_eq!(tree.digest_size(), 32);
        let root = tree.root().unwrap();
        for o in tree.open::<u64>(&[0, 5, 7]).unwrap() {
            let s = o.index % 4;
            let mut want = short[s * 3..(s + 1) * 3].to_vec();
            want.extend_from_slice(&tall[o.index * tall_cols..(o.index + 1) * tall_cols]);
            assert_eq!(o.rows, want);
            assert_eq!(o.path.len(), 3 * 32);
            verify_opening_and_tamper(&tree, GL, &root, &o, 3, 4);
        }
    }
    (tb, sb)
}

#[test]
fn miden_lmcs_lifts_ascending_heights() {
    let ctx = cpu();
    let (tb, sb) = check_lifted(&ctx, &lmcs(), 7600, 8);
    // Descending heights are refused.
    let err = ctx.merkle_commit(&[&tb, &sb], &lmcs()).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
}

fn lmcs_blake3() -> MerkleOptions {
    MerkleOptions {
        perm: Some(Permutation::Blake3),
        ..lmcs()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{:02x}", b)).collect()
}

#[test]
fn miden_lmcs_blake3_roots() {
    let ctx = cpu();
    let options = lmcs_blake3();
    assert_eq!(options.permutation_for(GL), Permutation::Blake3);
    // One row of no columns: one leaf, the root, BLAKE3 of the zero state
    // (32 zero bytes), as b3sum prints it.
    let empty = Buffer::new(&ctx, GL, 1, 1, 0).unwrap();
    let tree = ctx.merkle_commit(&[&empty], &options).unwrap();
    assert_eq!(tree.digest_size(), 32);
    assert_eq!(
        hex(&tree.root().unwrap()),
        "2ada83c1819a5372dae1238fc1ded123c8104fdaa15862aaee69428a1820fcda"
    );
    // One row [1, 2]: root = BLAKE3(32 zero bytes || le64(1) || le64(2)),
    // from: python3 -c "import sys; sys.stdout.buffer.write(bytes(32)+(1).to_bytes(8,'little')
    // +(2).to_bytes(8,'little'))" | b3sum --no-names
    let one = Buffer::from_host::<u64>(&ctx, GL, 1, 1, 2, Layout::RowMajor, &[1, 2]).unwrap();
    let tree = ctx.merkle_commit(&[&one], &options).unwrap();
    let root = tree.root().unwrap();
    assert_eq!(
        hex(&root),
        "f2a62d7e8659c80d48a5b5dc7cbc0d7189b9bf6fb754fcc85648a67953d3e6cb"
    );
    assert_eq!(ctx.merkle_hash_rows(&[&one], &options).unwrap(), root);
    for o in tree.open::<u64>(&[0]).unwrap() {
        assert_eq!(o.rows, [1, 2]);
        assert!(o.path.is_empty());
        tree.verify(&o).unwrap();
    }
}

#[test]
fn miden_lmcs_blake3_lifts_ascending_heights() {
    let ctx = cpu();
    check_lifted(&ctx, &lmcs_blake3(), 7601, 5);
}

#[test]
fn zero_column_buffers_create_and_copy() {
    let ctx = cpu();
    let empty = Buffer::new(&ctx, GL, 1, 8, 0).unwrap();
    assert_eq!((empty.rows(), empty.cols(), empty.len()), (8, 0, 0));
    assert!(empty.is_empty());
    assert_eq!(empty.size_bytes(), 0);
    assert!(empty.to_vec::<u64>(Layout::ColMajor).unwrap().is_empty());
    empty.to_host::<u64>(Layout::RowMajor, &mut []).unwrap();
    let b = Buffer::from_host::<u64>(&ctx, GL, 1, 8, 0, Layout::RowMajor, &[]).unwrap();
    assert_eq!((b.rows(), b.cols()), (8, 0));
    let v = Buffer::from_vec::<u64>(&ctx, GL, 1, 8, 0, Vec::new()).unwrap();
    assert_eq!((v.rows(), v.cols()), (8, 0));
    // The data is still checked against the shape.
    assert_eq!(
        Buffer::from_host::<u64>(&ctx, GL, 1, 8, 0, Layout::RowMajor, &[1])
            .unwrap_err()
            .status(),
        Status::ShapeMismatch
    );
    // Transforms refuse it.
    let mut out = Buffer::new(&ctx, GL, 1, 16, 0).unwrap();
    assert!(ctx.lde(&empty, &LdeOptions::default(), &mut out).is_err());
}

#[test]
fn zero_column_merkle_commitments() {
    let ctx = cpu();
    let empty = Buffer::new(&ctx, GL, 1, 8, 0).unwrap();
    // miden-crypto's EMPTY_SUBTREES at depth 3 (Poseidon2 trees): every
    // leaf the zero digest.
    let miden = MerkleOptions {
        kind: MerkleKind::Miden,
        perm: Some(Permutation::Poseidon2Goldilocks12),
        ..MerkleOptions::default()
    };
    let tree = ctx.merkle_commit(&[&empty], &miden).unwrap();
    let root = tree.root().unwrap();
    assert_eq!(
        elements_from_le_bytes::<u64>(&root),
        [
            0xfbc3_edaf_b6c8_13b9,
            0x35d8_cfad_b189_f5af,
            0x9cc6_5f5d_198e_28f1,
            0x14a7_4616_a8e0_4623
        ]
    );
    let dims = [MatrixDims {
        rows: 8,
        cols: 0,
        ext_degree: 1,
    }];
    assert_eq!(tree.dims(), &dims);
    for o in tree.open::<u64>(&[0, 6]).unwrap() {
        assert!(o.rows.is_empty());
        tree.verify(&o).unwrap();
        merkle_verify::<u64>(tree.options(), GL, &dims, &root, o.index, &[], &o.path).unwrap();
        let mut bad = o.clone();
        bad.path[1] ^= 4;
        assert_eq!(
            tree.verify(&bad).unwrap_err().status(),
            Status::VerifyFailed
        );
    }

    // Keccak-256 of no bytes per row.
    let keccak = MerkleOptions {
        kind: MerkleKind::KeccakPlonky3,
        ..MerkleOptions::default()
    };
    let digests = ctx.merkle_hash_rows(&[&empty], &keccak).unwrap();
    let empty_keccak: [u8; 32] = [
        0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03,
        0xc0, 0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85,
        0xa4, 0x70,
    ];
    assert_eq!(digests, empty_keccak.repeat(8));

    // Beside a matrix with columns, and under MidenLmcs.
    let mut rng = Rng::new(7601);
    let data: Vec<u64> = rng.vec(8 * 2, GOLDILOCKS_P);
    let buf = Buffer::from_host(&ctx, GL, 1, 8, 2, Layout::RowMajor, &data).unwrap();
    let mixed = ctx.merkle_commit(&[&empty, &buf], &keccak).unwrap();
    for o in mixed.open::<u64>(&[3]).unwrap() {
        assert_eq!(o.rows, &data[6..8]);
        mixed.verify(&o).unwrap();
    }
    let lifted = ctx.merkle_commit(&[&empty], &lmcs()).unwrap();
    for o in lifted.open::<u64>(&[1]).unwrap() {
        lifted.verify(&o).unwrap();
    }
}
