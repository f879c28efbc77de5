// SPDX-License-Identifier: MIT OR Apache-2.0
//! Values across the ABI: winterfell's `f64` elements are kept in
//! Montgomery form, the library takes and gives canonical integers. Large
//! conversions run on all cores (std threads).

use winter_prover::math::fields::f64::BaseElement;
use winter_prover::math::FieldElement;

/// Below this many elements a conversion runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 14;

fn threads_for(n: usize) -> usize {
    if n < PARALLEL_MIN {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(n / (PARALLEL_MIN / 4))
            .max(1)
    }
}

/// Runs `f(dst_chunk, src_chunk)` over matching chunks of `dst` (`per_dst`
/// items per unit) and `src` (`per_src` items per unit), on several
/// threads when there are many units.
fn par_zip<S: Sync, D: Send>(
    dst: &mut [D],
    per_dst: usize,
    src: &[S],
    per_src: usize,
    f: impl Fn(&mut [D], &[S]) + Sync,
) {
    let units = dst.len() / per_dst.max(1);
    let threads = threads_for(units);
    if threads <= 1 {
        f(dst, src);
        return;
    }
    let chunk = units.div_ceil(threads);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(chunk * per_dst).zip(src.chunks(chunk * per_src)) {
            let f = &f;
            s.spawn(move || f(d, c));
        }
    });
}

/// The canonical base values of `values` (extension elements flattened to
/// their coefficients, lowest first).
pub(crate) fn to_canonical<F: FieldElement<BaseField = BaseElement>>(values: &[F]) -> Vec<u64> {
    let base = F::slice_as_base_elements(values);
    let mut out = vec![0u64; base.len()];
    par_zip(&mut out, 1, base, 1, |d, s| {
        for (d, s) in d.iter_mut().zip(s) {
            *d = s.as_int();
        }
    });
    out
}

/// The canonical base values of `columns`, one column after another (the
/// library's column-major host layout).
pub(crate) fn columns_to_canonical<'a, F: FieldElement<BaseField = BaseElement> + 'a>(
    columns: impl Iterator<Item = &'a [F]>,
) -> Vec<u64> {
    let mut out = Vec::new();
    for c in columns {
        out.extend_from_slice(&to_canonical(c));
    }
    out
}

/// One element from its canonical coefficients.
#[inline]
fn element<F: FieldElement<BaseField = BaseElement>>(coefficients: &[u64]) -> F {
    let mut b = [BaseElement::ZERO; 3];
    for (d, &c) in b.iter_mut().zip(coefficients) {
        *d = BaseElement::new(c);
    }
    F::slice_from_base_elements(&b[..F::EXTENSION_DEGREE])[0]
}

/// The elements of `F` whose canonical coefficients `data` holds back to
/// back.
pub(crate) fn from_canonical<F: FieldElement<BaseField = BaseElement>>(data: &[u64]) -> Vec<F> {
    let ext = F::EXTENSION_DEGREE;
    debug_assert!(ext <= 3 && data.len().is_multiple_of(ext));
    let mut out = vec![F::ZERO; data.len() / ext];
    par_zip(&mut out, 1, data, ext, |d, s| {
        for (d, s) in d.iter_mut().zip(s.chunks_exact(ext)) {
            *d = element(s);
        }
    });
    out
}

/// The rows of a column-major canonical matrix (`rows` x `cols` elements
/// of `F`, as the library's column-major host layout holds them: column c's
/// elements one after another, each its coefficients), row after row:
/// the transpose and the conversion in one pass, on several threads for
/// large matrices.
pub(crate) fn rows_from_columns<F: FieldElement<BaseField = BaseElement>>(
    data: &[u64],
    rows: usize,
    cols: usize,
) -> Vec<F> {
    let ext = F::EXTENSION_DEGREE;
    assert_eq!(data.len(), rows * cols * ext);
    let mut out: Vec<F> = Vec::with_capacity(rows * cols);
    let threads = threads_for(rows * cols);
    let chunk = rows.div_ceil(threads).max(1);
    let fill = |first: usize, dst: &mut [std::mem::MaybeUninit<F>]| {
        for (i, row) in dst.chunks_mut(cols).enumerate() {
            let r = first + i;
            for (c, d) in row.iter_mut().enumerate() {
                let at = (c * rows + r) * ext;
                d.write(element(&data[at..at + ext]));
            }
        }
    };
    let spare = &mut out.spare_capacity_mut()[..rows * cols];
    if threads <= 1 {
        fill(0, spare);
    } else {
        std::thread::scope(|s| {
            for (t, dst) in spare.chunks_mut(chunk * cols).enumerate() {
                let fill = &fill;
                s.spawn(move || fill(t * chunk, dst));
            }
        });
    }
    // SAFETY: every one of the rows * cols elements was written above.
    unsafe { out.set_len(rows * cols) };
    out
}

/// The columns (`n` elements each) of a column-major canonical matrix.
pub(crate) fn columns_from_canonical<F: FieldElement<BaseField = BaseElement>>(data: &[u64], n: usize) -> Vec<Vec<F>> {
    data.chunks(n * F::EXTENSION_DEGREE).map(from_canonical).collect()
}
