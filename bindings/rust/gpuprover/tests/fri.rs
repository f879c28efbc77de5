// SPDX-License-Identifier: MIT OR Apache-2.0
//! FRI: step-wise folds against a naive arity-2 fold written here, layer
//! caps against Merkle commitments of the naive layers, the closure form of
//! the commit phase, openings and their verification, and the error paths.
mod common;

use common::*;
use gpuprover::{
    fri_verify, Buffer, Field, FriFold, FriOptions, Layout, MerkleKind, MerkleOptions, Order,
    Status,
};

const BABYBEAR_P: u64 = 0x7800_0001;

/// One arity-2 fold of a Goldilocks layer (base field): positions of a group
/// hold f(x) and f(-x); the folded value is
/// (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x) (halved) or twice that.
fn naive_fold(layer: &[u64], beta: u64, shift_k: u64, bitrev: bool, halve: bool) -> Vec<u64> {
    let p = GOLDILOCKS_P;
    let m = layer.len();
    let log_m = m.trailing_zeros();
    let w = goldilocks_root(log_m);
    let half = m / 2;
    let two_inv = inv(2, p);
    (0..half)
        .map(|g| {
            let (a, b, e) = if bitrev {
                (layer[2 * g], layer[2 * g + 1], bit_reverse(g, log_m - 1))
            } else {
                (layer[g], layer[g + half], g)
            };
            let x = mul(shift_k, pow(w, e as u64, p), p);
            let even = add(a, b, p);
            let odd = mul(sub(a, b, p), inv(x, p), p);
            let v = add(even, mul(beta, odd, p), p);
            if halve {
                mul(v, two_inv, p)
            } else {
                v
            }
        })
        .collect()
}

/// A layer as the matrix its tree commits: row g is the group folded into
/// position g of the next layer.
fn layer_matrix(layer: &[u64], bitrev: bool) -> Vec<u64> {
    let half = layer.len() / 2;
    if bitrev {
        layer.to_vec()
    } else {
        (0..half)
            .flat_map(|g| [layer[g], layer[g + half]])
            .collect()
    }
}

fn derive_beta(cap: &[u8], layer: u32, c: usize, p: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in cap
        .iter()
        .chain(layer.to_le_bytes().iter())
        .chain((c as u32).to_le_bytes().iter())
    {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h % p
}

#[test]
fn stepwise_folds_match_a_naive_fold() {
    let ctx = cpu();
    let n = 64usize;
    let mut rng = Rng::new(8000);
    for bitrev in [true, false] {
        for (shift, fold) in [(1u64, FriFold::Halved), (7, FriFold::Unhalved)] {
            let codeword = rng.vec(n, GOLDILOCKS_P);
            let options = FriOptions {
                final_size: 4,
                order: if bitrev {
                    Order::BitReversed
                } else {
                    Order::Natural
                },
                shift,
                fold,
                merkle: MerkleOptions {
                    cap_height: 1,
                    ..MerkleOptions::default()
                },
                ..FriOptions::default()
            };
            let buf = goldilocks_columns(&ctx, &codeword, n, 1);
            let mut fri = ctx.fri_begin(&buf, &options).unwrap();
            drop(buf); // the codeword is copied
            assert_eq!(fri.layer_count(), 4);
            assert_eq!(fri.cap_size(), 2 * 32);
            assert_eq!(fri.caps().len(), 64);
            assert_eq!(fri.remainder_size(), 4 * 8);

            let mut layer = codeword.clone();
            let mut shift_k = shift;
            for k in 0..4u32 {
                // The cap of layer k is the cap of its group matrix.
                let m = layer.len();
                let mat = layer_matrix(&layer, bitrev);
                let mbuf =
                    Buffer::from_host(&ctx, Field::Goldilocks, 1, m / 2, 2, Layout::RowMajor, &mat)
                        .unwrap();
                let tree = ctx.merkle_commit(&[&mbuf], &options.merkle).unwrap();
                assert_eq!(fri.cap(k).unwrap(), &tree.cap().unwrap()[..], "layer {}", k);
                drop(tree);

                let beta = rng.field(GOLDILOCKS_P);
                fri.fold(&[beta]).unwrap();
                assert_eq!(fri.folded(), k + 1);
                layer = naive_fold(&layer, beta, shift_k, bitrev, fold == FriFold::Halved);
                shift_k = mul(shift_k, shift_k, GOLDILOCKS_P);
            }
            assert_eq!(fri.caps().len(), 4 * 64);
            assert_eq!(fri.remainder::<u64>().unwrap(), layer);
        }
    }
}

#[test]
fn constant_codewords_fold_to_constants() {
    let ctx = cpu();
    // (field, ext, arity, n, final_size, fold): a constant c folds to c
    // (halved) or to c * arity^layers (unhalved).
    let cases = [
        (
            Field::BabyBear,
            4u32,
            4u32,
            256usize,
            4usize,
            FriFold::Halved,
        ),
        (Field::Goldilocks, 3, 8, 512, 1, FriFold::Halved),
        (Field::KoalaBear, 4, 2, 32, 2, FriFold::Unhalved),
    ];
    for (field, ext, arity, n, final_size, fold) in cases {
        let p = field.modulus();
        let c: Vec<u64> = (0..ext as u64).map(|i| (1000 + 17 * i) % p).collect();
        let options = FriOptions {
            arity,
            final_size,
            fold,
            ..FriOptions::default()
        };
        let data: Vec<u64> = (0..n).flat_map(|_| c.iter().copied()).collect();
        let mut rng = Rng::new(8100 + n as u64);
        let remainder: Vec<u64> = if field == Field::Goldilocks {
            let mut fri = ctx.fri_begin_host(field, ext, &data, &options).unwrap();
            for _ in 0..fri.layer_count() {
                fri.fold(&rng.vec(ext as usize, p)).unwrap();
            }
            fri.remainder::<u64>().unwrap()
        } else {
            let d32: Vec<u32> = data.iter().map(|&x| x as u32).collect();
            let mut fri = ctx.fri_begin_host(field, ext, &d32, &options).unwrap();
            for _ in 0..fri.layer_count() {
                let beta: Vec<u32> = rng.vec(ext as usize, p).iter().map(|&x| x as u32).collect();
                fri.fold(&beta).unwrap();
            }
            fri.remainder::<u32>()
                .unwrap()
                .into_iter()
                .map(u64::from)
                .collect()
        };
        let layers = (n / final_size).trailing_zeros() / arity.trailing_zeros();
        let factor = if fold == FriFold::Halved {
            1
        } else {
            pow(arity as u64, layers as u64, p)
        };
        let want: Vec<u64> = (0..final_size)
            .flat_map(|_| c.iter().map(|&x| mul(x, factor, p)))
            .collect();
        assert_eq!(remainder, want, "{:?} ext {} arity {}", field, ext, arity);
    }
}

#[test]
fn begin_host_equals_begin() {
    let ctx = cpu();
    let n = 128;
    let data: Vec<u32> = Rng::new(8200)
        .vec(n * 4, BABYBEAR_P)
        .iter()
        .map(|&x| x as u32)
        .collect();
    let options = FriOptions {
        arity: 4,
        final_size: 8,
        merkle: MerkleOptions {
            cap_height: 2,
            ..MerkleOptions::default()
        },
        ..FriOptions::default()
    };
    let buf = Buffer::from_host(&ctx, Field::BabyBear, 4, n, 1, Layout::RowMajor, &data).unwrap();
    let a = ctx.fri_begin(&buf, &options).unwrap();
    let b = ctx
        .fri_begin_host(Field::BabyBear, 4, &data, &options)
        .unwrap();
    assert_eq!(a.caps(), b.caps());
    assert_eq!(a.cap_size(), 4 * 32);
    assert_eq!(a.layer_count(), 2);
    assert_eq!(
        (a.len(), a.ext_degree(), a.field()),
        (n, 4, Field::BabyBear)
    );
}

#[test]
fn commit_with_a_closure_equals_stepwise() {
    let ctx = cpu();
    // (field, ext, arity, order, n, final_size, cap_height, kind)
    let cases = [
        (
            Field::Goldilocks,
            2u32,
            2u32,
            Order::BitReversed,
            128usize,
            1usize,
            0u32,
            MerkleKind::FieldSponge,
        ),
        (
            Field::KoalaBear,
            4,
            4,
            Order::Natural,
            256,
            4,
            1,
            MerkleKind::FieldSponge,
        ),
        (
            Field::Goldilocks,
            1,
            8,
            Order::BitReversed,
            512,
            8,
            2,
            MerkleKind::KeccakPlonky3,
        ),
    ];
    for (field, ext, arity, order, n, final_size, cap_height, kind) in cases {
        let p = field.modulus();
        let options = FriOptions {
            arity,
            final_size,
            order,
            shift: 1,
            merkle: MerkleOptions {
                kind,
                cap_height,
                ..MerkleOptions::default()
            },
            ..FriOptions::default()
        };
        let values = Rng::new(8300 + n as u64).vec(n * ext as usize, p);
        macro_rules! run {
            ($t:ty) => {{
                let data: Vec<$t> = values.iter().map(|&x| x as $t).collect();
                let buf =
                    Buffer::from_host(&ctx, field, ext, n, 1, Layout::RowMajor, &data).unwrap();
                let mut calls = Vec::new();
                let committed = ctx
                    .fri_commit(&buf, &options, |layer, cap: &[u8], beta: &mut [$t]| {
                        calls.push((layer, cap.to_vec()));
                        for (c, b) in beta.iter_mut().enumerate() {
                            *b = derive_beta(cap, layer, c, p) as $t;
                        }
                        Ok(())
                    })
                    .unwrap();
                let layers = committed.layer_count();
                assert_eq!(calls.len(), layers as usize);
                assert_eq!(committed.folded(), layers);

                let mut stepped = ctx.fri_begin(&buf, &options).unwrap();
                for k in 0..layers {
                    let cap = stepped.cap(k).unwrap().to_vec();
                    assert_eq!(calls[k as usize], (k, cap.clone()));
                    let beta: Vec<$t> = (0..ext as usize)
                        .map(|c| derive_beta(&cap, k, c, p) as $t)
                        .collect();
                    stepped.fold(&beta).unwrap();
                }
                assert_eq!(committed.caps(), stepped.caps());
                assert_eq!(
                    committed.betas::<$t>().unwrap(),
                    stepped.betas::<$t>().unwrap()
                );
                let remainder = committed.remainder::<$t>().unwrap();
                assert_eq!(remainder, stepped.remainder::<$t>().unwrap());
                assert_eq!(remainder.len(), final_size * ext as usize);

                // Openings are the same and verify, through the handle and
                // through the free function.
                let indices = [0, n - 1, 37 % n, 5];
                let o1 = committed.open(&indices).unwrap();
                let o2 = stepped.open(&indices).unwrap();
                assert_eq!(o1, o2);
                let betas = committed.betas::<$t>().unwrap();
                for (&i, o) in indices.iter().zip(&o1) {
                    assert_eq!(o.len(), committed.opening_size());
                    committed.verify(i, o).unwrap();
                    fri_verify(
                        &options,
                        field,
                        ext,
                        n,
                        committed.caps(),
                        &betas,
                        &remainder,
                        i,
                        o,
                    )
                    .unwrap();
                }
            }};
        }
        if field == Field::Goldilocks {
            run!(u64)
        } else {
            run!(u32)
        }
    }
}

#[test]
fn flipped_openings_fail_to_verify() {
    let ctx = cpu();
    let n = 256;
    let codeword = Rng::new(8400).vec(2 * n, GOLDILOCKS_P);
    let options = FriOptions {
        arity: 4,
        final_size: 4,
        merkle: MerkleOptions {
            cap_height: 1,
            ..MerkleOptions::default()
        },
        ..FriOptions::default()
    };
    let mut fri = ctx
        .fri_begin_host(Field::Goldilocks, 2, &codeword, &options)
        .unwrap();
    let mut rng = Rng::new(8401);
    while fri.folded() < fri.layer_count() {
        fri.fold(&rng.vec(2, GOLDILOCKS_P)).unwrap();
    }
    let remainder = fri.remainder::<u64>().unwrap();
    let betas = fri.betas::<u64>().unwrap();
    let index = 147;
    let opening = fri.open(&[index]).unwrap().remove(0);
    fri.verify(index, &opening).unwrap();
    let verify = |caps: &[u8], betas: &[u64], remainder: &[u64], index: usize, opening: &[u8]| {
        fri_verify(
            &options,
            Field::Goldilocks,
            2,
            n,
            caps,
            betas,
            remainder,
            index,
            opening,
        )
    };
    verify(fri.caps(), &betas, &remainder, index, &opening).unwrap();
    for byte in [0, 14, 16, 64, opening.len() / 2, opening.len() - 1] {
        let mut bad = opening.clone();
        bad[byte] ^= 1;
        let err = verify(fri.caps(), &betas, &remainder, index, &bad).unwrap_err();
        // Low bits of canonical values (they stay canonical) or digest bytes.
        assert_eq!(err.status(), Status::VerifyFailed, "byte {}: {}", byte, err);
    }
    // Layer 0 has 64 groups under a cap of two digests; index 147 is in
    // group 36, under the second digest (bytes 32..64). The first one is not
    // read for this query.
    let mut caps = fri.caps().to_vec();
    caps[3] ^= 0x10;
    verify(&caps, &betas, &remainder, index, &opening).unwrap();
    caps[35] ^= 0x10;
    assert_eq!(
        verify(&caps, &betas, &remainder, index, &opening)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    let mut b = betas.clone();
    b[1] = (b[1] + 1) % GOLDILOCKS_P;
    assert_eq!(
        verify(fri.caps(), &b, &remainder, index, &opening)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    // Index 147's last fold reads one remainder element; change them all.
    let mut r = remainder.clone();
    for x in r.iter_mut() {
        *x = (*x + 1) % GOLDILOCKS_P;
    }
    assert_eq!(
        verify(fri.caps(), &betas, &r, index, &opening)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    // Index 146 shares every group with 147 (bit-reversed order, arity 4),
    // so the opening is valid for it too; 151 is in another group.
    verify(fri.caps(), &betas, &remainder, index ^ 1, &opening).unwrap();
    assert_eq!(
        verify(fri.caps(), &betas, &remainder, index ^ 4, &opening)
            .unwrap_err()
            .status(),
        Status::VerifyFailed
    );
    // Malformed sizes are not verification failures.
    let err = verify(fri.caps(), &betas, &remainder, index, &opening[1..]).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
    let err = verify(&fri.caps()[1..], &betas, &remainder, index, &opening).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
    let err = verify(fri.caps(), &betas[1..], &remainder, index, &opening).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
    let err = verify(fri.caps(), &betas, &remainder, n, &opening).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
}

#[test]
fn closure_errors_stop_the_commitment() {
    let ctx = cpu();
    let n = 64;
    let codeword = Rng::new(8500).vec(n, GOLDILOCKS_P);
    let buf = goldilocks_columns(&ctx, &codeword, n, 1);
    let options = FriOptions::default();
    for (stop_at, status) in [(0u32, Status::Unsupported), (3, Status::VerifyFailed)] {
        let mut calls = 0;
        let err = ctx
            .fri_commit(&buf, &options, |layer, _cap: &[u8], beta: &mut [u64]| {
                calls += 1;
                if layer == stop_at {
                    return Err(gpuprover::Error::new(status, "transcript closed"));
                }
                beta[0] = 5;
                Ok(())
            })
            .unwrap_err();
        assert_eq!(err.status(), status);
        assert_eq!(err.message(), "transcript closed"); // the closure's own error
        assert_eq!(calls, stop_at + 1);
    }
    // A non-canonical challenge is the library's error.
    let err = ctx
        .fri_commit(&buf, &options, |_, _cap: &[u8], beta: &mut [u64]| {
            beta[0] = GOLDILOCKS_P;
            Ok(())
        })
        .unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    // The element type must be the field's.
    let err = ctx
        .fri_commit(&buf, &options, |_, _cap: &[u8], _beta: &mut [u32]| Ok(()))
        .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch);
}

#[test]
fn closure_panics_are_resumed_after_the_call() {
    let ctx = cpu();
    let n = 32;
    let codeword = Rng::new(8600).vec(n, GOLDILOCKS_P);
    let buf = goldilocks_columns(&ctx, &codeword, n, 1);
    let mut calls = 0;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ctx.fri_commit(
            &buf,
            &FriOptions::default(),
            |layer, _cap: &[u8], beta: &mut [u64]| {
                calls += 1;
                if layer == 2 {
                    panic!("challenge failed at layer {}", layer);
                }
                beta[0] = 1;
                Ok(())
            },
        )
        .map(|_| ())
    }));
    let payload = result.unwrap_err();
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some("challenge failed at layer 2")
    );
    assert_eq!(calls, 3);
    // The context is still usable.
    let fri = ctx
        .fri_commit(
            &buf,
            &FriOptions::default(),
            |_, _cap: &[u8], beta: &mut [u64]| {
                beta[0] = 3;
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(fri.remainder::<u64>().unwrap().len(), 1);
}

#[test]
fn fri_error_paths() {
    let ctx = cpu();
    let n = 64;
    let codeword = Rng::new(8700).vec(n, GOLDILOCKS_P);
    let d = FriOptions::default();
    let begin = |options: &FriOptions| {
        ctx.fri_begin_host(Field::Goldilocks, 1, &codeword, options)
            .map(|_| ())
            .unwrap_err()
    };
    for (options, want) in [
        (FriOptions { arity: 3, ..d }, Status::InvalidArgument),
        (
            FriOptions {
                final_size: 64,
                ..d
            },
            Status::InvalidArgument,
        ),
        (FriOptions { final_size: 3, ..d }, Status::InvalidArgument),
        (
            FriOptions {
                arity: 8,
                final_size: 2,
                ..d
            },
            Status::InvalidArgument,
        ),
        (FriOptions { shift: 0, ..d }, Status::InvalidArgument),
        (
            FriOptions {
                merkle: MerkleOptions {
                    cap_height: 1,
                    ..MerkleOptions::default()
                },
                ..d
            },
            Status::InvalidArgument,
        ),
        (
            FriOptions {
                merkle: MerkleOptions {
                    kind: MerkleKind::Miden,
                    perm: Some(gpuprover::Permutation::Poseidon2Goldilocks8),
                    ..MerkleOptions::default()
                },
                ..d
            },
            Status::InvalidArgument,
        ),
    ] {
        let err = begin(&options);
        assert_eq!(err.status(), want, "{:?}: {}", options, err);
        assert!(!err.message().is_empty());
    }
    // Codeword shapes: not a power of two, two columns, wrong element type,
    // a length that is not a multiple of the degree.
    assert_eq!(
        ctx.fri_begin_host(Field::Goldilocks, 1, &codeword[..48], &d)
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    let two_cols = goldilocks_columns(&ctx, &codeword, 32, 2);
    assert_eq!(
        ctx.fri_begin(&two_cols, &d).unwrap_err().status(),
        Status::ShapeMismatch
    );
    assert_eq!(
        ctx.fri_begin_host(Field::BabyBear, 1, &codeword, &d)
            .unwrap_err()
            .status(),
        Status::FieldMismatch
    );
    assert_eq!(
        ctx.fri_begin_host(Field::Goldilocks, 2, &codeword[..63], &d)
            .unwrap_err()
            .status(),
        Status::ShapeMismatch
    );

    let mut fri = ctx
        .fri_begin_host(Field::Goldilocks, 1, &codeword, &d)
        .unwrap();
    // Before the last fold: no remainder, no openings.
    assert_eq!(
        fri.remainder::<u64>().unwrap_err().status(),
        Status::InvalidArgument
    );
    assert_eq!(
        fri.open(&[0]).unwrap_err().status(),
        Status::InvalidArgument
    );
    // Bad challenges.
    assert_eq!(
        fri.fold(&[1u64, 2]).unwrap_err().status(),
        Status::ShapeMismatch
    );
    assert_eq!(
        fri.fold(&[1u32]).unwrap_err().status(),
        Status::FieldMismatch
    );
    assert_eq!(
        fri.fold(&[GOLDILOCKS_P]).unwrap_err().status(),
        Status::NonCanonical
    );
    assert_eq!(fri.folded(), 0);
    for _ in 0..fri.layer_count() {
        fri.fold(&[9u64]).unwrap();
    }
    let err = fri.fold(&[9u64]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("folded"), "{}", err);
    assert_eq!(
        fri.remainder::<u32>().unwrap_err().status(),
        Status::FieldMismatch
    );
    let err = fri.open(&[n]).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    // Still usable after every failure.
    let o = fri.open(&[n - 1]).unwrap().remove(0);
    fri.verify(n - 1, &o).unwrap();
    assert!(fri.open(&[]).unwrap().is_empty());
}

#[test]
fn fri_over_lde_output() {
    // A low-degree codeword: the bit-reversed LDE of a random column folds
    // to a constant remainder once the degree is used up.
    let ctx = cpu();
    let (rows, blowup) = (16usize, 8usize);
    let trace = Rng::new(8800).vec(rows, GOLDILOCKS_P);
    let mut lde = Buffer::new(&ctx, Field::Goldilocks, 1, rows * blowup, 1).unwrap();
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        rows,
        1,
        &gpuprover::LdeOptions {
            blowup: blowup as u32,
            output_order: Order::BitReversed,
            ..gpuprover::LdeOptions::default()
        },
        &mut lde,
    )
    .unwrap();
    // Plonky3 folds as if on the subgroup; the LDE lives on 7*K, so fold
    // with shift 7 to keep the domain exact.
    let options = FriOptions {
        final_size: 8,
        shift: 7,
        ..FriOptions::default()
    };
    let mut fri = ctx.fri_begin(&lde, &options).unwrap();
    let mut rng = Rng::new(8801);
    while fri.folded() < fri.layer_count() {
        fri.fold(&[rng.field(GOLDILOCKS_P)]).unwrap();
    }
    let remainder = fri.remainder::<u64>().unwrap();
    assert!(
        remainder.iter().all(|&x| x == remainder[0]),
        "{:?}",
        remainder
    );
}
