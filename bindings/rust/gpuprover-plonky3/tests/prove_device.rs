// SPDX-License-Identifier: MIT OR Apache-2.0
//! `gpuprover_plonky3::prove` (the quotient on the device from the AIR's
//! symbolic constraints) against `p3_uni_stark::prove`: the proofs must be
//! byte-identical, the stock verifier must accept them, every quotient must
//! have come from the library, and a forged proof must be rejected. AIRs:
//! Fibonacci with public values, keccak-air, poseidon2-air (degree-7 and
//! degree-3 S-boxes: several quotient chunks) and an AIR with preprocessed
//! and periodic columns and a degree-3 constraint; BabyBear, KoalaBear and
//! Goldilocks; Poseidon2 and Keccak trees; Plonky3 0.6.2 and main.

mod common;

use common::{context, fibonacci, fri_params, keccak_inputs, keccak_u64, poseidon2_mmcs, random_states, round_constants, tamper, Fibonacci};
use gpuprover_plonky3::{GpuDft, GpuMmcs, GpuPcs};
use p3_air::{Air, AirBuilder, BaseAir, WindowAccess};
use p3_baby_bear::{default_babybear_poseidon2_16, BabyBear, Poseidon2BabyBear};
use p3_challenger::{DuplexChallenger, HashChallenger, SerializingChallenger32, SerializingChallenger64};
use p3_commit::ExtensionMmcs;
use p3_dft::Radix2DitParallel;
use p3_field::extension::BinomialExtensionField;
use p3_field::PrimeField64;
use p3_fri::TwoAdicFriPcs;
use p3_goldilocks::{default_goldilocks_poseidon2_8, Goldilocks, Poseidon2Goldilocks};
use p3_keccak::Keccak256Hash;
use p3_keccak_air::KeccakAir;
use p3_koala_bear::{default_koalabear_poseidon2_16, KoalaBear, Poseidon2KoalaBear};
use p3_matrix::dense::RowMajorMatrix;
use p3_uni_stark::{setup_preprocessed, verify_with_preprocessed, Proof, StarkConfig, StarkGenericConfig};

/// One main column x, one preprocessed column s and one periodic column p
/// (period 4): x_0 = 1, x_{i+1} = x_i s_i + p_i on every transition, the
/// same times s (degree 3), and s_i^2 = s_i (s is 0 or 1).
struct Mixed {
    log_n: usize,
    /// Adds s^6 = s (degree 6: eight quotient chunks, more than a blowup of
    /// 4 holds).
    high_degree: bool,
}
const PERIOD: [u64; 4] = [3, 1, 4, 1];
fn mixed_s<F: PrimeField64>(i: usize) -> F {
    F::from_u64(((i * 7 + 3) % 5 < 3) as u64)
}
impl<F: PrimeField64> BaseAir<F> for Mixed {
    fn width(&self) -> usize {
        1
    }
    fn preprocessed_width(&self) -> usize {
        1
    }
    fn preprocessed_trace(&self) -> Option<RowMajorMatrix<F>> {
        Some(RowMajorMatrix::new((0..1 << self.log_n).map(mixed_s::<F>).collect(), 1))
    }
    fn num_periodic_columns(&self) -> usize {
        1
    }
    #[cfg(not(feature = "plonky3-main"))]
    fn periodic_columns(&self) -> Vec<Vec<F>> {
        vec![PERIOD.iter().map(|&v| F::from_u64(v)).collect()]
    }
    #[cfg(feature = "plonky3-main")]
    fn periodic_columns(&self) -> std::borrow::Cow<'_, [Vec<F>]> {
        std::borrow::Cow::Owned(vec![PERIOD.iter().map(|&v| F::from_u64(v)).collect()])
    }
}
impl<AB: AirBuilder> Air<AB> for Mixed
where
    AB::F: PrimeField64,
{
    fn eval(&self, builder: &mut AB) {
        let main = builder.main();
        let (x, nx) = (main.current_slice()[0], main.next_slice()[0]);
        let pre = builder.preprocessed();
        let s = pre.current_slice()[0];
        let p = builder.periodic_values()[0];
        let step: AB::Expr = nx.into() - x.into() * s.into() - p.into();
        builder.when_first_row().assert_one(x);
        builder.when_transition().assert_zero(step.clone());
        builder.when_transition().assert_zero(step * s.into());
        builder.assert_bool(s);
        if self.high_degree {
            let s: AB::Expr = s.into();
            builder.assert_zero(s.clone() * s.clone() * s.clone() * s.clone() * s.clone() * s.clone() - s);
        }
    }
}
fn mixed_trace<F: PrimeField64>(log_n: usize) -> RowMajorMatrix<F> {
    let mut v = vec![F::ONE];
    for i in 0..(1 << log_n) - 1 {
        let x = v[i];
        v.push(x * mixed_s::<F>(i) + F::from_u64(PERIOD[i % 4]));
    }
    RowMajorMatrix::new(v, 1)
}

fn read<SC: StarkGenericConfig>(_: &SC, json: &str) -> Proof<SC> {
    serde_json::from_str(json).expect("a proof of the stock configuration")
}

/// Proves with the stock configuration and with GpuPcs through
/// `gpuprover_plonky3::prove_with_preprocessed`, and checks the proofs.
macro_rules! check_device_prove {
    ($val:ty, $chal:ty, $w:ty, $d:literal, $inner:expr, $challenger:expr, $air:expr, $trace:expr, $pis:expr, $pow:expr) => {
        check_device_prove!($val, $chal, $w, $d, $inner, $challenger, $air, $trace, $pis, $pow, true)
    };
    ($val:ty, $chal:ty, $w:ty, $d:literal, $inner:expr, $challenger:expr, $air:expr, $trace:expr, $pis:expr, $pow:expr, $on_device:expr) => {{
        type Val = $val;
        type Challenge = $chal;
        let (air, trace, pis) = ($air, $trace, $pis);
        let inner = $inner;
        let ctx = context();
        let stock_pcs = TwoAdicFriPcs::new(
            Radix2DitParallel::<Val>::default(),
            inner.clone(),
            fri_params(ExtensionMmcs::<Val, Challenge, _>::new(inner.clone()), $pow),
        );
        let stock = StarkConfig::new(stock_pcs, $challenger);
        let mmcs = GpuMmcs::<Val, $w, _, $d>::on_device(inner.clone(), &ctx).expect("a library profile");
        let gpu_pcs =
            GpuPcs::new(GpuDft::<Val>::new(&ctx), mmcs.clone(), fri_params(ExtensionMmcs::<Val, Challenge, _>::new(mmcs.clone()), $pow))
                .quotient_on_cpu_backend(true);
        let gpu = StarkConfig::new(gpu_pcs, $challenger);
        let log_n = p3_matrix::Matrix::height(&trace).trailing_zeros() as usize;
        let stock_pre = setup_preprocessed(&stock, &air, log_n);
        let gpu_pre = setup_preprocessed(&gpu, &air, log_n);
        let p_stock =
            p3_uni_stark::prove_with_preprocessed(&stock, &air, trace.clone(), &pis, stock_pre.as_ref().map(|p| &p.0));
        let p_gpu =
            gpuprover_plonky3::prove_with_preprocessed(&gpu, &air, trace, &pis, gpu_pre.as_ref().map(|p| &p.0));
        let st = gpu.pcs().quotient_stats();
        if $on_device {
            assert!(st.device() == 1 && st.host() == 0, "quotient on the host: {:?}", st.last_fallback());
        } else {
            assert!(st.device() == 0 && st.host() == 1, "the quotient did not fall back");
            assert!(st.last_fallback().is_some_and(|r| r.contains("larger blowup")), "{:?}", st.last_fallback());
        }
        let j_stock = serde_json::to_string(&p_stock).unwrap();
        let j_gpu = serde_json::to_string(&p_gpu).unwrap();
        assert!(j_stock == j_gpu, "the proofs differ ({} and {} bytes)", j_stock.len(), j_gpu.len());
        let vk = stock_pre.as_ref().map(|p| &p.1);
        // (A quotient of more chunks than the blowup is a configuration
        // Plonky3's own verifier rejects; such proofs are only compared.)
        if $on_device {
        verify_with_preprocessed(&stock, &air, &read(&stock, &j_gpu), &pis, vk).expect("the stock verifier accepts it");
        for path in [&["commitments", "quotient_chunks"][..], &["opened_values", "quotient_chunks"][..]] {
            let forged = read(&stock, &tamper(&j_gpu, path));
            assert!(verify_with_preprocessed(&stock, &air, &forged, &pis, vk).is_err(), "forged at {path:?} verifies");
        }
        }
    }};
}

#[test]
fn fibonacci_public_values_babybear_poseidon2() {
    let perm = default_babybear_poseidon2_16();
    let (trace, pis) = fibonacci::<BabyBear>(10);
    check_device_prove!(
        BabyBear, BinomialExtensionField<BabyBear, 4>, BabyBear, 8,
        poseidon2_mmcs::<BabyBear, Poseidon2BabyBear<16>, 16, 8, 8>(perm.clone(), 0),
        DuplexChallenger::<BabyBear, Poseidon2BabyBear<16>, 16, 8>::new(perm.clone()),
        Fibonacci, trace, pis, 0
    );
}

#[test]
fn fibonacci_babybear_quintic_and_octic_challenges() {
    // Degrees no library buffer takes: the quotient comes as D base columns.
    let perm = default_babybear_poseidon2_16();
    let (trace, pis) = fibonacci::<BabyBear>(8);
    check_device_prove!(
        BabyBear, BinomialExtensionField<BabyBear, 5>, BabyBear, 8,
        poseidon2_mmcs::<BabyBear, Poseidon2BabyBear<16>, 16, 8, 8>(perm.clone(), 0),
        DuplexChallenger::<BabyBear, Poseidon2BabyBear<16>, 16, 8>::new(perm.clone()),
        Fibonacci, trace, pis, 0
    );
    let perm = default_koalabear_poseidon2_16();
    check_device_prove!(
        KoalaBear, BinomialExtensionField<KoalaBear, 8>, KoalaBear, 8,
        poseidon2_mmcs::<KoalaBear, Poseidon2KoalaBear<16>, 16, 8, 8>(perm.clone(), 0),
        DuplexChallenger::<KoalaBear, Poseidon2KoalaBear<16>, 16, 8>::new(perm.clone()),
        Mixed { log_n: 7, high_degree: false }, mixed_trace::<KoalaBear>(7), Vec::<KoalaBear>::new(), 0
    );
}

#[test]
fn fibonacci_goldilocks_keccak_with_grinding() {
    // Grinding on: the stock prover (one thread without the `parallel`
    // feature) finds the least witness, and so does the library's run.
    let (trace, pis) = fibonacci::<Goldilocks>(9);
    check_device_prove!(
        Goldilocks, BinomialExtensionField<Goldilocks, 2>, u64, 4,
        keccak_u64::<Goldilocks>(1),
        SerializingChallenger64::<Goldilocks, HashChallenger<u8, Keccak256Hash, 32>>::from_hasher(vec![], Keccak256Hash {}),
        Fibonacci, trace, pis, 4
    );
}

#[test]
fn mixed_preprocessed_periodic_degree3_all_fields() {
    let perm = default_koalabear_poseidon2_16();
    check_device_prove!(
        KoalaBear, BinomialExtensionField<KoalaBear, 4>, KoalaBear, 8,
        poseidon2_mmcs::<KoalaBear, Poseidon2KoalaBear<16>, 16, 8, 8>(perm.clone(), 1),
        DuplexChallenger::<KoalaBear, Poseidon2KoalaBear<16>, 16, 8>::new(perm.clone()),
        Mixed { log_n: 8, high_degree: false }, mixed_trace::<KoalaBear>(8), Vec::<KoalaBear>::new(), 0
    );
    let perm = default_goldilocks_poseidon2_8();
    check_device_prove!(
        Goldilocks, BinomialExtensionField<Goldilocks, 2>, Goldilocks, 4,
        poseidon2_mmcs::<Goldilocks, Poseidon2Goldilocks<8>, 8, 4, 4>(perm.clone(), 0),
        DuplexChallenger::<Goldilocks, Poseidon2Goldilocks<8>, 8, 4>::new(perm.clone()),
        Mixed { log_n: 7, high_degree: false }, mixed_trace::<Goldilocks>(7), Vec::<Goldilocks>::new(), 0
    );
    check_device_prove!(
        BabyBear, BinomialExtensionField<BabyBear, 4>, u64, 4,
        keccak_u64::<BabyBear>(0),
        SerializingChallenger32::<BabyBear, HashChallenger<u8, Keccak256Hash, 32>>::from_hasher(vec![], Keccak256Hash {}),
        Mixed { log_n: 9, high_degree: false }, mixed_trace::<BabyBear>(9), Vec::<BabyBear>::new(), 0
    );
}

/// A constraint of degree 6 needs a quotient domain larger than the
/// committed LDE: the quotient falls back to Plonky3, counted with the
/// reason, and the proof is the same bytes (which Plonky3's verifier
/// rejects for either prover: more quotient chunks than the blowup).
#[test]
fn quotient_larger_than_the_lde_falls_back() {
    let perm = default_babybear_poseidon2_16();
    check_device_prove!(
        BabyBear, BinomialExtensionField<BabyBear, 4>, BabyBear, 8,
        poseidon2_mmcs::<BabyBear, Poseidon2BabyBear<16>, 16, 8, 8>(perm.clone(), 0),
        DuplexChallenger::<BabyBear, Poseidon2BabyBear<16>, 16, 8>::new(perm.clone()),
        Mixed { log_n: 6, high_degree: true }, mixed_trace::<BabyBear>(6), Vec::<BabyBear>::new(), 0, false
    );
}

#[test]
fn keccak_air_koalabear_keccak_tree() {
    let trace = p3_keccak_air::generate_trace_rows::<KoalaBear>(keccak_inputs(5), 2);
    check_device_prove!(
        KoalaBear, BinomialExtensionField<KoalaBear, 4>, u64, 4,
        keccak_u64::<KoalaBear>(3),
        SerializingChallenger32::<KoalaBear, HashChallenger<u8, Keccak256Hash, 32>>::from_hasher(vec![], Keccak256Hash {}),
        KeccakAir {}, trace, Vec::<KoalaBear>::new(), 0
    );
}

/// Poseidon2 permutations over KoalaBear (degree-3 S-box) and Goldilocks
/// (degree-7 S-box through one register: several quotient chunks).
#[test]
fn poseidon2_air_koalabear_and_goldilocks() {
    use p3_goldilocks::{GenericPoseidon2LinearLayersGoldilocks, GOLDILOCKS_POSEIDON2_HALF_FULL_ROUNDS, GOLDILOCKS_POSEIDON2_PARTIAL_ROUNDS_8};
    use p3_koala_bear::{
        GenericPoseidon2LinearLayersKoalaBear, KOALABEAR_POSEIDON2_HALF_FULL_ROUNDS, KOALABEAR_POSEIDON2_PARTIAL_ROUNDS_16,
        KOALABEAR_S_BOX_DEGREE,
    };
    use p3_poseidon2_air::{generate_trace_rows, Poseidon2Air};
    {
        type L = GenericPoseidon2LinearLayersKoalaBear;
        const H: usize = KOALABEAR_POSEIDON2_HALF_FULL_ROUNDS;
        const P: usize = KOALABEAR_POSEIDON2_PARTIAL_ROUNDS_16;
        let c = round_constants::<KoalaBear, 16, H, P>();
        let air = Poseidon2Air::<KoalaBear, L, 16, KOALABEAR_S_BOX_DEGREE, 0, H, P>::new(c.clone());
        let trace = generate_trace_rows::<KoalaBear, L, 16, KOALABEAR_S_BOX_DEGREE, 0, H, P>(random_states(64), &c, 2);
        let perm = default_koalabear_poseidon2_16();
        check_device_prove!(
            KoalaBear, BinomialExtensionField<KoalaBear, 4>, KoalaBear, 8,
            poseidon2_mmcs::<KoalaBear, Poseidon2KoalaBear<16>, 16, 8, 8>(perm.clone(), 1),
            DuplexChallenger::<KoalaBear, Poseidon2KoalaBear<16>, 16, 8>::new(perm.clone()),
            air, trace, Vec::<KoalaBear>::new(), 0
        );
    }
    {
        type L = GenericPoseidon2LinearLayersGoldilocks;
        const H: usize = GOLDILOCKS_POSEIDON2_HALF_FULL_ROUNDS;
        const P: usize = GOLDILOCKS_POSEIDON2_PARTIAL_ROUNDS_8;
        let c = round_constants::<Goldilocks, 8, H, P>();
        let air = Poseidon2Air::<Goldilocks, L, 8, 7, 1, H, P>::new(c.clone());
        let trace = generate_trace_rows::<Goldilocks, L, 8, 7, 1, H, P>(random_states(32), &c, 2);
        let perm = default_goldilocks_poseidon2_8();
        check_device_prove!(
            Goldilocks, BinomialExtensionField<Goldilocks, 2>, Goldilocks, 4,
            poseidon2_mmcs::<Goldilocks, Poseidon2Goldilocks<8>, 8, 4, 4>(perm.clone(), 0),
            DuplexChallenger::<Goldilocks, Poseidon2Goldilocks<8>, 8, 4>::new(perm.clone()),
            air, trace, Vec::<Goldilocks>::new(), 0
        );
    }
}

/// Without `quotient_on_cpu_backend`, a CPU-backend context leaves the
/// quotient to Plonky3 (faster there), counted with its reason; the proof
/// is the same.
#[test]
fn cpu_backend_quotient_falls_back_counted() {
    let ctx = context();
    if ctx.backend() != gpuprover::Backend::Cpu {
        return;
    }
    type Val = BabyBear;
    type Challenge = BinomialExtensionField<BabyBear, 4>;
    let perm = default_babybear_poseidon2_16();
    let inner = poseidon2_mmcs::<BabyBear, Poseidon2BabyBear<16>, 16, 8, 8>(perm.clone(), 0);
    let mmcs = GpuMmcs::<Val, Val, _, 8>::on_device(inner.clone(), &ctx).expect("a library profile");
    let pcs = GpuPcs::new(GpuDft::<Val>::new(&ctx), mmcs.clone(), fri_params(ExtensionMmcs::<Val, Challenge, _>::new(mmcs), 0));
    let config = StarkConfig::new(pcs, DuplexChallenger::<Val, Poseidon2BabyBear<16>, 16, 8>::new(perm.clone()));
    let stock_pcs = TwoAdicFriPcs::new(
        Radix2DitParallel::<Val>::default(),
        inner.clone(),
        fri_params(ExtensionMmcs::<Val, Challenge, _>::new(inner), 0),
    );
    let stock = StarkConfig::new(stock_pcs, DuplexChallenger::<Val, Poseidon2BabyBear<16>, 16, 8>::new(perm));
    let (trace, pis) = fibonacci::<Val>(8);
    let a = gpuprover_plonky3::prove(&config, &Fibonacci, trace.clone(), &pis);
    let b = p3_uni_stark::prove(&stock, &Fibonacci, trace, &pis);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let st = config.pcs().quotient_stats();
    assert_eq!((st.device(), st.host()), (0, 1));
    assert!(st.last_fallback().unwrap().contains("CPU"), "{:?}", st.last_fallback());
}
