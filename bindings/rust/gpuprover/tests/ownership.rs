// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared ownership and threads: handles keep what they need alive, a struct
//! can own a context with its LDE and tree, committed buffers are read-only,
//! and contexts, buffers, trees and FRI commitments are used from several
//! threads at once.
mod common;

use std::sync::Arc;

use common::*;
use gpuprover::{
    Buffer, CancelHandle, ConstraintCommitment, Context, Field, Fri, FriOptions, Layout,
    LdeOptions, MerkleOptions, MerkleTree, NttOptions, OodOptions, Order, Status,
};

fn assert_send_sync<T: Send + Sync>() {}
fn assert_clone<T: Clone>() {}

#[test]
fn handles_are_send_and_sync() {
    assert_send_sync::<Context>();
    assert_send_sync::<Buffer>();
    assert_send_sync::<MerkleTree>();
    assert_send_sync::<Fri>();
    assert_send_sync::<ConstraintCommitment>();
    assert_send_sync::<CancelHandle>();
    assert_clone::<Context>();
    assert_clone::<CancelHandle>();
}

/// A Goldilocks LDE (blowup 2, bit-reversed) of `cols` random columns.
fn lde(ctx: &Context, rows: usize, cols: usize, seed: u64) -> Buffer {
    let trace = Rng::new(seed).vec(rows * cols, GOLDILOCKS_P);
    let mut out = Buffer::new(ctx, Field::Goldilocks, 1, rows * 2, cols).unwrap();
    let options = LdeOptions {
        output_order: Order::BitReversed,
        ..LdeOptions::default()
    };
    ctx.lde_host(Field::Goldilocks, 1, &trace, rows, cols, &options, &mut out)
        .unwrap();
    out
}

#[test]
fn clones_are_one_context() {
    let ctx = cpu();
    let clone = ctx.clone();
    assert_eq!(ctx, clone);
    assert_ne!(ctx, cpu());
    // A buffer made with a clone works with the original: same context.
    let a = lde(&clone, 8, 2, 1);
    let mut b = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 2).unwrap();
    ctx.lde(
        &a,
        &LdeOptions {
            blowup: 2,
            ..LdeOptions::default()
        },
        &mut b,
    )
    .unwrap();
    assert_eq!(a.context(), &ctx);
}

#[test]
fn buffer_outlives_its_context_value() {
    let data = Rng::new(2).vec(16, GOLDILOCKS_P);
    let buf = {
        let ctx = cpu();
        Buffer::from_host(&ctx, Field::Goldilocks, 1, 16, 1, Layout::ColMajor, &data).unwrap()
    }; // the Context value is gone; the buffer keeps the context alive
    assert_eq!(buf.to_vec::<u64>(Layout::ColMajor).unwrap(), data);
    assert_eq!(buf.context().memory_stats().unwrap().buffer_bytes, 16 * 8);
}

#[test]
fn tree_keeps_its_matrices_and_context_alive() {
    let ctx = cpu();
    let tree = {
        let local = cpu();
        let matrix = lde(&local, 16, 3, 3);
        local
            .merkle_commit(&[&matrix], &MerkleOptions::default())
            .unwrap()
    }; // matrix and context value dropped; the tree holds both
    assert_eq!(tree.matrices().len(), 1);
    assert_eq!(tree.height(), 32);
    let stats = tree.context().memory_stats().unwrap();
    assert_eq!(stats.buffer_bytes, 32 * 3 * 8, "the committed LDE is alive");
    for opening in tree.open::<u64>(&[0, 7, 31]).unwrap() {
        tree.verify(&opening).unwrap();
    }

    // The same on a context kept here: dropping the tree releases the
    // buffer it held, and the context's memory with it.
    let matrix = lde(&ctx, 16, 3, 3);
    let root = tree.root().unwrap();
    let tree2 = ctx
        .merkle_commit(&[&matrix], &MerkleOptions::default())
        .unwrap();
    assert_eq!(tree2.root().unwrap(), root, "same data, same root");
    drop(matrix);
    assert_eq!(ctx.memory_stats().unwrap().buffer_bytes, 32 * 3 * 8);
    drop(tree2);
    assert_eq!(ctx.memory_stats().unwrap().buffer_bytes, 0);
}

/// What a PCS keeps per commitment: the context, the LDE and its tree, in
/// one struct, returned from a function and moved to another thread.
struct ProverData {
    ctx: Context,
    lde: Buffer,
    tree: MerkleTree,
}

fn commit(rows: usize, cols: usize, seed: u64) -> ProverData {
    let ctx = cpu();
    let lde = lde(&ctx, rows, cols, seed);
    let tree = ctx
        .merkle_commit(&[&lde], &MerkleOptions::default())
        .unwrap();
    ProverData { ctx, lde, tree }
}

#[test]
fn a_struct_owns_context_lde_and_tree() {
    let data = commit(16, 2, 4);
    let root = data.tree.root().unwrap();
    let expected: Vec<u64> = data.lde.to_vec(Layout::RowMajor).unwrap();
    let opened = std::thread::spawn(move || {
        assert_eq!(data.lde.context(), &data.ctx);
        let opening = data.tree.open::<u64>(&[5]).unwrap().remove(0);
        data.tree.verify(&opening).unwrap();
        assert_eq!(data.tree.root().unwrap(), root);
        opening.rows
    })
    .join()
    .unwrap();
    assert_eq!(opened, expected[5 * 2..6 * 2].to_vec());
}

#[test]
fn committed_buffers_are_read_only() {
    let ctx = cpu();
    let mut matrix = lde(&ctx, 8, 2, 5);
    let before: Vec<u64> = matrix.to_vec(Layout::ColMajor).unwrap();
    assert!(!matrix.is_shared());
    let tree = ctx
        .merkle_commit(&[&matrix], &MerkleOptions::default())
        .unwrap();
    assert!(matrix.is_shared());

    let err = ctx.ntt(&mut matrix, &NttOptions::forward()).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    assert!(err.message().contains("MerkleTree"), "{}", err);
    let trace = Rng::new(6).vec(8 * 2, GOLDILOCKS_P);
    let err = ctx
        .lde_host(
            Field::Goldilocks,
            1,
            &trace,
            8,
            2,
            &LdeOptions::default(),
            &mut matrix,
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    let input =
        Buffer::from_host(&ctx, Field::Goldilocks, 1, 8, 2, Layout::ColMajor, &trace).unwrap();
    let err = ctx
        .lde(&input, &LdeOptions::default(), &mut matrix)
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    // A committed one-column extension buffer as the DEEP output.
    let mut q = Buffer::new(&ctx, Field::Goldilocks, 3, 16, 1).unwrap();
    let q_tree = ctx.merkle_commit(&[&q], &MerkleOptions::default()).unwrap();
    let ood = OodOptions {
        order: Order::BitReversed,
        ..OodOptions::default()
    };
    let z = [11u64, 12, 13];
    let values: Vec<u64> = ctx.evaluate_ood(&[&matrix], &ood, &z).unwrap();
    let err = ctx
        .deep_composition(&[&matrix], &ood, &z, &values, &values, &mut q)
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    drop(q_tree);

    // Nothing was written; the tree still opens what it committed.
    assert_eq!(matrix.to_vec::<u64>(Layout::ColMajor).unwrap(), before);
    let opening = tree.open::<u64>(&[3]).unwrap().remove(0);
    tree.verify(&opening).unwrap();

    drop(tree);
    assert!(!matrix.is_shared());
    ctx.ntt(&mut matrix, &NttOptions::forward()).unwrap();
    assert_ne!(matrix.to_vec::<u64>(Layout::ColMajor).unwrap(), before);
    ctx.deep_composition(&[&matrix], &ood, &z, &values, &values, &mut q)
        .unwrap();
}

#[test]
fn one_context_from_several_threads() {
    let ctx = cpu();
    let expected: Vec<Vec<u8>> = (0..4u64)
        .map(|t| {
            let m = lde(&ctx, 32, 2, 100 + t);
            ctx.merkle_commit(&[&m], &MerkleOptions::default())
                .unwrap()
                .root()
                .unwrap()
        })
        .collect();
    let expected = &expected;
    let ctx = &ctx;
    std::thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || {
                for _ in 0..3 {
                    let m = lde(ctx, 32, 2, 100 + t);
                    let tree = ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
                    assert_eq!(tree.root().unwrap(), expected[t as usize]);
                }
            });
        }
    });
}

#[test]
fn tree_and_fri_opened_from_several_threads() {
    let ctx = cpu();
    let matrix = lde(&ctx, 32, 2, 7);
    let tree = Arc::new(
        ctx.merkle_commit(&[&matrix], &MerkleOptions::default())
            .unwrap(),
    );
    drop(matrix);
    let column = Rng::new(8).vec(64, GOLDILOCKS_P);
    let fri = Arc::new(
        ctx.fri_commit(
            &Buffer::from_host(&ctx, Field::Goldilocks, 1, 64, 1, Layout::ColMajor, &column)
                .unwrap(),
            &FriOptions {
                final_size: 4,
                ..FriOptions::default()
            },
            |layer, cap: &[u8], beta: &mut [u64]| {
                beta[0] = u64::from(cap[0]) + u64::from(layer) + 1;
                Ok(())
            },
        )
        .unwrap(),
    );
    let handles: Vec<_> = (0..3usize)
        .map(|t| {
            let tree = Arc::clone(&tree);
            let fri = Arc::clone(&fri);
            std::thread::spawn(move || {
                for i in (t..64).step_by(3) {
                    let opening = tree.open::<u64>(&[i]).unwrap().remove(0);
                    tree.verify(&opening).unwrap();
                    let query = fri.open(&[i]).unwrap().remove(0);
                    fri.verify(i, &query).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn constraint_commitment_owns_its_segments() {
    let ctx = cpu();
    let cc = {
        let evals: Vec<u64> = (0..64u64)
            .map(|r| (r * r * r + 5 * r + 1) % GOLDILOCKS_P)
            .collect();
        let buf =
            Buffer::from_host(&ctx, Field::Goldilocks, 1, 64, 1, Layout::ColMajor, &evals).unwrap();
        ctx.constraint_commit(
            &buf,
            &gpuprover::ConstraintOptions {
                segments: 4,
                ..Default::default()
            },
        )
        .unwrap()
    };
    assert!(cc.segments().is_shared());
    let moved = std::thread::spawn(move || {
        let opening = cc.tree().open::<u64>(&[2]).unwrap().remove(0);
        cc.tree().verify(&opening).unwrap();
        cc
    })
    .join()
    .unwrap();
    assert_eq!(moved.tree().matrices().len(), 1);
}
