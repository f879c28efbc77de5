// SPDX-License-Identifier: MIT OR Apache-2.0
//! Triton VM conventions: Goldilocks' cubic extension `X^3 = X - 1`
//! ([`Extension::Triton`]) in FRI folds and OOD evaluation, FRI layers of one
//! value per leaf ([`FriLeaf::Element`]) under [`MerkleKind::TritonDigest`],
//! that tree itself, and Triton's quotient segments. Folds and OOD values are
//! checked against the cubic arithmetic of both extensions, written here.
mod common;

use common::*;
use gpuprover::{
    fri_verify, Buffer, CompositionSplit, ConstraintOptions, Extension, Field, FriLeaf, FriOptions,
    Layout, LdeOptions, MerkleKind, MerkleOptions, OodOptions, Order, Permutation, Status,
};

const P: u64 = GOLDILOCKS_P;
const TRITON_SHIFT: u64 = 7;

type Cubic = [u64; 3];

/// The product of two cubics: `X^3 = X + 1` (Plonky3) or `X^3 = X - 1`
/// (Triton).
fn c_mul(a: Cubic, b: Cubic, ext: Extension) -> Cubic {
    let mut c = [0u64; 5];
    for i in 0..3 {
        for j in 0..3 {
            c[i + j] = add(c[i + j], mul(a[i], b[j], P), P);
        }
    }
    match ext {
        Extension::Triton => [
            sub(c[0], c[3], P),
            sub(add(c[1], c[3], P), c[4], P),
            add(c[2], c[4], P),
        ],
        Extension::Plonky3 => [
            add(c[0], c[3], P),
            add(add(c[1], c[3], P), c[4], P),
            add(c[2], c[4], P),
        ],
    }
}

fn c_horner(coeffs: &[u64], z: Cubic, ext: Extension) -> Cubic {
    let mut acc = [0u64; 3];
    for &c in coeffs.iter().rev() {
        acc = c_mul(acc, z, ext);
        acc[0] = add(acc[0], c, P);
    }
    acc
}

fn random_cubic(rng: &mut Rng) -> Cubic {
    [rng.field(P), rng.field(P), rng.field(P)]
}

fn flatten(v: &[Cubic]) -> Vec<u64> {
    v.iter().flat_map(|c| c.iter().copied()).collect()
}

/// One halved arity-2 fold of a natural-order cubic layer on
/// `shift * <w>`: `(f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x)`.
fn naive_fold(layer: &[Cubic], beta: Cubic, shift: u64, ext: Extension) -> Vec<Cubic> {
    let m = layer.len();
    let w = goldilocks_root(m.trailing_zeros());
    let half = m / 2;
    let two_inv = inv(2, P);
    (0..half)
        .map(|i| {
            let x = mul(shift, pow(w, i as u64, P), P);
            let s = mul(two_inv, inv(x, P), P);
            let (a, b) = (layer[i], layer[i + half]);
            let mut even = [0u64; 3];
            let mut odd = [0u64; 3];
            for k in 0..3 {
                even[k] = mul(add(a[k], b[k], P), two_inv, P);
                odd[k] = mul(sub(a[k], b[k], P), s, P);
            }
            let bo = c_mul(beta, odd, ext);
            [
                add(even[0], bo[0], P),
                add(even[1], bo[1], P),
                add(even[2], bo[2], P),
            ]
        })
        .collect()
}

fn triton_fri(final_size: usize, extension: Extension) -> FriOptions {
    FriOptions {
        arity: 2,
        final_size,
        order: Order::Natural,
        shift: TRITON_SHIFT,
        extension,
        leaf: FriLeaf::Element,
        merkle: MerkleOptions {
            kind: MerkleKind::TritonDigest,
            perm: Some(Permutation::Tip5),
            ..MerkleOptions::default()
        },
        ..FriOptions::default()
    }
}

fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn defaults_and_permutation() {
    assert_eq!(FriOptions::default().extension, Extension::Plonky3);
    assert_eq!(FriOptions::default().leaf, FriLeaf::Group);
    assert_eq!(OodOptions::default().extension, Extension::Plonky3);
    assert_eq!(
        MerkleOptions {
            kind: MerkleKind::TritonDigest,
            ..MerkleOptions::default()
        }
        .permutation_for(Field::Goldilocks),
        Permutation::Tip5
    );
    assert_eq!(Extension::Triton.to_raw().0, 1);
    assert_eq!(MerkleKind::TritonDigest.to_raw().0, 9);
}

#[test]
fn triton_fri_commit_open_verify() {
    let ctx = cpu();
    let mut rng = Rng::new(9100);
    let (n, final_size) = (64usize, 4usize);
    let options = triton_fri(final_size, Extension::Triton);
    let codeword: Vec<Cubic> = (0..n).map(|_| random_cubic(&mut rng)).collect();
    let flat = flatten(&codeword);
    let betas: Vec<Cubic> = (0..4).map(|_| random_cubic(&mut rng)).collect();
    let mut fri = ctx
        .fri_begin_host(Field::Goldilocks, 3, &flat, &options)
        .unwrap();
    assert_eq!((fri.layer_count(), fri.cap_size()), (4, 40));
    // Layer 0: leaf i is codeword value i as a digest.
    let cw = Buffer::from_host(&ctx, Field::Goldilocks, 3, n, 1, Layout::RowMajor, &flat).unwrap();
    let tree = ctx.merkle_commit(&[&cw], &options.merkle).unwrap();
    assert_eq!(fri.cap(0).unwrap(), &tree.root().unwrap()[..]);
    let (mut layer, mut shift) = (codeword, TRITON_SHIFT);
    for beta in &betas {
        fri.fold(&beta[..]).unwrap();
        layer = naive_fold(&layer, *beta, shift, Extension::Triton);
        shift = mul(shift, shift, P);
    }
    let remainder = fri.remainder::<u64>().unwrap();
    assert_eq!(remainder, flatten(&layer), "remainder vs naive Triton fold");
    // Per layer: two cubic values, then one path per member.
    let want: usize = (0..4).map(|k| 2 * 24 + 2 * (6 - k) * 40).sum();
    assert_eq!(fri.opening_size(), want);
    let indices = [0, n - 1, 21, 42];
    let openings = fri.open(&indices).unwrap();
    let all_betas: Vec<u64> = flatten(&betas);
    for (&index, opening) in indices.iter().zip(&openings) {
        assert_eq!(opening.len(), want);
        fri.verify(index, opening).unwrap();
        fri_verify(
            &options,
            Field::Goldilocks,
            3,
            n,
            fri.caps(),
            &all_betas,
            &remainder,
            index,
            opening,
        )
        .unwrap();
        // A value, a path, the last path.
        for at in [0, 48 + 5, opening.len() - 1] {
            let mut bad = opening.clone();
            bad[at] ^= 1;
            let err = fri.verify(index, &bad).unwrap_err();
            assert_eq!(
                err.status(),
                Status::VerifyFailed,
                "index {} byte {}",
                index,
                at
            );
        }
    }
    // The same codeword and challenge under Plonky3's cubic: another layer
    // 1, so another cap.
    let mut other = ctx
        .fri_begin_host(
            Field::Goldilocks,
            3,
            &flat,
            &triton_fri(final_size, Extension::Plonky3),
        )
        .unwrap();
    assert_eq!(other.cap(0), fri.cap(0));
    other.fold(&betas[0][..]).unwrap();
    assert_ne!(other.cap(1).unwrap(), fri.cap(1).unwrap());
    // Triton's extension is cubic.
    let err = ctx
        .fri_begin_host(Field::Goldilocks, 2, &flat[..2 * n], &options)
        .unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
}

#[test]
fn triton_digest_tree() {
    let ctx = cpu();
    let mut rng = Rng::new(9200);
    let rows = 16usize;
    let values: Vec<Cubic> = (0..rows).map(|_| random_cubic(&mut rng)).collect();
    let buf = Buffer::from_host(
        &ctx,
        Field::Goldilocks,
        3,
        rows,
        1,
        Layout::RowMajor,
        &flatten(&values),
    )
    .unwrap();
    let options = MerkleOptions {
        kind: MerkleKind::TritonDigest,
        ..MerkleOptions::default()
    };
    let tree = ctx.merkle_commit(&[&buf], &options).unwrap();
    let hashed = ctx
        .merkle_commit(
            &[&buf],
            &MerkleOptions {
                kind: MerkleKind::Triton,
                ..MerkleOptions::default()
            },
        )
        .unwrap();
    assert_eq!((tree.digest_size(), hashed.digest_size()), (40, 40));
    assert_ne!(tree.root().unwrap(), hashed.root().unwrap());
    // Leaves are the rows themselves, zero-filled to five elements.
    let leaves = ctx.merkle_hash_rows(&[&buf], &options).unwrap();
    assert_eq!(leaves.len(), rows * 40);
    for r in [0, 7, 15] {
        let mut want = values[r].to_vec();
        want.extend([0, 0]);
        assert_eq!(words(&leaves[r * 40..(r + 1) * 40]), want, "leaf {}", r);
    }
    for mut o in tree.open::<u64>(&[0, 9, 15]).unwrap() {
        assert_eq!(o.rows, values[o.index].to_vec());
        assert_eq!(o.path.len(), 4 * 40);
        tree.verify(&o).unwrap();
        o.path[3] ^= 1;
        assert_eq!(tree.verify(&o).unwrap_err().status(), Status::VerifyFailed);
    }
    // Six elements do not fit a digest.
    let wide = Buffer::new(&ctx, Field::Goldilocks, 3, 8, 2).unwrap();
    let err = ctx.merkle_commit(&[&wide], &options).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch);
}

#[test]
fn ood_triton_and_plonky3_cubics() {
    let ctx = cpu();
    let mut rng = Rng::new(9300);
    let (n, cols, blowup) = (16usize, 2usize, 4u32);
    let w = goldilocks_root(4);
    let coeffs: Vec<Vec<u64>> = (0..cols).map(|_| rng.vec(n, P)).collect();
    let trace: Vec<u64> = coeffs
        .iter()
        .flat_map(|c| (0..n).map(move |r| evaluate(c, pow(w, r as u64, P), P)))
        .collect();
    let mut lde = Buffer::new(&ctx, Field::Goldilocks, 1, n * blowup as usize, cols).unwrap();
    let lde_options = LdeOptions {
        blowup,
        ..LdeOptions::default()
    };
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        n,
        cols,
        &lde_options,
        &mut lde,
    )
    .unwrap();
    let z = random_cubic(&mut rng);
    let mut got = Vec::new();
    for ext in [Extension::Triton, Extension::Plonky3] {
        let options = OodOptions {
            extension: ext,
            ..OodOptions::default()
        };
        let values: Vec<u64> = ctx.evaluate_ood(&[&lde], &options, &z).unwrap();
        assert_eq!(values.len(), cols * 3);
        for (c, co) in coeffs.iter().enumerate() {
            assert_eq!(
                values[3 * c..3 * c + 3],
                c_horner(co, z, ext),
                "{:?} column {}",
                ext,
                c
            );
        }
        got.push(values);
    }
    assert_ne!(got[0], got[1]);
    // Triton's extension is cubic.
    let options = OodOptions {
        challenge_degree: 2,
        extension: Extension::Triton,
        ..OodOptions::default()
    };
    let err = ctx.evaluate_ood(&[&lde], &options, &[3u64, 4]).unwrap_err();
    assert_eq!(err.status(), Status::Unsupported);
}

#[test]
fn triton_quotient_segments() {
    // h(x) = sum_i x^i h_i(x^D): segment i holds coefficients i, i + D, ...
    // of h, extended on Triton's FRI domain (shift 7, natural order).
    let ctx = cpu();
    let mut rng = Rng::new(9400);
    let (n, d, blowup) = (8usize, 4usize, 2u32);
    let h = rng.vec(n * d, P);
    let w = goldilocks_root((n * d).trailing_zeros());
    let ev: Vec<u64> = (0..n * d)
        .map(|r| evaluate(&h, mul(TRITON_SHIFT, pow(w, r as u64, P), P), P))
        .collect();
    let buf =
        Buffer::from_host(&ctx, Field::Goldilocks, 1, n * d, 1, Layout::ColMajor, &ev).unwrap();
    let options = ConstraintOptions {
        split: CompositionSplit::Triton,
        segments: d as u32,
        blowup,
        shift: Some(TRITON_SHIFT),
        output_order: Order::Natural,
        merkle: MerkleOptions {
            kind: MerkleKind::Triton,
            ..MerkleOptions::default()
        },
    };
    let committed = ctx.constraint_commit(&buf, &options).unwrap();
    let rows = n * blowup as usize;
    let got = committed
        .segments()
        .to_vec::<u64>(Layout::ColMajor)
        .unwrap();
    let wl = goldilocks_root(rows.trailing_zeros());
    for i in 0..d {
        let hi: Vec<u64> = h.iter().skip(i).step_by(d).copied().collect();
        for r in 0..rows {
            let want = evaluate(&hi, mul(TRITON_SHIFT, pow(wl, r as u64, P), P), P);
            assert_eq!(got[i * rows + r], want, "segment {} row {}", i, r);
        }
    }
    let other = ctx
        .merkle_commit(&[committed.segments()], &options.merkle)
        .unwrap();
    assert_eq!(committed.tree().root().unwrap(), other.root().unwrap());
    let winterfell = ctx
        .constraint_commit(
            &buf,
            &ConstraintOptions {
                split: CompositionSplit::Winterfell,
                ..options
            },
        )
        .unwrap();
    assert_ne!(
        committed.tree().root().unwrap(),
        winterfell.tree().root().unwrap()
    );
}
