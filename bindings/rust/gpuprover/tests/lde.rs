//! Coset LDE against a naive O(n^2) interpolation + evaluation.
mod common;

use common::*;
use gpuprover::{Buffer, Context, Field, Layout, LdeOptions, Order};

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
