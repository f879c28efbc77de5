// SPDX-License-Identifier: MIT OR Apache-2.0
//! Failed calls give the library's status and message, and leave every
//! object usable.
mod common;

use common::*;
use gpuprover::{Buffer, Field, Layout, LdeOptions, NttOptions, Status};

#[test]
fn non_power_of_two_rows_is_an_invalid_argument() {
    let ctx = cpu();
    let trace = vec![1u64; 3 * 2];
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 6, 2).unwrap();
    let err = ctx
        .lde_host(
            Field::Goldilocks,
            1,
            &trace,
            3,
            2,
            &LdeOptions::default(),
            &mut out,
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    assert!(!err.message().is_empty());
    assert!(
        err.to_string().starts_with("GP_ERR_INVALID_ARGUMENT: "),
        "{}",
        err
    );

    let mut buf =
        Buffer::from_host(&ctx, Field::Goldilocks, 1, 3, 2, Layout::ColMajor, &trace).unwrap();
    let err = ctx.ntt(&mut buf, &NttOptions::forward()).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    assert!(!err.message().is_empty());
}

#[test]
fn wrong_output_shape_is_a_shape_mismatch() {
    let ctx = cpu();
    let trace = Rng::new(30).vec(8 * 2, GOLDILOCKS_P);
    let options = LdeOptions {
        blowup: 4,
        ..LdeOptions::default()
    };
    // 32 rows are needed; 16 given. Then the right rows but 3 columns.
    for &(rows, cols) in &[(16usize, 2usize), (32, 3)] {
        let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, rows, cols).unwrap();
        let err = ctx
            .lde_host(Field::Goldilocks, 1, &trace, 8, 2, &options, &mut out)
            .unwrap_err();
        assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
        assert!(!err.message().is_empty());
    }
    // The context is still usable after the failures.
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 32, 2).unwrap();
    ctx.lde_host(Field::Goldilocks, 1, &trace, 8, 2, &options, &mut out)
        .unwrap();
}

#[test]
fn non_canonical_input_is_rejected() {
    let ctx = cpu();
    let mut trace = vec![5u64; 8];
    trace[6] = GOLDILOCKS_P; // p itself is not canonical
    let err =
        Buffer::from_host(&ctx, Field::Goldilocks, 1, 8, 1, Layout::ColMajor, &trace).unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    assert!(
        err.message().contains('6'),
        "message should name index 6: {}",
        err
    );

    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 16, 1).unwrap();
    let err = ctx
        .lde_host(
            Field::Goldilocks,
            1,
            &trace,
            8,
            1,
            &LdeOptions::default(),
            &mut out,
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);

    let bb = vec![u32::MAX; 4];
    let err = Buffer::from_host(&ctx, Field::BabyBear, 1, 4, 1, Layout::ColMajor, &bb).unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
}

#[test]
fn mismatched_fields_and_contexts() {
    let ctx = cpu();
    let other = cpu();
    let trace = vec![1u64; 8];
    let input =
        Buffer::from_host(&ctx, Field::Goldilocks, 1, 8, 1, Layout::ColMajor, &trace).unwrap();

    let mut bb_out = Buffer::new(&ctx, Field::BabyBear, 1, 16, 1).unwrap();
    let err = ctx
        .lde(&input, &LdeOptions::default(), &mut bb_out)
        .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch, "{}", err);

    let mut foreign_out = Buffer::new(&other, Field::Goldilocks, 1, 16, 1).unwrap();
    let err = ctx
        .lde(&input, &LdeOptions::default(), &mut foreign_out)
        .unwrap_err();
    assert_eq!(err.status(), Status::ContextMismatch, "{}", err);
}

#[test]
fn rust_side_checks() {
    let ctx = cpu();
    // u32 data for a u64 field.
    let err = Buffer::from_host(
        &ctx,
        Field::Goldilocks,
        1,
        4,
        1,
        Layout::ColMajor,
        &[1u32, 2, 3, 4],
    )
    .unwrap_err();
    assert_eq!(err.status(), Status::FieldMismatch);
    // Slice length does not match rows * cols.
    let err = Buffer::from_host(
        &ctx,
        Field::Goldilocks,
        1,
        4,
        2,
        Layout::ColMajor,
        &[1u64, 2, 3, 4],
    )
    .unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch);
    // Download into a too small slice: the library's own size check.
    let buf = Buffer::new(&ctx, Field::Goldilocks, 1, 4, 2).unwrap();
    let mut small = [0u64; 7];
    let err = buf.to_host(Layout::ColMajor, &mut small).unwrap_err();
    assert!(!err.message().is_empty());
    let mut wrong = [0u32; 8];
    assert_eq!(
        buf.to_host(Layout::ColMajor, &mut wrong)
            .unwrap_err()
            .status(),
        Status::FieldMismatch
    );
}

#[test]
fn unsupported_sizes() {
    let ctx = cpu();
    // Blowup above 32.
    let trace = vec![1u64; 4];
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, 4 * 64, 1).unwrap();
    let options = LdeOptions {
        blowup: 64,
        ..LdeOptions::default()
    };
    let err = ctx
        .lde_host(Field::Goldilocks, 1, &trace, 4, 1, &options, &mut out)
        .unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    // BabyBear has two-adicity 27.
    assert_eq!(
        Field::BabyBear.two_adic_generator(28).unwrap_err().status(),
        Status::TwoAdicity
    );
    // Extension degree 3 is not defined over BabyBear.
    let err = Buffer::new(&ctx, Field::BabyBear, 3, 4, 1).unwrap_err();
    assert!(
        matches!(err.status(), Status::Unsupported | Status::InvalidArgument),
        "{}",
        err
    );
}

#[test]
fn status_round_trips() {
    for status in [
        Status::InvalidArgument,
        Status::NullPointer,
        Status::Unsupported,
        Status::NoDevice,
        Status::HostOutOfMemory,
        Status::DeviceOutOfMemory,
        Status::SizeOverflow,
        Status::FieldMismatch,
        Status::ContextMismatch,
        Status::ShapeMismatch,
        Status::TwoAdicity,
        Status::NonCanonical,
        Status::Cuda,
        Status::Internal,
        Status::VerifyFailed,
        Status::Cancelled,
        Status::Remote,
        Status::Unknown(99),
    ] {
        assert_eq!(Status::from_raw(status.to_raw()), Some(status));
        // Our names are the library's names.
        let name =
            unsafe { std::ffi::CStr::from_ptr(gpuprover::sys::gp_status_name(status.to_raw())) };
        assert_eq!(name.to_str().unwrap(), status.name());
    }
    assert_eq!(Status::from_raw(gpuprover::sys::gp_status::GP_OK), None);
}
