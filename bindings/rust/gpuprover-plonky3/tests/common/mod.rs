// SPDX-License-Identifier: MIT OR Apache-2.0
//! Configurations of the tests: the stock Plonky3 types and their
//! gpuprover counterparts, for each field and hash.
#![allow(dead_code)]

use gpuprover::{Backend, Context};
use gpuprover_plonky3::GpuField;
use p3_field::Field;
use p3_keccak::{Keccak256Hash, KeccakF, VECTOR_LEN};
use p3_matrix::dense::RowMajorMatrix;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_symmetric::{CompressionFunctionFromHasher, PaddingFreeSponge, SerializingHasher, TruncatedPermutation};

pub type Packed<F> = <F as Field>::Packing;

/// `MerkleTreeMmcs` over a Poseidon2 `PaddingFreeSponge` (permutation
/// `Sponge` of width `W`, rate `R`) with `TruncatedPermutation` nodes
/// (permutation `Node` of width `NW`), binary, digests of `D` elements.
pub type Poseidon2Mmcs<F, Sponge, Node, const W: usize, const R: usize, const D: usize, const NW: usize> =
    MerkleTreeMmcs<Packed<F>, Packed<F>, PaddingFreeSponge<Sponge, W, R, D>, TruncatedPermutation<Node, 2, D, NW>, 2, D>;

/// `Poseidon2Mmcs` of one permutation `Perm` (the usual configuration).
pub fn poseidon2_mmcs<F: Field, Perm: Clone, const W: usize, const R: usize, const D: usize>(
    perm: Perm,
    cap: usize,
) -> Poseidon2Mmcs<F, Perm, Perm, W, R, D, W> {
    MerkleTreeMmcs::new(PaddingFreeSponge::new(perm.clone()), TruncatedPermutation::new(perm), cap)
}

pub type U64Hash = PaddingFreeSponge<KeccakF, 25, 17, 4>;
/// Plonky3's fast Keccak MMCS: the Keccak-f sponge over u64 lanes.
pub type KeccakU64Mmcs<F> =
    MerkleTreeMmcs<[F; VECTOR_LEN], [u64; VECTOR_LEN], SerializingHasher<U64Hash>, CompressionFunctionFromHasher<U64Hash, 2, 4>, 2, 4>;
/// Keccak-256 over the rows' bytes.
pub type Keccak256Mmcs<F> =
    MerkleTreeMmcs<F, u8, SerializingHasher<Keccak256Hash>, CompressionFunctionFromHasher<Keccak256Hash, 2, 32>, 2, 32>;

pub fn keccak_u64<F>(cap: usize) -> KeccakU64Mmcs<F> {
    let h = U64Hash::new(KeccakF {});
    KeccakU64Mmcs::new(SerializingHasher::new(h), CompressionFunctionFromHasher::new(h), cap)
}

pub fn keccak256<F>(cap: usize) -> Keccak256Mmcs<F> {
    Keccak256Mmcs::new(SerializingHasher::new(Keccak256Hash {}), CompressionFunctionFromHasher::new(Keccak256Hash {}), cap)
}

/// A matrix of `h` rows and `w` columns of values drawn from `rng`.
pub fn random_matrix<F: GpuField>(rng: &mut Rng, h: usize, w: usize) -> RowMajorMatrix<F> {
    RowMajorMatrix::new((0..h * w).map(|_| F::from_u64(rng.below(F::ORDER_U64))).collect(), w)
}

/// The context the tests run on: `GP_TEST_BACKEND=cuda` asks for CUDA (the
/// device runs), anything else the best backend present.
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
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Changes the first number under `path` (object keys and array indices)
/// of a JSON document, keeping it a small valid value: what a forged
/// commitment or opening looks like to a verifier.
pub fn tamper(json: &str, path: &[&str]) -> String {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("proof JSON");
    let mut at = &mut v;
    for key in path {
        at = match key.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[*key],
        };
    }
    assert!(bump_first_number(at), "no number under {path:?}");
    serde_json::to_string(&v).unwrap()
}

fn bump_first_number(v: &mut serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => {
            let x = n.as_u64().expect("an unsigned number");
            *v = serde_json::Value::from(if x > 0 { x - 1 } else { 1 });
            true
        }
        serde_json::Value::Array(a) => a.iter_mut().any(bump_first_number),
        serde_json::Value::Object(o) => o.values_mut().any(bump_first_number),
        _ => false,
    }
}

/// Two columns (x, y): the first row is the public values 0 and 1, each
/// next row is (y, x + y), and the last row's y is public value 2.
pub struct Fibonacci;

impl<F> p3_air::BaseAir<F> for Fibonacci {
    fn width(&self) -> usize {
        2
    }
    fn num_public_values(&self) -> usize {
        3
    }
    fn max_constraint_degree(&self) -> Option<usize> {
        Some(2)
    }
}

impl<AB: p3_air::AirBuilder> p3_air::Air<AB> for Fibonacci {
    fn eval(&self, builder: &mut AB) {
        use p3_air::{AirBuilder, WindowAccess};
        let main = builder.main();
        let pv = builder.public_values();
        let (first_x, first_y, last_y) = (pv[0], pv[1], pv[2]);
        let (x, y) = (main.current_slice()[0], main.current_slice()[1]);
        let (nx, ny) = (main.next_slice()[0], main.next_slice()[1]);
        builder.when_first_row().assert_eq(x, first_x);
        builder.when_first_row().assert_eq(y, first_y);
        builder.when_transition().assert_eq(nx, y);
        builder.when_transition().assert_eq(ny, x + y);
        builder.when_last_row().assert_eq(y, last_y);
    }
}

/// The trace of `Fibonacci` over 2^log_n rows and its public values.
pub fn fibonacci<F: p3_field::PrimeField64>(log_n: usize) -> (RowMajorMatrix<F>, Vec<F>) {
    let n = 1 << log_n;
    let (mut x, mut y) = (F::ZERO, F::ONE);
    let mut v = Vec::with_capacity(2 * n);
    for _ in 0..n {
        v.extend([x, y]);
        (x, y) = (y, x + y);
    }
    let last = v[2 * n - 1];
    (RowMajorMatrix::new(v, 2), vec![F::ZERO, F::ONE, last])
}

/// Round constants for `Poseidon2Air` drawn from a fixed sequence (the AIR
/// proves permutations with whatever constants it is given).
pub fn round_constants<F: p3_field::PrimeField64, const W: usize, const HALF: usize, const PARTIAL: usize>(
) -> p3_poseidon2_air::RoundConstants<F, W, HALF, PARTIAL> {
    let mut r = Rng(0xc0ffee);
    let mut e = || F::from_u64(r.below(F::ORDER_U64));
    let full = |e: &mut dyn FnMut() -> F| -> [[F; W]; HALF] { core::array::from_fn(|_| core::array::from_fn(|_| e())) };
    let begin = full(&mut e);
    let partial = core::array::from_fn(|_| e());
    let end = full(&mut e);
    p3_poseidon2_air::RoundConstants::new(begin, partial, end)
}

/// `n` permutation inputs of a fixed sequence.
pub fn random_states<F: p3_field::PrimeField64, const W: usize>(n: usize) -> Vec<[F; W]> {
    let mut r = Rng(0xfeed);
    (0..n).map(|_| core::array::from_fn(|_| F::from_u64(r.below(F::ORDER_U64)))).collect()
}

/// Keccak-f inputs of a fixed pseudo-random sequence.
pub fn keccak_inputs(n: usize) -> Vec<[u64; 25]> {
    let mut r = Rng(0x5eed);
    (0..n).map(|_| core::array::from_fn(|_| r.next())).collect()
}

/// The tests' FRI parameters (blowup 4, 12 queries) with `pow_bits` of
/// grinding in both phases. Grinding is off where proofs are compared
/// under rayon (the `parallel` feature: the witness is whichever thread
/// finds one first, and two runs of the same prover may differ in it).
pub fn fri_params<M>(mmcs: M, pow_bits: usize) -> p3_fri::FriParameters<M> {
    p3_fri::FriParameters {
        log_blowup: 2,
        log_final_poly_len: 2,
        max_log_arity: 2,
        num_queries: 12,
        commit_proof_of_work_bits: pow_bits,
        query_proof_of_work_bits: pow_bits,
        mmcs,
    }
}
