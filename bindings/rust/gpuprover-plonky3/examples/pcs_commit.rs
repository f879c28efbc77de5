// SPDX-License-Identifier: MIT OR Apache-2.0
//! What `TwoAdicFriPcs::commit` costs through Plonky3's own traits: the
//! coset LDE in bit-reversed row order (`TwoAdicSubgroupDft`) and its
//! Merkle tree (`Mmcs`), with the stock `Radix2DitParallel` and
//! `MerkleTreeMmcs` on all host cores, and with `GpuDft` and `GpuMmcs` on
//! the library's CPU backend and on CUDA.
//!
//! ```text
//! cargo run --release --features parallel --example pcs_commit -- [w1|w4] [stock,cpu,cuda] [REPEATS]
//! ```
//!
//! - w1: Goldilocks, 2^19 rows x 256 columns, blowup 4 (the LDE only, as
//!   docs/PERF.md's W1).
//! - w4: KoalaBear, 2^22 x 128, blowup 2, LDE then the Poseidon2 (width 16)
//!   tree (docs/PERF.md's W4).
//!
//! Prints the best of REPEATS (default 3) per phase; the results of every
//! mode must equal the stock ones (it exits 1 otherwise).

use std::time::Instant;

use gpuprover::{Backend, Context};
use gpuprover_plonky3::{GpuDft, GpuField, GpuMmcs};
use p3_commit::Mmcs;
use p3_dft::{Radix2DitParallel, TwoAdicSubgroupDft};
use p3_field::Field;
use p3_goldilocks::Goldilocks;
use p3_koala_bear::{default_koalabear_poseidon2_16, KoalaBear, Poseidon2KoalaBear};
use p3_matrix::bitrev::BitReversibleMatrix;
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use p3_merkle_tree::MerkleTreeMmcs;
use p3_symmetric::{PaddingFreeSponge, TruncatedPermutation};

type Perm = Poseidon2KoalaBear<16>;
type KbMmcs = MerkleTreeMmcs<
    <KoalaBear as Field>::Packing,
    <KoalaBear as Field>::Packing,
    PaddingFreeSponge<Perm, 16, 8, 8>,
    TruncatedPermutation<Perm, 2, 8, 16>,
    2,
    8,
>;

fn random<F: GpuField>(h: usize, w: usize) -> RowMajorMatrix<F> {
    let mut s = 0x1234_5678_9abc_def1u64;
    RowMajorMatrix::new(
        (0..h * w)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                F::from_u64(s % F::ORDER_U64)
            })
            .collect(),
        w,
    )
}

/// Best wall time of `repeats` runs of `f`, in ms, and its last result.
fn best<T>(repeats: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..repeats {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        last = Some(r);
    }
    (best, last.unwrap())
}

fn lde<F: GpuField, D: TwoAdicSubgroupDft<F>>(dft: &D, m: &RowMajorMatrix<F>, log_blowup: usize) -> RowMajorMatrix<F> {
    dft.coset_lde_batch(m.clone(), log_blowup, F::GENERATOR).bit_reverse_rows().to_row_major_matrix()
}

fn context(mode: &str) -> Context {
    match mode {
        "cpu" => Context::with_backend(Backend::Cpu).expect("a CPU context"),
        _ => Context::with_backend(Backend::Cuda).expect("a CUDA context"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let shape = args.get(1).map(String::as_str).unwrap_or("w4");
    let modes: Vec<String> = args.get(2).map(String::as_str).unwrap_or("stock,cpu,cuda").split(',').map(String::from).collect();
    let repeats: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut ok = true;
    match shape {
        "w1" => {
            let m = random::<Goldilocks>(1 << 19, 256);
            println!("W1: Goldilocks 2^19 x 256, blowup 4, LDE only; {threads} host threads");
            let (t, want) = best(repeats, || lde(&Radix2DitParallel::<Goldilocks>::default(), &m, 2));
            println!("  stock Radix2DitParallel   LDE {t:9.1} ms");
            for mode in modes.iter().filter(|m| *m != "stock") {
                let dft = GpuDft::<Goldilocks>::new(&context(mode));
                let (t, got) = best(repeats, || lde(&dft, &m, 2));
                println!("  gpuprover {mode:4} GpuDft    LDE {t:9.1} ms  (same: {})", got == want);
                ok &= got == want;
            }
        }
        _ => {
            let m = random::<KoalaBear>(1 << 22, 128);
            println!("W4: KoalaBear 2^22 x 128, blowup 2, LDE + Poseidon2 width-16 tree; {threads} host threads");
            let perm = default_koalabear_poseidon2_16();
            let stock = KbMmcs::new(PaddingFreeSponge::new(perm.clone()), TruncatedPermutation::new(perm), 0);
            let (t_lde, l) = best(repeats, || lde(&Radix2DitParallel::<KoalaBear>::default(), &m, 1));
            let (t_tree, (want, _)) = best(repeats, || stock.commit(vec![l.as_view()]));
            println!("  stock      LDE {t_lde:9.1} ms  tree {t_tree:9.1} ms  total {:9.1} ms", t_lde + t_tree);
            for mode in modes.iter().filter(|m| *m != "stock") {
                let ctx = context(mode);
                let dft = GpuDft::<KoalaBear>::new(&ctx);
                let mmcs = GpuMmcs::<KoalaBear, KoalaBear, _, 8>::on_device(stock.clone(), &ctx).expect("a profile");
                let (t_lde, l) = best(repeats, || lde(&dft, &m, 1));
                let (t_tree, (got, _)) = best(repeats, || mmcs.commit(vec![l.as_view()]));
                let same = got.roots() == want.roots();
                println!(
                    "  gpuprover {mode:4} LDE {t_lde:9.1} ms  tree {t_tree:9.1} ms  total {:9.1} ms  (same root: {same})",
                    t_lde + t_tree
                );
                ok &= same;
            }
        }
    }
    if !ok {
        std::process::exit(1);
    }
}
