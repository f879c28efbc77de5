// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`GpuProver`]: any winterfell `Prover` with the trace LDE and the
//! constraint commitment swapped for gpuprover's.

use std::time::Instant;

use gpuprover::Context;
use winter_air::{AuxRandElements, PartitionOptions};
use winter_prover::crypto::{ElementHasher, MerkleTree};
use winter_prover::math::fields::f64::BaseElement;
use winter_prover::math::FieldElement;
use winter_prover::matrix::ColMatrix;
use winter_prover::{
    Air, CompositionPoly, CompositionPolyTrace, ConstraintCompositionCoefficients, ProofOptions, Prover, StarkDomain,
    TraceInfo, TracePolyTable,
};

use crate::committer::{CommitStats, Committer, Phase, PhaseTimes};
use crate::{GpuConstraintCommitment, GpuTraceLde};

/// A winterfell [`Prover`] that is `P` with its `TraceLde` replaced by
/// [`GpuTraceLde`] and its `ConstraintCommitment` by
/// [`GpuConstraintCommitment`]; every other type (AIR, trace, hasher,
/// vector commitment, random coin, constraint evaluator) and method
/// (`get_pub_inputs`, `options`, `new_evaluator`, `build_aux_trace`) is
/// `P`'s. Proofs are byte-identical to `P`'s when `P` uses winterfell's
/// default trace LDE and constraint commitment (or ones that compute the
/// same), and `P`'s verifier accepts them.
///
/// `P` must prove over `f64` (`BaseElement`) with winter-crypto's
/// `MerkleTree<P::HashFn>` as its vector commitment (as winterfell's
/// provers do). With `Blake3_256`, `Blake3_192`, `Sha3_256` or `Rp64_256`
/// the library commits; other hashers, partitioned row hashes and calls
/// the library refuses go to winterfell's code, counted in
/// [`GpuProver::stats`].
///
/// ```ignore
/// let ctx = gpuprover::Context::new()?;
/// let prover = GpuProver::new(FibProver::new(options), &ctx);
/// let proof = prover.prove(trace)?; // the same bytes as FibProver's
/// ```
pub struct GpuProver<P> {
    inner: P,
    committer: Committer,
}

impl<P> GpuProver<P> {
    /// `inner` with its trace LDE and constraint commitment computed on
    /// `ctx`.
    pub fn new(inner: P, ctx: &Context) -> Self {
        GpuProver {
            inner,
            committer: Committer::new(ctx),
        }
    }

    /// `inner` with its trace LDE and constraint commitment made by
    /// winterfell's own code behind the same types: the stock prover,
    /// timed by phase as [`GpuProver::phase_times`] reports.
    pub fn host_only(inner: P) -> Self {
        GpuProver {
            inner,
            committer: Committer::host_only(),
        }
    }

    /// `inner` on an existing [`Committer`] (sharing its counters and
    /// clock).
    pub fn with_committer(inner: P, committer: Committer) -> Self {
        GpuProver { inner, committer }
    }

    /// The wrapped prover.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// The wrapped prover, unwrapped.
    pub fn into_inner(self) -> P {
        self.inner
    }

    /// What the commitments run on.
    pub fn committer(&self) -> &Committer {
        &self.committer
    }

    /// Commitments made so far by this prover (and its committer's other
    /// users): which the library made, which went to winterfell's code and
    /// why.
    pub fn stats(&self) -> CommitStats {
        self.committer.stats()
    }

    /// The phases of the last proof.
    pub fn phase_times(&self) -> PhaseTimes {
        self.committer.phase_times()
    }
}

impl<P> Prover for GpuProver<P>
where
    P: Prover<BaseField = BaseElement, VC = MerkleTree<<P as Prover>::HashFn>>,
    P::HashFn: ElementHasher<BaseField = BaseElement> + Sync + 'static,
{
    type BaseField = BaseElement;
    type Air = P::Air;
    type Trace = P::Trace;
    type HashFn = P::HashFn;
    type VC = MerkleTree<P::HashFn>;
    type RandomCoin = P::RandomCoin;
    type TraceLde<E: FieldElement<BaseField = Self::BaseField>> = GpuTraceLde<E, P::HashFn>;
    type ConstraintEvaluator<'a, E: FieldElement<BaseField = Self::BaseField>> = P::ConstraintEvaluator<'a, E>;
    type ConstraintCommitment<E: FieldElement<BaseField = Self::BaseField>> = GpuConstraintCommitment<E, P::HashFn>;

    fn get_pub_inputs(&self, trace: &Self::Trace) -> <<Self as Prover>::Air as Air>::PublicInputs {
        self.inner.get_pub_inputs(trace)
    }

    fn options(&self) -> &ProofOptions {
        self.inner.options()
    }

    fn new_trace_lde<E: FieldElement<BaseField = Self::BaseField>>(
        &self,
        trace_info: &TraceInfo,
        main_trace: &ColMatrix<Self::BaseField>,
        domain: &StarkDomain<Self::BaseField>,
        partition_options: PartitionOptions,
    ) -> (Self::TraceLde<E>, TracePolyTable<E>) {
        self.committer.start_proof();
        let start = Instant::now();
        let r = GpuTraceLde::new(&self.committer, trace_info, main_trace, domain, partition_options);
        self.committer.add(Phase::TraceCommit, start.elapsed());
        r
    }

    fn new_evaluator<'a, E: FieldElement<BaseField = Self::BaseField>>(
        &self,
        air: &'a Self::Air,
        aux_rand_elements: Option<AuxRandElements<E>>,
        composition_coefficients: ConstraintCompositionCoefficients<E>,
    ) -> Self::ConstraintEvaluator<'a, E> {
        let evaluator = self
            .inner
            .new_evaluator(air, aux_rand_elements, composition_coefficients);
        // The prover evaluates the constraints next, then commits them.
        self.committer.mark();
        evaluator
    }

    fn build_constraint_commitment<E: FieldElement<BaseField = Self::BaseField>>(
        &self,
        composition_poly_trace: CompositionPolyTrace<E>,
        num_constraint_composition_columns: usize,
        domain: &StarkDomain<Self::BaseField>,
        partition_options: PartitionOptions,
    ) -> (Self::ConstraintCommitment<E>, CompositionPoly<E>) {
        self.committer.since_mark(Phase::ConstraintEvaluation);
        let start = Instant::now();
        let r = GpuConstraintCommitment::new(
            &self.committer,
            composition_poly_trace,
            num_constraint_composition_columns,
            domain,
            partition_options,
        );
        self.committer.add(Phase::ConstraintCommitment, start.elapsed());
        // OOD, DEEP and FRI run next, until the first opening.
        self.committer.mark();
        r
    }

    fn build_aux_trace<E: FieldElement<BaseField = Self::BaseField>>(
        &self,
        main_trace: &Self::Trace,
        aux_rand_elements: &AuxRandElements<E>,
    ) -> ColMatrix<E> {
        let start = Instant::now();
        let aux = self.inner.build_aux_trace(main_trace, aux_rand_elements);
        self.committer.add(Phase::AuxTraceBuild, start.elapsed());
        aux
    }
}
