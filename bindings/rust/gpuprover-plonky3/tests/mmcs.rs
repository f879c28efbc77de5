// SPDX-License-Identifier: MIT OR Apache-2.0
//! `GpuMmcs` against the stock `MerkleTreeMmcs` it wraps: equal caps,
//! openings and proofs for every configuration the library reproduces, on
//! single, mixed and non-power-of-two heights and caps (on Plonky3 main
//! also the multi-openings with pruned paths, at several index sets); the
//! stock verifier accepts its openings and rejects forged ones;
//! configurations the library does not reproduce are committed by the
//! stock code.

mod common;

use core::fmt::Debug;

use common::{context, keccak256, keccak_u64, poseidon2_mmcs, random_matrix, Poseidon2Mmcs, Rng};
use gpuprover::MerkleKind;
use gpuprover_plonky3::{DigestWord, GpuField, GpuMmcs, StockMmcs};
use p3_baby_bear::{default_babybear_poseidon2_16, default_babybear_poseidon2_24, BabyBear, Poseidon2BabyBear};
use p3_commit::{BatchOpeningRef, Mmcs};
use serde::de::DeserializeOwned;
use serde::Serialize;
use p3_goldilocks::{default_goldilocks_poseidon2_8, Goldilocks, Poseidon2Goldilocks};
use p3_koala_bear::{default_koalabear_poseidon2_16, KoalaBear, Poseidon2KoalaBear};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::Matrix;
use p3_symmetric::{PaddingFreeSponge, TruncatedPermutation};

type BbPerm = Poseidon2BabyBear<16>;
type KbPerm = Poseidon2KoalaBear<16>;
type GlPerm = Poseidon2Goldilocks<8>;
// A sponge rate (12 of width 16) no `GpuMmcs` profile has: committed by the
// stock code.
type BbRate12Mmcs = Poseidon2Mmcs<BabyBear, BbPerm, BbPerm, 16, 12, 8, 16>;

fn bb(cap: usize) -> Poseidon2Mmcs<BabyBear, BbPerm, BbPerm, 16, 8, 8, 16> {
    poseidon2_mmcs::<BabyBear, _, 16, 8, 8>(default_babybear_poseidon2_16(), cap)
}
fn kb(cap: usize) -> Poseidon2Mmcs<KoalaBear, KbPerm, KbPerm, 16, 8, 8, 16> {
    poseidon2_mmcs::<KoalaBear, _, 16, 8, 8>(default_koalabear_poseidon2_16(), cap)
}
fn gl(cap: usize) -> Poseidon2Mmcs<Goldilocks, GlPerm, GlPerm, 8, 4, 4, 8> {
    poseidon2_mmcs::<Goldilocks, _, 8, 4, 4>(default_goldilocks_poseidon2_8(), cap)
}

/// Shapes (height, width) of the batches committed.
const SHAPES: &[&[(usize, usize)]] = &[
    &[(256, 7)],
    &[(64, 11), (32, 3), (8, 5)],
    &[(8, 5), (64, 11), (64, 2)],
    &[(200, 4), (100, 3), (50, 2)],
    &[(16, 17)],
];


/// Commits `shapes` with `inner` and with `GpuMmcs` over it, and compares
/// everything a prover and a verifier see. Returns the `GpuMmcs`.
fn same<F, W, Inner, const D: usize>(inner: &Inner, shapes: &[(usize, usize)], seed: u64) -> GpuMmcs<F, W, Inner, D>
where
    F: GpuField,
    W: DigestWord + PartialEq + Debug,
    Inner: StockMmcs<F, W, D>,
    Inner::Error: Debug,
    [W; D]: Serialize + DeserializeOwned,
{
    let ctx = context();
    let gpu = GpuMmcs::<F, W, Inner, D>::new(inner.clone(), &ctx);
    let mut rng = Rng(seed);
    let mats: Vec<RowMajorMatrix<F>> = shapes.iter().map(|&(h, w)| random_matrix(&mut rng, h, w)).collect();
    let dims: Vec<_> = mats.iter().map(|m| m.dimensions()).collect();
    let (c_ref, d_ref) = inner.commit(mats.clone());
    let (c_gpu, d_gpu) = gpu.commit(mats.clone());
    assert_eq!(c_ref.roots(), c_gpu.roots(), "commitment of {shapes:?}");
    let max_h = shapes.iter().map(|s| s.0).max().unwrap();
    assert_eq!(gpu.get_max_height(&d_gpu), max_h);
    for index in [0, max_h - 1, rng.below(max_h as u64) as usize, rng.below(max_h as u64) as usize] {
        let o_ref = inner.open_batch(index, &d_ref);
        let o_gpu = gpu.open_batch(index, &d_gpu);
        assert_eq!(o_ref.opened_values, o_gpu.opened_values, "rows at {index} of {shapes:?}");
        assert_eq!(o_ref.opening_proof, o_gpu.opening_proof, "path at {index} of {shapes:?}");
        // The stock verifier accepts the opening, and rejects it forged.
        inner
            .verify_batch(&c_ref, &dims, index, BatchOpeningRef::new(&o_gpu.opened_values, &o_gpu.opening_proof))
            .expect("the stock verifier accepts the opening");
        gpu.verify_batch(&c_gpu, &dims, index, (&o_gpu).into()).expect("and so does GpuMmcs's");
        let mut rows = o_gpu.opened_values.clone();
        rows[0][0] += F::ONE;
        assert!(inner.verify_batch(&c_ref, &dims, index, BatchOpeningRef::new(&rows, &o_gpu.opening_proof)).is_err());
        let proof: &Vec<[W; D]> = &o_gpu.opening_proof;
        if proof.len() >= 2 && proof[0] != proof[1] {
            let mut forged = proof.clone();
            forged.swap(0, 1);
            assert!(inner.verify_batch(&c_ref, &dims, index, BatchOpeningRef::new(&o_gpu.opened_values, &forged)).is_err());
        }
    }
    #[cfg(feature = "plonky3-main")]
    same_multi_openings(inner, &gpu, &c_ref, &dims, &d_ref, &d_gpu, &mut rng);
    gpu
}

/// The index sets `same_multi_openings` opens in a tree of `max_h` rows:
/// none, one, the ends unsorted, every index, adjacent siblings and random
/// ones with repeats (FRI opens a row once per query reaching it).
#[cfg(feature = "plonky3-main")]
fn index_sets(max_h: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    let mut random: Vec<usize> = (0..12).map(|_| rng.below(max_h as u64) as usize).collect();
    random.extend([random[3], random[0]]);
    let mut sets = vec![vec![], vec![max_h / 2], vec![max_h - 1, 0], (0..max_h).collect(), random];
    if max_h >= 4 {
        sets.push(vec![3, 2, 2, 1, max_h - 1]);
    }
    sets
}

/// Plonky3 main's multi-openings (`open_multi_batch`, as FRI opens) of the
/// commitments `same` made: equal rows and pruned paths, accepted by the
/// stock verifier (and `GpuMmcs`'s), rejected with a changed row or
/// proof.
#[cfg(feature = "plonky3-main")]
fn same_multi_openings<F, W, Inner, const D: usize>(
    inner: &Inner,
    gpu: &GpuMmcs<F, W, Inner, D>,
    commit: &Inner::Commitment,
    dims: &[p3_matrix::Dimensions],
    d_ref: &Inner::ProverData<RowMajorMatrix<F>>,
    d_gpu: &<GpuMmcs<F, W, Inner, D> as Mmcs<F>>::ProverData<RowMajorMatrix<F>>,
    rng: &mut Rng,
) where
    F: GpuField,
    W: DigestWord + PartialEq + Debug,
    Inner: StockMmcs<F, W, D>,
    Inner::Error: Debug,
    [W; D]: Serialize + DeserializeOwned,
{
    let max_h = dims.iter().map(|d| d.height).max().unwrap();
    for indices in index_sets(max_h, rng) {
        let (v_ref, p_ref) = inner.open_multi_batch(&indices, d_ref);
        let (v_gpu, p_gpu) = gpu.open_multi_batch(&indices, d_gpu);
        assert_eq!(v_ref, v_gpu, "rows at {indices:?} of {dims:?}");
        assert_eq!(p_ref.sibling_hashes, p_gpu.sibling_hashes, "pruned paths at {indices:?} of {dims:?}");
        inner
            .verify_multi_batch(commit, dims, &indices, &v_gpu, &p_gpu)
            .expect("the stock verifier accepts the multi-opening");
        gpu.verify_multi_batch(commit, dims, &indices, &v_gpu, &p_gpu).expect("and so does GpuMmcs's");
        if let Some(row) = v_gpu.first().and_then(|rows| rows.first()) {
            let mut rows = v_gpu.clone();
            rows[0][0][0] = row[0] + F::ONE;
            assert!(inner.verify_multi_batch(commit, dims, &indices, &rows, &p_gpu).is_err());
        }
        let hashes = &p_gpu.sibling_hashes;
        if !hashes.is_empty() {
            let mut short = p_gpu.clone();
            short.sibling_hashes.pop();
            assert!(inner.verify_multi_batch(commit, dims, &indices, &v_gpu, &short).is_err());
        }
        if hashes.len() >= 2 && hashes[0] != hashes[1] {
            let mut swapped = p_gpu.clone();
            swapped.sibling_hashes.swap(0, 1);
            assert!(inner.verify_multi_batch(commit, dims, &indices, &v_gpu, &swapped).is_err());
        }
    }
}

/// `same` over every shape, each committed by the library.
fn on_device<F, W, Inner, const D: usize>(inner: Inner, kind: MerkleKind)
where
    F: GpuField,
    W: DigestWord + PartialEq + Debug,
    Inner: StockMmcs<F, W, D>,
    Inner::Error: Debug,
    [W; D]: Serialize + DeserializeOwned,
{
    for (i, shapes) in SHAPES.iter().enumerate() {
        let gpu = same::<F, W, Inner, D>(&inner, shapes, 1000 + i as u64);
        let profile = gpu.profile().expect("a library profile reproduces the configuration");
        assert_eq!(profile.kind, kind);
        let st = gpu.stats();
        assert_eq!((st.device_commits, st.host_commits), (1, 0), "{shapes:?}: {:?}", st.last_fallback);
    }
}

#[test]
fn babybear_poseidon2() {
    for cap in [0, 2, 3] {
        on_device::<BabyBear, BabyBear, _, 8>(bb(cap), MerkleKind::FieldSponge);
    }
}

#[test]
fn babybear_poseidon2_width24_leaves() {
    let p16 = default_babybear_poseidon2_16();
    let m = Poseidon2Mmcs::<BabyBear, Poseidon2BabyBear<24>, BbPerm, 24, 16, 8, 16>::new(
        PaddingFreeSponge::new(default_babybear_poseidon2_24()),
        TruncatedPermutation::new(p16),
        1,
    );
    on_device::<BabyBear, BabyBear, _, 8>(m, MerkleKind::FieldSponge);
}

#[test]
fn koalabear_poseidon2() {
    for cap in [0, 1, 3] {
        on_device::<KoalaBear, KoalaBear, _, 8>(kb(cap), MerkleKind::FieldSponge);
    }
}

#[test]
fn goldilocks_poseidon2() {
    for cap in [0, 2] {
        on_device::<Goldilocks, Goldilocks, _, 4>(gl(cap), MerkleKind::FieldSponge);
    }
}

#[test]
fn keccak_u64_lanes() {
    for cap in [0, 3] {
        on_device::<KoalaBear, u64, _, 4>(keccak_u64::<KoalaBear>(cap), MerkleKind::KeccakU64);
        on_device::<BabyBear, u64, _, 4>(keccak_u64::<BabyBear>(cap), MerkleKind::KeccakU64);
        on_device::<Goldilocks, u64, _, 4>(keccak_u64::<Goldilocks>(cap), MerkleKind::KeccakU64);
    }
}

#[test]
fn keccak256_bytes() {
    for cap in [0, 2] {
        on_device::<BabyBear, u8, _, 32>(keccak256::<BabyBear>(cap), MerkleKind::KeccakPlonky3);
        on_device::<Goldilocks, u8, _, 32>(keccak256::<Goldilocks>(cap), MerkleKind::KeccakPlonky3);
    }
}

/// A configuration no profile reproduces: every commitment is the stock
/// code's, and says so.
#[test]
fn unreproduced_configuration_commits_on_the_host() {
    let p = default_babybear_poseidon2_16();
    let m: BbRate12Mmcs = poseidon2_mmcs::<BabyBear, _, 16, 12, 8>(p, 0);
    let gpu = same::<BabyBear, BabyBear, _, 8>(&m, SHAPES[1], 7);
    assert!(gpu.profile().is_none());
    assert_eq!((gpu.stats().device_commits, gpu.stats().host_commits), (0, 1));
    assert!(GpuMmcs::<BabyBear, BabyBear, _, 8>::on_device(m, &context()).is_err());
}

/// Shapes the library refuses (a single row) fall back to the stock code,
/// with the same bytes.
#[test]
fn refused_shapes_fall_back() {
    let gpu = same::<KoalaBear, KoalaBear, _, 8>(&kb(0), &[(1, 5)], 9);
    let st = gpu.stats();
    assert_eq!(st.device_commits + st.host_commits, 1);
}
