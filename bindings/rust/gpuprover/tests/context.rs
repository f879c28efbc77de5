// SPDX-License-Identifier: MIT OR Apache-2.0
//! Contexts: backend selection, device name, moving between threads.
mod common;

use common::*;
use gpuprover::{Backend, Buffer, Context, ContextOptions, Field, Layout, LdeOptions, Status};

#[test]
fn cpu_backend() {
    let ctx = cpu();
    assert_eq!(ctx.backend(), Backend::Cpu);
    let name = ctx.device_name().unwrap();
    assert!(name.contains("CPU"), "{}", name);
    assert!(!gpuprover::version().is_empty());
}

#[test]
fn auto_backend_is_cpu_or_cuda() {
    let ctx = Context::new().unwrap();
    assert!(matches!(ctx.backend(), Backend::Cpu | Backend::Cuda));
    assert!(!ctx.device_name().unwrap().is_empty());
    println!("{:?}", ctx);
}

#[test]
fn cuda_backend_or_no_device() {
    match Context::with_backend(Backend::Cuda) {
        Ok(ctx) => assert_eq!(ctx.backend(), Backend::Cuda),
        Err(err) => {
            assert_eq!(err.status(), Status::NoDevice, "{}", err);
            assert!(!err.message().is_empty());
        }
    }
    // A device ordinal that does not exist.
    let err = Context::with_options(&ContextOptions {
        backend: Backend::Cuda,
        devices: vec![4096],
        ..ContextOptions::default()
    })
    .unwrap_err();
    assert_eq!(err.status(), Status::NoDevice, "{}", err);
}

#[test]
fn context_moves_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Context>();

    let ctx = cpu();
    let trace = Rng::new(40).vec(16, GOLDILOCKS_P);
    let here = {
        let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 1).unwrap();
        ctx.lde_host(
            Field::Goldilocks,
            1,
            &trace,
            16,
            1,
            &LdeOptions::default(),
            &mut out,
        )
        .unwrap();
        out.to_vec::<u64>(Layout::ColMajor).unwrap()
    };
    let there = std::thread::spawn(move || {
        let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 1).unwrap();
        ctx.lde_host(
            Field::Goldilocks,
            1,
            &trace,
            16,
            1,
            &LdeOptions::default(),
            &mut out,
        )
        .unwrap();
        out.to_vec::<u64>(Layout::ColMajor).unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(here, there);
}

#[test]
fn contexts_on_several_threads() {
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                let ctx = cpu();
                let (rows, cols) = (64usize, 2usize);
                let data = Rng::new(50 + t).vec(rows * cols, GOLDILOCKS_P);
                let buf = Buffer::from_host(
                    &ctx,
                    Field::Goldilocks,
                    1,
                    rows,
                    cols,
                    Layout::RowMajor,
                    &data,
                )
                .unwrap();
                assert_eq!((buf.rows(), buf.cols()), (rows, cols));
                assert_eq!(buf.field(), Field::Goldilocks);
                assert_eq!(buf.ext_degree(), 1);
                assert_eq!(buf.size_bytes(), (rows * cols * 8) as u64);
                assert_eq!(buf.to_vec::<u64>(Layout::RowMajor).unwrap(), data);
                // Row-major data read back column-major is its transpose.
                let col_major = buf.to_vec::<u64>(Layout::ColMajor).unwrap();
                assert_eq!(transpose(&col_major, rows, cols), data);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn zero_filled_buffer() {
    let ctx = cpu();
    let buf = Buffer::new(&ctx, Field::KoalaBear, 4, 8, 3).unwrap();
    assert_eq!(buf.len(), 8 * 3 * 4);
    assert_eq!(buf.size_bytes(), 8 * 3 * 4 * 4);
    assert!(buf
        .to_vec::<u32>(Layout::ColMajor)
        .unwrap()
        .iter()
        .all(|&v| v == 0));
    assert_eq!(buf.context(), &ctx);
    assert_ne!(buf.context(), &cpu());
}
