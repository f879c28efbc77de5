// SPDX-License-Identifier: MIT OR Apache-2.0
//! Batched NTT: forward against naive evaluation, inverse∘forward = id.
mod common;

use common::*;
use gpuprover::{Buffer, Field, Layout, NttDirection, NttOptions, Order};

#[test]
fn forward_matches_naive_evaluation() {
    let ctx = cpu();
    let (log_n, cols) = (4u32, 3usize);
    let n = 1usize << log_n;
    let coeffs = Rng::new(10).vec(n * cols, GOLDILOCKS_P);
    for &shift in &[None, Some(7u64)] {
        let mut buf = Buffer::from_host(
            &ctx,
            Field::Goldilocks,
            1,
            n,
            cols,
            Layout::ColMajor,
            &coeffs,
        )
        .unwrap();
        let options = NttOptions {
            shift,
            ..NttOptions::forward()
        };
        ctx.ntt(&mut buf, &options).unwrap();
        let got = buf.to_vec::<u64>(Layout::ColMajor).unwrap();
        let w = goldilocks_root(log_n);
        let s = shift.unwrap_or(1);
        for c in 0..cols {
            let column = &coeffs[c * n..(c + 1) * n];
            for i in 0..n {
                let x = mul(s, pow(w, i as u64, GOLDILOCKS_P), GOLDILOCKS_P);
                assert_eq!(
                    got[c * n + i],
                    evaluate(column, x, GOLDILOCKS_P),
                    "shift {:?} col {} row {}",
                    shift,
                    c,
                    i
                );
            }
        }
    }
}

#[test]
fn inverse_after_forward_is_identity() {
    let ctx = cpu();
    for &log_n in &[0u32, 1, 3, 6, 10] {
        let (n, cols) = (1usize << log_n, 5usize);
        let data = Rng::new(11 + log_n as u64).vec(n * cols, GOLDILOCKS_P);
        let mut buf =
            Buffer::from_host(&ctx, Field::Goldilocks, 1, n, cols, Layout::ColMajor, &data)
                .unwrap();
        for &(shift, middle) in &[(None, Order::Natural), (Some(7u64), Order::BitReversed)] {
            let forward = NttOptions {
                direction: NttDirection::Forward,
                shift,
                input_order: Order::Natural,
                output_order: middle,
            };
            let inverse = NttOptions {
                direction: NttDirection::Inverse,
                shift,
                input_order: middle,
                output_order: Order::Natural,
            };
            ctx.ntt(&mut buf, &forward).unwrap();
            if n > 2 {
                assert_ne!(buf.to_vec::<u64>(Layout::ColMajor).unwrap(), data);
            }
            ctx.ntt(&mut buf, &inverse).unwrap();
            assert_eq!(
                buf.to_vec::<u64>(Layout::ColMajor).unwrap(),
                data,
                "log_n {} shift {:?}",
                log_n,
                shift
            );
        }
    }
}

#[test]
fn inverse_after_forward_is_identity_babybear() {
    let ctx = cpu();
    let p = Field::BabyBear.modulus();
    let (n, cols) = (256usize, 3usize);
    let data: Vec<u32> = Rng::new(12)
        .vec(n * cols, p)
        .iter()
        .map(|&v| v as u32)
        .collect();
    let mut buf =
        Buffer::from_host(&ctx, Field::BabyBear, 1, n, cols, Layout::RowMajor, &data).unwrap();
    ctx.ntt(&mut buf, &NttOptions::forward()).unwrap();
    ctx.ntt(&mut buf, &NttOptions::inverse()).unwrap();
    assert_eq!(buf.to_vec::<u32>(Layout::RowMajor).unwrap(), data);
}
