// SPDX-License-Identifier: MIT OR Apache-2.0
//! Several devices: emulated CPU devices (`ContextOptions::devices` on the
//! CPU backend), `device_count`, `device_info`, and results that do not
//! depend on the number of devices.
mod common;

use common::*;
use gpuprover::{Backend, Buffer, Context, ContextOptions, DeviceInfo, Field, Status, DEVICES_ALL};

/// A CPU context with `n` emulated devices (none listed: the plain CPU
/// backend).
fn cpu_devices(n: usize) -> Context {
    Context::with_options(&ContextOptions {
        backend: Backend::Cpu,
        devices: vec![0; n],
        cpu_threads: 3,
        ..ContextOptions::default()
    })
    .expect("CPU context")
}

#[test]
fn devices_all_is_the_c_constant() {
    assert_eq!(DEVICES_ALL, -1);
    assert_eq!(DEVICES_ALL, gpuprover::sys::GP_DEVICES_ALL as i32);
}

#[test]
fn emulated_cpu_devices_are_reported() {
    let ctx = cpu_devices(3);
    assert_eq!(ctx.backend(), Backend::Cpu);
    assert_eq!(ctx.device_count(), 3);
    let infos = ctx.devices_info().unwrap();
    assert_eq!(infos.len(), 3);
    for (i, info) in infos.iter().enumerate() {
        assert_eq!(info.ordinal, -1, "device {}: {:?}", i, info);
        assert!(!info.name.is_empty(), "device {}: {:?}", i, info);
        assert_eq!((info.free_bytes, info.total_bytes), (0, 0), "{:?}", info);
        assert_eq!(&ctx.device_info(i).unwrap(), info);
    }

    // Plain CPU contexts have one device; so does a list holding only
    // DEVICES_ALL (its length is 1).
    for ctx in [
        cpu(),
        cpu_devices(1),
        Context::with_options(&ContextOptions {
            backend: Backend::Cpu,
            devices: vec![DEVICES_ALL],
            ..ContextOptions::default()
        })
        .unwrap(),
    ] {
        assert_eq!(ctx.device_count(), 1);
        let infos = ctx.devices_info().unwrap();
        assert_eq!(infos.len(), 1);
        assert_eq!(infos[0].ordinal, -1);
        assert!(!infos[0].name.is_empty());
    }
}

#[test]
fn device_info_out_of_range() {
    let ctx = cpu_devices(3);
    for index in [3usize, 4, 1000, u32::MAX as usize] {
        let err = ctx.device_info(index).unwrap_err();
        assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
        assert!(err.message().contains("index"), "{}", err);
    }
    // Beyond what the C API can take.
    let err = ctx.device_info(usize::MAX).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    // The context is still usable.
    assert_eq!(ctx.device_info(2).unwrap().ordinal, -1);

    let one = cpu();
    assert_eq!(
        one.device_info(1).unwrap_err().status(),
        Status::InvalidArgument
    );
}

#[test]
fn device_info_sees_a_buffer() {
    let ctx = cpu_devices(3);
    let before: u64 = ctx
        .devices_info()
        .unwrap()
        .iter()
        .map(|d: &DeviceInfo| d.buffer_bytes)
        .sum();
    let buf = Buffer::new(&ctx, Field::Goldilocks, 1, 1024, 6).unwrap();
    let after: u64 = ctx
        .devices_info()
        .unwrap()
        .iter()
        .map(|d| d.buffer_bytes)
        .sum();
    assert!(after > before, "{} then {}", before, after);
    drop(buf);
}

#[test]
fn three_devices_give_the_results_of_one() {
    let one = cpu_devices(1);
    let three = cpu_devices(3);
    assert_eq!((one.device_count(), three.device_count()), (1, 3));
    // 7 columns: blocks of 3, 2, 2; 2 columns: the third device holds none.
    for (seed, rows, cols) in [(1u64, 64usize, 7usize), (2, 32, 2), (3, 128, 3)] {
        let trace = Rng::new(seed).vec(rows * cols, GOLDILOCKS_P);
        let (lde1, root1, open1) = lde_and_commit(&one, &trace, rows, cols);
        let (lde3, root3, open3) = lde_and_commit(&three, &trace, rows, cols);
        assert_eq!(lde1, lde3, "LDE of {} x {}", rows, cols);
        assert_eq!(root1, root3, "root of {} x {}", rows, cols);
        assert_eq!(open1, open3, "openings of {} x {}", rows, cols);
    }
}
