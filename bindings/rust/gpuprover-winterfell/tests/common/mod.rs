// SPDX-License-Identifier: MIT OR Apache-2.0
//! The tests' AIRs and provers (winterfell's examples crate does not build
//! offline): Fibonacci, a chain of Rp64_256 permutations (a Rescue AIR with
//! periodic round constants, degree 7: D = 7 composition columns, constraint
//! blowup C = 8), and Fibonacci with an auxiliary segment (a running
//! product and a running sum over the extension field). Each prover uses
//! winterfell's default trace LDE and constraint commitment, as a stock
//! prover does; the tests wrap them in `GpuProver`.
#![allow(dead_code)]

use std::marker::PhantomData;

use gpuprover::{Backend, Context};
use winterfell::crypto::hashers::Rp64_256;
use winterfell::crypto::{DefaultRandomCoin, ElementHasher, MerkleTree};
use winterfell::math::fields::f64::BaseElement;
use winterfell::math::{ExtensionOf, FieldElement, ToElements};
use winterfell::matrix::ColMatrix;
use winterfell::{
    Air, AirContext, Assertion, AuxRandElements, BatchingMethod, CompositionPoly, CompositionPolyTrace,
    ConstraintCompositionCoefficients, DefaultConstraintCommitment, DefaultConstraintEvaluator, DefaultTraceLde,
    EvaluationFrame, FieldExtension, PartitionOptions, Proof, ProofOptions, Prover, StarkDomain, Trace, TraceInfo,
    TracePolyTable, TraceTable, TransitionConstraintDegree,
};

pub type B = BaseElement;

/// How a proof made through GpuProver compares with the stock prover's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Same {
    /// `Proof::to_bytes()` equal.
    Bytes,
    /// Equal up to the grinding: the proof-of-work nonce differs, and with
    /// it the query positions, openings and FRI proof; the context, every
    /// commitment (trace segments, constraints, FRI layers) and the OOD
    /// frame are equal. Only with winterfell's `concurrent` feature: its
    /// nonce search is a rayon `find_any` over 1.., and at grinding factor 0
    /// every nonce qualifies, so the nonce is whichever a thread checks
    /// first (1 on one thread; often not on many).
    BeforeGrinding,
}

/// Compares `proof` with the stock prover's `expected` (see [`Same`]).
pub fn compare(proof: &Proof, expected: &Proof) -> Result<Same, String> {
    if proof.to_bytes() == expected.to_bytes() {
        return Ok(Same::Bytes);
    }
    if !cfg!(feature = "concurrent") || proof.pow_nonce == expected.pow_nonce {
        return Err(format!(
            "the proofs differ (nonces {} and {})",
            proof.pow_nonce, expected.pow_nonce
        ));
    }
    if proof.context != expected.context {
        return Err("the proof contexts differ".into());
    }
    if proof.commitments != expected.commitments {
        return Err("the commitments differ".into());
    }
    if proof.ood_frame != expected.ood_frame {
        return Err("the OOD frames differ".into());
    }
    Ok(Same::BeforeGrinding)
}

/// The context the tests run on: `GP_TEST_BACKEND=cuda` asks for CUDA (the
/// device runs), `cpu` for the CPU backend, anything else the best backend
/// present.
pub fn context() -> Context {
    match std::env::var("GP_TEST_BACKEND").as_deref() {
        Ok("cuda") => Context::with_backend(Backend::Cuda).expect("a CUDA context"),
        Ok("cpu") => Context::with_backend(Backend::Cpu).expect("a CPU context"),
        _ => Context::new().expect("a context"),
    }
}

/// A xorshift generator: fixed inputs without `rand`.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn element(&mut self) -> B {
        B::new(self.next())
    }
    pub fn elements<E: FieldElement<BaseField = B>>(&mut self, n: usize) -> Vec<E> {
        let base: Vec<B> = (0..n * E::EXTENSION_DEGREE).map(|_| self.element()).collect();
        E::slice_from_base_elements(&base).to_vec()
    }
}

/// Proof options with grinding 0 (the concurrent nonce search is
/// nondeterministic): `queries` queries, `blowup`, folding 4, remainder
/// degree 7.
pub fn options(queries: usize, blowup: usize, extension: FieldExtension) -> ProofOptions {
    ProofOptions::new(
        queries,
        blowup,
        0,
        extension,
        4,
        7,
        BatchingMethod::Linear,
        BatchingMethod::Linear,
    )
}

/// The parts of a stock prover that only depend on its AIR, trace and
/// hasher: winterfell's default trace LDE, constraint evaluator and
/// constraint commitment.
macro_rules! stock_parts {
    ($air:ty) => {
        type TraceLde<E: FieldElement<BaseField = B>> = DefaultTraceLde<E, H, MerkleTree<H>>;
        type ConstraintEvaluator<'a, E: FieldElement<BaseField = B>> = DefaultConstraintEvaluator<'a, $air, E>;
        type ConstraintCommitment<E: FieldElement<BaseField = B>> = DefaultConstraintCommitment<E, H, MerkleTree<H>>;

        fn options(&self) -> &ProofOptions {
            &self.options
        }

        fn new_trace_lde<E: FieldElement<BaseField = B>>(
            &self,
            trace_info: &TraceInfo,
            main_trace: &ColMatrix<B>,
            domain: &StarkDomain<B>,
            partition_options: PartitionOptions,
        ) -> (Self::TraceLde<E>, TracePolyTable<E>) {
            DefaultTraceLde::new(trace_info, main_trace, domain, partition_options)
        }

        fn new_evaluator<'a, E: FieldElement<BaseField = B>>(
            &self,
            air: &'a $air,
            aux_rand_elements: Option<AuxRandElements<E>>,
            composition_coefficients: ConstraintCompositionCoefficients<E>,
        ) -> Self::ConstraintEvaluator<'a, E> {
            DefaultConstraintEvaluator::new(air, aux_rand_elements, composition_coefficients)
        }

        fn build_constraint_commitment<E: FieldElement<BaseField = B>>(
            &self,
            composition_poly_trace: CompositionPolyTrace<E>,
            num_constraint_composition_columns: usize,
            domain: &StarkDomain<B>,
            partition_options: PartitionOptions,
        ) -> (Self::ConstraintCommitment<E>, CompositionPoly<E>) {
            DefaultConstraintCommitment::new(
                composition_poly_trace,
                num_constraint_composition_columns,
                domain,
                partition_options,
            )
        }
    };
}

// FIBONACCI
// ================================================================================================

/// Two columns: each step adds one into the other; the result is column 1
/// at the last step.
pub struct FibAir {
    context: AirContext<B>,
    result: B,
}

/// The two-column Fibonacci step (FibAir's main trace and AuxAir's).
fn fib_transition<E: FieldElement<BaseField = B>>(frame: &EvaluationFrame<E>, result: &mut [E]) {
    let (c, n) = (frame.current(), frame.next());
    result[0] = n[0] - (c[0] + c[1]);
    result[1] = n[1] - (c[1] + n[0]);
}

/// Both columns start at 1; the last row's second column is the result.
fn fib_assertions(trace_length: usize, result: B) -> Vec<Assertion<B>> {
    vec![
        Assertion::single(0, 0, B::ONE),
        Assertion::single(1, 0, B::ONE),
        Assertion::single(1, trace_length - 1, result),
    ]
}

impl Air for FibAir {
    type BaseField = B;
    type PublicInputs = B;

    fn new(trace_info: TraceInfo, result: B, options: ProofOptions) -> Self {
        let degrees = vec![TransitionConstraintDegree::new(1); 2];
        FibAir {
            context: AirContext::new(trace_info, degrees, 3, options),
            result,
        }
    }

    fn context(&self) -> &AirContext<B> {
        &self.context
    }

    fn evaluate_transition<E: FieldElement<BaseField = B>>(
        &self,
        frame: &EvaluationFrame<E>,
        _: &[E],
        result: &mut [E],
    ) {
        fib_transition(frame, result);
    }

    fn get_assertions(&self) -> Vec<Assertion<B>> {
        fib_assertions(self.trace_length(), self.result)
    }
}

/// The Fibonacci trace of `n` rows.
pub fn fib_trace(n: usize) -> TraceTable<B> {
    let mut t = TraceTable::new(2, n);
    t.fill(
        |s| {
            s[0] = B::ONE;
            s[1] = B::ONE;
        },
        |_, s| {
            s[0] += s[1];
            s[1] += s[0];
        },
    );
    t
}

pub struct FibProver<H> {
    pub options: ProofOptions,
    _h: PhantomData<H>,
}

impl<H> FibProver<H> {
    pub fn new(options: ProofOptions) -> Self {
        FibProver {
            options,
            _h: PhantomData,
        }
    }
}

impl<H: ElementHasher<BaseField = B> + Sync> Prover for FibProver<H> {
    type BaseField = B;
    type Air = FibAir;
    type Trace = TraceTable<B>;
    type HashFn = H;
    type VC = MerkleTree<H>;
    type RandomCoin = DefaultRandomCoin<H>;
    stock_parts!(FibAir);

    fn get_pub_inputs(&self, trace: &Self::Trace) -> B {
        trace.get(1, trace.length() - 1)
    }
}

// RESCUE: A CHAIN OF Rp64_256 PERMUTATIONS
// ================================================================================================

/// Steps per permutation: 7 rounds and a step that keeps the state.
pub const CYCLE: usize = 8;
const WIDTH: usize = 12;

#[derive(Clone)]
pub struct RescueInputs {
    pub seed: [B; WIDTH],
    pub result: [B; 4],
}

impl ToElements<B> for RescueInputs {
    fn to_elements(&self) -> Vec<B> {
        let mut v = self.seed.to_vec();
        v.extend_from_slice(&self.result);
        v
    }
}

/// Twelve columns holding the Rp64_256 state: steps 0..6 of every cycle of
/// 8 apply round i (`Rp64_256::apply_round`), step 7 keeps the state. The
/// round is checked as MDS(x^7) + ARK1 = (MDS^-1(x' - ARK2))^7, with the
/// round flag and constants as periodic columns: degree 7 with one cycle,
/// so the constraint blowup is 8 and the composition has 7 columns.
pub struct RescueAir {
    context: AirContext<B>,
    inputs: RescueInputs,
}

impl Air for RescueAir {
    type BaseField = B;
    type PublicInputs = RescueInputs;

    fn new(trace_info: TraceInfo, inputs: RescueInputs, options: ProofOptions) -> Self {
        let degrees = vec![TransitionConstraintDegree::with_cycles(7, vec![CYCLE]); WIDTH];
        RescueAir {
            context: AirContext::new(trace_info, degrees, WIDTH + 4, options),
            inputs,
        }
    }

    fn context(&self) -> &AirContext<B> {
        &self.context
    }

    fn evaluate_transition<E: FieldElement<BaseField = B>>(
        &self,
        frame: &EvaluationFrame<E>,
        periodic: &[E],
        result: &mut [E],
    ) {
        let (cur, next) = (frame.current(), frame.next());
        let flag = periodic[0];
        let (ark1, ark2) = (&periodic[1..1 + WIDTH], &periodic[1 + WIDTH..1 + 2 * WIDTH]);
        let sbox: Vec<E> = cur.iter().map(|x| x.exp(7u64.into())).collect();
        let minus: Vec<E> = next.iter().zip(ark2).map(|(&x, &k)| x - k).collect();
        for i in 0..WIDTH {
            let mut forward = ark1[i];
            let mut backward = E::ZERO;
            for j in 0..WIDTH {
                forward += E::from(Rp64_256::MDS[i][j]) * sbox[j];
                backward += E::from(Rp64_256::INV_MDS[i][j]) * minus[j];
            }
            result[i] = flag * (forward - backward.exp(7u64.into())) + (E::ONE - flag) * (next[i] - cur[i]);
        }
    }

    fn get_assertions(&self) -> Vec<Assertion<B>> {
        let last = self.trace_length() - 1;
        let mut a: Vec<_> = (0..WIDTH)
            .map(|i| Assertion::single(i, 0, self.inputs.seed[i]))
            .collect();
        a.extend((0..4).map(|i| Assertion::single(4 + i, last, self.inputs.result[i])));
        a
    }

    fn get_periodic_column_values(&self) -> Vec<Vec<B>> {
        let mut flag = vec![B::ONE; CYCLE];
        flag[CYCLE - 1] = B::ZERO;
        let mut columns = vec![flag];
        for ark in [&Rp64_256::ARK1, &Rp64_256::ARK2] {
            for i in 0..WIDTH {
                let mut c: Vec<B> = ark.iter().map(|round| round[i]).collect();
                c.push(B::ZERO);
                columns.push(c);
            }
        }
        columns
    }
}

/// The chain of `n / 8` permutations from a fixed seed.
pub fn rescue_trace(n: usize) -> TraceTable<B> {
    let mut rng = Rng(0x5eed_0f7e_5c0e);
    let seed: Vec<B> = (0..WIDTH).map(|_| rng.element()).collect();
    let mut t = TraceTable::new(WIDTH, n);
    t.fill(
        |s| s.copy_from_slice(&seed),
        |step, s| {
            if step % CYCLE < CYCLE - 1 {
                let mut state: [B; WIDTH] = s.try_into().unwrap();
                Rp64_256::apply_round(&mut state, step % CYCLE);
                s.copy_from_slice(&state);
            }
        },
    );
    t
}

pub struct RescueProver<H> {
    pub options: ProofOptions,
    _h: PhantomData<H>,
}

impl<H> RescueProver<H> {
    pub fn new(options: ProofOptions) -> Self {
        RescueProver {
            options,
            _h: PhantomData,
        }
    }
}

impl<H: ElementHasher<BaseField = B> + Sync> Prover for RescueProver<H> {
    type BaseField = B;
    type Air = RescueAir;
    type Trace = TraceTable<B>;
    type HashFn = H;
    type VC = MerkleTree<H>;
    type RandomCoin = DefaultRandomCoin<H>;
    stock_parts!(RescueAir);

    fn get_pub_inputs(&self, trace: &Self::Trace) -> RescueInputs {
        let last = trace.length() - 1;
        RescueInputs {
            seed: std::array::from_fn(|i| trace.get(i, 0)),
            result: std::array::from_fn(|i| trace.get(4 + i, last)),
        }
    }
}

// AUXILIARY SEGMENT
// ================================================================================================

/// Fibonacci's two columns (a, b) and an auxiliary segment of two columns
/// over the extension: a running product z' = z (alpha + a) (degree 2)
/// and a running sum s' = s + beta b, from z = 1 and s = 0.
pub struct AuxAir {
    context: AirContext<B>,
    result: B,
}

impl Air for AuxAir {
    type BaseField = B;
    type PublicInputs = B;

    fn new(trace_info: TraceInfo, result: B, options: ProofOptions) -> Self {
        let main = vec![TransitionConstraintDegree::new(1); 2];
        let aux = vec![TransitionConstraintDegree::new(2), TransitionConstraintDegree::new(1)];
        AuxAir {
            context: AirContext::new_multi_segment(trace_info, main, aux, 3, 2, options),
            result,
        }
    }

    fn context(&self) -> &AirContext<B> {
        &self.context
    }

    fn evaluate_transition<E: FieldElement<BaseField = B>>(
        &self,
        frame: &EvaluationFrame<E>,
        _: &[E],
        result: &mut [E],
    ) {
        fib_transition(frame, result);
    }

    fn get_assertions(&self) -> Vec<Assertion<B>> {
        fib_assertions(self.trace_length(), self.result)
    }

    fn evaluate_aux_transition<F, E>(
        &self,
        main: &EvaluationFrame<F>,
        aux: &EvaluationFrame<E>,
        _: &[F],
        rand: &AuxRandElements<E>,
        result: &mut [E],
    ) where
        F: FieldElement<BaseField = B>,
        E: FieldElement<BaseField = B> + ExtensionOf<F>,
    {
        let (alpha, beta) = (rand.rand_elements()[0], rand.rand_elements()[1]);
        let m = main.current();
        let (c, n) = (aux.current(), aux.next());
        result[0] = n[0] - c[0] * (alpha + E::from(m[0]));
        result[1] = n[1] - (c[1] + beta * E::from(m[1]));
    }

    fn get_aux_assertions<E: FieldElement<BaseField = B>>(&self, _: &AuxRandElements<E>) -> Vec<Assertion<E>> {
        vec![Assertion::single(0, 0, E::ONE), Assertion::single(1, 0, E::ZERO)]
    }
}

/// Fibonacci's main segment with an auxiliary segment of 2 columns drawn
/// from 2 random elements.
pub struct AuxTrace {
    info: TraceInfo,
    main: ColMatrix<B>,
}

impl AuxTrace {
    pub fn new(n: usize) -> Self {
        let fib = fib_trace(n);
        let main = ColMatrix::new(vec![fib.get_column(0).to_vec(), fib.get_column(1).to_vec()]);
        AuxTrace {
            info: TraceInfo::new_multi_segment(2, 2, 2, n, vec![]),
            main,
        }
    }
}

impl Trace for AuxTrace {
    type BaseField = B;

    fn info(&self) -> &TraceInfo {
        &self.info
    }

    fn main_segment(&self) -> &ColMatrix<B> {
        &self.main
    }

    fn read_main_frame(&self, row: usize, frame: &mut EvaluationFrame<B>) {
        let next = (row + 1) % self.main.num_rows();
        self.main.read_row_into(row, frame.current_mut());
        self.main.read_row_into(next, frame.next_mut());
    }
}

pub struct AuxProver<H> {
    pub options: ProofOptions,
    _h: PhantomData<H>,
}

impl<H> AuxProver<H> {
    pub fn new(options: ProofOptions) -> Self {
        AuxProver {
            options,
            _h: PhantomData,
        }
    }
}

impl<H: ElementHasher<BaseField = B> + Sync> Prover for AuxProver<H> {
    type BaseField = B;
    type Air = AuxAir;
    type Trace = AuxTrace;
    type HashFn = H;
    type VC = MerkleTree<H>;
    type RandomCoin = DefaultRandomCoin<H>;
    stock_parts!(AuxAir);

    fn get_pub_inputs(&self, trace: &Self::Trace) -> B {
        trace.main.get(1, trace.main.num_rows() - 1)
    }

    fn build_aux_trace<E: FieldElement<BaseField = B>>(
        &self,
        trace: &AuxTrace,
        rand: &AuxRandElements<E>,
    ) -> ColMatrix<E> {
        let (alpha, beta) = (rand.rand_elements()[0], rand.rand_elements()[1]);
        let n = trace.main.num_rows();
        let (mut z, mut s) = (vec![E::ONE; n], vec![E::ZERO; n]);
        for i in 0..n - 1 {
            z[i + 1] = z[i] * (alpha + E::from(trace.main.get(0, i)));
            s[i + 1] = s[i] + beta * E::from(trace.main.get(1, i));
        }
        ColMatrix::new(vec![z, s])
    }
}
