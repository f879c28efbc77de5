// SPDX-License-Identifier: MIT OR Apache-2.0
//! `GpuDft` against `Radix2DitParallel`: the same results for every
//! transform `TwoAdicFriPcs` and `uni-stark` call, on random matrices.

mod common;

use common::{context, random_matrix, Rng};
use gpuprover_plonky3::{GpuDft, GpuField};
use p3_baby_bear::BabyBear;
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::Field;
use p3_goldilocks::Goldilocks;
use p3_koala_bear::KoalaBear;
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::Matrix;


fn same_transforms<F: GpuField>() {
    let gpu = GpuDft::<F>::new(&context());
    let cpu = Radix2DitParallel::<F>::default();
    let mut rng = Rng(42);
    let shift = F::GENERATOR;
    let other = F::from_u64(12345);
    for (log_h, w) in [(0usize, 3usize), (1, 1), (3, 5), (6, 2), (10, 7)] {
        let m = random_matrix::<F>(&mut rng, 1 << log_h, w);
        let what = format!("{} x {w}", 1 << log_h);
        // What TwoAdicFriPcs commits: the LDE in bit-reversed row order.
        for added in [1usize, 2, 3] {
            for s in [shift, other / shift] {
                let a = cpu.coset_lde_batch(m.clone(), added, s).bit_reverse_rows().to_row_major_matrix();
                let b = gpu.coset_lde_batch(m.clone(), added, s).bit_reverse_rows().to_row_major_matrix();
                assert_eq!(a, b, "coset_lde_batch {what} added_bits {added}");
            }
        }
        let a = cpu.dft_batch(m.clone()).to_row_major_matrix();
        assert_eq!(a, gpu.dft_batch(m.clone()).to_row_major_matrix(), "dft_batch {what}");
        let a = cpu.coset_dft_batch(m.clone(), other).to_row_major_matrix();
        assert_eq!(a, gpu.coset_dft_batch(m.clone(), other).to_row_major_matrix(), "coset_dft_batch {what}");
        assert_eq!(cpu.idft_batch(m.clone()), gpu.idft_batch(m.clone()), "idft_batch {what}");
        assert_eq!(cpu.coset_idft_batch(m.clone(), shift), gpu.coset_idft_batch(m.clone(), shift), "coset_idft_batch {what}");
        // The natural-order view (what get_evaluations_on_domain reads).
        let a = cpu.coset_lde_batch(m.clone(), 1, shift);
        let b = gpu.coset_lde_batch(m.clone(), 1, shift);
        assert_eq!(a.to_row_major_matrix(), b.to_row_major_matrix(), "natural order {what}");
    }
    assert!(gpu.device_calls() > 0);
    assert_eq!(gpu.host_calls(), 0, "every transform above runs in the library");
    // A blowup the library does not take: Radix2DitParallel's result.
    let m = random_matrix::<F>(&mut rng, 4, 2);
    let a = cpu.coset_lde_batch(m.clone(), 6, shift).to_row_major_matrix();
    assert_eq!(a, gpu.coset_lde_batch(m, 6, shift).to_row_major_matrix());
    assert_eq!(gpu.host_calls(), 1);
}

#[test]
fn babybear() {
    same_transforms::<BabyBear>();
}

#[test]
fn koalabear() {
    same_transforms::<KoalaBear>();
}

#[test]
fn goldilocks() {
    same_transforms::<Goldilocks>();
}

#[test]
fn default_uses_the_process_context() {
    let a = GpuDft::<BabyBear>::default();
    let b = GpuDft::<BabyBear>::default();
    assert_eq!(a.context().as_raw(), b.context().as_raw());
    let _ = <BabyBear as Field>::GENERATOR;
}
