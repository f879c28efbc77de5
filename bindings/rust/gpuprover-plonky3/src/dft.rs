// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`GpuDft`]: Plonky3's `TwoAdicSubgroupDft` computed by gpuprover.

use core::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use gpuprover::{Buffer, Context, Layout, LdeOptions, NttDirection, NttOptions, Order};
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_matrix::bitrev::{BitReversedMatrixView, BitReversibleMatrix};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use p3_maybe_rayon::prelude::*;

use crate::field::GpuField;
use crate::mmcs::canonical_rows;

/// Plonky3's [`TwoAdicSubgroupDft`] on gpuprover, with the results of
/// `Radix2DitParallel` (the same `Evaluations` type: the rows in
/// bit-reversed order behind a `BitReversedMatrixView`, so that
/// `TwoAdicFriPcs`'s `.bit_reverse_rows()` costs nothing).
///
/// `coset_lde_batch` (the commitment LDE of `TwoAdicFriPcs`), `dft_batch`,
/// `coset_dft_batch`, `idft_batch` and `coset_idft_batch` run in the
/// library; what it does not take (a blowup above 32, a matrix of no
/// rows or columns) and the algebra variants run in `Radix2DitParallel`,
/// counted in [`GpuDft::host_calls`].
///
/// `Default` (which the trait requires) uses one context per process, made
/// on first use with the best backend present (CUDA if a usable GPU exists,
/// else the CPU); it panics if no context can be made. Use
/// [`GpuDft::new`] to choose the context.
pub struct GpuDft<F> {
    ctx: Context,
    counts: Arc<[AtomicU64; 2]>,
    _marker: PhantomData<fn() -> F>,
}

impl<F> Clone for GpuDft<F> {
    fn clone(&self) -> Self {
        GpuDft { ctx: self.ctx.clone(), counts: self.counts.clone(), _marker: PhantomData }
    }
}

/// The process's default context (see [`GpuDft`]'s `Default`).
pub fn default_context() -> &'static Context {
    static CTX: OnceLock<Context> = OnceLock::new();
    CTX.get_or_init(|| Context::new().unwrap_or_else(|e| panic!("gpuprover: no context: {e}")))
}

impl<F> Default for GpuDft<F> {
    fn default() -> Self {
        GpuDft::new(default_context())
    }
}

impl<F> GpuDft<F> {
    /// The DFT on `ctx`.
    pub fn new(ctx: &Context) -> Self {
        GpuDft { ctx: ctx.clone(), counts: Arc::new([AtomicU64::new(0), AtomicU64::new(0)]), _marker: PhantomData }
    }

    /// The context it computes on.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Transforms the library computed, by this value and its clones.
    pub fn device_calls(&self) -> u64 {
        self.counts[0].load(Ordering::Relaxed)
    }

    /// Transforms `Radix2DitParallel` computed instead (see the type).
    pub fn host_calls(&self) -> u64 {
        self.counts[1].load(Ordering::Relaxed)
    }

    fn count(&self, device: bool) {
        self.counts[if device { 0 } else { 1 }].fetch_add(1, Ordering::Relaxed);
    }
}

/// The `rows x width` row-major matrix of `out`.
pub(crate) fn download<F: GpuField>(out: &Buffer, width: usize) -> gpuprover::Result<RowMajorMatrix<F>> {
    // Touched in parallel first: the copy into fresh pages would fault
    // them in one at a time on one thread.
    let n = out.len();
    let mut v: Vec<F::Elem> = Vec::with_capacity(n);
    let zero = F::ZERO.to_elem();
    v.spare_capacity_mut()[..n].par_chunks_mut(1 << 16).for_each(|c| {
        for x in c {
            x.write(zero);
        }
    });
    // SAFETY: the first n elements were written just above.
    unsafe { v.set_len(n) };
    out.to_host(Layout::RowMajor, &mut v)?;
    Ok(RowMajorMatrix::new(F::vec_from_elems(v), width))
}

/// The library's options for the LDE `TwoAdicFriPcs` commits: host rows
/// extended `added_bits` onto `shift` times the larger subgroup, rows in
/// bit-reversed order; refused for a blowup above 32 or a zero shift.
pub(crate) fn commitment_lde_options<F: GpuField>(added_bits: usize, shift: F) -> gpuprover::Result<LdeOptions> {
    if added_bits > 5 || shift.is_zero() {
        return Err(refused());
    }
    Ok(LdeOptions {
        blowup: 1 << added_bits,
        shift: Some(shift.to_elem().into()),
        output_order: Order::BitReversed,
        input_layout: Layout::RowMajor,
        ..LdeOptions::default()
    })
}

impl<F: GpuField> GpuDft<F> {
    /// The NTT of `mat`'s columns with `options`, in the library (refused
    /// for an empty matrix or a zero shift).
    fn ntt(&self, mat: &RowMajorMatrix<F>, options: &NttOptions) -> gpuprover::Result<RowMajorMatrix<F>> {
        let (h, w) = (mat.height(), mat.width());
        if !usable(mat) || options.shift == Some(0) {
            return Err(refused());
        }
        let data = canonical_rows::<F, _>(mat);
        let mut buf = Buffer::from_host(&self.ctx, F::FIELD, 1, h, w, Layout::RowMajor, &data)?;
        self.ctx.ntt(&mut buf, options)?;
        download::<F>(&buf, w)
    }

    /// `mat`'s columns (evaluations on the subgroup) extended `added_bits`
    /// and evaluated on `shift` times the larger subgroup, rows in
    /// bit-reversed order, in the library (see `commitment_lde_options`).
    fn lde(&self, mat: &RowMajorMatrix<F>, added_bits: usize, shift: F) -> gpuprover::Result<RowMajorMatrix<F>> {
        let (h, w) = (mat.height(), mat.width());
        let options = commitment_lde_options(added_bits, shift)?;
        if !usable(mat) {
            return Err(refused());
        }
        let data = canonical_rows::<F, _>(mat);
        let mut out = Buffer::new(&self.ctx, F::FIELD, 1, h << added_bits, w)?;
        self.ctx.lde_host(F::FIELD, 1, &data, h, w, &options, &mut out)?;
        download::<F>(&out, w)
    }

    /// The library's result, or (refused) the host's.
    fn either<T>(&self, device: gpuprover::Result<T>, host: impl FnOnce() -> T) -> T {
        match device {
            Ok(v) => {
                self.count(true);
                v
            }
            Err(_) => {
                self.count(false);
                host()
            }
        }
    }
}

/// Whether the library takes the shape (it refuses empty matrices).
fn usable<F>(mat: &RowMajorMatrix<F>) -> bool
where
    F: Clone + Send + Sync,
{
    mat.height() > 0 && mat.width() > 0
}

impl<F: GpuField> TwoAdicSubgroupDft<F> for GpuDft<F> {
    type Evaluations = BitReversedMatrixView<RowMajorMatrix<F>>;

    fn dft_batch(&self, mat: RowMajorMatrix<F>) -> Self::Evaluations {
        let options = NttOptions { output_order: Order::BitReversed, ..NttOptions::forward() };
        self.either(self.ntt(&mat, &options).map(|m| m.bit_reverse_rows()), || Radix2DitParallel::default().dft_batch(mat))
    }

    fn coset_dft_batch(&self, mat: RowMajorMatrix<F>, shift: F) -> Self::Evaluations {
        let options = NttOptions {
            shift: Some(shift.to_elem().into()),
            output_order: Order::BitReversed,
            ..NttOptions::forward()
        };
        self.either(self.ntt(&mat, &options).map(|m| m.bit_reverse_rows()), || {
            Radix2DitParallel::default().coset_dft_batch(mat, shift)
        })
    }

    fn idft_batch(&self, mat: RowMajorMatrix<F>) -> RowMajorMatrix<F> {
        let options = NttOptions { direction: NttDirection::Inverse, ..NttOptions::default() };
        self.either(self.ntt(&mat, &options), || Radix2DitParallel::default().idft_batch(mat))
    }

    fn coset_idft_batch(&self, mat: RowMajorMatrix<F>, shift: F) -> RowMajorMatrix<F> {
        let options = NttOptions {
            direction: NttDirection::Inverse,
            shift: Some(shift.to_elem().into()),
            ..NttOptions::default()
        };
        self.either(self.ntt(&mat, &options), || Radix2DitParallel::default().coset_idft_batch(mat, shift))
    }

    fn coset_lde_batch(&self, mat: RowMajorMatrix<F>, added_bits: usize, shift: F) -> Self::Evaluations {
        self.either(self.lde(&mat, added_bits, shift).map(|m| m.bit_reverse_rows()), || {
            Radix2DitParallel::default().coset_lde_batch(mat, added_bits, shift)
        })
    }
}

fn refused() -> gpuprover::Error {
    gpuprover::Error::new(gpuprover::Status::Unsupported, "shape the library does not take")
}
