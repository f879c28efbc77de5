// SPDX-License-Identifier: MIT OR Apache-2.0
//! End-to-end proving time of Plonky3's keccak-air (`p3-uni-stark`) with the
//! stock configuration and with gpuprover in it, and where the time goes.
//!
//! ```text
//! cargo run --release --features parallel --example prove_keccak -- LOG_ROWS [MODE] [REPEATS]
//! ```
//!
//! MODE is `both` (the default: every configuration) or a comma-separated
//! list of `stock` (the stock DFT and MMCS), `gpu` (`GpuDft` and `GpuMmcs`
//! in `TwoAdicFriPcs`, phases timed), `pcs` (`GpuPcs`, the stock quotient,
//! its `quotient_values` timed) and `quot` (`GpuPcs` with
//! `gpuprover_plonky3::prove`: the quotient on the library, timed).
//!
//! KoalaBear, degree-4 challenges, Poseidon2 `MerkleTreeMmcs` (width 16,
//! Plonky3's default constants), `FriParameters::new_benchmark` (blowup 2,
//! 100 queries) without grinding (with rayon the witness is whichever thread
//! finds one first, and the proofs could not be compared byte for byte), a trace of 2^LOG_ROWS rows of
//! Keccak-f rounds (24 rows per permutation). For each configuration it
//! prints the total and the time inside the DFT (the trace and quotient
//! LDEs), the input trees (trace, quotient), the FRI trees and the openings;
//! the rest (constraint evaluation of the quotient, FRI folding, grinding,
//! the DEEP reduction of the openings) runs on the host in either case. The
//! two proofs must be byte-identical; it exits 1 if they differ.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use gpuprover_plonky3::{GpuDft, GpuMmcs, GpuPcs};
use p3_challenger::{CanObserve, DuplexChallenger};
use p3_commit::{BatchOpening, BatchOpeningRef, ExtensionMmcs, Mmcs};
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::extension::BinomialExtensionField;
use p3_field::Field;
use p3_fri::{FriParameters, TwoAdicFriPcs};
use p3_keccak_air::{generate_trace_rows, KeccakAir, NUM_ROUNDS};
use p3_koala_bear::{default_koalabear_poseidon2_16, KoalaBear, Poseidon2KoalaBear};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::{Dimensions, Matrix};
use p3_merkle_tree::MerkleTreeMmcs;
use p3_symmetric::{PaddingFreeSponge, TruncatedPermutation};
use p3_uni_stark::{prove, verify, StarkConfig};
use p3_uni_stark::StarkGenericConfig;

type Val = KoalaBear;
type Challenge = BinomialExtensionField<Val, 4>;
type Perm = Poseidon2KoalaBear<16>;
type StockMmcs = MerkleTreeMmcs<
    <Val as Field>::Packing,
    <Val as Field>::Packing,
    PaddingFreeSponge<Perm, 16, 8, 8>,
    TruncatedPermutation<Perm, 2, 8, 16>,
    2,
    8,
>;

/// Nanoseconds spent in the wrapped DFT or MMCS, by phase.
#[derive(Default)]
struct Clock {
    dft: AtomicU64,
    commit: AtomicU64,
    open: AtomicU64,
}

fn timed<T>(at: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    at.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    r
}

/// A DFT or MMCS with the time spent in it counted.
#[derive(Clone)]
struct Timed<T> {
    inner: T,
    clock: Arc<Clock>,
}

impl<T: Default> Default for Timed<T> {
    fn default() -> Self {
        Timed { inner: T::default(), clock: Arc::default() }
    }
}

impl<D: TwoAdicSubgroupDft<Val>> TwoAdicSubgroupDft<Val> for Timed<D> {
    type Evaluations = D::Evaluations;
    fn dft_batch(&self, mat: RowMajorMatrix<Val>) -> Self::Evaluations {
        timed(&self.clock.dft, || self.inner.dft_batch(mat))
    }
    fn coset_lde_batch(&self, mat: RowMajorMatrix<Val>, added_bits: usize, shift: Val) -> Self::Evaluations {
        timed(&self.clock.dft, || self.inner.coset_lde_batch(mat, added_bits, shift))
    }
    fn idft_batch(&self, mat: RowMajorMatrix<Val>) -> RowMajorMatrix<Val> {
        timed(&self.clock.dft, || self.inner.idft_batch(mat))
    }
    fn coset_idft_batch(&self, mat: RowMajorMatrix<Val>, shift: Val) -> RowMajorMatrix<Val> {
        timed(&self.clock.dft, || self.inner.coset_idft_batch(mat, shift))
    }
    fn coset_dft_batch(&self, mat: RowMajorMatrix<Val>, shift: Val) -> Self::Evaluations {
        timed(&self.clock.dft, || self.inner.coset_dft_batch(mat, shift))
    }
}

impl<M: Mmcs<Val>> Mmcs<Val> for Timed<M> {
    type ProverData<X> = M::ProverData<X>;
    type Commitment = M::Commitment;
    type Proof = M::Proof;
    #[cfg(feature = "plonky3-main")]
    type MultiProof = M::MultiProof;
    type Error = M::Error;
    fn commit<X: Matrix<Val>>(&self, inputs: Vec<X>) -> (Self::Commitment, Self::ProverData<X>) {
        timed(&self.clock.commit, || self.inner.commit(inputs))
    }
    fn open_batch<X: Matrix<Val>>(&self, index: usize, data: &Self::ProverData<X>) -> BatchOpening<Val, Self> {
        let (v, p) = timed(&self.clock.open, || self.inner.open_batch(index, data)).unpack();
        BatchOpening::new(v, p)
    }
    #[cfg(feature = "plonky3-main")]
    fn open_multi_batch<X: Matrix<Val>>(
        &self,
        indices: &[usize],
        data: &Self::ProverData<X>,
    ) -> (Vec<Vec<Vec<Val>>>, Self::MultiProof) {
        timed(&self.clock.open, || self.inner.open_multi_batch(indices, data))
    }
    #[cfg(feature = "plonky3-main")]
    fn verify_multi_batch<R: AsRef<[Val]> + PartialEq>(
        &self,
        commit: &Self::Commitment,
        dims: &[Dimensions],
        indices: &[usize],
        values: &[Vec<R>],
        proof: &Self::MultiProof,
    ) -> Result<(), Self::Error> {
        self.inner.verify_multi_batch(commit, dims, indices, values, proof)
    }
    fn get_matrices<'a, X: Matrix<Val>>(&self, data: &'a Self::ProverData<X>) -> Vec<&'a X> {
        self.inner.get_matrices(data)
    }
    fn verify_batch(
        &self,
        commit: &Self::Commitment,
        dims: &[Dimensions],
        index: usize,
        opening: BatchOpeningRef<'_, Val, Self>,
    ) -> Result<(), Self::Error> {
        let (v, p) = opening.unpack();
        self.inner.verify_batch(commit, dims, index, BatchOpeningRef::new(v, p))
    }
}

/// An MMCS whose proofs the prover hands between threads.
#[cfg(not(feature = "plonky3-main"))]
trait SyncMmcs: Mmcs<Val, Proof: Send + Sync, Error: Send + Sync> + Send + Sync {}
#[cfg(not(feature = "plonky3-main"))]
impl<M: Mmcs<Val, Proof: Send + Sync, Error: Send + Sync> + Send + Sync> SyncMmcs for M {}
#[cfg(feature = "plonky3-main")]
trait SyncMmcs: Mmcs<Val, Proof: Send + Sync, MultiProof: Send + Sync, Error: Send + Sync> + Send + Sync {}
#[cfg(feature = "plonky3-main")]
impl<M: Mmcs<Val, Proof: Send + Sync, MultiProof: Send + Sync, Error: Send + Sync> + Send + Sync> SyncMmcs for M {}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Proves with `dft` and `mmcs` (and `mmcs` under the FRI trees), prints
/// the phases, returns the serialized proof.
fn run<D, M>(name: &str, dft: D, mmcs: M, trace: &RowMajorMatrix<Val>, repeats: usize) -> String
where
    D: TwoAdicSubgroupDft<Val>,
    M: SyncMmcs,
    M::ProverData<RowMajorMatrix<Val>>: Send + Sync,
    DuplexChallenger<Val, Perm, 16, 8>: CanObserve<M::Commitment>,
{
    let perm = default_koalabear_poseidon2_16();
    let (input_clock, fri_clock, dft_clock) = (Arc::new(Clock::default()), Arc::new(Clock::default()), Arc::new(Clock::default()));
    let input = Timed { inner: mmcs.clone(), clock: input_clock.clone() };
    let fri_mmcs = ExtensionMmcs::<Val, Challenge, _>::new(Timed { inner: mmcs, clock: fri_clock.clone() });
    let pcs = TwoAdicFriPcs::new(Timed { inner: dft, clock: dft_clock.clone() }, input, FriParameters { query_proof_of_work_bits: 0, ..FriParameters::new_benchmark(fri_mmcs) });
    let config = StarkConfig::new(pcs, DuplexChallenger::<Val, Perm, 16, 8>::new(perm));
    let mut json = String::new();
    for rep in 0..repeats {
        for c in [&input_clock, &fri_clock, &dft_clock] {
            c.dft.store(0, Ordering::Relaxed);
            c.commit.store(0, Ordering::Relaxed);
            c.open.store(0, Ordering::Relaxed);
        }
        let t = Instant::now();
        let proof = prove(&config, &KeccakAir {}, trace.clone(), &[]);
        let total = t.elapsed().as_nanos() as u64;
        let lde = dft_clock.dft.load(Ordering::Relaxed);
        let trees = input_clock.commit.load(Ordering::Relaxed);
        let fri = fri_clock.commit.load(Ordering::Relaxed);
        let open = input_clock.open.load(Ordering::Relaxed) + fri_clock.open.load(Ordering::Relaxed);
        println!(
            "{name:5} run {rep}: total {:9.1} ms | LDE {:8.1} | trace+quotient trees {:8.1} | FRI trees {:7.1} | openings {:6.1} | rest (quotient, FRI folding, DEEP, grinding) {:8.1}",
            ms(total), ms(lde), ms(trees), ms(fri), ms(open), ms(total.saturating_sub(lde + trees + fri + open))
        );
        verify(&config, &KeccakAir {}, &proof, &[]).expect("the proof verifies");
        json = serde_json::to_string(&proof).unwrap();
    }
    json
}

/// The benchmark configuration over `GpuPcs` (the quotient on the library
/// whatever its backend, so that a CPU run measures it too).
#[allow(clippy::type_complexity)]
fn gpu_pcs_config(
    dft: GpuDft<Val>,
    mmcs: GpuMmcs<Val, Val, StockMmcs, 8>,
    stock_quotient: bool,
) -> StarkConfig<
    GpuPcs<Val, Val, StockMmcs, 8, ExtensionMmcs<Val, Challenge, GpuMmcs<Val, Val, StockMmcs, 8>>>,
    Challenge,
    DuplexChallenger<Val, Perm, 16, 8>,
> {
    let fri_mmcs = ExtensionMmcs::<Val, Challenge, _>::new(mmcs.clone());
    let pcs = GpuPcs::new(dft, mmcs, FriParameters { query_proof_of_work_bits: 0, ..FriParameters::new_benchmark(fri_mmcs) });
    StarkConfig::new(pcs.quotient_on_cpu_backend(true).stock_quotient(stock_quotient), DuplexChallenger::<Val, Perm, 16, 8>::new(default_koalabear_poseidon2_16()))
}

/// Proves with `GpuPcs` (each trace commitment one library call) and the
/// stock quotient; prints
/// the total, returns the serialized proof.
fn run_one_call(
    dft: GpuDft<Val>,
    mmcs: GpuMmcs<Val, Val, StockMmcs, 8>,
    trace: &RowMajorMatrix<Val>,
    repeats: usize,
) -> String {
    // gpuprover_plonky3::prove with the stock quotient: p3_uni_stark's
    // proof, with the quotient_values time measured on its own.
    let config = gpu_pcs_config(dft, mmcs, true);
    let mut json = String::new();
    for rep in 0..repeats {
        let before = config.pcs().quotient_stats().nanos();
        let t = Instant::now();
        let proof = gpuprover_plonky3::prove(&config, &KeccakAir {}, trace.clone(), &[]);
        println!(
            "pcs   run {rep}: total {:9.1} ms | stock quotient_values {:8.1} ms (GpuPcs: trace commitments in one call)",
            t.elapsed().as_secs_f64() * 1e3,
            ms(config.pcs().quotient_stats().nanos() - before)
        );
        verify(&config, &KeccakAir {}, &proof, &[]).expect("the proof verifies");
        json = serde_json::to_string(&proof).unwrap();
    }
    json
}

/// GpuPcs with `gpuprover_plonky3::prove`: the quotient on the device too.
fn run_device_quotient(
    dft: GpuDft<Val>,
    mmcs: GpuMmcs<Val, Val, StockMmcs, 8>,
    trace: &RowMajorMatrix<Val>,
    repeats: usize,
) -> String {
    let config = gpu_pcs_config(dft, mmcs, false);
    {
        let layout = p3_air::symbolic::AirLayout { main_width: p3_air::BaseAir::<Val>::width(&KeccakAir {}), ..Default::default() };
        let t = Instant::now();
        let program = gpuprover_plonky3::compile_air::<Val, _>(&KeccakAir {}, layout, 4).expect("keccak-air compiles");
        let info = program.info().expect("program info");
        println!(
            "keccak-air as a constraint program: compiled in {:.1} ms; {} nodes, {} instructions a row, {} + {} slots, {} constraints of degree <= {}",
            t.elapsed().as_secs_f64() * 1e3, info.nodes, info.instructions, info.base_slots, info.ext_slots, info.constraints, info.max_degree
        );
    }
    let mut json = String::new();
    for rep in 0..repeats {
        let before = config.pcs().quotient_stats().nanos();
        let t = Instant::now();
        let proof = gpuprover_plonky3::prove(&config, &KeccakAir {}, trace.clone(), &[]);
        let total = t.elapsed().as_nanos() as u64;
        let q = config.pcs().quotient_stats().nanos() - before;
        println!(
            "quot  run {rep}: total {:9.1} ms | quotient (compile + device + download) {:8.1} ms (gpuprover_plonky3::prove)",
            ms(total),
            ms(q)
        );
        verify(&config, &KeccakAir {}, &proof, &[]).expect("the proof verifies");
        json = serde_json::to_string(&proof).unwrap();
    }
    let st = config.pcs().quotient_stats();
    assert!(st.host() == 0, "a quotient ran on the host: {:?}", st.last_fallback());
    json
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let log_rows: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(14);
    let mode = args.get(2).map(String::as_str).unwrap_or("both");
    let repeats: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let hashes = ((1usize << log_rows) / NUM_ROUNDS).max(1);
    let mut s = 0x5eedu64;
    let inputs: Vec<[u64; 25]> = (0..hashes)
        .map(|_| {
            core::array::from_fn(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
        })
        .collect();
    let trace = generate_trace_rows::<Val>(inputs, 1);
    println!(
        "keccak-air over KoalaBear: {hashes} permutations, trace {} x {}, {} host threads",
        trace.height(),
        trace.width(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    );
    let perm = default_koalabear_poseidon2_16();
    let stock_mmcs = StockMmcs::new(PaddingFreeSponge::new(perm.clone()), TruncatedPermutation::new(perm), 0);
    let mut proofs = Vec::new();
    // MODE: "both" (every configuration) or a comma-separated list of
    // stock (p3_uni_stark over the stock DFT and MMCS), gpu (GpuDft +
    // GpuMmcs), pcs (GpuPcs, stock quotient), quot (GpuPcs, quotient on the
    // library).
    let want = |m: &str| mode == "both" || mode.split(',').any(|x| x == m);
    if want("stock") {
        proofs.push(run("stock", Radix2DitParallel::<Val>::default(), stock_mmcs.clone(), &trace, repeats));
    }
    if want("gpu") || want("pcs") || want("quot") {
        let ctx = gpuprover::Context::new().expect("a context");
        println!("gpuprover on {}", ctx.device_name().unwrap_or_default());
        let mmcs = GpuMmcs::<Val, Val, _, 8>::on_device(stock_mmcs, &ctx).expect("a library profile");
        if want("gpu") {
            proofs.push(run("gpu", GpuDft::<Val>::new(&ctx), mmcs.clone(), &trace, repeats));
            let st = mmcs.stats();
            println!("library trees {}, stock trees {}", st.device_commits, st.host_commits);
        }
        if want("pcs") {
            proofs.push(run_one_call(GpuDft::<Val>::new(&ctx), mmcs.clone(), &trace, repeats));
        }
        if want("quot") {
            proofs.push(run_device_quotient(GpuDft::<Val>::new(&ctx), mmcs, &trace, repeats));
        }
    }
    if proofs.len() >= 2 {
        let same = proofs.iter().all(|p| *p == proofs[0]);
        println!("proofs byte-identical: {same} ({} bytes)", proofs[0].len());
        if !same {
            std::process::exit(1);
        }
    }
}
