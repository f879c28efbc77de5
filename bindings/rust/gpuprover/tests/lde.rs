// SPDX-License-Identifier: MIT OR Apache-2.0
//! Coset LDE against a naive O(n^2) interpolation + evaluation.
mod common;

use common::*;
use gpuprover::{Buffer, Context, Field, Layout, LdeOptions, Order, Status};

/// Column-major reference LDE of a column-major `rows` x `cols` trace.
#[allow(clippy::too_many_arguments)]
fn reference(
    trace: &[u64],
    rows: usize,
    cols: usize,
    n: usize,
    blowup: usize,
    root_of: &dyn Fn(u32) -> u64,
    s: u64,
    g: u64,
    bitrev: bool,
    p: u64,
) -> Vec<u64> {
    let mut out = Vec::new();
    for c in 0..cols {
        out.extend(naive_lde_column(
            &trace[c * rows..(c + 1) * rows],
            n,
            blowup,
            root_of,
            s,
            g,
            bitrev,
            p,
        ));
    }
    out
}

#[test]
fn library_roots_are_plonky3s() {
    for log_n in 0..=32 {
        let w = Field::Goldilocks.two_adic_generator(log_n).unwrap();
        assert_eq!(w, goldilocks_root(log_n), "log_n = {}", log_n);
        assert_primitive(w, log_n, GOLDILOCKS_P);
    }
    let info = Field::Goldilocks.info().unwrap();
    assert_eq!(info.modulus, GOLDILOCKS_P);
    assert_eq!(info.generator, 7);
    assert_eq!(info.two_adicity, 32);
}

#[test]
fn goldilocks_lde_matches_naive_evaluation() {
    let ctx = cpu();
    let (rows, cols) = (8usize, 3usize);
    let trace = Rng::new(1).vec(rows * cols, GOLDILOCKS_P);
    for &blowup in &[1usize, 2, 4, 8] {
        for &order in &[Order::Natural, Order::BitReversed] {
            let want = reference(
                &trace,
                rows,
                cols,
                rows,
                blowup,
                &goldilocks_root,
                1,
                7,
                order == Order::BitReversed,
                GOLDILOCKS_P,
            );
            let options = LdeOptions {
                blowup: blowup as u32,
                output_order: order,
                ..LdeOptions::default()
            };

            // Host input, column-major.
            let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, rows * blowup, cols).unwrap();
            ctx.lde_host(Field::Goldilocks, 1, &trace, rows, cols, &options, &mut out)
                .unwrap();
            assert_eq!(
                out.to_vec::<u64>(Layout::ColMajor).unwrap(),
                want,
                "blowup {} {:?}",
                blowup,
                order
            );

            // Host input, row-major; output downloaded row-major.
            let row_major = transpose(&trace, rows, cols);
            let options_rm = LdeOptions {
                input_layout: Layout::RowMajor,
                ..options
            };
            ctx.lde_host(
                Field::Goldilocks,
                1,
                &row_major,
                rows,
                cols,
                &options_rm,
                &mut out,
            )
            .unwrap();
            assert_eq!(
                out.to_vec::<u64>(Layout::RowMajor).unwrap(),
                transpose(&want, rows * blowup, cols)
            );

            // Device (library-owned) input.
            let input = Buffer::from_host(
                &ctx,
                Field::Goldilocks,
                1,
                rows,
                cols,
                Layout::ColMajor,
                &trace,
            )
            .unwrap();
            let mut out2 = Buffer::new(&ctx, Field::Goldilocks, 1, rows * blowup, cols).unwrap();
            ctx.lde(&input, &options, &mut out2).unwrap();
            let mut got = vec![0u64; rows * blowup * cols];
            out2.to_host(Layout::ColMajor, &mut got).unwrap();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn lde_with_shifts_and_virtual_padding() {
    let ctx = cpu();
    // 5 given rows of a length-8 trace (rows 5..8 are zero), input on the
    // coset 3*H, output on 11*K.
    let (rows, n, cols, blowup) = (5usize, 8usize, 2usize, 4usize);
    let trace = Rng::new(2).vec(rows * cols, GOLDILOCKS_P);
    let want = reference(
        &trace,
        rows,
        cols,
        n,
        blowup,
        &goldilocks_root,
        3,
        11,
        false,
        GOLDILOCKS_P,
    );
    let options = LdeOptions {
        n,
        blowup: blowup as u32,
        shift: Some(11),
        input_shift: Some(3),
        ..LdeOptions::default()
    };
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, n * blowup, cols).unwrap();
    ctx.lde_host(Field::Goldilocks, 1, &trace, rows, cols, &options, &mut out)
        .unwrap();
    assert_eq!(out.to_vec::<u64>(Layout::ColMajor).unwrap(), want);
}

#[test]
fn lde_of_extension_columns_is_componentwise() {
    // Goldilocks degree-2 extension: each element is 2 consecutive base
    // values; the LDE acts on each coordinate separately.
    let ctx = cpu();
    let (rows, cols, d, blowup) = (8usize, 2usize, 2usize, 2usize);
    let data = Rng::new(3).vec(rows * cols * d, GOLDILOCKS_P); // column-major, interleaved coords
    let mut out = Buffer::new(&ctx, Field::Goldilocks, d as u32, rows * blowup, cols).unwrap();
    assert_eq!(out.ext_degree(), 2);
    assert_eq!(out.len(), rows * blowup * cols * d);
    let options = LdeOptions {
        blowup: blowup as u32,
        ..LdeOptions::default()
    };
    ctx.lde_host(
        Field::Goldilocks,
        d as u32,
        &data,
        rows,
        cols,
        &options,
        &mut out,
    )
    .unwrap();
    let got = out.to_vec::<u64>(Layout::ColMajor).unwrap();
    for c in 0..cols {
        for k in 0..d {
            let column: Vec<u64> = (0..rows).map(|r| data[(c * rows + r) * d + k]).collect();
            let want = naive_lde_column(
                &column,
                rows,
                blowup,
                &goldilocks_root,
                1,
                7,
                false,
                GOLDILOCKS_P,
            );
            for (j, &w) in want.iter().enumerate() {
                assert_eq!(
                    got[(c * rows * blowup + j) * d + k],
                    w,
                    "col {} coord {} row {}",
                    c,
                    k,
                    j
                );
            }
        }
    }
}

#[test]
fn babybear_and_koalabear_lde() {
    let ctx = cpu();
    for &(field, generator) in &[(Field::BabyBear, 31u64), (Field::KoalaBear, 3u64)] {
        let p = field.modulus();
        let info = field.info().unwrap();
        assert_eq!(info.modulus, p);
        assert_eq!(info.generator, generator);
        let root_of = |log_n: u32| {
            let w = field.two_adic_generator(log_n).unwrap();
            assert_primitive(w, log_n, p);
            w
        };
        let (rows, cols, blowup) = (16usize, 2usize, 4usize);
        let trace64 = Rng::new(4).vec(rows * cols, p);
        let trace: Vec<u32> = trace64.iter().map(|&v| v as u32).collect();
        let want = reference(
            &trace64, rows, cols, rows, blowup, &root_of, 1, generator, true, p,
        );
        let options = LdeOptions {
            blowup: blowup as u32,
            output_order: Order::BitReversed,
            ..LdeOptions::default()
        };
        let mut out = Buffer::new(&ctx, field, 1, rows * blowup, cols).unwrap();
        ctx.lde_host(field, 1, &trace, rows, cols, &options, &mut out)
            .unwrap();
        let got: Vec<u64> = out
            .to_vec::<u32>(Layout::ColMajor)
            .unwrap()
            .iter()
            .map(|&v| v as u64)
            .collect();
        assert_eq!(got, want, "{:?}", field);
    }
}

#[test]
fn auto_backend_matches_cpu() {
    // On a machine with a GPU, AUTO runs on CUDA; results are bit-identical.
    let cpu_ctx = cpu();
    let auto_ctx = Context::new().unwrap();
    let (rows, cols, blowup) = (256usize, 4usize, 8usize);
    let trace = Rng::new(5).vec(rows * cols, GOLDILOCKS_P);
    let options = LdeOptions {
        blowup: blowup as u32,
        output_order: Order::BitReversed,
        ..LdeOptions::default()
    };
    let run = |ctx: &Context| {
        let mut out = Buffer::new(ctx, Field::Goldilocks, 1, rows * blowup, cols).unwrap();
        ctx.lde_host(Field::Goldilocks, 1, &trace, rows, cols, &options, &mut out)
            .unwrap();
        out.to_vec::<u64>(Layout::ColMajor).unwrap()
    };
    assert_eq!(run(&cpu_ctx), run(&auto_ctx));
}

#[test]
fn repeated_lde_allocates_nothing() {
    let ctx = cpu();
    let (rows, cols) = (64usize, 2usize);
    let trace = Rng::new(6).vec(rows * cols, GOLDILOCKS_P);
    let mut out = Buffer::new(&ctx, Field::Goldilocks, 1, rows * 2, cols).unwrap();
    let options = LdeOptions::default();
    ctx.lde_host(Field::Goldilocks, 1, &trace, rows, cols, &options, &mut out)
        .unwrap();
    let before = ctx.memory_stats().unwrap();
    ctx.lde_host(Field::Goldilocks, 1, &trace, rows, cols, &options, &mut out)
        .unwrap();
    let after = ctx.memory_stats().unwrap();
    assert_eq!(before.allocations, after.allocations);
    assert!(after.buffer_bytes >= out.size_bytes());
    ctx.trim().unwrap();
}

#[test]
fn randomized_lde_keeps_the_trace_domain() {
    // The randomized LDE (as Triton VM extends its tables): f_c(X) +
    // (X^n - s^n) r_c(X). With the output coset equal to the trace domain's
    // (shift = input shift = 1), rows i x blowup hold the trace and the
    // other rows differ from the plain LDE's.
    let ctx = cpu();
    let mut rng = Rng::new(505);
    let field = Field::Goldilocks;
    let (n, cols, blowup, count) = (16usize, 2usize, 8usize, 98usize);
    for ext in [1u32, 3] {
        let e = ext as usize;
        let trace = rng.vec(n * cols * e, GOLDILOCKS_P);
        let randomizers = rng.vec(count * cols * e, GOLDILOCKS_P);
        let options = LdeOptions {
            blowup: blowup as u32,
            shift: Some(1),
            ..LdeOptions::default()
        };
        let mut plain = Buffer::new(&ctx, field, ext, n * blowup, cols).unwrap();
        ctx.lde_host(field, ext, &trace, n, cols, &options, &mut plain)
            .unwrap();
        let mut got = Buffer::new(&ctx, field, ext, n * blowup, cols).unwrap();
        ctx.lde_host_randomized(
            field,
            ext,
            &trace,
            n,
            cols,
            &options,
            &randomizers,
            &mut got,
        )
        .unwrap();
        // The device input path gives the same.
        let input = Buffer::from_host(&ctx, field, ext, n, cols, Layout::ColMajor, &trace).unwrap();
        let mut via_buffer = Buffer::new(&ctx, field, ext, n * blowup, cols).unwrap();
        ctx.lde_randomized(&input, &options, &randomizers, &mut via_buffer)
            .unwrap();
        let g = got.to_vec::<u64>(Layout::ColMajor).unwrap();
        let pl = plain.to_vec::<u64>(Layout::ColMajor).unwrap();
        assert_eq!(via_buffer.to_vec::<u64>(Layout::ColMajor).unwrap(), g);
        for c in 0..cols {
            for r in 0..n * blowup {
                for k in 0..e {
                    let i = (c * n * blowup + r) * e + k;
                    if r % blowup == 0 {
                        let want = trace[(c * n + r / blowup) * e + k];
                        assert_eq!(
                            (g[i], pl[i]),
                            (want, want),
                            "ext {} row {} col {}.{}",
                            ext,
                            r,
                            c,
                            k
                        );
                    } else {
                        assert_ne!(g[i], pl[i], "ext {} row {} col {}.{}", ext, r, c, k);
                    }
                }
            }
        }
    }
}

#[test]
fn randomized_lde_error_paths() {
    let ctx = cpu();
    let mut rng = Rng::new(506);
    let field = Field::BabyBear;
    let p = field.modulus();
    let (n, cols) = (8usize, 2usize);
    let trace: Vec<u32> = rng.vec(n * cols, p).into_iter().map(|x| x as u32).collect();
    let mut out = Buffer::new(&ctx, field, 1, 2 * n, cols).unwrap();
    let mut lde = |randomizers: &[u32]| {
        ctx.lde_host_randomized(
            field,
            1,
            &trace,
            n,
            cols,
            &LdeOptions::default(),
            randomizers,
            &mut out,
        )
    };
    // At most n x (blowup - 1) = 8 coefficients per column.
    let r: Vec<u32> = rng.vec(9 * cols, p).into_iter().map(|x| x as u32).collect();
    lde(&r[..8 * cols]).unwrap();
    let err = lde(&r).unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument, "{}", err);
    assert!(err.message().contains("randomizer_count"), "{}", err);
    assert_eq!(lde(&[]).unwrap_err().status(), Status::InvalidArgument);
    let err = lde(&r[..7]).unwrap_err();
    assert_eq!(err.status(), Status::ShapeMismatch, "{}", err);
    let mut non_canonical = r[..2 * cols].to_vec();
    non_canonical[1] = p as u32;
    let err = lde(&non_canonical).unwrap_err();
    assert_eq!(err.status(), Status::NonCanonical, "{}", err);
    assert!(err.message().contains("randomizers[1]"), "{}", err);
}
