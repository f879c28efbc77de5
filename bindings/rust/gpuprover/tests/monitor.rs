// SPDX-License-Identifier: MIT OR Apache-2.0
//! Cancellation, progress and log callbacks, counters and per-call
//! statistics.
mod common;

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use gpuprover::{Buffer, Context, Field, Layout, LdeOptions, MerkleOptions, Status};

/// A 64 x 2 Goldilocks matrix: its commitment reports progress at the leaf
/// layer and at each of the 6 node layers.
fn matrix(ctx: &Context) -> Buffer {
    let data = Rng::new(9).vec(64 * 2, GOLDILOCKS_P);
    Buffer::from_host(ctx, Field::Goldilocks, 1, 64, 2, Layout::ColMajor, &data).unwrap()
}

#[test]
fn progress_reports_stages() {
    let ctx = cpu();
    let m = matrix(&ctx);
    let seen = Arc::new(Mutex::new(Vec::<(String, u64, u64)>::new()));
    let sink = Arc::clone(&seen);
    ctx.set_progress(move |stage, done, total| {
        sink.lock().unwrap().push((stage.to_string(), done, total));
    })
    .unwrap();
    ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
    let events = seen.lock().unwrap().clone();
    assert!(!events.is_empty());
    assert!(
        events.iter().any(|(stage, _, _)| stage == "merkle"),
        "{:?}",
        events
    );
    assert!(
        events.iter().all(|&(_, done, total)| done <= total),
        "{:?}",
        events
    );

    ctx.clear_progress().unwrap();
    seen.lock().unwrap().clear();
    ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn cancel_from_the_progress_callback() {
    let ctx = cpu();
    let m = matrix(&ctx);
    let expected = ctx
        .merkle_commit(&[&m], &MerkleOptions::default())
        .unwrap()
        .root()
        .unwrap();
    let cancel = ctx.cancel_handle();
    ctx.set_progress(move |_, _, _| {
        assert!(cancel.cancel());
    })
    .unwrap();
    let err = ctx
        .merkle_commit(&[&m], &MerkleOptions::default())
        .unwrap_err();
    assert_eq!(err.status(), Status::Cancelled, "{}", err);
    assert!(err.to_string().starts_with("GP_ERR_CANCELLED"), "{}", err);

    // Every handle stays usable; a later call is not affected.
    ctx.clear_progress().unwrap();
    let tree = ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
    assert_eq!(tree.root().unwrap(), expected);
}

#[test]
fn cancel_from_another_thread() {
    let ctx = cpu();
    let m = matrix(&ctx);
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let mut first = true;
    // The call blocks in its first progress report until the other thread
    // has cancelled it.
    ctx.set_progress(move |_, _, _| {
        if first {
            first = false;
            started_tx.send(()).unwrap();
            go_rx.recv_timeout(Duration::from_secs(60)).unwrap();
        }
    })
    .unwrap();
    let ctx_ref = &ctx;
    std::thread::scope(|s| {
        s.spawn(move || {
            started_rx.recv_timeout(Duration::from_secs(60)).unwrap();
            ctx_ref.cancel().unwrap(); // &Context from another thread
            go_tx.send(()).unwrap();
        });
        let err = ctx
            .merkle_commit(&[&m], &MerkleOptions::default())
            .unwrap_err();
        assert_eq!(err.status(), Status::Cancelled, "{}", err);
    });
    ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
}

#[test]
fn cancelling_an_idle_context_does_nothing() {
    let ctx = cpu();
    ctx.cancel().unwrap();
    let m = matrix(&ctx);
    ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
    let handle = ctx.cancel_handle();
    assert!(handle.cancel());
    drop(m);
    drop(ctx);
    assert!(!handle.cancel(), "the context is gone");
}

#[test]
fn a_panicking_progress_callback_cancels_and_resumes() {
    let ctx = cpu();
    let m = matrix(&ctx);
    ctx.set_progress(|_, _, _| panic!("progress callback panicked"))
        .unwrap();
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        ctx.merkle_commit(&[&m], &MerkleOptions::default())
    }));
    let payload = caught.expect_err("the panic is resumed after the call");
    let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert_eq!(message, "progress callback panicked");
    ctx.clear_progress().unwrap();
    ctx.merkle_commit(&[&m], &MerkleOptions::default()).unwrap();
}

#[test]
fn log_lines_name_call_and_status() {
    let ctx = cpu();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&lines);
    ctx.set_log(move |line| sink.lock().unwrap().push(line.to_string()))
        .unwrap();
    let trace = Rng::new(10).vec(8 * 2, GOLDILOCKS_P);
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 16, 2).unwrap();
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        8,
        2,
        &LdeOptions::default(),
        &mut out,
    )
    .unwrap();
    let mut wrong = Buffer::new(&ctx, Field::Goldilocks, 1, 8, 2).unwrap();
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        8,
        2,
        &LdeOptions::default(),
        &mut wrong,
    )
    .unwrap_err();
    let got = lines.lock().unwrap().clone();
    assert!(
        got.iter()
            .any(|l| l.starts_with("gp_lde_batch_host GP_OK ") && l.contains(" ms")),
        "{:?}",
        got
    );
    assert!(
        got.iter()
            .any(|l| l.starts_with("gp_lde_batch_host GP_ERR_SHAPE_MISMATCH")),
        "{:?}",
        got
    );

    ctx.clear_log().unwrap();
    lines.lock().unwrap().clear();
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        8,
        2,
        &LdeOptions::default(),
        &mut out,
    )
    .unwrap();
    assert!(lines.lock().unwrap().is_empty());
}

#[test]
fn callbacks_are_dropped_with_the_context() {
    let token = Arc::new(());
    let ctx = cpu();
    let (p, l) = (Arc::clone(&token), Arc::clone(&token));
    ctx.set_progress(move |_, _, _| drop(Arc::clone(&p)))
        .unwrap();
    ctx.set_log(move |_| drop(Arc::clone(&l))).unwrap();
    assert_eq!(Arc::strong_count(&token), 3);

    // Replacing drops the old closure.
    let q = Arc::clone(&token);
    ctx.set_progress(move |_, _, _| drop(Arc::clone(&q)))
        .unwrap();
    assert_eq!(Arc::strong_count(&token), 3);

    // A buffer keeps the context, and so the callbacks, alive.
    let buf = Buffer::new(&ctx, Field::Goldilocks, 1, 8, 1).unwrap();
    let clone = ctx.clone();
    drop(ctx);
    drop(clone);
    assert_eq!(Arc::strong_count(&token), 3);
    drop(buf);
    assert_eq!(Arc::strong_count(&token), 1);
}

#[test]
fn counters_and_call_stats() {
    let ctx = cpu();
    let trace = Rng::new(11).vec(8 * 2, GOLDILOCKS_P);
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 16, 2).unwrap();
    ctx.reset_counters().unwrap();
    for _ in 0..3 {
        ctx.lde_host(
            Field::Goldilocks,
            1,
            &trace,
            8,
            2,
            &LdeOptions::default(),
            &mut out,
        )
        .unwrap();
    }
    let mut wrong = Buffer::new(&ctx, Field::Goldilocks, 1, 8, 2).unwrap();
    ctx.lde_host(
        Field::Goldilocks,
        1,
        &trace,
        8,
        2,
        &LdeOptions::default(),
        &mut wrong,
    )
    .unwrap_err();

    let c = ctx.counters().unwrap();
    assert!(c.calls >= 4, "{:?}", c);
    assert!(c.failed_calls >= 1, "{:?}", c);
    assert!(c.call_ns > 0 && c.call_time() > Duration::ZERO, "{:?}", c);
    // The CPU backend copies nothing between host and device.
    assert_eq!((c.bytes_to_device, c.bytes_to_host, c.device_ns), (0, 0, 0));

    let stats = ctx.call_stats().unwrap();
    let lde = stats
        .iter()
        .find(|s| s.name == "gp_lde_batch_host")
        .unwrap_or_else(|| panic!("{:?}", stats));
    assert_eq!((lde.calls, lde.failed_calls), (4, 1), "{:?}", lde);
    let names: Vec<&str> = stats.iter().map(|s| s.name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "sorted by name");

    ctx.reset_counters().unwrap();
    let stats = ctx.call_stats().unwrap();
    assert!(
        stats.iter().all(|s| s.name != "gp_lde_batch_host"),
        "{:?}",
        stats
    );
    assert_eq!(ctx.counters().unwrap().failed_calls, 0);
}
