// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`prove`] and [`prove_with_preprocessed`]: `p3_uni_stark`'s prover with
//! the quotient evaluated on the device from the trace LDE that
//! [`GpuPcs`](crate::GpuPcs) keeps there.
//!
//! The steps, the transcript and the proof are `p3_uni_stark`'s (Plonky3
//! 0.6.2): the same commitments, challenges and openings in the same order,
//! so the proof is byte-identical to `p3_uni_stark::prove`'s and
//! `p3_uni_stark::verify` accepts it. Only the quotient's values come from
//! the library: the AIR's symbolic constraints compiled into a constraint
//! program ([`compile_air`](crate::compile_air)), evaluated over the quotient
//! domain by `gp_quotient_evaluate`. Where the library cannot (a
//! zero-knowledge configuration, a trace committed on the host, an AIR with
//! constraints over the extension, a challenge degree it lacks), Plonky3's
//! `quotient_values` computes them, counted in
//! [`QuotientStats`](crate::QuotientStats) with the reason.

use gpuprover::{Buffer, Context};
use p3_air::symbolic::{AirLayout, SymbolicAirBuilder};
use p3_air::Air;
use p3_challenger::{CanObserve, FieldChallenger};
use p3_commit::{Pcs, PolynomialSpace};
use p3_field::{BasedVectorSpace, ExtensionField, Field, PrimeCharacteristicRing};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
#[cfg(not(feature = "plonky3-main"))]
use p3_uni_stark::ProverConstraintFolder;
use p3_uni_stark::{
    get_log_num_quotient_chunks, quotient_values, Commitments, Domain, OpenedValues, PreprocessedProverData, Proof,
    StarkGenericConfig, Val,
};

use crate::quotient::{compile_air, DeviceQuotient, QuotientStats};
use crate::GpuField;

/// What an AIR implements to be proven: `p3_uni_stark`'s own bounds (its
/// `QuotientAir` on Plonky3 main).
#[cfg(not(feature = "plonky3-main"))]
pub trait StarkAir<SC: StarkGenericConfig>:
    Air<SymbolicAirBuilder<Val<SC>>> + for<'a> Air<ProverConstraintFolder<'a, SC>>
{
}
#[cfg(not(feature = "plonky3-main"))]
impl<SC: StarkGenericConfig, A> StarkAir<SC> for A where
    A: Air<SymbolicAirBuilder<Val<SC>>> + for<'a> Air<ProverConstraintFolder<'a, SC>>
{
}
#[cfg(feature = "plonky3-main")]
pub use p3_uni_stark::QuotientAir as StarkAir;

/// A PCS whose commitments may leave their LDE on a library device: what
/// [`prove`] needs to evaluate the quotient there.
pub trait DeviceLde<Challenge, Challenger>: Pcs<Challenge, Challenger>
where
    Challenge: ExtensionField<p3_commit::Val<Self::Domain>>,
{
    /// The device copy of the LDE of the one matrix committed in `data`
    /// (rows bit-reversed on the commitment coset), or why the quotient
    /// should not be evaluated from it.
    fn device_lde<'a>(&self, data: &'a Self::ProverData) -> Result<&'a Buffer, String>;
    /// The library context holding it.
    fn context(&self) -> &Context;
    /// Where the quotients were computed.
    fn quotient_stats(&self) -> &QuotientStats;
}

/// `p3_uni_stark::prove` with the quotient on the device (see the module).
pub fn prove<SC, A>(config: &SC, air: &A, trace: RowMajorMatrix<Val<SC>>, public_values: &[Val<SC>]) -> Proof<SC>
where
    SC: StarkGenericConfig,
    Val<SC>: GpuField,
    SC::Pcs: DeviceLde<SC::Challenge, SC::Challenger>,
    A: StarkAir<SC>,
{
    prove_with_preprocessed::<SC, A>(config, air, trace, public_values, None)
}

/// `p3_uni_stark::prove_with_preprocessed` with the quotient on the device.
pub fn prove_with_preprocessed<SC, A>(
    config: &SC,
    air: &A,
    trace: RowMajorMatrix<Val<SC>>,
    public_values: &[Val<SC>],
    preprocessed: Option<&PreprocessedProverData<SC>>,
) -> Proof<SC>
where
    SC: StarkGenericConfig,
    Val<SC>: GpuField,
    SC::Pcs: DeviceLde<SC::Challenge, SC::Challenger>,
    A: StarkAir<SC>,
{
    let degree = trace.height();
    assert!(degree.is_power_of_two(), "the trace height {degree} is not a power of two");
    let log_degree = degree.trailing_zeros() as usize;
    let is_zk = config.is_zk();
    let log_ext_degree = log_degree + is_zk;
    let preprocessed_width = match preprocessed {
        None => {
            let width = air.preprocessed_width();
            assert!(
                width == 0,
                "AIR defines preprocessed columns (width = {width}), but no PreprocessedProverData was provided"
            );
            0
        }
        Some(pp) => {
            assert_eq!(pp.degree_bits, log_ext_degree, "PreprocessedProverData degree_bits does not match the trace");
            pp.width
        }
    };
    let layout = AirLayout {
        preprocessed_width,
        main_width: air.width(),
        num_public_values: air.num_public_values(),
        num_periodic_columns: air.num_periodic_columns(),
        ..Default::default()
    };
    #[cfg(not(feature = "plonky3-main"))]
    let log_num_quotient_chunks = get_log_num_quotient_chunks::<Val<SC>, A>(air, layout, is_zk);
    #[cfg(feature = "plonky3-main")]
    let log_num_quotient_chunks = get_log_num_quotient_chunks::<Val<SC>, A>(air, layout, degree, is_zk);
    let num_quotient_chunks = 1 << (log_num_quotient_chunks + is_zk);

    let pcs = config.pcs();
    let mut challenger = config.initialise_challenger();
    let trace_domain = pcs.natural_domain_for_degree(degree);
    let ext_trace_domain = pcs.natural_domain_for_degree(degree * (is_zk + 1));
    let (trace_commit, trace_data) = pcs.commit([(ext_trace_domain, trace)]);
    let (preprocessed_commit, preprocessed_data) =
        preprocessed.map(|pp| (pp.commitment.clone(), &pp.prover_data)).unzip();

    challenger.observe(Val::<SC>::from_u8(log_ext_degree as u8));
    challenger.observe(Val::<SC>::from_u8(log_degree as u8));
    challenger.observe(Val::<SC>::from_usize(preprocessed_width));
    challenger.observe(trace_commit.clone());
    if preprocessed_width > 0 {
        challenger.observe(preprocessed_commit.as_ref().expect("preprocessed commitment").clone());
    }
    challenger.observe_slice(public_values);
    let alpha: SC::Challenge = challenger.sample_algebra_element();

    let quotient_domain = ext_trace_domain.create_disjoint_domain(1 << (log_ext_degree + log_num_quotient_chunks));
    let stats = pcs.quotient_stats();
    let started = std::time::Instant::now();
    let device = if is_zk != 0 {
        Err("zero-knowledge configurations randomize the trace".to_string())
    } else {
        device_quotient::<SC, A>(
            pcs,
            air,
            layout,
            public_values,
            trace_domain,
            quotient_domain,
            &trace_data,
            preprocessed_data,
            &alpha,
        )
    };
    let quotient_flat = match device {
        Ok(m) => {
            stats.count_device();
            m
        }
        Err(why) => {
            stats.count_host(why);
            let on_domain = pcs.get_evaluations_on_domain(&trace_data, 0, quotient_domain);
            let pre_on_domain =
                preprocessed_data.map(|data| pcs.get_evaluations_on_domain_no_random(data, 0, quotient_domain));
            let values = quotient_values::<SC, A, _>(
                pcs,
                air,
                public_values,
                layout,
                trace_domain,
                quotient_domain,
                &on_domain,
                pre_on_domain.as_ref(),
                alpha,
            );
            RowMajorMatrix::new_col(values).flatten_to_base()
        }
    };
    stats.add_nanos(started.elapsed().as_nanos() as u64);

    let (quotient_commit, quotient_data) = pcs.commit_quotient(quotient_domain, quotient_flat, num_quotient_chunks);
    challenger.observe(quotient_commit.clone());
    let (random_commit, random_data) = if SC::Pcs::ZK {
        let (c, d) = pcs
            .get_opt_randomization_poly_commitment(core::iter::once(ext_trace_domain))
            .expect("ZK is enabled, so there is a randomization commitment");
        (Some(c), Some(d))
    } else {
        (None, None)
    };
    let commitments = Commitments { trace: trace_commit, quotient_chunks: quotient_commit, random: random_commit.clone() };
    if let Some(c) = random_commit {
        challenger.observe(c);
    }

    let zeta: SC::Challenge = challenger.sample_algebra_element();
    let zeta_next = trace_domain.next_point(zeta).expect("the domain has a next point");
    let is_random = random_data.is_some();
    let main_next = !air.main_next_row_columns().is_empty();
    let pre_next = !air.preprocessed_next_row_columns().is_empty();
    let (opened_values, opening_proof) = {
        let round0 = random_data.as_ref().map(|d| (d, vec![vec![zeta]]));
        let round1 = (&trace_data, vec![if main_next { vec![zeta, zeta_next] } else { vec![zeta] }]);
        let round2 = (&quotient_data, vec![vec![zeta]; num_quotient_chunks]);
        let round3 =
            preprocessed_data.map(|d| (d, vec![if pre_next { vec![zeta, zeta_next] } else { vec![zeta] }]));
        let rounds = round0.into_iter().chain([round1, round2]).chain(round3).collect();
        pcs.open_with_preprocessing(rounds, &mut challenger, preprocessed_data.is_some())
    };
    let trace_idx = SC::Pcs::TRACE_IDX;
    let quotient_idx = SC::Pcs::QUOTIENT_IDX;
    let trace_local = opened_values[trace_idx][0][0].clone();
    let trace_next = main_next.then(|| opened_values[trace_idx][0][1].clone());
    let quotient_chunks = opened_values[quotient_idx].iter().map(|v| v[0].clone()).collect();
    let random = is_random.then(|| opened_values[0][0][0].clone());
    let (preprocessed_local, preprocessed_next) = if preprocessed_width > 0 {
        let pre = &opened_values[SC::Pcs::PREPROCESSED_TRACE_IDX][0];
        (Some(pre[0].clone()), pre_next.then(|| pre[1].clone()))
    } else {
        (None, None)
    };
    Proof {
        commitments,
        opened_values: OpenedValues {
            trace_local,
            trace_next,
            preprocessed_local,
            preprocessed_next,
            quotient_chunks,
            random,
        },
        opening_proof,
        degree_bits: log_ext_degree,
    }
}

/// The flattened quotient from the library, or why not.
#[allow(clippy::too_many_arguments)]
fn device_quotient<SC, A>(
    pcs: &SC::Pcs,
    air: &A,
    layout: AirLayout,
    public_values: &[Val<SC>],
    trace_domain: Domain<SC>,
    quotient_domain: Domain<SC>,
    trace_data: &<SC::Pcs as Pcs<SC::Challenge, SC::Challenger>>::ProverData,
    preprocessed_data: Option<&<SC::Pcs as Pcs<SC::Challenge, SC::Challenger>>::ProverData>,
    alpha: &SC::Challenge,
) -> Result<RowMajorMatrix<Val<SC>>, String>
where
    SC: StarkGenericConfig,
    Val<SC>: GpuField,
    SC::Pcs: DeviceLde<SC::Challenge, SC::Challenger>,
    A: Air<SymbolicAirBuilder<Val<SC>>>,
{
    let main = pcs.device_lde(trace_data)?;
    let preprocessed = match preprocessed_data {
        Some(d) => Some(pcs.device_lde(d).map_err(|why| format!("preprocessed trace: {why}"))?),
        None => None,
    };
    if trace_domain.first_point() != Val::<SC>::ONE || quotient_domain.first_point() != Val::<SC>::GENERATOR {
        return Err("the trace domain is not the subgroup or the quotient coset is not the generator's".into());
    }
    let q = quotient_domain.size();
    for (b, what) in [(Some(main), "trace"), (preprocessed, "preprocessed trace")] {
        if let Some(b) = b {
            if b.rows() < q {
                return Err(format!(
                    "the quotient domain ({q} rows) is larger than the committed {what} LDE ({} rows): \
                     the constraint degree needs a larger blowup, and Plonky3 extends the trace again on the host",
                    b.rows()
                ));
            }
        }
    }
    let alpha = alpha.as_basis_coefficients_slice();
    let program = compile_air::<Val<SC>, A>(air, layout, alpha.len() as u32)?;
    let periodic_cols = air.periodic_columns();
    let (mut periodic, mut periodic_rows) = (Vec::new(), 0);
    if !periodic_cols.is_empty() {
        let table = pcs.build_periodic_lde_table(&periodic_cols, trace_domain, quotient_domain);
        periodic_rows = table.height();
        for i in 0..periodic_rows {
            periodic.extend((0..table.width()).map(|c| *table.get(i, c)));
        }
    }
    let log2 = |n: usize| n.trailing_zeros();
    DeviceQuotient {
        ctx: pcs.context(),
        program: &program,
        main,
        preprocessed,
        log_trace_rows: log2(trace_domain.size()),
        log_quotient_rows: log2(quotient_domain.size()),
        shift: quotient_domain.first_point(),
        periodic,
        periodic_rows,
        public_values,
        alpha,
    }
    .run()
    .map_err(|e| e.to_string())
}
