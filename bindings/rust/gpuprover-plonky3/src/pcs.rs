// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`GpuPcs`]: `TwoAdicFriPcs` whose commitments are one library call each.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use gpuprover::{CommitMatrix, CommitOptions, Keep};
#[cfg(not(feature = "plonky3-main"))]
use p3_commit::{BuildPeriodicLdeTableFast, PeriodicLdeTable};
use p3_commit::{OpenedValues, Pcs, PolynomialSpace, Val};
use p3_field::coset::TwoAdicMultiplicativeCoset;
use p3_field::ExtensionField;
use p3_fri::{FriParameters, TwoAdicFriPcs};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use p3_symmetric::MerkleCap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::dft::{commitment_lde_options, download};
use crate::field::{DigestWord, GpuField};
use crate::mmcs::{canonical_rows, GpuMmcs, GpuProverData, StockMmcs};
use crate::quotient::QuotientStats;
use crate::GpuDft;

/// Plonky3's `TwoAdicFriPcs` over [`GpuDft`] and [`GpuMmcs`] whose
/// `commit` (the trace, and the preprocessed trace) is **one** library call
/// (`commit_host`): the trace crosses to the device once, its coset LDE and
/// the tree are built there, the LDE stays on the device for the tree's
/// openings and comes back once for the openings' evaluations on the host.
/// With `TwoAdicFriPcs` alone the LDE comes back from the DFT and goes to
/// the device again for the tree. Everything else (the quotient
/// commitment, opening, verifying) is `TwoAdicFriPcs`'s, over the same
/// [`GpuDft`] and [`GpuMmcs`]. Proofs are byte-identical to the stock
/// prover's; a batch the call does not take (traces on cosets of different
/// shifts, a blowup above 32, a configuration without a library profile) is
/// committed by `TwoAdicFriPcs`. Every method `TwoAdicFriPcs` defines is
/// forwarded to it.
pub struct GpuPcs<F, W, Inner, const DIGEST: usize, FriMmcs> {
    inner: TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs>,
    mmcs: GpuMmcs<F, W, Inner, DIGEST>,
    log_blowup: usize,
    one_call: Arc<AtomicU64>,
    quotient: Arc<QuotientStats>,
    cpu_quotient: bool,
    stock_quotient: bool,
}

impl<F, W, Inner: Clone, const DIGEST: usize, FriMmcs> Clone for GpuPcs<F, W, Inner, DIGEST, FriMmcs>
where
    TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs>: Clone,
{
    fn clone(&self) -> Self {
        GpuPcs {
            inner: self.inner.clone(),
            mmcs: self.mmcs.clone(),
            log_blowup: self.log_blowup,
            one_call: self.one_call.clone(),
            quotient: self.quotient.clone(),
            cpu_quotient: self.cpu_quotient,
            stock_quotient: self.stock_quotient,
        }
    }
}

impl<F, W, Inner: Clone, const DIGEST: usize, FriMmcs> GpuPcs<F, W, Inner, DIGEST, FriMmcs> {
    /// The PCS `TwoAdicFriPcs::new(dft, mmcs, fri)` would be.
    pub fn new(dft: GpuDft<F>, mmcs: GpuMmcs<F, W, Inner, DIGEST>, fri: FriParameters<FriMmcs>) -> Self {
        let log_blowup = fri.log_blowup;
        GpuPcs {
            inner: TwoAdicFriPcs::new(dft, mmcs.clone(), fri),
            mmcs,
            log_blowup,
            one_call: Arc::new(AtomicU64::new(0)),
            quotient: Arc::new(QuotientStats::default()),
            cpu_quotient: false,
            stock_quotient: false,
        }
    }

    /// Commitments made in one library call by this value and its clones
    /// (the others went through `TwoAdicFriPcs`).
    pub fn one_call_commits(&self) -> u64 {
        self.one_call.load(Ordering::Relaxed)
    }

    /// Whether [`prove`](crate::prove) evaluates the quotient with the
    /// library when the context's backend is the CPU (default false: there
    /// Plonky3's packed `quotient_values` is faster than the library's
    /// interpreter, and the fallback is counted with that reason).
    pub fn quotient_on_cpu_backend(mut self, yes: bool) -> Self {
        self.cpu_quotient = yes;
        self
    }

    /// Whether [`prove`](crate::prove) leaves every quotient to Plonky3's
    /// `quotient_values` (counted as fallbacks; for measuring the two side
    /// by side). Default false.
    pub fn stock_quotient(mut self, yes: bool) -> Self {
        self.stock_quotient = yes;
        self
    }

    /// Where [`prove`](crate::prove) computed the quotients of this value
    /// and its clones.
    pub fn quotient_stats(&self) -> &QuotientStats {
        &self.quotient
    }
}

impl<F, W, Inner, const DIGEST: usize, FriMmcs> GpuPcs<F, W, Inner, DIGEST, FriMmcs>
where
    F: GpuField,
    W: DigestWord + PartialEq,
    Inner: StockMmcs<F, W, DIGEST>,
{
    /// The commitment of `evaluations` in one library call, or `None` when
    /// the call does not take them.
    #[allow(clippy::type_complexity)]
    fn device_commit<D: PolynomialSpace<Val = F>>(
        &self,
        evaluations: &[(D, RowMajorMatrix<F>)],
    ) -> Option<(MerkleCap<F, [W; DIGEST]>, GpuProverData<RowMajorMatrix<F>, Inner::ProverData<RowMajorMatrix<F>>>)> {
        let first = evaluations.first()?;
        let shift = first.0.first_point();
        if evaluations.iter().any(|(d, m)| d.first_point() != shift || m.height() != d.size() || m.width() == 0) {
            return None;
        }
        let max_height = evaluations.iter().map(|(_, m)| m.height()).max()? << self.log_blowup;
        let merkle = self.mmcs.options_for(max_height)?;
        let options = CommitOptions {
            // Evaluations over `s * H` extended to `GENERATOR * K`, as
            // TwoAdicFriPcs::commit's coset_lde_batch(.., GENERATOR / s).
            lde: commitment_lde_options(self.log_blowup, F::GENERATOR / shift).ok()?,
            merkle,
            keep: Keep::Device,
            ..CommitOptions::default()
        };
        let mats =
            evaluations.iter().map(|(_, m)| CommitMatrix::new(canonical_rows::<F, _>(m), m.height(), m.width())).collect();
        let ctx = self.mmcs.context();
        let (ldes, tree) = ctx.commit_host(F::FIELD, mats, &options).ok()?;
        let matrices =
            ldes.iter().zip(evaluations).map(|(b, (_, m))| download::<F>(b, m.width())).collect::<Result<Vec<_>, _>>().ok()?;
        let cap = GpuMmcs::<F, W, Inner, DIGEST>::cap_of(&tree).ok()?;
        self.mmcs.count_device();
        self.one_call.fetch_add(1, Ordering::Relaxed);
        Some((cap, GpuProverData::Device { tree, matrices, device: ldes }))
    }
}

type Inp<F> = RowMajorMatrix<F>;

#[cfg(not(feature = "plonky3-main"))]
impl<F: GpuField, W, Inner, const DIGEST: usize, FriMmcs> BuildPeriodicLdeTableFast for GpuPcs<F, W, Inner, DIGEST, FriMmcs> {
    type PeriodicDomain = TwoAdicMultiplicativeCoset<F>;

    fn maybe_build_periodic_lde_table_fast(
        &self,
        periodic_cols: &[Vec<F>],
        trace_domain: TwoAdicMultiplicativeCoset<F>,
        quotient_domain: TwoAdicMultiplicativeCoset<F>,
    ) -> Option<PeriodicLdeTable<F>> {
        self.inner.maybe_build_periodic_lde_table_fast(periodic_cols, trace_domain, quotient_domain)
    }
}

impl<F, W, Inner, const DIGEST: usize, FriMmcs, Challenge, Challenger> Pcs<Challenge, Challenger>
    for GpuPcs<F, W, Inner, DIGEST, FriMmcs>
where
    F: GpuField,
    W: DigestWord + PartialEq,
    Inner: StockMmcs<F, W, DIGEST>,
    [W; DIGEST]: Serialize + DeserializeOwned,
    Challenge: ExtensionField<F>,
    TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs>: Pcs<
        Challenge,
        Challenger,
        Domain = TwoAdicMultiplicativeCoset<F>,
        Commitment = MerkleCap<F, [W; DIGEST]>,
        ProverData = GpuProverData<Inp<F>, Inner::ProverData<Inp<F>>>,
    >,
{
    type Domain = TwoAdicMultiplicativeCoset<F>;
    type Commitment = <TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs> as Pcs<Challenge, Challenger>>::Commitment;
    type ProverData = <TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs> as Pcs<Challenge, Challenger>>::ProverData;
    type EvaluationsOnDomain<'a> =
        <TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs> as Pcs<Challenge, Challenger>>::EvaluationsOnDomain<'a>;
    type Proof = <TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs> as Pcs<Challenge, Challenger>>::Proof;
    type Error = <TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs> as Pcs<Challenge, Challenger>>::Error;
    const ZK: bool = <TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs> as Pcs<Challenge, Challenger>>::ZK;

    fn natural_domain_for_degree(&self, degree: usize) -> Self::Domain {
        Pcs::<Challenge, Challenger>::natural_domain_for_degree(&self.inner, degree)
    }

    fn log_max_lde_height(&self) -> usize {
        Pcs::<Challenge, Challenger>::log_max_lde_height(&self.inner)
    }

    fn commit(
        &self,
        evaluations: impl IntoIterator<Item = (Self::Domain, RowMajorMatrix<Val<Self::Domain>>)>,
    ) -> (Self::Commitment, Self::ProverData) {
        let evaluations: Vec<_> = evaluations.into_iter().collect();
        match self.device_commit(&evaluations) {
            Some(c) => c,
            None => Pcs::<Challenge, Challenger>::commit(&self.inner, evaluations),
        }
    }

    fn get_quotient_ldes(
        &self,
        evaluations: impl IntoIterator<Item = (Self::Domain, RowMajorMatrix<Val<Self::Domain>>)>,
        num_chunks: usize,
    ) -> Vec<RowMajorMatrix<Val<Self::Domain>>> {
        Pcs::<Challenge, Challenger>::get_quotient_ldes(&self.inner, evaluations, num_chunks)
    }

    fn commit_ldes(&self, ldes: Vec<RowMajorMatrix<Val<Self::Domain>>>) -> (Self::Commitment, Self::ProverData) {
        Pcs::<Challenge, Challenger>::commit_ldes(&self.inner, ldes)
    }

    fn get_evaluations_on_domain<'a>(
        &self,
        prover_data: &'a Self::ProverData,
        idx: usize,
        domain: Self::Domain,
    ) -> Self::EvaluationsOnDomain<'a> {
        Pcs::<Challenge, Challenger>::get_evaluations_on_domain(&self.inner, prover_data, idx, domain)
    }

    fn open(
        &self,
        commitment_data_with_opening_points: Vec<(&Self::ProverData, Vec<Vec<Challenge>>)>,
        fiat_shamir_challenger: &mut Challenger,
    ) -> (OpenedValues<Challenge>, Self::Proof) {
        self.inner.open(commitment_data_with_opening_points, fiat_shamir_challenger)
    }

    #[cfg(feature = "plonky3-main")]
    fn build_periodic_lde_table(
        &self,
        periodic_cols: &[Vec<F>],
        trace_domain: Self::Domain,
        quotient_domain: Self::Domain,
    ) -> p3_commit::PeriodicLdeTable<F> {
        Pcs::<Challenge, Challenger>::build_periodic_lde_table(&self.inner, periodic_cols, trace_domain, quotient_domain)
    }

    #[allow(clippy::type_complexity)]
    fn verify(
        &self,
        commitments_with_opening_points: Vec<(
            Self::Commitment,
            Vec<(Self::Domain, Vec<(Challenge, Vec<Challenge>)>)>,
        )>,
        proof: &Self::Proof,
        fiat_shamir_challenger: &mut Challenger,
    ) -> Result<(), Self::Error> {
        self.inner.verify(commitments_with_opening_points, proof, fiat_shamir_challenger)
    }
}

impl<F, W, Inner, const DIGEST: usize, FriMmcs, Challenge, Challenger> crate::DeviceLde<Challenge, Challenger>
    for GpuPcs<F, W, Inner, DIGEST, FriMmcs>
where
    F: GpuField,
    W: DigestWord + PartialEq,
    Inner: StockMmcs<F, W, DIGEST>,
    [W; DIGEST]: Serialize + DeserializeOwned,
    Challenge: ExtensionField<F>,
    TwoAdicFriPcs<F, GpuDft<F>, GpuMmcs<F, W, Inner, DIGEST>, FriMmcs>: Pcs<
        Challenge,
        Challenger,
        Domain = TwoAdicMultiplicativeCoset<F>,
        Commitment = MerkleCap<F, [W; DIGEST]>,
        ProverData = GpuProverData<Inp<F>, Inner::ProverData<Inp<F>>>,
    >,
{
    fn device_lde<'a>(&self, data: &'a Self::ProverData) -> Result<&'a gpuprover::Buffer, String> {
        if self.stock_quotient {
            return Err("the configuration asks for the stock quotient (GpuPcs::stock_quotient)".into());
        }
        if !self.cpu_quotient && self.mmcs.context().backend() == gpuprover::Backend::Cpu {
            return Err("the context runs on the CPU backend, where Plonky3's packed quotient_values is faster".into());
        }
        match data {
            GpuProverData::Device { device, .. } if device.len() == 1 => Ok(&device[0]),
            _ => Err("the trace was not committed in one library call (its LDE is not on the device)".into()),
        }
    }

    fn context(&self) -> &gpuprover::Context {
        self.mmcs.context()
    }

    fn quotient_stats(&self) -> &QuotientStats {
        &self.quotient
    }
}
