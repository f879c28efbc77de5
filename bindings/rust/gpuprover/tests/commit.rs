// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one-call commitment of host traces (`Context::commit_host`) against
//! the two-call path: `lde_host` of every matrix, then `merkle_commit` of the
//! LDEs. Every keep mode, two matrices of different heights, with no budget
//! and with the least budget (several column batches); the host memory the
//! trees hold; the error paths.
mod common;

use std::sync::{Arc, Mutex};

use common::*;
use gpuprover::{
    Buffer, CommitMatrix, CommitOptions, Context, Element, Field, Keep, Layout, LdeOptions,
    MatrixDims, MerkleOpening, MerkleOptions, Order, Status,
};

const KOALABEAR_P: u64 = 0x7f00_0001;

/// One commitment: the field, (rows, cols, ext_degree) of each matrix, the
/// LDE and the Merkle profile.
struct Case {
    field: Field,
    specs: Vec<(usize, usize, u32)>,
    lde: LdeOptions,
    merkle: MerkleOptions,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            field: Field::Goldilocks,
            specs: vec![(64, 12, 1), (16, 3, 2)],
            lde: LdeOptions {
                blowup: 4,
                output_order: Order::BitReversed,
                ..LdeOptions::default()
            },
            merkle: MerkleOptions {
                cap_height: 1,
                ..MerkleOptions::default()
            },
        },
        Case {
            field: Field::KoalaBear,
            specs: vec![(32, 9, 1), (8, 3, 4)],
            lde: LdeOptions {
                blowup: 2,
                input_layout: Layout::RowMajor,
                ..LdeOptions::default()
            },
            merkle: MerkleOptions::default(),
        },
    ]
}

/// What the two-call path gives: the LDE of every matrix (column-major),
/// the root, the cap and the openings of `indices`.
struct Reference<T> {
    lde: Vec<Vec<T>>,
    root: Vec<u8>,
    cap: Vec<u8>,
    openings: Vec<MerkleOpening<T>>,
}

fn reference<T: Element>(
    ctx: &Context,
    case: &Case,
    traces: &[Vec<T>],
    indices: &[usize],
) -> Reference<T> {
    let mut ldes = Vec::new();
    for (data, &(rows, cols, ext)) in traces.iter().zip(&case.specs) {
        let mut lde =
            Buffer::new(ctx, case.field, ext, rows * case.lde.blowup as usize, cols).unwrap();
        ctx.lde_host(case.field, ext, data, rows, cols, &case.lde, &mut lde)
            .unwrap();
        ldes.push(lde);
    }
    let refs: Vec<&Buffer> = ldes.iter().collect();
    let tree = ctx.merkle_commit(&refs, &case.merkle).unwrap();
    Reference {
        lde: ldes
            .iter()
            .map(|b| b.to_vec(Layout::ColMajor).unwrap())
            .collect(),
        root: tree.root().unwrap(),
        cap: tree.cap().unwrap(),
        openings: tree.open(indices).unwrap(),
    }
}

fn matrices<T: Element>(case: &Case, traces: &[Arc<Vec<T>>], keep: Keep) -> Vec<CommitMatrix<T>> {
    traces
        .iter()
        .zip(&case.specs)
        .map(|(data, &(rows, cols, ext))| CommitMatrix {
            data: Arc::clone(data),
            rows,
            cols,
            ext_degree: ext,
            lde_host: match keep {
                Keep::Host => Some(vec![
                    T::default();
                    rows * case.lde.blowup as usize * cols * ext as usize
                ]),
                _ => None,
            },
        })
        .collect()
}

/// The minimum that the message of a budget of 1 byte names.
fn least_budget<T: Element>(ctx: &Context, case: &Case, traces: &[Arc<Vec<T>>], keep: Keep) -> u64 {
    let options = CommitOptions {
        lde: case.lde,
        merkle: case.merkle,
        keep,
        device_budget: 1,
    };
    let err = ctx
        .commit_host(case.field, matrices(case, traces, keep), &options)
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    let msg = err.message();
    let at = msg.find("below the minimum ").expect(msg) + "below the minimum ".len();
    let digits: String = msg[at..].chars().take_while(char::is_ascii_digit).collect();
    assert!(msg[at + digits.len()..].starts_with(" bytes"), "{}", msg);
    digits.parse().unwrap()
}

/// commit_host with `budget`; the "commit" progress steps it reported.
fn commit<T: Element>(
    ctx: &Context,
    case: &Case,
    mats: Vec<CommitMatrix<T>>,
    keep: Keep,
    budget: u64,
) -> (Vec<Buffer>, gpuprover::MerkleTree, usize) {
    let steps = Arc::new(Mutex::new(0usize));
    let counter = Arc::clone(&steps);
    ctx.set_progress(move |stage, _, _| {
        if stage == "commit" {
            *counter.lock().unwrap() += 1;
        }
    })
    .unwrap();
    let options = CommitOptions {
        lde: case.lde,
        merkle: case.merkle,
        keep,
        device_budget: budget,
    };
    let result = ctx.commit_host(case.field, mats, &options);
    ctx.clear_progress().unwrap();
    let (lde, tree) = result.unwrap();
    let n = *steps.lock().unwrap();
    (lde, tree, n)
}

fn check_case<T: Element + PartialEq>(ctx: &Context, case: &Case, conv: fn(u64) -> T) {
    let p = case.field.modulus();
    let mut rng = Rng::new(0xc0 + case.specs.len() as u64 + p % 97);
    let traces: Vec<Vec<T>> = case
        .specs
        .iter()
        .map(|&(r, c, e)| {
            rng.vec(r * c * e as usize, p)
                .into_iter()
                .map(conv)
                .collect()
        })
        .collect();
    let height = case.specs.iter().map(|s| s.0).max().unwrap() * case.lde.blowup as usize;
    let indices: Vec<usize> = (0..height).collect();
    let want = reference(ctx, case, &traces, &indices);
    let dims: Vec<MatrixDims> = case
        .specs
        .iter()
        .map(|&(rows, cols, ext_degree)| MatrixDims {
            rows: rows * case.lde.blowup as usize,
            cols,
            ext_degree,
        })
        .collect();
    let shared: Vec<Arc<Vec<T>>> = traces.into_iter().map(Arc::new).collect();
    for keep in [Keep::Device, Keep::Host, Keep::None] {
        let least = least_budget(ctx, case, &shared, keep);
        let mut steps = Vec::new();
        for budget in [0, least] {
            let what = format!("{:?} {:?} budget {}", case.field, keep, budget);
            let (lde, tree, n) = commit(ctx, case, matrices(case, &shared, keep), keep, budget);
            steps.push(n);
            assert_eq!(tree.root().unwrap(), want.root, "{}", what);
            assert_eq!(tree.cap().unwrap(), want.cap, "{}", what);
            assert_eq!(tree.dims(), &dims[..], "{}", what);
            assert_eq!(tree.field(), case.field);
            assert_eq!(tree.height(), height);
            let got = tree.open::<T>(&indices).unwrap();
            assert_eq!(got, want.openings, "{}", what);
            tree.verify(&got[height / 3]).unwrap();
            match keep {
                Keep::Device => {
                    assert_eq!(lde.len(), case.specs.len(), "{}", what);
                    for (i, b) in lde.iter().enumerate() {
                        assert_eq!(MatrixDims::of(b), dims[i], "{}", what);
                        assert!(b.is_shared(), "{}: the tree holds its LDE", what);
                        assert_eq!(
                            b.to_vec::<T>(Layout::ColMajor).unwrap(),
                            want.lde[i],
                            "{}",
                            what
                        );
                    }
                    assert_eq!(tree.matrices().len(), case.specs.len());
                    assert!(tree.host_lde::<T>(0).is_none());
                }
                Keep::Host => {
                    assert!(lde.is_empty() && tree.matrices().is_empty(), "{}", what);
                    for (i, v) in want.lde.iter().enumerate() {
                        assert_eq!(tree.host_lde::<T>(i).unwrap(), &v[..], "{}", what);
                    }
                    assert!(tree.host_lde::<T>(case.specs.len()).is_none());
                    assert_eq!(tree.into_host_lde::<T>().unwrap(), want.lde, "{}", what);
                }
                Keep::None => {
                    assert!(lde.is_empty() && tree.matrices().is_empty(), "{}", what);
                    assert!(tree.host_lde::<T>(0).is_none());
                }
            }
        }
        // The least budget streams the columns in more batches.
        assert!(
            steps[1] > steps[0],
            "{:?} {:?}: {} progress steps with the least budget, {} without",
            case.field,
            keep,
            steps[1],
            steps[0]
        );
    }
}

#[test]
fn commit_host_matches_lde_host_then_merkle_commit() {
    let ctx = Context::new().unwrap();
    let cases = cases();
    check_case::<u64>(&ctx, &cases[0], |x| x);
    check_case::<u32>(&ctx, &cases[1], |x| x as u32);
}

#[test]
fn trees_hold_the_host_memory_they_read() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(7);
    let specs = [(32usize, 3usize), (8, 2)];
    let traces: Vec<Vec<u64>> = specs
        .iter()
        .map(|&(r, c)| rng.vec(r * c, GOLDILOCKS_P))
        .collect();
    let case = Case {
        field: Field::Goldilocks,
        specs: specs.iter().map(|&(r, c)| (r, c, 1)).collect(),
        lde: LdeOptions::default(),
        merkle: MerkleOptions::default(),
    };
    let want = reference(&ctx, &case, &traces, &[0, 17, 63]);

    // Keep::None: the tree holds the only reference to the traces.
    let none = CommitOptions {
        keep: Keep::None,
        ..CommitOptions::default()
    };
    let tree = {
        let mats = traces
            .iter()
            .zip(&specs)
            .map(|(t, &(r, c))| CommitMatrix::new(t.clone(), r, c))
            .collect();
        ctx.commit_host(Field::Goldilocks, mats, &none).unwrap().1
    };
    assert_eq!(tree.open::<u64>(&[0, 17, 63]).unwrap(), want.openings);
    // A shared trace stays unchanged: the caller's clone cannot be written.
    let mut shared = Arc::new(traces[0].clone());
    let tree2 = ctx
        .commit_host(
            Field::Goldilocks,
            vec![CommitMatrix::new(Arc::clone(&shared), 32, 3)],
            &none,
        )
        .unwrap()
        .1;
    assert!(Arc::get_mut(&mut shared).is_none());
    drop(tree2);
    assert!(Arc::get_mut(&mut shared).is_some());

    // Keep::Host: the tree owns the destinations; trees move between threads.
    let host = CommitOptions {
        keep: Keep::Host,
        ..CommitOptions::default()
    };
    let mats = traces
        .iter()
        .zip(&specs)
        .map(|(t, &(r, c))| CommitMatrix {
            lde_host: Some(vec![0u64; r * 2 * c + 5]), // longer than needed
            ..CommitMatrix::new(t.clone(), r, c)
        })
        .collect();
    let (_, tree) = ctx.commit_host(Field::Goldilocks, mats, &host).unwrap();
    let tree = std::thread::spawn(move || {
        assert_eq!(tree.open::<u64>(&[0, 17, 63]).unwrap(), want.openings);
        tree
    })
    .join()
    .unwrap();
    assert_eq!(tree.host_lde::<u64>(1).unwrap(), &want.lde[1][..]);
    assert!(tree.host_lde::<u32>(1).is_none());
    let back = tree.into_host_lde::<u64>().unwrap();
    assert_eq!(back[0].len(), 32 * 2 * 3 + 5);
    assert_eq!(&back[0][..32 * 2 * 3], &want.lde[0][..]);

    // Keep::Device: the kept buffers are read-only while the tree lives.
    let (mut lde, tree) = ctx
        .commit_host(
            Field::Goldilocks,
            vec![CommitMatrix::new(traces[0].clone(), 32, 3)],
            &CommitOptions::default(),
        )
        .unwrap();
    let input = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 3).unwrap();
    let err = ctx
        .lde(&input, &LdeOptions::default(), &mut lde[0])
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
    drop(tree);
    ctx.lde(&input, &LdeOptions::default(), &mut lde[0])
        .unwrap();
}

#[test]
fn commit_host_error_paths() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(11);
    let a = rng.vec(16 * 2, GOLDILOCKS_P);
    let b = rng.vec(8 * 3, GOLDILOCKS_P);
    let mats = |dest: Option<(usize, usize)>| {
        vec![
            CommitMatrix {
                lde_host: dest.map(|d| vec![0u64; d.0]),
                ..CommitMatrix::new(a.clone(), 16, 2)
            },
            CommitMatrix {
                lde_host: dest.map(|d| vec![0u64; d.1]),
                ..CommitMatrix::new(b.clone(), 8, 3)
            },
        ]
    };
    let keep = |keep| CommitOptions {
        keep,
        ..CommitOptions::default()
    };
    let fails = |m, o: CommitOptions, status, fragment: &str| {
        let err = ctx.commit_host(Field::Goldilocks, m, &o).unwrap_err();
        assert_eq!(err.status(), status, "{}", err);
        assert!(err.message().contains(fragment), "{}", err);
    };

    // A destination one element short of the LDE.
    fails(
        mats(Some((16 * 2 * 2, 8 * 2 * 3 - 1))),
        keep(Keep::Host),
        Status::InvalidArgument,
        "matrices[1].lde_host",
    );
    // A destination without Keep::Host, none with it.
    fails(
        mats(Some((16 * 2 * 2, 8 * 2 * 3))),
        keep(Keep::Device),
        Status::InvalidArgument,
        "lde_host",
    );
    fails(
        mats(None),
        keep(Keep::Host),
        Status::NullPointer,
        "lde_host",
    );
    fails(
        mats(None),
        CommitOptions {
            device_budget: 1,
            ..CommitOptions::default()
        },
        Status::InvalidArgument,
        "below the minimum",
    );
    fails(
        mats(None),
        CommitOptions {
            lde: LdeOptions {
                blowup: 3,
                ..LdeOptions::default()
            },
            ..CommitOptions::default()
        },
        Status::InvalidArgument,
        "blowup = 3",
    );
    fails(
        mats(None),
        CommitOptions {
            lde: LdeOptions {
                n: 16,
                ..LdeOptions::default()
            },
            ..CommitOptions::default()
        },
        Status::Unsupported,
        "n = 16",
    );
    fails(
        mats(None),
        CommitOptions {
            merkle: MerkleOptions {
                cap_height: 9,
                ..MerkleOptions::default()
            },
            ..CommitOptions::default()
        },
        Status::InvalidArgument,
        "cap_height",
    );
    fails(
        vec![CommitMatrix::new(a.clone(), 16, 3)],
        CommitOptions::default(),
        Status::ShapeMismatch,
        "matrices[0].data",
    );
    fails(
        Vec::new(),
        CommitOptions::default(),
        Status::InvalidArgument,
        "no matrices",
    );
    let err = ctx
        .commit_host(
            Field::KoalaBear,
            vec![CommitMatrix::new(vec![1u64; 4], 4, 1)],
            &CommitOptions::default(),
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch);
    let err = ctx
        .commit_host(
            Field::KoalaBear,
            vec![CommitMatrix::new(vec![KOALABEAR_P as u32; 4], 4, 1)],
            &CommitOptions::default(),
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);

    // The failed calls left the context usable.
    let (lde, tree) = ctx
        .commit_host(Field::Goldilocks, mats(None), &CommitOptions::default())
        .unwrap();
    assert_eq!(lde.len(), 2);
    assert_eq!(tree.root().unwrap().len(), 32);
}

#[test]
fn commit_host_into_caller_buffers() {
    // commit_host_into: the LDE goes into the caller's buffers, with the
    // root of the call that allocates them; the buffers are read-only while
    // the tree lives and may be filled again once it is dropped.
    let ctx = cpu();
    let mut rng = Rng::new(7950);
    let case = &cases()[0];
    let blowup = case.lde.blowup as usize;
    let mut into: Vec<Buffer> = case
        .specs
        .iter()
        .map(|&(rows, cols, ext)| Buffer::new(&ctx, case.field, ext, rows * blowup, cols).unwrap())
        .collect();
    let options = CommitOptions {
        lde: case.lde,
        merkle: case.merkle,
        ..CommitOptions::default()
    };
    for round in 0..2 {
        let traces: Vec<Vec<u64>> = case
            .specs
            .iter()
            .map(|&(rows, cols, ext)| rng.vec(rows * cols * ext as usize, GOLDILOCKS_P))
            .collect();
        let indices = [0, 5, 255];
        let want = reference(&ctx, case, &traces, &indices);
        let shared: Vec<Arc<Vec<u64>>> = traces.into_iter().map(Arc::new).collect();
        let tree = ctx
            .commit_host_into(
                case.field,
                matrices(case, &shared, Keep::Device),
                &options,
                &mut into,
            )
            .unwrap();
        assert_eq!(tree.root().unwrap(), want.root, "round {}", round);
        assert_eq!(tree.cap().unwrap(), want.cap, "round {}", round);
        assert_eq!(
            tree.open::<u64>(&indices).unwrap(),
            want.openings,
            "round {}",
            round
        );
        assert_eq!(tree.matrices().len(), into.len());
        for (i, b) in into.iter().enumerate() {
            assert!(
                b.is_shared(),
                "round {}: buffer {} not held by the tree",
                round,
                i
            );
            assert_eq!(
                b.to_vec::<u64>(Layout::ColMajor).unwrap(),
                want.lde[i],
                "round {}: LDE {}",
                round,
                i
            );
        }
        // Committed: the buffers cannot be written until the tree is dropped.
        let err = ctx
            .commit_host_into(
                case.field,
                matrices(case, &shared, Keep::Device),
                &options,
                &mut into,
            )
            .unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
        assert!(err.message().contains("into[0]"), "{}", err);
        drop(tree);
        assert!(into.iter().all(|b| !b.is_shared()));
    }

    let traces: Vec<Arc<Vec<u64>>> = case
        .specs
        .iter()
        .map(|&(rows, cols, ext)| Arc::new(rng.vec(rows * cols * ext as usize, GOLDILOCKS_P)))
        .collect();
    let mats = || matrices(case, &traces, Keep::Device);
    let err = ctx
        .commit_host_into(case.field, mats(), &options, &mut into[..1])
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    let host = CommitOptions {
        keep: Keep::None,
        ..options
    };
    let err = ctx
        .commit_host_into(case.field, mats(), &host, &mut into)
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    into.swap(0, 1);
    let err = ctx
        .commit_host_into(case.field, mats(), &options, &mut into)
        .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch, "{}", err);
    assert!(err.message().contains("lde_into[0]"), "{}", err);
}

#[test]
fn commit_host_randomized_spans_every_matrix() {
    // Triton VM's way: randomizers added inside the LDE of every column of
    // both matrices (two base columns, then one cubic), the same root as
    // lde_host_randomized of each matrix with its part, then merkle_commit.
    let ctx = cpu();
    let mut rng = Rng::new(707);
    let field = Field::Goldilocks;
    let (n, count) = (32usize, 4usize);
    let lde = LdeOptions {
        blowup: 8,
        ..LdeOptions::default()
    };
    let a = Arc::new(rng.vec(n * 2, GOLDILOCKS_P));
    let b = Arc::new(rng.vec(n * 3, GOLDILOCKS_P));
    let randomizers = rng.vec(count * (2 + 3), GOLDILOCKS_P);
    let mut la = Buffer::new(&ctx, field, 1, n * 8, 2).unwrap();
    ctx.lde_host_randomized(field, 1, &a, n, 2, &lde, &randomizers[..count * 2], &mut la)
        .unwrap();
    let mut lb = Buffer::new(&ctx, field, 3, n * 8, 1).unwrap();
    ctx.lde_host_randomized(field, 3, &b, n, 1, &lde, &randomizers[count * 2..], &mut lb)
        .unwrap();
    let want = ctx
        .merkle_commit(&[&la, &lb], &MerkleOptions::default())
        .unwrap()
        .root()
        .unwrap();
    let mats = || {
        vec![
            CommitMatrix::new(a.clone(), n, 2),
            CommitMatrix {
                ext_degree: 3,
                ..CommitMatrix::new(b.clone(), n, 1)
            },
        ]
    };
    for keep in [Keep::Device, Keep::Host, Keep::None] {
        let options = CommitOptions {
            lde,
            keep,
            ..CommitOptions::default()
        };
        let mut m = mats();
        if keep == Keep::Host {
            m[0].lde_host = Some(vec![0u64; n * 8 * 2]);
            m[1].lde_host = Some(vec![0u64; n * 8 * 3]);
        }
        let (_, tree) = ctx
            .commit_host_randomized(field, m, &options, &randomizers)
            .unwrap();
        assert_eq!(tree.root().unwrap(), want, "{:?}", keep);
    }
    let options = CommitOptions {
        lde,
        ..CommitOptions::default()
    };
    // Not a multiple of the five base columns.
    let e = ctx
        .commit_host_randomized(field, mats(), &options, &randomizers[..7])
        .unwrap_err();
    assert_eq!(e.status(), Status::ShapeMismatch, "{}", e);
    // blowup x count = 8 x 5 > max(n, n x blowup / 8) = 32: not inside the LDE.
    let e = ctx
        .commit_host_randomized(field, mats(), &options, &rng.vec(5 * 5, GOLDILOCKS_P))
        .unwrap_err();
    assert_eq!(e.status(), Status::Unsupported, "{}", e);
}
