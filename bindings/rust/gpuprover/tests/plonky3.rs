// SPDX-License-Identifier: MIT OR Apache-2.0
//! coset_lde_bitrev_rows (Plonky3's commitment LDE) against a naive
//! implementation of Plonky3's convention.
mod common;

use common::*;
use gpuprover::{coset_lde_bitrev_rows, Status};

/// Plonky3: `dft.coset_lde_batch(mat, log_blowup, GENERATOR).bit_reverse_rows()`
/// for a row-major `height` x `width` matrix of evaluations on the subgroup
/// of order `height`, computed naively.
fn naive_coset_lde_bitrev_rows(values: &[u64], width: usize, log_blowup: usize) -> Vec<u64> {
    let height = values.len() / width;
    let log_h = height.trailing_zeros();
    let lde_height = height << log_blowup;
    let log_lde = lde_height.trailing_zeros();
    let w = goldilocks_root(log_h);
    let big_w = goldilocks_root(log_lde);
    let mut out = vec![0u64; lde_height * width];
    for c in 0..width {
        let column: Vec<u64> = (0..height).map(|r| values[r * width + c]).collect();
        let coeffs = interpolate(&column, w, 1, GOLDILOCKS_P);
        for j in 0..lde_height {
            let x = mul(
                7,
                pow(big_w, bit_reverse(j, log_lde) as u64, GOLDILOCKS_P),
                GOLDILOCKS_P,
            );
            out[j * width + c] = evaluate(&coeffs, x, GOLDILOCKS_P);
        }
    }
    out
}

#[test]
fn matches_naive_plonky3_convention() {
    for &(height, width, log_blowup) in &[
        (1usize, 1usize, 1usize),
        (2, 3, 0),
        (8, 3, 1),
        (16, 5, 2),
        (32, 2, 3),
        (4, 1, 5),
    ] {
        let values = Rng::new(60 + height as u64).vec(height * width, GOLDILOCKS_P);
        let got = coset_lde_bitrev_rows(&values, width, log_blowup).unwrap();
        assert_eq!(got.len(), (height << log_blowup) * width);
        assert_eq!(
            got,
            naive_coset_lde_bitrev_rows(&values, width, log_blowup),
            "height {} width {} log_blowup {}",
            height,
            width,
            log_blowup
        );
    }
}

#[test]
fn lde_restricted_to_the_first_rows_is_low_degree() {
    // Bit-reversed row order: the first height rows of the output are the
    // evaluations on GENERATOR * H (in bit-reversed order), so interpolating
    // them gives back the input's polynomial, shifted.
    let (height, width) = (16usize, 2usize);
    let values = Rng::new(70).vec(height * width, GOLDILOCKS_P);
    let ctx = cpu();
    let lde = ctx.coset_lde_bitrev_rows(&values, width, 2).unwrap();
    let log_h = height.trailing_zeros();
    for c in 0..width {
        let column: Vec<u64> = (0..height).map(|r| values[r * width + c]).collect();
        let coeffs = interpolate(&column, goldilocks_root(log_h), 1, GOLDILOCKS_P);
        for j in 0..height {
            let x = mul(
                7,
                pow(
                    goldilocks_root(log_h),
                    bit_reverse(j, log_h) as u64,
                    GOLDILOCKS_P,
                ),
                GOLDILOCKS_P,
            );
            assert_eq!(lde[j * width + c], evaluate(&coeffs, x, GOLDILOCKS_P));
        }
    }
}

#[test]
fn argument_errors() {
    assert_eq!(
        coset_lde_bitrev_rows(&[1, 2, 3], 0, 1)
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    assert_eq!(
        coset_lde_bitrev_rows(&[1, 2, 3], 2, 1)
            .unwrap_err()
            .status(),
        Status::ShapeMismatch
    );
    // 3 rows: not a power of two.
    assert_eq!(
        coset_lde_bitrev_rows(&[1, 2, 3], 1, 1)
            .unwrap_err()
            .status(),
        Status::InvalidArgument
    );
    // Blowup 64 is above the library's limit of 32.
    assert_eq!(
        coset_lde_bitrev_rows(&[1, 2], 1, 6).unwrap_err().status(),
        Status::InvalidArgument
    );
    assert_eq!(
        coset_lde_bitrev_rows(&[GOLDILOCKS_P, 0], 1, 1)
            .unwrap_err()
            .status(),
        Status::NonCanonical
    );
}
