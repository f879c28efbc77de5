// SPDX-License-Identifier: MIT OR Apache-2.0
//! The prover's own memory and streams: buffers wrapping host memory
//! (`Buffer::wrap`, `Buffer::from_vec`), the address of a buffer's memory
//! (`Buffer::data_ptr`) and `Context::set_stream`, on the CPU backend.
mod common;

use common::*;
use gpuprover::{Buffer, Field, Layout, LdeOptions, NttOptions, Status};

#[test]
fn from_vec_wraps_host_memory_without_a_copy() {
    let ctx = cpu();
    let (rows, cols) = (16usize, 3usize);
    let data = Rng::new(20).vec(rows * cols, GOLDILOCKS_P); // column-major
    let addr = data.as_ptr() as usize;
    let buf = Buffer::from_vec(&ctx, Field::Goldilocks, 1, rows, cols, data.clone()).unwrap();
    // `data.clone()` was moved in; its allocation is the buffer's memory.
    let ptr = buf.data_ptr().unwrap();
    assert!(!ptr.is_null());
    assert_ne!(ptr as usize, addr, "the clone, not the original");
    assert_eq!(buf.to_vec::<u64>(Layout::ColMajor).unwrap(), data);
    // SAFETY: a CPU buffer's memory is host memory of rows * cols elements;
    // no call uses the buffer meanwhile.
    let seen = unsafe { std::slice::from_raw_parts(ptr as *const u64, rows * cols) };
    assert_eq!(seen, &data[..]);

    let v = vec![1u64, 2, 3, 4];
    let v_addr = v.as_ptr() as usize;
    let b = Buffer::from_vec(&ctx, Field::Goldilocks, 1, 4, 1, v).unwrap();
    assert_eq!(
        b.data_ptr().unwrap() as usize,
        v_addr,
        "no copy on the CPU backend"
    );
}

#[test]
fn from_vec_takes_the_buffer_layout() {
    // Extension columns: the buffer layout stores each coefficient as its
    // own base column; Layout::ColMajor interleaves them per element.
    let ctx = cpu();
    let (rows, cols, ext) = (4usize, 2usize, 2usize);
    let data: Vec<u64> = (0..(rows * cols * ext) as u64).collect();
    let buf = Buffer::from_vec(&ctx, Field::Goldilocks, 2, rows, cols, data.clone()).unwrap();
    let col_major: Vec<u64> = buf.to_vec(Layout::ColMajor).unwrap();
    for c in 0..cols {
        for r in 0..rows {
            for k in 0..ext {
                assert_eq!(
                    col_major[(c * rows + r) * ext + k],
                    data[(c * ext + k) * rows + r]
                );
            }
        }
    }
}

#[test]
fn a_wrapped_buffer_is_an_lde_output_read_in_place() {
    let ctx = cpu();
    let trace = Rng::new(21).vec(8 * 2, GOLDILOCKS_P);
    let options = LdeOptions {
        blowup: 4,
        ..LdeOptions::default()
    };
    let mut reference = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 2).unwrap();
    ctx.lde_host(Field::Goldilocks, 1, &trace, 8, 2, &options, &mut reference)
        .unwrap();
    let expected: Vec<u64> = reference.to_vec(Layout::ColMajor).unwrap();

    let mut memory = vec![0u64; 32 * 2];
    {
        // SAFETY: host memory of 32 x 2 Goldilocks elements for a CPU
        // context, untouched until the buffer (never committed) is dropped.
        let mut out = unsafe {
            Buffer::wrap(
                &ctx,
                Field::Goldilocks,
                1,
                32,
                2,
                memory.as_mut_ptr().cast(),
            )
        }
        .unwrap();
        assert_eq!(out.data_ptr().unwrap(), memory.as_mut_ptr().cast());
        ctx.lde_host(Field::Goldilocks, 1, &trace, 8, 2, &options, &mut out)
            .unwrap();
        ctx.ntt(&mut out, &NttOptions::inverse()).unwrap();
        ctx.ntt(&mut out, &NttOptions::forward()).unwrap();
    }
    assert_eq!(memory, expected);
}

#[test]
fn wrap_checks_canonical_values() {
    let ctx = cpu();
    let mut memory = vec![0u64, 1, GOLDILOCKS_P, 3];
    // SAFETY: as above; the call fails and keeps nothing.
    let err = unsafe { Buffer::wrap(&ctx, Field::Goldilocks, 1, 4, 1, memory.as_mut_ptr().cast()) }
        .unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    let err = Buffer::from_vec(&ctx, Field::Goldilocks, 1, 4, 1, memory).unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    let err = Buffer::from_vec(&ctx, Field::BabyBear, 1, 4, 1, vec![0u64; 4]).unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch, "{}", err);
    let err = Buffer::from_vec(&ctx, Field::Goldilocks, 1, 4, 2, vec![0u64; 4]).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
}

#[test]
fn set_stream_on_the_cpu_backend() {
    let ctx = cpu();
    // SAFETY: NULL is "no stream".
    unsafe { ctx.set_stream(std::ptr::null_mut()) }.unwrap();
    let mut fake = 0u8;
    // SAFETY: the CPU backend rejects a stream without using it.
    let err = unsafe { ctx.set_stream((&mut fake as *mut u8).cast()) }.unwrap_err();
    assert_eq!(err.status(), Status::Unsupported, "{}", err);
}
