// SPDX-License-Identifier: MIT OR Apache-2.0
//! Out-of-domain evaluation and the DEEP composition against Horner
//! evaluation and the DEEP formula computed here, the constraint commitment
//! against segment LDEs committed through `merkle_commit`, and the error
//! paths. Goldilocks on the CPU backend; base-field points keep the reference
//! arithmetic to u128, and points embedded in the cubic extension check its
//! layout.
mod common;

use common::*;
use gpuprover::{
    Buffer, ConstraintOptions, Context, Field, Layout, LdeOptions, MerkleOptions, OodOptions,
    Order, Status,
};

const P: u64 = GOLDILOCKS_P;
const G: u64 = 7; // Goldilocks generator, the default coset shift

/// The composition evaluations every binding commits in its constraint test:
/// r^3 + 5 r + 1 for r < 64, 4 segments, blowup 2, default Poseidon2 tree.
const PINNED_ROOT: &str = "2e8e272b93631eb3d388a76b05e279da181eaf49ba36f4d6604959471bf2e240";

/// `cols` columns of polynomials of degree < n (coefficients returned, per
/// column) extended by `blowup` on the default coset in `order`.
fn lde_columns(
    ctx: &Context,
    n: usize,
    cols: usize,
    blowup: u32,
    order: Order,
    rng: &mut Rng,
) -> (Vec<Vec<u64>>, Buffer) {
    let wn = goldilocks_root(n.trailing_zeros());
    let coeffs: Vec<Vec<u64>> = (0..cols).map(|_| rng.vec(n, P)).collect();
    let mut trace = Vec::with_capacity(n * cols);
    for c in &coeffs {
        for r in 0..n {
            trace.push(evaluate(c, pow(wn, r as u64, P), P));
        }
    }
    let mut lde = Buffer::new(ctx, Field::Goldilocks, 1, n * blowup as usize, cols).unwrap();
    let options = LdeOptions {
        blowup,
        output_order: order,
        ..LdeOptions::default()
    };
    ctx.lde_host(Field::Goldilocks, 1, &trace, n, cols, &options, &mut lde)
        .unwrap();
    (coeffs, lde)
}

fn ood_and_deep(order: Order, degree_bound: usize) {
    let ctx = cpu();
    let mut rng = Rng::new(0xdee9 + degree_bound as u64);
    let (n, cols, blowup) = (16usize, 3usize, 4u32);
    let m = n * blowup as usize;
    let (coeffs, lde) = lde_columns(&ctx, n, cols, blowup, order, &mut rng);
    let options = OodOptions {
        order,
        degree_bound,
        challenge_degree: 1,
        ..OodOptions::default()
    };
    let points: Vec<u64> = vec![123_456_789, 0xdead_beef_0000_1234];
    let values = ctx.evaluate_ood(&[&lde], &options, &points).unwrap();
    assert_eq!(values.len(), points.len() * cols);
    for (j, &z) in points.iter().enumerate() {
        for (c, co) in coeffs.iter().enumerate() {
            assert_eq!(values[j * cols + c], evaluate(co, z, P), "point {} column {}", j, c);
        }
    }

    // The DEEP codeword, row by row.
    let alphas = rng.vec(points.len() * cols, P);
    let mut q = Buffer::new(&ctx, Field::Goldilocks, 1, m, 1).unwrap();
    ctx.deep_composition(&[&lde], &options, &points, &values, &alphas, &mut q)
        .unwrap();
    let got: Vec<u64> = q.to_vec(Layout::ColMajor).unwrap();
    let f: Vec<u64> = lde.to_vec(Layout::ColMajor).unwrap();
    let log_m = m.trailing_zeros();
    let wm = goldilocks_root(log_m);
    for r in 0..m {
        let idx = match order {
            Order::Natural => r,
            Order::BitReversed => bit_reverse(r, log_m),
        };
        let x = mul(G, pow(wm, idx as u64, P), P);
        let mut acc = 0;
        for (j, &z) in points.iter().enumerate() {
            let inv_den = inv(sub(x, z, P), P);
            for c in 0..cols {
                let num = sub(f[c * m + r], values[j * cols + c], P);
                acc = add(acc, mul(mul(alphas[j * cols + c], num, P), inv_den, P), P);
            }
        }
        assert_eq!(got[r], acc, "DEEP row {}", r);
    }
}

#[test]
fn ood_and_deep_natural_full_domain() {
    ood_and_deep(Order::Natural, 0);
}

#[test]
fn ood_and_deep_bit_reversed_trace_domain() {
    ood_and_deep(Order::BitReversed, 16);
}

#[test]
fn ood_in_the_cubic_extension() {
    // Base points embedded in the default extension (E = 3) give f(z) as
    // (f(z), 0, 0); two buffers are read in order, column after column.
    let ctx = cpu();
    let mut rng = Rng::new(77);
    let (ca, a) = lde_columns(&ctx, 8, 2, 2, Order::Natural, &mut rng);
    let (cb, b) = lde_columns(&ctx, 8, 1, 2, Order::Natural, &mut rng);
    let options = OodOptions::default();
    assert_eq!(options.challenge_degree_for(Field::Goldilocks), 3);
    let z = [5u64, 0, 0, 1_000_003, 0, 0];
    let values = ctx.evaluate_ood(&[&a, &b], &options, &z).unwrap();
    assert_eq!(values.len(), 2 * 3 * 3);
    for (j, &zj) in [z[0], z[3]].iter().enumerate() {
        for (c, co) in ca.iter().chain(cb.iter()).enumerate() {
            let at = (j * 3 + c) * 3;
            assert_eq!(&values[at..at + 3], &[evaluate(co, zj, P), 0, 0], "point {} column {}", j, c);
        }
    }
    // DEEP in E = 3 is linear in the alphas, coefficient by coefficient.
    let a1 = rng.vec(values.len(), P);
    let a2 = rng.vec(values.len(), P);
    let sum: Vec<u64> = a1.iter().zip(&a2).map(|(&x, &y)| add(x, y, P)).collect();
    let deep = |alphas: &[u64]| -> Vec<u64> {
        let mut q = Buffer::new(&ctx, Field::Goldilocks, 3, 16, 1).unwrap();
        ctx.deep_composition(&[&a, &b], &options, &z, &values, alphas, &mut q)
            .unwrap();
        q.to_vec(Layout::ColMajor).unwrap()
    };
    let (q1, q2, qs) = (deep(&a1), deep(&a2), deep(&sum));
    assert_eq!(qs.len(), 16 * 3);
    for i in 0..qs.len() {
        assert_eq!(qs[i], add(q1[i], q2[i], P), "coefficient {}", i);
    }
    // Alphas of the wrong length are refused before the library reads them.
    let mut q = Buffer::new(&ctx, Field::Goldilocks, 3, 16, 1).unwrap();
    let err = ctx
        .deep_composition(&[&a, &b], &options, &z, &values, &a1[1..], &mut q)
        .unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch);
}

fn pinned_evaluations() -> Vec<u64> {
    (0..64u64).map(|r| r * r * r + 5 * r + 1).collect()
}

#[test]
fn constraint_commit_matches_segment_ldes() {
    let ctx = cpu();
    let (n, d, blowup) = (16usize, 4usize, 2u32);
    let q = pinned_evaluations();
    let ev = Buffer::from_host(&ctx, Field::Goldilocks, 1, n * d, 1, Layout::ColMajor, &q).unwrap();
    let options = ConstraintOptions {
        segments: d as u32,
        blowup,
        ..ConstraintOptions::default()
    };
    let cc = ctx.constraint_commit(&ev, &options).unwrap();
    let seg = cc.segments();
    assert_eq!((seg.rows(), seg.cols(), seg.ext_degree()), (n * blowup as usize, d, 1));

    // Plonky3's split: segment i is the LDE of rows i, i + D, ... which lie
    // on 7 w^i <w^D>, w of order N D.
    let w = goldilocks_root((n * d).trailing_zeros());
    let mut ldes = Vec::new();
    for i in 0..d {
        let chunk: Vec<u64> = (0..n).map(|r| q[i + r * d]).collect();
        let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, n * blowup as usize, 1).unwrap();
        let lo = LdeOptions {
            blowup,
            input_shift: Some(mul(G, pow(w, i as u64, P), P)),
            output_order: Order::BitReversed,
            ..LdeOptions::default()
        };
        ctx.lde_host(Field::Goldilocks, 1, &chunk, n, 1, &lo, &mut out)
            .unwrap();
        ldes.push(out);
    }
    let expected: Vec<u64> = ldes
        .iter()
        .flat_map(|b| b.to_vec::<u64>(Layout::ColMajor).unwrap())
        .collect();
    assert_eq!(seg.to_vec::<u64>(Layout::ColMajor).unwrap(), expected);

    let refs: Vec<&Buffer> = ldes.iter().collect();
    let other = ctx.merkle_commit(&refs, &MerkleOptions::default()).unwrap();
    let root = cc.root().unwrap();
    assert_eq!(root, other.root().unwrap());
    let hex: String = root.iter().map(|b| format!("{:02x}", b)).collect();
    println!("constraint root {}", hex);
    assert_eq!(hex, PINNED_ROOT);

    // The tree is an ordinary tree: openings verify, tampered ones do not.
    let tree = cc.tree();
    assert_eq!(tree.dims().len(), 1);
    let openings = tree.open::<u64>(&[0, 5, 31]).unwrap();
    for o in &openings {
        assert_eq!(o.rows.len(), d);
        for (i, &v) in o.rows.iter().enumerate() {
            assert_eq!(v, expected[i * n * blowup as usize + o.index]);
        }
        tree.verify(o).unwrap();
    }
    let mut bad = openings[1].clone();
    bad.rows[2] = add(bad.rows[2], 1, P);
    assert_eq!(tree.verify(&bad).unwrap_err().status(), Status::VerifyFailed);

    // Deterministic.
    let again = ctx.constraint_commit(&ev, &options).unwrap();
    assert_eq!(again.root().unwrap(), root);
}

#[test]
fn bad_input_returns_the_library_error() {
    let ctx = cpu();
    let mut rng = Rng::new(5);
    let (_, lde) = lde_columns(&ctx, 8, 1, 2, Order::Natural, &mut rng);
    let options = OodOptions {
        challenge_degree: 1,
        ..OodOptions::default()
    };
    // A point of the evaluation coset 7 <w_16>.
    let z = [mul(G, goldilocks_root(4), P)];
    let err = ctx.evaluate_ood(&[&lde], &options, &z).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("coset"), "{}", err);
    let err = ctx.evaluate_ood(&[&lde], &options, &[P]).unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    let err = ctx
        .evaluate_ood(&[&lde], &OodOptions { degree_bound: 3, ..options }, &[9u64])
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(!err.message().is_empty());

    // DEEP output of the wrong shape (8 rows for 16).
    let mut small = Buffer::new(&ctx, Field::Goldilocks, 1, 8, 1).unwrap();
    let err = ctx
        .deep_composition(&[&lde], &options, &[9u64], &[1], &[1], &mut small)
        .unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch);
    assert!(!err.message().is_empty());

    // Three segments, and a buffer of two columns.
    let ev = Buffer::from_host(&ctx, Field::Goldilocks, 1, 64, 1, Layout::ColMajor, &pinned_evaluations()).unwrap();
    let err = ctx
        .constraint_commit(&ev, &ConstraintOptions { segments: 3, ..ConstraintOptions::default() })
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    assert!(err.message().contains("segments"), "{}", err);
    let (_, two) = lde_columns(&ctx, 32, 2, 2, Order::Natural, &mut rng);
    let err = ctx.constraint_commit(&two, &ConstraintOptions::default()).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch);
    // The context still works after the failures.
    ctx.constraint_commit(&ev, &ConstraintOptions::default()).unwrap();
}
