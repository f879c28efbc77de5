// SPDX-License-Identifier: MIT OR Apache-2.0
//! The constraint commitment (`gp_constraint_commit`), out-of-domain
//! evaluation (`gp_evaluate_ood`) and the DEEP composition
//! (`gp_deep_composition`).

use std::fmt;
use std::ptr;

use crate::{
    check, check_element, sys, to_u64, type_name_of, Buffer, Context, Element, Error, Extension,
    Field, MerkleOptions, MerkleTree, Order, Result, Status,
};

// ---------------------------------------------------------------------------
// Constraint commitment
// ---------------------------------------------------------------------------

/// How the composition polynomial is cut into segments of degree < N
/// (`gp_composition_split`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CompositionSplit {
    /// Plonky3's quotient chunks: segment i interpolates rows i, i + D,
    /// i + 2D, ... of the evaluations, on the coset `shift * w^i * <w^D>`.
    #[default]
    Plonky3,
    /// winterfell's composition columns: `h(x) = sum_i x^(i N) h_i(x)`;
    /// segment i holds coefficients `i N .. (i + 1) N - 1` of h.
    Winterfell,
    /// Triton VM's quotient segments: `h(x) = sum_i x^i h_i(x^D)`; segment
    /// i holds coefficients `i, i + D, i + 2D, ...` of h. With the trace's
    /// FRI domain as the segment LDE (shift 7, natural order, blowup = FRI
    /// domain / N) and [`MerkleKind::Triton`](crate::MerkleKind::Triton),
    /// the tree is Triton's quotient commitment.
    Triton,
}

impl CompositionSplit {
    fn to_raw(self) -> sys::gp_composition_split {
        match self {
            CompositionSplit::Plonky3 => sys::gp_composition_split::GP_COMPOSITION_PLONKY3,
            CompositionSplit::Winterfell => sys::gp_composition_split::GP_COMPOSITION_WINTERFELL,
            CompositionSplit::Triton => sys::gp_composition_split::GP_COMPOSITION_TRITON,
        }
    }
}

/// Options of [`Context::constraint_commit`] (`gp_constraint_options`).
/// Build them with struct-update syntax:
/// `ConstraintOptions { segments: 4, ..ConstraintOptions::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstraintOptions {
    /// Default [`CompositionSplit::Plonky3`].
    pub split: CompositionSplit,
    /// D, the number of segments: a power of two dividing the number of
    /// evaluations. Default 2.
    pub segments: u32,
    /// Blowup of the segment LDEs: a power of two, 1 to 32. Default 2.
    pub blowup: u32,
    /// The evaluations lie on `shift * <w>` (w of order N D, natural order)
    /// and the segment LDEs on `shift * <w'>` (w' of order N blowup). `None`
    /// (default): the field's generator.
    pub shift: Option<u64>,
    /// Row order of the segment LDEs. Default bit-reversed (Plonky3);
    /// winterfell commits natural order.
    pub output_order: Order,
    /// The commitment's Merkle profile.
    pub merkle: MerkleOptions,
}

impl Default for ConstraintOptions {
    fn default() -> ConstraintOptions {
        ConstraintOptions {
            split: CompositionSplit::Plonky3,
            segments: 2,
            blowup: 2,
            shift: None,
            output_order: Order::BitReversed,
            merkle: MerkleOptions::default(),
        }
    }
}

impl ConstraintOptions {
    fn to_raw(self, field: Field) -> sys::gp_constraint_options {
        // SAFETY: plain data, filled by gp_constraint_options_init.
        let mut raw: sys::gp_constraint_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_constraint_options_init(&mut raw) };
        raw.split = self.split.to_raw();
        raw.segments = self.segments;
        raw.blowup = self.blowup;
        raw.shift = self.shift.unwrap_or(0);
        raw.output_order = self.output_order.to_raw();
        // The nested struct keeps the size its own init function gave it.
        let merkle_size = raw.merkle.struct_size;
        raw.merkle = self.merkle.to_raw(field);
        raw.merkle.struct_size = merkle_size;
        raw
    }
}

/// The result of [`Context::constraint_commit`]: the segment LDEs (N blowup
/// rows, one column per segment, the evaluations' extension degree) and
/// their Merkle tree. The tree reads the segments again to open rows; it
/// holds them, and they are only lent out shared. `Send` and `Sync`.
pub struct ConstraintCommitment {
    // The tree holds the segments too (see MerkleTree); the segments are
    // only lent out shared, so they stay read-only.
    tree: MerkleTree,
    segments: Buffer,
}

impl fmt::Debug for ConstraintCommitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConstraintCommitment")
            .field("segments", &self.segments)
            .field("tree", &self.tree)
            .finish()
    }
}

impl ConstraintCommitment {
    /// The commitment of the segments; root, cap, openings and their
    /// verification work as for any tree.
    pub fn tree(&self) -> &MerkleTree {
        &self.tree
    }

    /// The segment LDEs: column i is segment i.
    pub fn segments(&self) -> &Buffer {
        &self.segments
    }

    /// The root of the tree ([`MerkleTree::root`]).
    pub fn root(&self) -> Result<Vec<u8>> {
        self.tree.root()
    }
}

impl Context {
    /// Commits the composition (quotient) polynomial from its evaluations
    /// (`gp_constraint_commit`): `evaluations` has N D rows and one column
    /// (base or extension), natural order on `shift * <w>`. It is split into
    /// D segments of degree < N, every segment is extended to N blowup rows,
    /// and the rows of all segments are committed in one tree.
    pub fn constraint_commit(
        &self,
        evaluations: &Buffer,
        options: &ConstraintOptions,
    ) -> Result<ConstraintCommitment> {
        let field = evaluations.field();
        let raw_options = options.to_raw(field);
        let mut raw_segments = ptr::null_mut();
        let mut raw_tree = ptr::null_mut();
        // SAFETY: the handles are valid and the out-pointers valid for
        // writes; the library checks the buffer's context and shape, and
        // leaves both outputs NULL when it fails.
        check(unsafe {
            sys::gp_constraint_commit(
                self.as_raw(),
                evaluations.as_raw(),
                &raw_options,
                &mut raw_segments,
                &mut raw_tree,
            )
        })?;
        let raw_tree = match ptr::NonNull::new(raw_tree) {
            Some(raw) if !raw_segments.is_null() => raw,
            _ => {
                // SAFETY: whichever handle came back is owned here; NULL is
                // a no-op for both destroy functions.
                unsafe {
                    sys::gp_merkle_tree_destroy(raw_tree);
                    sys::gp_buffer_destroy(raw_segments);
                }
                return Err(Error::new(
                    Status::Internal,
                    "gp_constraint_commit returned GP_OK and a NULL segment buffer or tree",
                ));
            }
        };
        let segments = match Buffer::from_handle(self, raw_segments, "gp_constraint_commit", None) {
            Ok(segments) => segments,
            Err(e) => {
                // SAFETY: the tree is owned here and not wrapped yet.
                unsafe { sys::gp_merkle_tree_destroy(raw_tree.as_ptr()) };
                return Err(e);
            }
        };
        let tree = MerkleTree::from_raw(
            raw_tree,
            vec![segments.share()],
            field,
            MerkleOptions {
                perm: Some(options.merkle.permutation_for(field)),
                ..options.merkle
            },
        );
        Ok(ConstraintCommitment { tree, segments })
    }
}

// ---------------------------------------------------------------------------
// Out-of-domain evaluation and DEEP composition
// ---------------------------------------------------------------------------

/// Where committed columns live and which extension the points come from
/// (`gp_ood_options`). Build them with struct-update syntax:
/// `OodOptions { order: Order::BitReversed, ..OodOptions::default() }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OodOptions {
    /// The columns' rows are evaluations on `shift * <omega_M>`, M = rows.
    /// `None` (default): the field's generator, [`Context::lde`]'s default
    /// output coset.
    pub shift: Option<u64>,
    /// Row order of the columns. Default natural ([`Context::lde`]'s
    /// default); bit-reversed for Plonky3's committed LDEs.
    pub order: Order,
    /// Degree bound N of the columns' polynomials (a power of two <= M); 0
    /// (default) means M. [`Context::evaluate_ood`] reads the N rows of the
    /// sub-coset `shift * <omega_N>` only (the trace domain of an LDE).
    pub degree_bound: usize,
    /// Degree E of the extension the points, values and coefficients live
    /// in: Goldilocks 1, 2 or 3, BabyBear and KoalaBear 1 or 4. 0 (default)
    /// means 3 for Goldilocks, 4 for BabyBear and KoalaBear; see
    /// [`OodOptions::challenge_degree_for`].
    pub challenge_degree: u32,
    /// The extension of degree E. Default [`Extension::Plonky3`];
    /// [`Extension::Triton`] for Triton VM's out-of-domain rows and DEEP
    /// codewords (Goldilocks, E = 3).
    pub extension: Extension,
}

impl OodOptions {
    /// The challenge degree E used for columns over `field`:
    /// `challenge_degree`, or the field's default when it is 0.
    pub fn challenge_degree_for(&self, field: Field) -> u32 {
        match (self.challenge_degree, field) {
            (0, Field::Goldilocks) => 3,
            (0, _) => 4,
            (e, _) => e,
        }
    }

    fn to_raw(self) -> sys::gp_ood_options {
        // SAFETY: plain data, filled by gp_ood_options_init.
        let mut raw: sys::gp_ood_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_ood_options_init(&mut raw) };
        raw.shift = self.shift.unwrap_or(0);
        raw.order = self.order.to_raw();
        raw.degree_bound = to_u64(self.degree_bound);
        raw.challenge_degree = self.challenge_degree;
        raw.extension = self.extension.to_raw();
        raw
    }
}

/// What the OOD and DEEP calls derive from their columns before calling the
/// library: the raw handles, E and the number of columns over all buffers.
struct OodShape {
    raw: Vec<*const sys::gp_buffer>,
    count: u32,
    ext: usize,
    cols: usize,
}

fn ood_shape<T: Element>(columns: &[&Buffer], options: &OodOptions) -> Result<OodShape> {
    let first = columns.first().ok_or_else(|| {
        Error::new(
            Status::InvalidArgument,
            "no columns (at least one buffer is needed)",
        )
    })?;
    let field = first.field();
    check_element::<T>(field)?;
    let count = u32::try_from(columns.len())
        .map_err(|_| Error::new(Status::InvalidArgument, "too many column buffers"))?;
    let cols = columns
        .iter()
        .try_fold(0usize, |acc, b| acc.checked_add(b.cols()))
        .ok_or_else(|| Error::new(Status::SizeOverflow, "the column count overflows"))?;
    Ok(OodShape {
        raw: columns
            .iter()
            .map(|b| b.as_raw() as *const sys::gp_buffer)
            .collect(),
        count,
        ext: options.challenge_degree_for(field) as usize,
        cols,
    })
}

impl OodShape {
    /// The number of points in `points` (E coefficients each).
    fn num_points<T: Element>(&self, points: &[T]) -> Result<u32> {
        if self.ext == 0 || points.is_empty() || points.len() % self.ext != 0 {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!(
                    "points holds {} {} values, not a positive multiple of the challenge degree {}",
                    points.len(),
                    type_name_of::<T>(),
                    self.ext
                ),
            ));
        }
        u32::try_from(points.len() / self.ext)
            .map_err(|_| Error::new(Status::InvalidArgument, "too many points"))
    }

    /// Values per point set: points x columns x E, checked for overflow.
    fn values_len(&self, num_points: u32) -> Result<usize> {
        (num_points as usize)
            .checked_mul(self.cols)
            .and_then(|n| n.checked_mul(self.ext))
            .ok_or_else(|| Error::new(Status::SizeOverflow, "points x columns x E overflows"))
    }
}

impl Context {
    /// Evaluates every column of `columns` (buffers of this context, one
    /// field, one number of rows M; base columns or columns of degree E) at
    /// the points `points` (`gp_evaluate_ood`). `points` holds the points
    /// back to back, E canonical coefficients each (lowest first); none may
    /// lie in the evaluation coset.
    ///
    /// Returns, for each point, for each buffer in order, for each of its
    /// columns, f(z) as E coefficients: the value at z of the polynomial of
    /// degree < `degree_bound` that the rows interpolate.
    pub fn evaluate_ood<T: Element>(
        &self,
        columns: &[&Buffer],
        options: &OodOptions,
        points: &[T],
    ) -> Result<Vec<T>> {
        let shape = ood_shape::<T>(columns, options)?;
        let num_points = shape.num_points(points)?;
        let mut out = vec![T::default(); shape.values_len(num_points)?];
        let raw_options = options.to_raw();
        // SAFETY: `points` holds num_points * E elements of the field's size,
        // `out` is valid for its length in bytes; the handles are valid and
        // the library checks their context.
        check(unsafe {
            sys::gp_evaluate_ood(
                self.as_raw(),
                shape.raw.as_ptr(),
                shape.count,
                &raw_options,
                points.as_ptr().cast(),
                num_points,
                out.as_mut_ptr().cast(),
                to_u64(std::mem::size_of_val(out.as_slice())),
            )
        })?;
        Ok(out)
    }

    /// DEEP composition (`gp_deep_composition`): writes into `out` (a buffer
    /// of this context with M rows and one column of degree E) the codeword
    ///
    /// `Q(x) = sum_j sum_k alpha[j][k] (f_k(x) - v[j][k]) / (x - z_j)`
    ///
    /// over all M rows of the columns' coset, in the columns' order. k runs
    /// over the columns of the buffers in order, `points` are the z_j,
    /// `values` the v as [`Context::evaluate_ood`] returns them and `alphas`
    /// the coefficients in the same layout. The output is ready for
    /// [`Context::fri_begin`].
    #[allow(clippy::too_many_arguments)]
    pub fn deep_composition<T: Element>(
        &self,
        columns: &[&Buffer],
        options: &OodOptions,
        points: &[T],
        values: &[T],
        alphas: &[T],
        out: &mut Buffer,
    ) -> Result<()> {
        let shape = ood_shape::<T>(columns, options)?;
        let num_points = shape.num_points(points)?;
        // The library reads points x columns x E values and alphas without
        // being told their sizes: they are checked here.
        let want = shape.values_len(num_points)?;
        for (name, got) in [("values", values.len()), ("alphas", alphas.len())] {
            if got != want {
                return Err(Error::new(
                    Status::ShapeMismatch,
                    format!(
                        "{} holds {} {} values, but {} points x {} columns x E = {} needs {}",
                        name,
                        got,
                        type_name_of::<T>(),
                        num_points,
                        shape.cols,
                        shape.ext,
                        want
                    ),
                ));
            }
        }
        let out_raw = out.raw_mut("out")?;
        let raw_options = options.to_raw();
        // SAFETY: `points`, `values` and `alphas` hold the element counts the
        // library reads (checked above); the handles are valid and `out` is
        // borrowed mutably and unshared (raw_mut), so no column refers to it.
        check(unsafe {
            sys::gp_deep_composition(
                self.as_raw(),
                shape.raw.as_ptr(),
                shape.count,
                &raw_options,
                points.as_ptr().cast(),
                num_points,
                values.as_ptr().cast(),
                alphas.as_ptr().cast(),
                out_raw,
            )
        })
    }
}
