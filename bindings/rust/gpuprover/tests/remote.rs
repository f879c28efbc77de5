// SPDX-License-Identifier: MIT OR Apache-2.0
//! The remote backend's options (`Backend::Remote`, `ContextOptions::endpoint`,
//! `priority`, `force_cpu`, `token_file`) and `Context::remote_fallback`,
//! without a server: an unreachable endpoint. With `GPUPROVER_TEST_SERVER`
//! set to a running gpuprover-server's address, `remote_matches_cpu` also
//! checks a remote context against the CPU backend.
mod common;

use common::*;
use gpuprover::{Backend, Context, ContextOptions, Priority, Status};

/// A unix socket path no server can listen on.
const UNREACHABLE: &str = "/nonexistent/dir/gp.sock";

#[test]
fn remote_backend_without_a_server_is_a_remote_error() {
    for (priority, force_cpu) in [(Priority::Normal, false), (Priority::High, true)] {
        let err = Context::with_options(&ContextOptions {
            backend: Backend::Remote,
            endpoint: Some(UNREACHABLE.to_string()),
            priority,
            force_cpu,
            ..ContextOptions::default()
        })
        .unwrap_err();
        if err.status() == Status::Unsupported && err.message().contains("no remote backend") {
            // A library configured without gRPC (GP_ENABLE_REMOTE=OFF): it
            // says so, with its own status; nothing more to check here.
            eprintln!("skipped: {err}");
            return;
        }
        assert_eq!(err.status(), Status::Remote, "{}", err);
        assert!(!err.message().is_empty());
        assert!(err.to_string().starts_with("GP_ERR_REMOTE: "), "{}", err);
    }
}

#[test]
fn auto_falls_back_in_process_and_says_why() {
    let ctx = Context::with_options(&ContextOptions {
        endpoint: Some(UNREACHABLE.to_string()),
        priority: Priority::Low,
        ..ContextOptions::default()
    })
    .unwrap();
    assert!(
        matches!(ctx.backend(), Backend::Cpu | Backend::Cuda),
        "{:?}",
        ctx.backend()
    );
    let why = ctx.remote_fallback().expect("a fallback reason");
    assert!(!why.is_empty());
    // It works in process.
    let trace = Rng::new(60).vec(32 * 2, GOLDILOCKS_P);
    assert_eq!(
        lde_and_commit(&ctx, &trace, 32, 2),
        lde_and_commit(&cpu(), &trace, 32, 2)
    );

    // A token file that cannot be read: in process as well, saying why.
    let ctx = Context::with_options(&ContextOptions {
        endpoint: Some(UNREACHABLE.to_string()),
        token_file: Some("/nonexistent/dir/token".into()),
        force_cpu: true,
        ..ContextOptions::default()
    })
    .unwrap();
    assert!(matches!(ctx.backend(), Backend::Cpu | Backend::Cuda));
    assert!(!ctx.remote_fallback().unwrap_or_default().is_empty());

    // No server configured: no fallback to explain.
    assert_eq!(cpu().remote_fallback(), None);
    // The CPU asked for: no CPU fallback either; AUTO on the CPU says why.
    assert_eq!(cpu().cpu_fallback(), None);
    let auto = Context::with_options(&ContextOptions {
        endpoint: Some(UNREACHABLE.to_string()),
        ..ContextOptions::default()
    })
    .unwrap();
    match auto.backend() {
        Backend::Cpu => assert!(!auto.cpu_fallback().unwrap_or_default().is_empty()),
        _ => assert_eq!(auto.cpu_fallback(), None),
    }
    if std::env::var_os("GPUPROVER_SERVER").is_none() {
        let ctx = Context::new().unwrap();
        assert!(matches!(ctx.backend(), Backend::Cpu | Backend::Cuda));
        assert_eq!(ctx.remote_fallback(), None);
    }
}

#[test]
fn strings_with_a_nul_byte_are_refused() {
    let err = Context::with_options(&ContextOptions {
        backend: Backend::Remote,
        endpoint: Some("/tmp/a\0b".to_string()),
        ..ContextOptions::default()
    })
    .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    assert!(err.message().contains("endpoint"), "{}", err);
    let err = Context::with_options(&ContextOptions {
        endpoint: Some(UNREACHABLE.to_string()),
        token_file: Some("/tmp/a\0b".into()),
        ..ContextOptions::default()
    })
    .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    assert!(err.message().contains("token_file"), "{}", err);
}

#[test]
fn remote_statuses_and_priorities_are_the_c_values() {
    assert_eq!(
        Status::Remote.to_raw(),
        gpuprover::sys::gp_status::GP_ERR_REMOTE
    );
    assert_eq!(Status::Remote.to_raw().0, 17);
    assert_eq!(
        Status::from_raw(Status::Remote.to_raw()),
        Some(Status::Remote)
    );
    assert_eq!(Status::Remote.name(), "GP_ERR_REMOTE");
    assert_eq!(Backend::Remote.to_raw().0, 3);
    assert_eq!(Priority::default(), Priority::Normal);
    assert_eq!(
        [Priority::Normal, Priority::Low, Priority::High].map(|p| p.to_raw().0),
        [0, 1, 2]
    );
}

/// Runs only with GPUPROVER_TEST_SERVER set to a server's address
/// (`gpuprover-server --unix /tmp/gpu-prover.sock`, then
/// `GPUPROVER_TEST_SERVER=/tmp/gpu-prover.sock cargo test`).
#[test]
fn remote_matches_cpu() {
    let endpoint = match std::env::var("GPUPROVER_TEST_SERVER") {
        Ok(e) if !e.is_empty() => e,
        _ => {
            eprintln!("skipped: GPUPROVER_TEST_SERVER is not set");
            return;
        }
    };
    let remote = Context::with_options(&ContextOptions {
        backend: Backend::Remote,
        endpoint: Some(endpoint.clone()),
        ..ContextOptions::default()
    })
    .unwrap_or_else(|e| panic!("remote context at {}: {}", endpoint, e));
    assert_eq!(remote.backend(), Backend::Remote);
    assert_eq!(remote.remote_fallback(), None);
    let cpu_ctx = cpu();
    for (seed, rows, cols) in [(1u64, 64usize, 7usize), (2, 256, 3)] {
        let trace = Rng::new(seed).vec(rows * cols, GOLDILOCKS_P);
        let (lde_r, root_r, open_r) = lde_and_commit(&remote, &trace, rows, cols);
        let (lde_c, root_c, open_c) = lde_and_commit(&cpu_ctx, &trace, rows, cols);
        assert_eq!(lde_r, lde_c, "LDE of {} x {}", rows, cols);
        assert_eq!(root_r, root_c, "root of {} x {}", rows, cols);
        assert_eq!(open_r, open_c, "openings of {} x {}", rows, cols);
    }
}
