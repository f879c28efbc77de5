// SPDX-License-Identifier: MIT OR Apache-2.0
//! Merkle commitments: roots and caps against a naive recursive
//! MerkleTreeMmcs (Plonky3's PaddingFreeSponge + TruncatedPermutation,
//! written here on top of `permute_batch`), openings and their verification,
//! the other profiles, and the error paths.
mod common;

use common::*;
use gpuprover::{
    elements_from_le_bytes, merkle_verify, Buffer, Context, Field, Layout, LdeOptions, MatrixDims,
    MerkleKind, MerkleOptions, Order, Permutation, Status,
};

const BABYBEAR_P: u64 = 0x7800_0001;
const KOALABEAR_P: u64 = 0x7f00_0001;

fn modulus(field: Field) -> u64 {
    match field {
        Field::Goldilocks => GOLDILOCKS_P,
        Field::BabyBear => BABYBEAR_P,
        Field::KoalaBear => KOALABEAR_P,
    }
}

/// One permutation applied to single states through `permute_batch` on a
/// context of its own.
struct RefPerm {
    ctx: Context,
    perm: Permutation,
    width: usize,
    wide: bool,
}

impl RefPerm {
    fn new(perm: Permutation) -> RefPerm {
        let info = perm.info().unwrap();
        RefPerm {
            ctx: cpu(),
            perm,
            width: info.width,
            wide: info.field == Some(Field::Goldilocks),
        }
    }

    fn permute(&self, state: &mut [u64]) {
        if self.wide {
            self.ctx.permute_batch(self.perm, state).unwrap();
        } else {
            let mut s: Vec<u32> = state.iter().map(|&x| x as u32).collect();
            self.ctx.permute_batch(self.perm, &mut s).unwrap();
            for (d, x) in state.iter_mut().zip(s) {
                *d = x as u64;
            }
        }
    }

    /// PaddingFreeSponge: overwrite up to `rate` elements, permute; digest
    /// is the first `digest` elements.
    fn sponge(&self, rate: usize, digest: usize, input: &[u64]) -> Vec<u64> {
        let mut state = vec![0u64; self.width];
        for chunk in input.chunks(rate) {
            state[..chunk.len()].copy_from_slice(chunk);
            self.permute(&mut state);
        }
        state.truncate(digest);
        state
    }

    /// TruncatedPermutation: left || right || zeros, first digest elements.
    fn compress(&self, left: &[u64], right: &[u64]) -> Vec<u64> {
        let mut state = vec![0u64; self.width];
        state[..left.len()].copy_from_slice(left);
        state[left.len()..left.len() + right.len()].copy_from_slice(right);
        self.permute(&mut state);
        state.truncate(left.len());
        state
    }
}

/// A host matrix, row-major, flattened extension elements.
struct Mat {
    rows: usize,
    cols: usize,
    ext: u32,
    data: Vec<u64>,
}

impl Mat {
    fn random(rng: &mut Rng, field: Field, rows: usize, cols: usize, ext: u32) -> Mat {
        Mat {
            rows,
            cols,
            ext,
            data: rng.vec(rows * cols * ext as usize, modulus(field)),
        }
    }

    fn row(&self, r: usize) -> &[u64] {
        let w = self.cols * self.ext as usize;
        &self.data[r * w..(r + 1) * w]
    }

    fn upload(&self, ctx: &Context, field: Field) -> Buffer {
        if field == Field::Goldilocks {
            Buffer::from_host(
                ctx,
                field,
                self.ext,
                self.rows,
                self.cols,
                Layout::RowMajor,
                &self.data,
            )
            .unwrap()
        } else {
            let v: Vec<u32> = self.data.iter().map(|&x| x as u32).collect();
            Buffer::from_host(
                ctx,
                field,
                self.ext,
                self.rows,
                self.cols,
                Layout::RowMajor,
                &v,
            )
            .unwrap()
        }
    }
}

/// Naive recursive MerkleTreeMmcs: node(k, i) is node i of the layer k
/// levels above the leaves; matrices of height h enter at the layer of h
/// nodes.
struct RefTree<'a> {
    perm: &'a RefPerm,
    mats: Vec<&'a Mat>,
    rate: usize,
    digest: usize,
    max_h: usize,
}

impl<'a> RefTree<'a> {
    fn new(perm: &'a RefPerm, mats: Vec<&'a Mat>, rate: usize, digest: usize) -> RefTree<'a> {
        let max_h = mats.iter().map(|m| m.rows).max().unwrap();
        RefTree {
            perm,
            mats,
            rate,
            digest,
            max_h,
        }
    }

    fn rows_of_height(&self, h: usize, i: usize) -> Option<Vec<u64>> {
        let mut out = Vec::new();
        let mut any = false;
        for m in self.mats.iter().filter(|m| m.rows == h) {
            out.extend_from_slice(m.row(i));
            any = true;
        }
        if any {
            Some(out)
        } else {
            None
        }
    }

    fn node(&self, k: u32, i: usize) -> Vec<u64> {
        if k == 0 {
            let row = self.rows_of_height(self.max_h, i).unwrap();
            return self.perm.sponge(self.rate, self.digest, &row);
        }
        let node = self
            .perm
            .compress(&self.node(k - 1, 2 * i), &self.node(k - 1, 2 * i + 1));
        match self.rows_of_height(self.max_h >> k, i) {
            Some(row) => self
                .perm
                .compress(&node, &self.perm.sponge(self.rate, self.digest, &row)),
            None => node,
        }
    }

    fn log_h(&self) -> u32 {
        self.max_h.trailing_zeros()
    }

    fn cap(&self, cap_height: u32) -> Vec<u64> {
        let k = self.log_h() - cap_height;
        (0..1usize << cap_height)
            .flat_map(|i| self.node(k, i))
            .collect()
    }
}

fn words(field: Field, bytes: &[u8]) -> Vec<u64> {
    if field == Field::Goldilocks {
        elements_from_le_bytes::<u64>(bytes)
    } else {
        elements_from_le_bytes::<u32>(bytes)
            .into_iter()
            .map(u64::from)
            .collect()
    }
}

#[test]
fn roots_and_caps_match_a_naive_mmcs() {
    let ctx = cpu();
    // (field, perm, rate, digest, matrices (rows, cols, ext))
    type Case<'a> = (Field, Permutation, usize, usize, &'a [(usize, usize, u32)]);
    let cases: &[Case<'_>] = &[
        (
            Field::Goldilocks,
            Permutation::Poseidon2Goldilocks8,
            4,
            4,
            &[(16, 3, 1)],
        ),
        (
            Field::Goldilocks,
            Permutation::Poseidon2Goldilocks8,
            4,
            4,
            &[(8, 2, 1), (16, 5, 1), (4, 1, 2), (16, 1, 3)],
        ),
        (
            Field::KoalaBear,
            Permutation::Poseidon2KoalaBear16,
            8,
            8,
            &[(32, 9, 1), (8, 3, 4)],
        ),
        (
            Field::BabyBear,
            Permutation::Poseidon2BabyBear16,
            8,
            8,
            &[(8, 8, 1)],
        ),
    ];
    let mut rng = Rng::new(7000);
    for &(field, perm, rate, digest, specs) in cases {
        let mats: Vec<Mat> = specs
            .iter()
            .map(|&(r, c, e)| Mat::random(&mut rng, field, r, c, e))
            .collect();
        let bufs: Vec<Buffer> = mats.iter().map(|m| m.upload(&ctx, field)).collect();
        let buf_refs: Vec<&Buffer> = bufs.iter().collect();
        let reference = RefPerm::new(perm);
        let tree_ref = RefTree::new(&reference, mats.iter().collect(), rate, digest);
        let least = specs.iter().map(|s| s.0).min().unwrap();
        for cap_height in 0..=least.trailing_zeros() {
            let options = MerkleOptions {
                cap_height,
                ..MerkleOptions::default() // perm: Plonky3's Poseidon2 for the field
            };
            let tree = ctx.merkle_commit(&buf_refs, &options).unwrap();
            assert_eq!(tree.options().perm, Some(perm));
            assert_eq!(tree.digest_size(), digest * field.element_size());
            assert_eq!(tree.cap_size(), tree.digest_size() << cap_height);
            let cap = tree.cap().unwrap();
            assert_eq!(
                words(field, &cap),
                tree_ref.cap(cap_height),
                "{:?} {:?} cap_height {}",
                field,
                specs,
                cap_height
            );
            assert_eq!(words(field, &tree.root().unwrap()), tree_ref.cap(0));
        }
    }
}

#[test]
fn plonky3_poseidon2_defaults_per_field() {
    for (field, perm) in [
        (Field::Goldilocks, Permutation::Poseidon2Goldilocks8),
        (Field::BabyBear, Permutation::Poseidon2BabyBear16),
        (Field::KoalaBear, Permutation::Poseidon2KoalaBear16),
    ] {
        let o = MerkleOptions::plonky3_poseidon2(field);
        assert_eq!(o.perm, Some(perm));
        assert_eq!(MerkleOptions::default().permutation_for(field), perm);
        assert_eq!(o.kind, MerkleKind::FieldSponge);
        assert_eq!((o.digest, o.rate, o.cap_height), (0, 0, 0));
    }
    let miden = MerkleOptions {
        kind: MerkleKind::Miden,
        ..MerkleOptions::default()
    };
    assert_eq!(
        miden.permutation_for(Field::Goldilocks),
        Permutation::Rpo256
    );
    let keccak = MerkleOptions {
        kind: MerkleKind::KeccakPlonky3,
        ..MerkleOptions::default()
    };
    assert_eq!(
        keccak.permutation_for(Field::BabyBear),
        Permutation::KeccakF1600
    );
}

#[test]
fn commit_an_lde_then_open_and_verify() {
    let ctx = cpu();
    let (rows, cols, blowup) = (32usize, 4usize, 4usize);
    let trace = Rng::new(7100).vec(rows * cols, GOLDILOCKS_P);
    let mut lde = Buffer::new(&ctx, Field::Goldilocks, 1, rows * blowup, cols).unwrap();
    let lde_options = LdeOptions {
        blowup: blowup as u32,
        output_order: Order::BitReversed,
        ..LdeOptions::default()
    };
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        rows,
        cols,
        &lde_options,
        &mut lde,
    )
    .unwrap();
    let values: Vec<u64> = lde.to_vec(Layout::RowMajor).unwrap();

    let tree = ctx
        .merkle_commit(&[&lde], &MerkleOptions::default())
        .unwrap();
    let root = tree.root().unwrap();
    assert_eq!(root.len(), 32);
    assert_eq!(tree.cap().unwrap(), root); // cap height 0: the cap is the root
    assert_eq!(tree.dims(), &[MatrixDims::of(&lde)]);
    let (row_bytes, path_bytes) = tree.opening_size().unwrap();
    assert_eq!(row_bytes, cols * 8);
    assert_eq!(path_bytes, 7 * 32); // log2(128) siblings

    let indices = [0usize, 1, 77, rows * blowup - 1];
    let openings = tree.open::<u64>(&indices).unwrap();
    assert_eq!(openings.len(), indices.len());
    for o in &openings {
        assert_eq!(o.rows, values[o.index * cols..(o.index + 1) * cols]);
        assert_eq!(o.path.len(), path_bytes);
        tree.verify(o).unwrap();
        merkle_verify(
            &MerkleOptions::default(),
            Field::Goldilocks,
            &[MatrixDims {
                rows: rows * blowup,
                cols,
                ext_degree: 1,
            }],
            &root,
            o.index,
            &o.rows,
            &o.path,
        )
        .unwrap();
    }

    // Any flipped byte of the path, a changed row value, another index or
    // another root fails with GP_ERR_VERIFY_FAILED.
    let o = &openings[2];
    let verify = |rows: &[u64], path: &[u8], index: usize, cap: &[u8]| {
        merkle_verify(
            tree.options(),
            Field::Goldilocks,
            tree.dims(),
            cap,
            index,
            rows,
            path,
        )
    };
    for byte in [0, 31, 100, path_bytes - 1] {
        let mut path = o.path.clone();
        path[byte] ^= 1;
        let err = verify(&o.rows, &path, o.index, &root).unwrap_err();
        assert_eq!(err.status(), Status::VerifyFailed, "{}", err);
        assert!(
            err.to_string().starts_with("GP_ERR_VERIFY_FAILED: "),
            "{}",
            err
        );
    }
    let mut bad_rows = o.rows.clone();
    bad_rows[1] = (bad_rows[1] + 1) % GOLDILOCKS_P;
    assert_eq!(
        verify(&bad_rows, &o.path, o.index, &root)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    assert_eq!(
        verify(&o.rows, &o.path, o.index ^ 1, &root)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    let mut bad_root = root.clone();
    bad_root[5] ^= 0x80;
    assert_eq!(
        verify(&o.rows, &o.path, o.index, &bad_root)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    // The unchanged opening still verifies.
    verify(&o.rows, &o.path, o.index, &root).unwrap();
}

#[test]
fn mixed_heights_cap_and_openings() {
    let ctx = cpu();
    let mut rng = Rng::new(7200);
    let field = Field::KoalaBear;
    let a = Mat::random(&mut rng, field, 64, 3, 1);
    let b = Mat::random(&mut rng, field, 16, 2, 4);
    let (ba, bb) = (a.upload(&ctx, field), b.upload(&ctx, field));
    let options = MerkleOptions {
        cap_height: 2,
        ..MerkleOptions::default()
    };
    let tree = ctx.merkle_commit(&[&ba, &bb], &options).unwrap();
    assert_eq!(tree.cap_size(), 4 * 32);
    let (row_bytes, path_bytes) = tree.opening_size().unwrap();
    assert_eq!(row_bytes, (3 + 2 * 4) * 4);
    assert_eq!(path_bytes, (6 - 2) * 32);
    let openings = tree.open::<u32>(&[0, 13, 63]).unwrap();
    for o in &openings {
        let mut want: Vec<u32> = a.row(o.index).iter().map(|&x| x as u32).collect();
        want.extend(b.row(o.index >> 2).iter().map(|&x| x as u32));
        assert_eq!(o.rows, want);
        tree.verify(o).unwrap();
    }
    let mut o = openings[1].clone();
    o.rows[5] = (o.rows[5] + 1) % KOALABEAR_P as u32;
    assert_eq!(tree.verify(&o).unwrap_err().status(), Status::VerifyFailed);
}

#[test]
fn hash_rows_is_the_leaf_sponge() {
    let ctx = cpu();
    let mut rng = Rng::new(7300);
    let field = Field::BabyBear;
    let a = Mat::random(&mut rng, field, 8, 5, 1);
    let b = Mat::random(&mut rng, field, 8, 3, 4);
    let (ba, bb) = (a.upload(&ctx, field), b.upload(&ctx, field));
    let digests = ctx
        .merkle_hash_rows(&[&ba, &bb], &MerkleOptions::default())
        .unwrap();
    assert_eq!(digests.len(), 8 * 32);
    let reference = RefPerm::new(Permutation::Poseidon2BabyBear16);
    for i in 0..8 {
        let mut row = a.row(i).to_vec();
        row.extend_from_slice(b.row(i));
        assert_eq!(
            words(field, &digests[i * 32..(i + 1) * 32]),
            reference.sponge(8, 8, &row),
            "row {}",
            i
        );
    }
}

#[test]
fn other_profiles_commit_open_and_verify() {
    let ctx = cpu();
    let mut rng = Rng::new(7400);
    let cases = [
        (Field::Goldilocks, MerkleKind::Miden, None),
        (
            Field::Goldilocks,
            MerkleKind::MidenV0_11,
            Some(Permutation::Rpx256),
        ),
        (Field::Goldilocks, MerkleKind::MidenV0_10, None),
        (Field::Goldilocks, MerkleKind::KeccakPlonky3, None),
        (Field::BabyBear, MerkleKind::KeccakPlonky3, None),
        (Field::Goldilocks, MerkleKind::KeccakBe, None),
        (
            Field::Goldilocks,
            MerkleKind::FieldSponge,
            Some(Permutation::Poseidon2Goldilocks12),
        ),
    ];
    for (field, kind, perm) in cases {
        let m = Mat::random(&mut rng, field, 16, 3, 1);
        let buf = m.upload(&ctx, field);
        let options = MerkleOptions {
            kind,
            perm,
            cap_height: 1,
            ..MerkleOptions::default()
        };
        let tree = ctx.merkle_commit(&[&buf], &options).unwrap();
        assert_eq!(tree.digest_size(), 32, "{:?}", kind);
        assert_eq!(tree.cap().unwrap().len(), 64);
        let leaves = ctx.merkle_hash_rows(&[&buf], &options).unwrap();
        assert_eq!(leaves.len(), 16 * 32);
        let (_, path_bytes) = tree.opening_size().unwrap();
        assert_eq!(path_bytes, 3 * 32);
        if field == Field::Goldilocks {
            for o in tree.open::<u64>(&[0, 9, 15]).unwrap() {
                tree.verify(&o).unwrap();
                let mut bad = o.clone();
                bad.path[7] ^= 4;
                assert_eq!(
                    tree.verify(&bad).unwrap_err().status(),
                    Status::VerifyFailed
                );
            }
        } else {
            for o in tree.open::<u32>(&[3, 12]).unwrap() {
                tree.verify(&o).unwrap();
                let mut bad = o.clone();
                bad.path[0] ^= 1;
                assert_eq!(
                    tree.verify(&bad).unwrap_err().status(),
                    Status::VerifyFailed
                );
            }
        }
    }
}

#[test]
fn keccak_u64_commits_opens_and_verifies() {
    let ctx = cpu();
    let mut rng = Rng::new(7450);
    let field = Field::Goldilocks;
    let (rows, cols) = (16usize, 3usize);
    let m = Mat::random(&mut rng, field, rows, cols, 1);
    let buf = m.upload(&ctx, field);
    let u64_options = MerkleOptions {
        kind: MerkleKind::KeccakU64,
        ..MerkleOptions::default()
    };
    assert_eq!(u64_options.permutation_for(field), Permutation::KeccakF1600);
    let tree = ctx.merkle_commit(&[&buf], &u64_options).unwrap();
    let root = tree.root().unwrap();
    assert_eq!(root.len(), 32);
    assert_eq!(tree.digest_size(), 32);
    let plonky3 = ctx
        .merkle_commit(
            &[&buf],
            &MerkleOptions {
                kind: MerkleKind::KeccakPlonky3,
                ..MerkleOptions::default()
            },
        )
        .unwrap();
    assert_ne!(root, plonky3.root().unwrap());
    let (_, path_bytes) = tree.opening_size().unwrap();
    assert_eq!(path_bytes, 4 * 32);
    for o in tree.open::<u64>(&[0, 5, rows - 1]).unwrap() {
        assert_eq!(o.rows, m.row(o.index));
        verify_opening_and_tamper(&tree, field, &root, &o, 9, 2);
    }
}

#[test]
fn split_compression_permutation() {
    let ctx = cpu();
    let mut rng = Rng::new(7460);
    let field = Field::BabyBear;
    let buf = Mat::random(&mut rng, field, 16, 20, 1).upload(&ctx, field);
    let same = MerkleOptions {
        perm: Some(Permutation::Poseidon2BabyBear24),
        rate: 16,
        digest: 8,
        ..MerkleOptions::default()
    };
    assert_eq!(same.compress_perm, None);
    let split = MerkleOptions {
        compress_perm: Some(Permutation::Poseidon2BabyBear16),
        ..same
    };
    let tree = ctx.merkle_commit(&[&buf], &split).unwrap();
    let root = tree.root().unwrap();
    assert_eq!(root.len(), 32);
    assert_ne!(
        root,
        ctx.merkle_commit(&[&buf], &same).unwrap().root().unwrap()
    );
    for o in tree.open::<u32>(&[0, 11]).unwrap() {
        tree.verify(&o).unwrap();
    }
    // Sponge 16 with compression 24 is not an offered pair.
    let err = ctx
        .merkle_commit(
            &[&buf],
            &MerkleOptions {
                perm: Some(Permutation::Poseidon2BabyBear16),
                compress_perm: Some(Permutation::Poseidon2BabyBear24),
                rate: 8,
                digest: 8,
                ..MerkleOptions::default()
            },
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::Unsupported, "{}", err);
}

#[test]
fn merkle_error_paths() {
    let ctx = cpu();
    let other = cpu();
    let mut rng = Rng::new(7500);
    let gl = Mat::random(&mut rng, Field::Goldilocks, 8, 2, 1).upload(&ctx, Field::Goldilocks);
    let gl4 = Mat::random(&mut rng, Field::Goldilocks, 4, 2, 1).upload(&ctx, Field::Goldilocks);
    let bb = Mat::random(&mut rng, Field::BabyBear, 8, 2, 1).upload(&ctx, Field::BabyBear);
    let foreign =
        Mat::random(&mut rng, Field::Goldilocks, 8, 2, 1).upload(&other, Field::Goldilocks);
    let odd = Buffer::new(&ctx, Field::Goldilocks, 1, 6, 2).unwrap();
    let d = MerkleOptions::default();

    let status = |r: gpuprover::Result<gpuprover::MerkleTree>| r.unwrap_err().status();
    assert_eq!(status(ctx.merkle_commit(&[], &d)), Status::InvalidArgument);
    assert_eq!(
        status(ctx.merkle_commit(&[&gl, &bb], &d)),
        Status::FieldMismatch
    );
    assert_eq!(
        status(ctx.merkle_commit(&[&foreign], &d)),
        Status::ContextMismatch
    );
    // Plonky3's MMCS kinds take any height; the Miden trees powers of two.
    assert_eq!(
        status(ctx.merkle_commit(
            &[&odd],
            &MerkleOptions {
                kind: MerkleKind::Miden,
                ..d
            }
        )),
        Status::InvalidArgument
    );
    let err = ctx
        .merkle_commit(&[&gl], &MerkleOptions { cap_height: 4, ..d })
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("cap_height"), "{}", err);
    // A field permutation of another field, Keccak-f as a field sponge,
    // digest too large, one height only for Miden, KeccakBe over BabyBear.
    let bad = [
        (
            &gl,
            MerkleOptions {
                perm: Some(Permutation::Poseidon2BabyBear16),
                ..d
            },
            Status::FieldMismatch,
        ),
        (
            &gl,
            MerkleOptions {
                perm: Some(Permutation::KeccakF1600),
                ..d
            },
            Status::InvalidArgument,
        ),
        (
            &gl,
            MerkleOptions { digest: 5, ..d },
            Status::InvalidArgument,
        ),
        (
            &bb,
            MerkleOptions {
                kind: MerkleKind::KeccakBe,
                ..d
            },
            Status::Unsupported,
        ),
    ];
    for (buf, options, want) in bad {
        let err = ctx.merkle_commit(&[buf], &options).unwrap_err();
        assert_eq!(err.status(), want, "{:?}: {}", options, err);
    }
    let miden = MerkleOptions {
        kind: MerkleKind::Miden,
        ..d
    };
    assert_eq!(
        status(ctx.merkle_commit(&[&gl, &gl4], &miden)),
        Status::ShapeMismatch
    );
    assert_eq!(
        ctx.merkle_hash_rows(&[&gl, &gl4], &d).unwrap_err().status(),
        Status::ShapeMismatch
    );

    let tree = ctx.merkle_commit(&[&gl, &gl4], &d).unwrap();
    // Open: index past the end, wrong element type.
    let err = tree.open::<u64>(&[8]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("indices[0] = 8"), "{}", err);
    assert_eq!(
        tree.open::<u32>(&[0]).unwrap_err().status(),
        Status::FieldMismatch
    );
    assert!(tree.open::<u64>(&[]).unwrap().is_empty());

    // Verify: malformed sizes are not verification failures.
    let o = tree.open::<u64>(&[3]).unwrap().remove(0);
    let cap = tree.cap().unwrap();
    let dims = tree.dims().to_vec();
    let err =
        merkle_verify(&d, Field::Goldilocks, &dims, &cap, 3, &o.rows[1..], &o.path).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch);
    let err =
        merkle_verify(&d, Field::Goldilocks, &dims, &cap, 3, &o.rows, &o.path[1..]).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
    let err = merkle_verify(
        &d,
        Field::Goldilocks,
        &dims,
        &cap[..31],
        3,
        &o.rows,
        &o.path,
    )
    .unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
    let err = merkle_verify(&d, Field::Goldilocks, &dims, &cap, 8, &o.rows, &o.path).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    let mut rows = o.rows.clone();
    rows[0] = GOLDILOCKS_P;
    let err = merkle_verify(&d, Field::Goldilocks, &dims, &cap, 3, &rows, &o.path).unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    let err = merkle_verify(&d, Field::Goldilocks, &[], &cap, 3, &o.rows, &o.path).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    let err = merkle_verify(&d, Field::BabyBear, &dims, &cap, 3, &o.rows, &o.path).unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch);

    // Everything still works after the failures.
    tree.verify(&o).unwrap();
    assert_eq!(tree.root().unwrap().len(), 32);
}

#[test]
fn trees_and_contexts_move_together() {
    // A tree borrows its context and matrices; everything can be moved to
    // another thread together.
    let handle = std::thread::spawn(|| {
        let ctx = cpu();
        let m = Rng::new(7600).vec(16, GOLDILOCKS_P);
        let buf =
            Buffer::from_host(&ctx, Field::Goldilocks, 1, 8, 2, Layout::RowMajor, &m).unwrap();
        let tree = ctx
            .merkle_commit(&[&buf], &MerkleOptions::default())
            .unwrap();
        tree.root().unwrap()
    });
    assert_eq!(handle.join().unwrap().len(), 32);
}

#[test]
fn pair_leaves_hash_two_rows_per_leaf() {
    // leaf_rows = 2 (lambdaworks' composition and FRI layer trees): leaf i
    // hashes row 2i then row 2i + 1, the tree of the even rows committed
    // beside the odd rows.
    let ctx = cpu();
    let mut rng = Rng::new(7480);
    let field = Field::Goldilocks;
    let (rows, cols) = (16usize, 3usize);
    let m = Mat::random(&mut rng, field, rows, cols, 1);
    let half = |parity: usize| Mat {
        rows: rows / 2,
        cols,
        ext: 1,
        data: (0..rows)
            .filter(|r| r % 2 == parity)
            .flat_map(|r| m.row(r).to_vec())
            .collect(),
    };
    let (even, odd) = (half(0).upload(&ctx, field), half(1).upload(&ctx, field));
    let buf = m.upload(&ctx, field);
    let pairs = MerkleOptions {
        kind: MerkleKind::KeccakBe,
        leaf_rows: 2,
        ..MerkleOptions::default()
    };
    let split = MerkleOptions {
        kind: MerkleKind::KeccakBe,
        ..MerkleOptions::default()
    };
    assert_eq!(MerkleOptions::default().leaf_rows, 0);
    let tree = ctx.merkle_commit(&[&buf], &pairs).unwrap();
    let reference = ctx.merkle_commit(&[&even, &odd], &split).unwrap();
    assert_eq!(tree.root().unwrap(), reference.root().unwrap());
    assert_eq!(tree.options().leaf_rows, 2);
    let cap = tree.cap().unwrap();
    for o in tree.open::<u64>(&[0, 3, rows / 2 - 1]).unwrap() {
        let mut want = m.row(2 * o.index).to_vec();
        want.extend_from_slice(m.row(2 * o.index + 1));
        assert_eq!(o.rows, want, "index {}", o.index);
        assert_eq!(o.path.len(), 3 * 32);
        tree.verify(&o).unwrap();
        merkle_verify(&pairs, field, tree.dims(), &cap, o.index, &o.rows, &o.path).unwrap();
        // One row is not a leaf of two.
        let err = merkle_verify(
            &pairs,
            field,
            tree.dims(),
            &cap,
            o.index,
            &o.rows[..cols],
            &o.path,
        )
        .unwrap_err();
        assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
        let mut tampered = o.rows.clone();
        tampered[cols + 1] = (tampered[cols + 1] + 1) % GOLDILOCKS_P;
        let err = merkle_verify(
            &pairs,
            field,
            tree.dims(),
            &cap,
            o.index,
            &tampered,
            &o.path,
        )
        .unwrap_err();
        assert_eq!(err.status(), Status::VerifyFailed, "{}", err);
    }
    let leaves = ctx.merkle_hash_rows(&[&buf], &pairs).unwrap();
    assert_eq!(leaves.len(), rows / 2 * 32);
    assert_eq!(
        leaves,
        ctx.merkle_hash_rows(&[&even, &odd], &split).unwrap()
    );
}
