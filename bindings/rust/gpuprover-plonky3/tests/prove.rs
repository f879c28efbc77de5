// SPDX-License-Identifier: MIT OR Apache-2.0
//! Real Plonky3 proofs through gpuprover: `p3-uni-stark` proves a Fibonacci
//! AIR (BabyBear, KoalaBear, Goldilocks; Poseidon2 and Keccak trees),
//! `p3-keccak-air` (Keccak-f traces) and `p3-poseidon2-air` (Poseidon2
//! permutations over each field) once with the stock configuration
//! (`Radix2DitParallel`, `MerkleTreeMmcs`) and once with `GpuDft` and
//! `GpuMmcs` in its place. The proofs must be byte-identical (serialized),
//! the stock verifier must accept the one made through gpuprover, and
//! reject it with a forged commitment, opened value or Merkle opening
//! (FRI's multi-openings with pruned paths on Plonky3 main).

mod common;

use common::{context, fibonacci, fri_params, keccak_inputs, keccak_u64, poseidon2_mmcs, random_states, round_constants, tamper, Fibonacci};
use gpuprover_plonky3::{GpuDft, GpuMmcs, GpuPcs};
use p3_baby_bear::{
    default_babybear_poseidon2_16, BabyBear, GenericPoseidon2LinearLayersBabyBear, Poseidon2BabyBear,
    BABYBEAR_POSEIDON2_HALF_FULL_ROUNDS, BABYBEAR_POSEIDON2_PARTIAL_ROUNDS_16, BABYBEAR_S_BOX_DEGREE,
};
use p3_challenger::{DuplexChallenger, HashChallenger, SerializingChallenger32, SerializingChallenger64};
use p3_commit::ExtensionMmcs;
use p3_dft::Radix2DitParallel;
use p3_field::extension::BinomialExtensionField;
use p3_fri::TwoAdicFriPcs;
use p3_goldilocks::{
    default_goldilocks_poseidon2_8, GenericPoseidon2LinearLayersGoldilocks, Goldilocks, Poseidon2Goldilocks,
    GOLDILOCKS_POSEIDON2_HALF_FULL_ROUNDS, GOLDILOCKS_POSEIDON2_PARTIAL_ROUNDS_8,
};
use p3_keccak::Keccak256Hash;
use p3_keccak_air::KeccakAir;
use p3_koala_bear::{
    default_koalabear_poseidon2_16, GenericPoseidon2LinearLayersKoalaBear, KoalaBear, Poseidon2KoalaBear,
    KOALABEAR_POSEIDON2_HALF_FULL_ROUNDS, KOALABEAR_POSEIDON2_PARTIAL_ROUNDS_16, KOALABEAR_S_BOX_DEGREE,
};
use p3_poseidon2_air::{generate_trace_rows, Poseidon2Air};
use p3_uni_stark::{prove, verify, Proof, StarkConfig, StarkGenericConfig};

/// Where `check_proofs` forges a proof (JSON paths): a commitment, an opened
/// value, the FRI commitments, an input batch's opened rows and Merkle
/// paths, and a FRI round's Merkle paths (per query on Plonky3 0.6.2,
/// shared by the queries on main).
const FORGED: &[&[&str]] = &[
    &["commitments", "trace"],
    &["commitments", "quotient_chunks"],
    &["opened_values", "trace_local"],
    &["opening_proof", "commit_phase_commits"],
    #[cfg(not(feature = "plonky3-main"))]
    &["opening_proof", "query_proofs", "0", "input_proof", "0", "opened_values"],
    #[cfg(not(feature = "plonky3-main"))]
    &["opening_proof", "query_proofs", "0", "input_proof", "0", "opening_proof"],
    #[cfg(not(feature = "plonky3-main"))]
    &["opening_proof", "query_proofs", "0", "commit_phase_openings", "0", "opening_proof"],
    #[cfg(feature = "plonky3-main")]
    &["opening_proof", "input_openings", "0", "opened_values"],
    #[cfg(feature = "plonky3-main")]
    &["opening_proof", "input_openings", "0", "opening_proof"],
    #[cfg(feature = "plonky3-main")]
    &["opening_proof", "commit_phase_openings", "0", "opening_proof"],
];

/// The proof as `SC` reads it (from another configuration's bytes).
fn read<SC: StarkGenericConfig>(_: &SC, json: &str) -> Proof<SC> {
    serde_json::from_str(json).expect("a proof of the stock configuration")
}

/// Proves `$air` on `$trace` with the stock configuration over the stock
/// `MerkleTreeMmcs` `$inner` and with gpuprover's, and checks the proofs.
macro_rules! check_proofs {
    ($val:ty, $chal:ty, $w:ty, $d:literal, $inner:expr, $challenger:expr, $air:expr, $trace:expr, $pis:expr) => {{
        type Val = $val;
        type Challenge = $chal;
        let (air, trace, pis) = ($air, $trace, $pis);
        let inner = $inner;
        let ctx = context();

        let stock_pcs = TwoAdicFriPcs::new(
            Radix2DitParallel::<Val>::default(),
            inner.clone(),
            fri_params(ExtensionMmcs::<Val, Challenge, _>::new(inner.clone()), 0),
        );
        let stock = StarkConfig::new(stock_pcs, $challenger);

        let mmcs = GpuMmcs::<Val, $w, _, $d>::on_device(inner.clone(), &ctx).expect("a library profile");
        let dft = GpuDft::<Val>::new(&ctx);
        let gpu_pcs = TwoAdicFriPcs::new(dft.clone(), mmcs.clone(), fri_params(ExtensionMmcs::<Val, Challenge, _>::new(mmcs.clone()), 0));
        let gpu = StarkConfig::new(gpu_pcs, $challenger);

        // The same with the PCS whose trace commitments are one call each.
        let one_call_pcs = GpuPcs::new(dft.clone(), mmcs.clone(), fri_params(ExtensionMmcs::<Val, Challenge, _>::new(mmcs.clone()), 0));
        let one_call = StarkConfig::new(one_call_pcs, $challenger);

        let p_stock = prove(&stock, &air, trace.clone(), &pis);
        let p_gpu = prove(&gpu, &air, trace.clone(), &pis);
        let p_one_call = prove(&one_call, &air, trace, &pis);
        let j_stock = serde_json::to_string(&p_stock).unwrap();
        let j_gpu = serde_json::to_string(&p_gpu).unwrap();
        assert!(j_stock == j_gpu, "the proofs differ ({} and {} bytes)", j_stock.len(), j_gpu.len());
        assert!(j_stock == serde_json::to_string(&p_one_call).unwrap(), "GpuPcs's proof differs");
        assert!(one_call.pcs().one_call_commits() >= 1, "GpuPcs committed no trace in one call");
        verify(&one_call, &air, &p_one_call, &pis).expect("GpuPcs's configuration verifies");

        // Everything was committed and transformed by the library.
        let st = mmcs.stats();
        assert!(st.device_commits >= 3 && st.host_commits == 0, "{st:?}");
        assert!(dft.device_calls() > 0 && dft.host_calls() == 0);

        verify(&gpu, &air, &p_gpu, &pis).expect("gpuprover's configuration verifies");
        verify(&stock, &air, &read(&stock, &j_gpu), &pis).expect("the stock verifier accepts the proof");
        for path in FORGED {
            let forged = read(&stock, &tamper(&j_gpu, path));
            assert!(verify(&stock, &air, &forged, &pis).is_err(), "a proof forged at {path:?} verifies");
        }
    }};
}

macro_rules! poseidon2_fibonacci {
    ($name:ident, $val:ty, $ext:literal, $perm:ty, $perm_fn:expr, $width:literal, $rate:literal, $d:literal, $log_n:expr) => {
        #[test]
        fn $name() {
            let perm = $perm_fn;
            for cap in [0usize, 2] {
                let inner = poseidon2_mmcs::<$val, $perm, $width, $rate, $d>(perm.clone(), cap);
                let (trace, pis) = fibonacci::<$val>($log_n);
                check_proofs!(
                    $val,
                    BinomialExtensionField<$val, $ext>,
                    $val,
                    $d,
                    inner,
                    DuplexChallenger::<$val, $perm, $width, $rate>::new(perm.clone()),
                    Fibonacci,
                    trace,
                    pis
                );
            }
        }
    };
}

poseidon2_fibonacci!(fibonacci_babybear_poseidon2, BabyBear, 4, Poseidon2BabyBear<16>, default_babybear_poseidon2_16(), 16, 8, 8, 10);
poseidon2_fibonacci!(fibonacci_koalabear_poseidon2, KoalaBear, 4, Poseidon2KoalaBear<16>, default_koalabear_poseidon2_16(), 16, 8, 8, 11);
poseidon2_fibonacci!(fibonacci_goldilocks_poseidon2, Goldilocks, 2, Poseidon2Goldilocks<8>, default_goldilocks_poseidon2_8(), 8, 4, 4, 10);

#[test]
fn fibonacci_goldilocks_keccak() {
    let (trace, pis) = fibonacci::<Goldilocks>(9);
    check_proofs!(
        Goldilocks,
        BinomialExtensionField<Goldilocks, 2>,
        u64,
        4,
        keccak_u64::<Goldilocks>(1),
        SerializingChallenger64::<Goldilocks, HashChallenger<u8, Keccak256Hash, 32>>::from_hasher(vec![], Keccak256Hash {}),
        Fibonacci,
        trace,
        pis
    );
}

#[test]
fn keccak_air_koalabear_keccak_tree() {
    let trace = p3_keccak_air::generate_trace_rows::<KoalaBear>(keccak_inputs(5), 2);
    check_proofs!(
        KoalaBear,
        BinomialExtensionField<KoalaBear, 4>,
        u64,
        4,
        keccak_u64::<KoalaBear>(3),
        SerializingChallenger32::<KoalaBear, HashChallenger<u8, Keccak256Hash, 32>>::from_hasher(vec![], Keccak256Hash {}),
        KeccakAir {},
        trace,
        Vec::<KoalaBear>::new()
    );
}

#[test]
fn keccak_air_babybear_poseidon2_tree() {
    type Perm = Poseidon2BabyBear<16>;
    let perm = default_babybear_poseidon2_16();
    let trace = p3_keccak_air::generate_trace_rows::<BabyBear>(keccak_inputs(3), 2);
    check_proofs!(
        BabyBear,
        BinomialExtensionField<BabyBear, 4>,
        BabyBear,
        8,
        poseidon2_mmcs::<BabyBear, Perm, 16, 8, 8>(perm.clone(), 0),
        DuplexChallenger::<BabyBear, Perm, 16, 8>::new(perm.clone()),
        KeccakAir {},
        trace,
        Vec::<BabyBear>::new()
    );
}

macro_rules! poseidon2_air {
    ($name:ident, $val:ty, $ext:literal, $layers:ty, $w:literal, $deg:expr, $regs:literal, $half:expr, $partial:expr,
     $perm:ty, $perm_fn:expr, $tw:literal, $rate:literal, $d:literal) => {
        #[test]
        fn $name() {
            let constants = round_constants::<$val, $w, $half, $partial>();
            let air = Poseidon2Air::<$val, $layers, $w, $deg, $regs, $half, $partial>::new(constants.clone());
            let inputs = random_states::<$val, $w>(64);
            let trace = generate_trace_rows::<$val, $layers, $w, $deg, $regs, $half, $partial>(inputs, &constants, 2);
            let perm = $perm_fn;
            check_proofs!(
                $val,
                BinomialExtensionField<$val, $ext>,
                $val,
                $d,
                poseidon2_mmcs::<$val, $perm, $tw, $rate, $d>(perm.clone(), 1),
                DuplexChallenger::<$val, $perm, $tw, $rate>::new(perm.clone()),
                air,
                trace,
                Vec::<$val>::new()
            );
        }
    };
}

poseidon2_air!(
    poseidon2_air_babybear, BabyBear, 4, GenericPoseidon2LinearLayersBabyBear, 16, BABYBEAR_S_BOX_DEGREE, 1,
    BABYBEAR_POSEIDON2_HALF_FULL_ROUNDS, BABYBEAR_POSEIDON2_PARTIAL_ROUNDS_16,
    Poseidon2BabyBear<16>, default_babybear_poseidon2_16(), 16, 8, 8
);
poseidon2_air!(
    poseidon2_air_koalabear, KoalaBear, 4, GenericPoseidon2LinearLayersKoalaBear, 16, KOALABEAR_S_BOX_DEGREE, 0,
    KOALABEAR_POSEIDON2_HALF_FULL_ROUNDS, KOALABEAR_POSEIDON2_PARTIAL_ROUNDS_16,
    Poseidon2KoalaBear<16>, default_koalabear_poseidon2_16(), 16, 8, 8
);
poseidon2_air!(
    poseidon2_air_goldilocks, Goldilocks, 2, GenericPoseidon2LinearLayersGoldilocks, 8, 7 /* x^7 */, 1,
    GOLDILOCKS_POSEIDON2_HALF_FULL_ROUNDS, GOLDILOCKS_POSEIDON2_PARTIAL_ROUNDS_8,
    Poseidon2Goldilocks<8>, default_goldilocks_poseidon2_8(), 8, 4, 4
);
