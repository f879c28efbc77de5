// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`Committer`]: what [`GpuTraceLde`](crate::GpuTraceLde) and
//! [`GpuConstraintCommitment`](crate::GpuConstraintCommitment) run on (a
//! context, or none), their counters and the phase clock; and the library
//! calls that extend and commit a matrix.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gpuprover::{
    Buffer, Context, Field, HostMemory, Layout, LdeOptions, MerkleKind, MerkleOptions, MerkleTree, NttOptions,
};
use winter_air::PartitionOptions;
use winter_prover::crypto::{ElementHasher, MerkleTree as WinterMerkleTree};
use winter_prover::math::fields::f64::BaseElement;
use winter_prover::math::{FieldElement, StarkField};
use winter_prover::matrix::{ColMatrix, RowMatrix};
use winter_prover::StarkDomain;

use crate::convert::{columns_from_canonical, columns_to_canonical, rows_from_columns};
use crate::hasher::{digest_size, digests, library_hash};
use crate::segment::Committed;

/// winterfell's root of unity of order 2^32 for `f64`
/// (`BaseElement::TWO_ADIC_ROOT_OF_UNITY`), canonical: with it as the
/// library's `root`, every domain is winterfell's.
pub fn winterfell_root() -> u64 {
    BaseElement::TWO_ADIC_ROOT_OF_UNITY.as_int()
}

/// The largest blowup `gp_lde_batch` takes; above it the LDE is a forward
/// transform of the zero-padded coefficients.
const LDE_MAX_BLOWUP: usize = 32;

/// Columns `RowMatrix::evaluate_polys_over` evaluates together in
/// winterfell's own code (its private `DEFAULT_SEGMENT_WIDTH`; the values
/// do not depend on it).
const SEGMENT_WIDTH: usize = 8;

/// Commitments made through a [`Committer`] and its clones (the
/// [`GpuProver`](crate::GpuProver) that owns it, and the trace LDEs and
/// constraint commitments it made).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Trace segments (main or auxiliary) extended and committed by the
    /// library.
    pub device_trace_segments: u64,
    /// Trace segments extended and committed by winterfell's code: a
    /// partitioned row hash, a hasher without a library profile, no
    /// context, or a library error (see `last_fallback`).
    pub host_trace_segments: u64,
    /// Constraint commitments (composition columns) extended and committed
    /// by the library.
    pub device_constraint_commitments: u64,
    /// Constraint commitments made by winterfell's code.
    pub host_constraint_commitments: u64,
    /// Openings the library's tree could not give, answered from a tree
    /// rebuilt on the host from the kept LDE.
    pub host_openings: u64,
    /// Why the last commitment or opening went to winterfell's code.
    pub last_fallback: Option<String>,
}

/// Wall time of each phase of the last proof made through a
/// [`GpuProver`](crate::GpuProver) (or with a [`Committer`]'s trace LDE
/// and constraint commitment), measured at the calls the prover makes to
/// them. Meaningful for one proof at a time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    /// Trace segments, main and auxiliary: interpolation, LDE, row
    /// commitment (and, on the library path, the transfers and value
    /// conversions).
    pub trace_commit: Duration,
    /// Building the auxiliary trace (the wrapped prover's
    /// `build_aux_trace`).
    pub aux_trace_build: Duration,
    /// winterfell's constraint evaluation over the constraint domain.
    pub constraint_evaluation: Duration,
    /// The constraint commitment: the composition polynomial's columns
    /// (winterfell's `CompositionPoly::new`), their LDE and row commitment.
    pub constraint_commitment: Duration,
    /// From the constraint commitment to the first opening: OOD frames,
    /// DEEP composition, FRI layers, grinding, query positions, FRI proof.
    pub deep_fri: Duration,
    /// Trace and constraint openings at the query positions.
    pub queries: Duration,
}

impl PhaseTimes {
    /// The phases together.
    pub fn total(&self) -> Duration {
        self.trace_commit
            + self.aux_trace_build
            + self.constraint_evaluation
            + self.constraint_commitment
            + self.deep_fri
            + self.queries
    }
}

/// One of the timed phases.
#[derive(Clone, Copy)]
pub(crate) enum Phase {
    TraceCommit,
    AuxTraceBuild,
    ConstraintEvaluation,
    ConstraintCommitment,
    DeepFri,
    Queries,
}

#[derive(Default)]
struct Clock {
    times: PhaseTimes,
    mark: Option<Instant>,
}

#[derive(Default)]
struct Shared {
    device_trace: AtomicU64,
    host_trace: AtomicU64,
    device_constraint: AtomicU64,
    host_constraint: AtomicU64,
    host_openings: AtomicU64,
    last_fallback: Mutex<Option<String>>,
    clock: Mutex<Clock>,
    /// Host memory from the context's `gp_host_alloc` (page-locked on
    /// CUDA) that downloads land in, the size of the largest so far.
    staging: Mutex<Option<HostMemory>>,
}

/// What the trace LDEs and constraint commitments of a prover run on: a
/// gpuprover [`Context`] (or none, for winterfell's own code behind the
/// same types), with counters of the commitments made ([`CommitStats`])
/// and the phase clock of the last proof ([`PhaseTimes`]). Clones share
/// both. [`GpuProver`](crate::GpuProver) makes one; a prover that names
/// [`GpuTraceLde`](crate::GpuTraceLde) or
/// [`GpuConstraintCommitment`](crate::GpuConstraintCommitment) itself
/// passes one to their constructors.
#[derive(Clone)]
pub struct Committer {
    ctx: Option<Context>,
    shared: Arc<Shared>,
}

impl Committer {
    /// Commits on `ctx` (the CUDA backend, the CPU backend or a server's
    /// device). Values cross to and from it canonical.
    pub fn new(ctx: &Context) -> Committer {
        Committer {
            ctx: Some(ctx.clone()),
            shared: Arc::default(),
        }
    }

    /// Commits with winterfell's own code (the calls the stock
    /// `DefaultTraceLde` and `DefaultConstraintCommitment` make), counted
    /// and timed as the library path is: the stock prover's phases.
    pub fn host_only() -> Committer {
        Committer {
            ctx: None,
            shared: Arc::default(),
        }
    }

    /// The context commitments run on (`None` for [`Committer::host_only`]).
    pub fn context(&self) -> Option<&Context> {
        self.ctx.as_ref()
    }

    /// Commitments made so far through this committer and its clones.
    pub fn stats(&self) -> CommitStats {
        let s = &self.shared;
        CommitStats {
            device_trace_segments: s.device_trace.load(Ordering::Relaxed),
            host_trace_segments: s.host_trace.load(Ordering::Relaxed),
            device_constraint_commitments: s.device_constraint.load(Ordering::Relaxed),
            host_constraint_commitments: s.host_constraint.load(Ordering::Relaxed),
            host_openings: s.host_openings.load(Ordering::Relaxed),
            last_fallback: s.last_fallback.lock().map(|g| g.clone()).unwrap_or(None),
        }
    }

    /// The phases of the last proof (see [`PhaseTimes`]).
    pub fn phase_times(&self) -> PhaseTimes {
        self.shared.clock.lock().map(|c| c.times).unwrap_or_default()
    }

    // PHASE CLOCK
    // --------------------------------------------------------------------------------------------

    fn clock<R>(&self, f: impl FnOnce(&mut Clock) -> R) -> R {
        let mut guard = self.shared.clock.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// A proof starts: the phases are zeroed.
    pub(crate) fn start_proof(&self) {
        self.clock(|c| *c = Clock::default());
    }

    /// Adds `d` to `phase`.
    pub(crate) fn add(&self, phase: Phase, d: Duration) {
        self.clock(|c| {
            let t = &mut c.times;
            *match phase {
                Phase::TraceCommit => &mut t.trace_commit,
                Phase::AuxTraceBuild => &mut t.aux_trace_build,
                Phase::ConstraintEvaluation => &mut t.constraint_evaluation,
                Phase::ConstraintCommitment => &mut t.constraint_commitment,
                Phase::DeepFri => &mut t.deep_fri,
                Phase::Queries => &mut t.queries,
            } += d;
        });
    }

    /// Marks the end of a phase whose end is seen only by the next call.
    pub(crate) fn mark(&self) {
        self.clock(|c| c.mark = Some(Instant::now()));
    }

    /// Adds the time since the last mark (if any) to `phase` and clears
    /// the mark.
    pub(crate) fn since_mark(&self, phase: Phase) {
        let now = Instant::now();
        if let Some(m) = self.clock(|c| c.mark.take()) {
            self.add(phase, now - m);
        }
    }

    // COUNTERS
    // --------------------------------------------------------------------------------------------

    fn fallback(&self, why: String) {
        if let Ok(mut g) = self.shared.last_fallback.lock() {
            *g = Some(why);
        }
    }

    pub(crate) fn count_host_opening(&self, why: String) {
        self.shared.host_openings.fetch_add(1, Ordering::Relaxed);
        self.fallback(why);
    }

    /// The profile and context a matrix of `cols` columns of `F` hashed by
    /// `H` is committed with on the library, or why it is not.
    fn device_for<F: FieldElement, H: 'static>(
        &self,
        cols: usize,
        partition_options: PartitionOptions,
    ) -> Result<(&Context, MerkleOptions), String> {
        let ctx = self
            .ctx
            .as_ref()
            .ok_or_else(|| "no context (Committer::host_only)".to_string())?;
        if partition_options.partition_size::<F>(cols) != cols {
            return Err(format!(
                "{partition_options:?} hashes rows of {cols} columns in parts, which the library's tree does not"
            ));
        }
        let perm = library_hash::<H>().ok_or_else(|| {
            format!(
                "{} is not one of winterfell's Blake3_256, Blake3_192, Sha3_256, Rp64_256 over f64",
                std::any::type_name::<H>()
            )
        })?;
        Ok((
            ctx,
            MerkleOptions {
                kind: MerkleKind::Winterfell,
                perm: Some(perm),
                ..MerkleOptions::default()
            },
        ))
    }

    // TRACE SEGMENTS
    // --------------------------------------------------------------------------------------------

    /// A trace segment extended and committed as `DefaultTraceLde` does it,
    /// and its columns' polynomials: by the library when it can, else by
    /// winterfell's code.
    pub(crate) fn commit_trace<F, H>(
        &self,
        trace: &ColMatrix<F>,
        domain: &StarkDomain<BaseElement>,
        partition_options: PartitionOptions,
    ) -> (Committed<F, H>, ColMatrix<F>)
    where
        F: FieldElement<BaseField = BaseElement>,
        H: ElementHasher<BaseField = BaseElement> + 'static,
    {
        let device = self
            .device_for::<F, H>(trace.num_cols(), partition_options)
            .and_then(|(ctx, merkle)| {
                let (n, cols) = (trace.num_rows(), trace.num_cols());
                let data = columns_to_canonical(trace.columns());
                let refused = |e: gpuprover::Error| format!("the library refused the trace segment: {e}");
                let out = lde_commit(
                    ctx,
                    &merkle,
                    Input::Evaluations,
                    &data,
                    n,
                    cols,
                    F::EXTENSION_DEGREE,
                    domain,
                )
                .map_err(refused)?;
                let coefficients = out.coefficients.as_ref().expect("the coefficients of a trace segment");
                let polys = self
                    .download(coefficients, |c| columns_from_canonical::<F>(c, n))
                    .map_err(refused)?;
                let committed = self.committed::<F, H>(out, cols)?;
                Ok((committed, ColMatrix::new(polys)))
            });
        match device {
            Ok(r) => {
                self.shared.device_trace.fetch_add(1, Ordering::Relaxed);
                r
            }
            Err(why) => {
                self.shared.host_trace.fetch_add(1, Ordering::Relaxed);
                self.fallback(why);
                let polys = trace.interpolate_columns();
                let lde = RowMatrix::evaluate_polys_over::<SEGMENT_WIDTH>(&polys, domain);
                let tree = lde.commit_to_rows::<H, WinterMerkleTree<H>>(partition_options);
                (Committed::host(lde, tree), polys)
            }
        }
    }

    // COMPOSITION COLUMNS
    // --------------------------------------------------------------------------------------------

    /// The composition polynomial's columns (coefficients, `columns`)
    /// extended and committed as `DefaultConstraintCommitment` does it: by
    /// the library when it can, else by winterfell's code.
    pub(crate) fn commit_composition<E, H>(
        &self,
        columns: &ColMatrix<E>,
        domain: &StarkDomain<BaseElement>,
        partition_options: PartitionOptions,
    ) -> Committed<E, H>
    where
        E: FieldElement<BaseField = BaseElement>,
        H: ElementHasher<BaseField = BaseElement> + 'static,
    {
        let device = self
            .device_for::<E, H>(columns.num_cols(), partition_options)
            .and_then(|(ctx, merkle)| {
                let data = columns_to_canonical(columns.columns());
                let (n, cols) = (columns.num_rows(), columns.num_cols());
                let out = lde_commit(
                    ctx,
                    &merkle,
                    Input::Coefficients,
                    &data,
                    n,
                    cols,
                    E::EXTENSION_DEGREE,
                    domain,
                )
                .map_err(|e| format!("the library refused the composition columns: {e}"))?;
                self.committed::<E, H>(out, cols)
            });
        match device {
            Ok(c) => {
                self.shared.device_constraint.fetch_add(1, Ordering::Relaxed);
                c
            }
            Err(why) => {
                self.shared.host_constraint.fetch_add(1, Ordering::Relaxed);
                self.fallback(why);
                let lde = RowMatrix::evaluate_polys_over::<SEGMENT_WIDTH>(columns, domain);
                let tree = lde.commit_to_rows::<H, WinterMerkleTree<H>>(partition_options);
                Committed::host(lde, tree)
            }
        }
    }
}

/// What the columns given to [`lde_commit`] hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Input {
    /// Values on the trace domain (row i at w_n^i).
    Evaluations,
    /// Coefficients, lowest degree first.
    Coefficients,
}

/// What [`lde_commit`] computed, on the device.
struct DeviceLde {
    /// The LDE (held by the tree too).
    lde: Buffer,
    /// The library's tree of its rows.
    tree: MerkleTree,
    /// Input::Evaluations: the columns' coefficients.
    coefficients: Option<Buffer>,
}

impl Committer {
    /// `convert` of `buffer`'s values, downloaded column-major (the
    /// library's own layout, which it copies without a transpose for base
    /// columns) into the staging area: host memory of the context's
    /// `gp_host_alloc`, page-locked on CUDA, so the copy is one DMA into
    /// memory already mapped; kept for the next download (the largest
    /// size so far). Concurrent downloads beyond the first use memory of
    /// their own.
    fn download<R>(&self, buffer: &Buffer, convert: impl FnOnce(&[u64]) -> R) -> gpuprover::Result<R> {
        let words = buffer.len(); // base values
        let taken = self.shared.staging.lock().ok().and_then(|mut g| g.take());
        let mut memory = match taken {
            Some(m) if m.len() >= words * 8 => m,
            _ => buffer.context().host_alloc(words.max(1) * 8)?,
        };
        buffer.to_host::<u64>(Layout::ColMajor, &mut memory.as_mut_slice()[..words])?;
        let out = convert(&memory.as_slice()[..words]);
        if let Ok(mut g) = self.shared.staging.lock() {
            if g.as_ref().is_none_or(|kept| kept.len() < memory.len()) {
                *g = Some(memory);
            }
        }
        Ok(out)
    }

    /// Drops the staging area downloads go through (page-locked memory the
    /// size of the largest LDE downloaded so far); the next download
    /// allocates one again.
    pub fn release_staging(&self) {
        if let Ok(mut g) = self.shared.staging.lock() {
            *g = None;
        }
    }

    /// The committed segment of `cols` columns of `F`: the LDE's rows
    /// downloaded and converted, the tree and its root.
    fn committed<F, H>(&self, out: DeviceLde, cols: usize) -> Result<Committed<F, H>, String>
    where
        F: FieldElement<BaseField = BaseElement>,
        H: ElementHasher<BaseField = BaseElement>,
    {
        if out.tree.digest_size() != digest_size::<H>() {
            return Err(format!(
                "the library's digests are {} bytes, {}'s {}",
                out.tree.digest_size(),
                std::any::type_name::<H>(),
                digest_size::<H>()
            ));
        }
        let root = out.tree.root().map_err(|e| e.to_string())?;
        let root = digests::<H>(&root)?.remove(0);
        let rows = out.lde.rows();
        let lde = self
            .download(&out.lde, |c| rows_from_columns::<F>(c, rows, cols))
            .map_err(|e| format!("downloading the LDE: {e}"))?;
        Ok(Committed::device(lde, cols, out.tree, root))
    }
}

/// The LDE of `cols` columns of degree-`ext` elements (`data`, column-major
/// canonical, `n` rows; values on the trace domain or coefficients) on
/// winterfell's LDE domain (`offset * <w_{nB}>`, natural order, winterfell's
/// roots), its rows committed with `merkle`; downloaded row-major, with
/// the coefficients of values given on the trace domain.
#[allow(clippy::too_many_arguments)]
fn lde_commit(
    ctx: &Context,
    merkle: &MerkleOptions,
    input: Input,
    data: &[u64],
    n: usize,
    cols: usize,
    ext: usize,
    domain: &StarkDomain<BaseElement>,
) -> gpuprover::Result<DeviceLde> {
    let root = winterfell_root();
    let blowup = domain.trace_to_lde_blowup();
    let offset = domain.offset().as_int();
    let e = ext as u32;
    let f = Field::Goldilocks;
    let mut src = Buffer::from_host(ctx, f, e, n, cols, Layout::ColMajor, data)?;
    let (lde, coefficients) = if blowup <= LDE_MAX_BLOWUP {
        let options = LdeOptions {
            blowup: blowup as u32,
            shift: Some(offset),
            ..LdeOptions::default()
        };
        let mut lde = Buffer::new(ctx, f, e, n * blowup, cols)?;
        match input {
            Input::Evaluations => {
                ctx.lde_with_root(&src, &options, root, &mut lde)?;
                ctx.ntt_with_root(&mut src, &NttOptions::inverse(), root)?;
                (lde, Some(src))
            }
            Input::Coefficients => {
                // The values on the trace domain, then their LDE.
                ctx.ntt_with_root(&mut src, &NttOptions::forward(), root)?;
                ctx.lde_with_root(&src, &options, root, &mut lde)?;
                (lde, None)
            }
        }
    } else {
        // Blowups above the LDE's: the coefficients zero-padded to n B
        // rows, transformed forward on the coset.
        if input == Input::Evaluations {
            ctx.ntt_with_root(&mut src, &NttOptions::inverse(), root)?;
        }
        let owned;
        let c = match input {
            Input::Evaluations => {
                owned = src.to_vec::<u64>(Layout::ColMajor)?;
                &owned[..]
            }
            Input::Coefficients => data,
        };
        let (col, big) = (n * ext, n * blowup * ext);
        let mut padded = vec![0u64; big * cols];
        for (dst, src) in padded.chunks_mut(big).zip(c.chunks(col)) {
            dst[..col].copy_from_slice(src);
        }
        let mut lde = Buffer::from_host(ctx, f, e, n * blowup, cols, Layout::ColMajor, &padded)?;
        let options = NttOptions {
            shift: Some(offset),
            ..NttOptions::forward()
        };
        ctx.ntt_with_root(&mut lde, &options, root)?;
        (lde, (input == Input::Evaluations).then_some(src))
    };
    let tree = ctx.merkle_commit(&[&lde], merkle)?;
    Ok(DeviceLde {
        lde,
        tree,
        coefficients,
    })
}

#[cfg(test)]
mod tests {
    //! The library's LDE and coefficients on winterfell's domains, whatever
    //! the tree (here Plonky3's default profile, which every library build
    //! has): equal to winterfell's `interpolate_columns` and
    //! `evaluate_polys_over`.

    use winter_prover::math::fields::{CubeExtension, QuadExtension};
    use winter_prover::math::{fft, polynom};

    use super::*;

    fn context() -> Context {
        match std::env::var("GP_TEST_BACKEND").as_deref() {
            Ok("cuda") => Context::with_backend(gpuprover::Backend::Cuda).unwrap(),
            _ => Context::with_backend(gpuprover::Backend::Cpu).unwrap(),
        }
    }

    fn random<F: FieldElement<BaseField = BaseElement>>(seed: u64, n: usize) -> Vec<F> {
        let mut s = seed | 1;
        let base: Vec<BaseElement> = (0..n * F::EXTENSION_DEGREE)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                BaseElement::new(s)
            })
            .collect();
        F::slice_from_base_elements(&base).to_vec()
    }

    fn check<F: FieldElement<BaseField = BaseElement>>(ctx: &Context, n: usize, cols: usize, blowup: usize) {
        let columns: Vec<Vec<F>> = (0..cols).map(|c| random(c as u64 * 77 + n as u64, n)).collect();
        let trace = ColMatrix::new(columns);
        let domain = StarkDomain::from_twiddles(fft::get_twiddles::<BaseElement>(n), blowup, BaseElement::GENERATOR);
        let polys = trace.interpolate_columns();
        let lde = RowMatrix::evaluate_polys_over::<SEGMENT_WIDTH>(&polys, &domain);
        let merkle = MerkleOptions::default();
        let data = columns_to_canonical(trace.columns());
        let ext = F::EXTENSION_DEGREE;
        let committer = Committer::new(ctx);
        let out = lde_commit(ctx, &merkle, Input::Evaluations, &data, n, cols, ext, &domain).unwrap();
        let coefficients = committer
            .download(out.coefficients.as_ref().unwrap(), |c| {
                columns_from_canonical::<F>(c, n)
            })
            .unwrap();
        assert!(
            coefficients == polys.clone().into_columns(),
            "coefficients n = {n}, blowup {blowup}, ext {ext}"
        );
        let rows = committer
            .download(&out.lde, |c| rows_from_columns::<F>(c, n * blowup, cols))
            .unwrap();
        for (i, row) in rows.chunks(cols).enumerate() {
            assert!(row == lde.row(i), "row {i} of n = {n}, blowup {blowup}, ext {ext}");
        }
        // From the coefficients.
        let data = columns_to_canonical(polys.columns());
        let out = lde_commit(ctx, &merkle, Input::Coefficients, &data, n, cols, ext, &domain).unwrap();
        assert!(
            committer
                .download(&out.lde, |c| rows_from_columns::<F>(c, n * blowup, cols))
                .unwrap()
                == rows
        );
        // Row j is the value at offset * g_lde^j.
        let g = BaseElement::get_root_of_unity((n * blowup).ilog2());
        let j = n * blowup - 3;
        let x = BaseElement::GENERATOR * g.exp(j as u64);
        assert!(rows[j * cols] == polynom::eval(polys.get_column(0), F::from(x)));
    }

    #[test]
    fn lde_and_coefficients_on_winterfell_domains() {
        let ctx = context();
        for (n, blowup) in [(8, 2), (64, 8), (256, 4), (16, 32), (16, 64), (8, 128)] {
            check::<BaseElement>(&ctx, n, 3, blowup);
            check::<QuadExtension<BaseElement>>(&ctx, n, 2, blowup);
            check::<CubeExtension<BaseElement>>(&ctx, n, 1, blowup);
        }
    }
}
