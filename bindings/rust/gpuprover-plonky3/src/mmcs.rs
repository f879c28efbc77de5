// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`GpuMmcs`]: Plonky3's `Mmcs` with the tree built by gpuprover.

use core::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use gpuprover::{Buffer, Context, Field, Layout, MerkleKind, MerkleOptions, MerkleTree, Permutation};
use p3_commit::{BatchOpening, BatchOpeningRef, Mmcs};
use p3_matrix::dense::RowMajorMatrix;
use p3_matrix::{Dimensions, Matrix};
#[cfg(feature = "plonky3-main")]
use p3_merkle_tree::PrunedMerklePaths;
use p3_maybe_rayon::prelude::*;
use p3_symmetric::MerkleCap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::field::{digests, DigestWord, GpuField, WordKind};

/// Declares [`StockMmcs`] with the bounds after `Proof = ...` (the
/// multi-opening proof on Plonky3 main).
macro_rules! stock_mmcs {
    ($($multi_proof:tt)*) => {
        /// The [`Mmcs`] of a `MerkleTreeMmcs` over `F` whose digests are
        /// `DIGEST` words of `W`: what [`GpuMmcs`] wraps and reproduces. Its
        /// commitment is a `MerkleCap<F, [W; DIGEST]>`, its proof of one
        /// opening the path `Vec<[W; DIGEST]>` and, on Plonky3 main (the
        /// `plonky3-main` feature), its proof of several the pruned paths
        /// `PrunedMerklePaths<W, DIGEST>`. Every such `Mmcs` is one.
        pub trait StockMmcs<F: Send + Sync + Clone, W, const DIGEST: usize>:
            Mmcs<F, Commitment = MerkleCap<F, [W; DIGEST]>, Proof = Vec<[W; DIGEST]> $($multi_proof)*>
        {
        }

        impl<F: Send + Sync + Clone, W, M, const DIGEST: usize> StockMmcs<F, W, DIGEST> for M where
            M: Mmcs<F, Commitment = MerkleCap<F, [W; DIGEST]>, Proof = Vec<[W; DIGEST]> $($multi_proof)*>
        {
        }
    };
}

#[cfg(not(feature = "plonky3-main"))]
stock_mmcs!();
#[cfg(feature = "plonky3-main")]
stock_mmcs!(, MultiProof = PrunedMerklePaths<W, DIGEST>);

/// Plonky3's [`Mmcs`] whose trees gpuprover builds and keeps (on the GPU
/// with the CUDA backend), byte-identical to the `MerkleTreeMmcs` it wraps.
///
/// `GpuMmcs` wraps the stock `MerkleTreeMmcs` (`Inner`) of the prover's
/// configuration and has its commitment and proof types, so proofs made
/// with it are the stock prover's proofs, and its `verify_batch` *is* the
/// stock verifier's. On Plonky3 main (the `plonky3-main` feature) it also
/// opens several indices at once (`open_multi_batch`, as FRI opens), the
/// library's paths pruned as `MerkleTreeMmcs` prunes them, and its
/// `verify_multi_batch` is the stock one too. When it is made
/// ([`GpuMmcs::new`]) it commits a small sample of mixed heights with both
/// `Inner` and the library's profiles for the field and digest word
/// (Poseidon2 `PaddingFreeSponge` +
/// `TruncatedPermutation` with the library's Poseidon2 constants, which are
/// Plonky3's `default_*_poseidon2_*`; the Keccak-f sponge over u64 lanes;
/// Keccak-256 over bytes) and takes the profile whose cap and opening are
/// equal, with `Inner`'s cap height. A configuration no profile reproduces
/// (random Poseidon2 constants, an arity other than 2) is committed by
/// `Inner` on the CPU: the bytes are always the stock ones.
/// [`GpuMmcs::profile`] says which path was taken, [`GpuMmcs::stats`]
/// counts commitments by path.
///
/// `F` is the committed field, `W` the digest word (`F` for the field
/// hashes, `u64` for the Keccak-f sponge, `u8` for Keccak-256), `DIGEST`
/// words per digest: those of `Inner`'s `MerkleCap<F, [W; DIGEST]>` (see
/// [`StockMmcs`]).
pub struct GpuMmcs<F, W, Inner, const DIGEST: usize> {
    inner: Inner,
    ctx: Context,
    profile: Option<MerkleOptions>,
    cap_height: usize,
    stats: Arc<Counters>,
    _marker: PhantomData<fn() -> (F, W)>,
}

impl<F, W, Inner: Clone, const DIGEST: usize> Clone for GpuMmcs<F, W, Inner, DIGEST> {
    fn clone(&self) -> Self {
        GpuMmcs {
            inner: self.inner.clone(),
            ctx: self.ctx.clone(),
            profile: self.profile,
            cap_height: self.cap_height,
            stats: self.stats.clone(),
            _marker: PhantomData,
        }
    }
}

/// Commitments made by a [`GpuMmcs`] and its clones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MmcsStats {
    /// Trees the library built.
    pub device_commits: u64,
    /// Trees `Inner` built: no profile matched, or the library refused the
    /// shapes (see `last_fallback`).
    pub host_commits: u64,
    /// Why the library last refused a commitment that had a profile.
    pub last_fallback: Option<String>,
}

#[derive(Default)]
struct Counters {
    device: AtomicU64,
    host: AtomicU64,
    last_fallback: Mutex<Option<String>>,
}

/// The prover data of a [`GpuMmcs`] commitment: the library's tree with the
/// committed matrices (which openings read their rows from), or `Inner`'s
/// prover data when `Inner` committed.
pub enum GpuProverData<M, D> {
    /// Built by the library; `tree` holds the hashes (and its copy of the
    /// matrices) on the context's device.
    Device {
        /// The library's tree.
        tree: MerkleTree,
        /// The matrices as committed.
        matrices: Vec<M>,
        /// The committed matrices as the library holds them on the device
        /// (the LDEs of a [`GpuPcs`](crate::GpuPcs) trace commitment, rows
        /// bit-reversed), for the work that follows on the device (the
        /// quotient); empty when the tree was built from host matrices.
        device: Vec<gpuprover::Buffer>,
    },
    /// Built by `Inner`.
    Host(D),
}

impl<F, W, Inner, const DIGEST: usize> GpuMmcs<F, W, Inner, DIGEST>
where
    F: GpuField,
    W: DigestWord + PartialEq,
    Inner: StockMmcs<F, W, DIGEST>,
{
    /// Wraps `inner` (the stock `MerkleTreeMmcs` of the configuration) on
    /// `ctx`: finds the library profile equal to it, else commits with
    /// `inner` itself (see the type's documentation).
    pub fn new(inner: Inner, ctx: &Context) -> Self {
        let (profile, cap_height) = match detect::<F, W, Inner, DIGEST>(&inner, ctx) {
            Some((p, c)) => (Some(p), c),
            None => (None, 0),
        };
        GpuMmcs {
            inner,
            ctx: ctx.clone(),
            profile,
            cap_height,
            stats: Arc::new(Counters::default()),
            _marker: PhantomData,
        }
    }

    /// As [`GpuMmcs::new`], but an error when no library profile reproduces
    /// `inner` (so that nothing is committed on the CPU unnoticed).
    pub fn on_device(inner: Inner, ctx: &Context) -> gpuprover::Result<Self> {
        let m = Self::new(inner, ctx);
        if m.profile.is_none() {
            return Err(gpuprover::Error::new(
                gpuprover::Status::Unsupported,
                "no gpuprover Merkle profile reproduces this MerkleTreeMmcs (its hash, its \
                 Poseidon2 constants or its arity)",
            ));
        }
        Ok(m)
    }
}

impl<F, W, Inner, const DIGEST: usize> GpuMmcs<F, W, Inner, DIGEST> {
    /// The library profile that reproduces `Inner` (its cap height
    /// included), or `None` when `Inner` commits.
    pub fn profile(&self) -> Option<&MerkleOptions> {
        self.profile.as_ref()
    }

    /// The wrapped `MerkleTreeMmcs`.
    pub fn inner(&self) -> &Inner {
        &self.inner
    }

    /// The context the trees are built on.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The library's options for a tree of greatest height `max_height`
    /// (the profile with `Inner`'s cap height as Plonky3 shortens it), or
    /// `None` when `Inner` commits.
    pub(crate) fn options_for(&self, max_height: usize) -> Option<MerkleOptions> {
        self.profile.map(|p| MerkleOptions { cap_height: effective_cap_height(self.cap_height, max_height) as u32, ..p })
    }

    /// The commitment of a tree the library built for this MMCS (here or
    /// in the PCS).
    pub(crate) fn cap_of(tree: &MerkleTree) -> gpuprover::Result<MerkleCap<F, [W; DIGEST]>>
    where
        W: DigestWord,
    {
        Ok(MerkleCap::new(digests::<W, DIGEST>(&tree.cap()?)))
    }

    /// Counts a tree the library built for this MMCS (here or in the PCS).
    pub(crate) fn count_device(&self) {
        self.stats.device.fetch_add(1, Ordering::Relaxed);
    }

    /// Commitments made so far by this value and its clones.
    pub fn stats(&self) -> MmcsStats {
        MmcsStats {
            device_commits: self.stats.device.load(Ordering::Relaxed),
            host_commits: self.stats.host.load(Ordering::Relaxed),
            last_fallback: self.stats.last_fallback.lock().map(|g| g.clone()).unwrap_or(None),
        }
    }
}

/// Bits of `n` rounded up (log2 of the least power of two >= n).
fn log2_ceil(n: usize) -> usize {
    n.max(1).next_power_of_two().trailing_zeros() as usize
}

/// The row-major canonical values of `m`.
/// Rows are converted in parallel with the `parallel` feature.
pub(crate) fn canonical_rows<F: GpuField, M: Matrix<F>>(m: &M) -> Vec<F::Elem> {
    let w = m.width();
    let mut out = vec![F::ZERO.to_elem(); w * m.height()];
    if w > 0 {
        out.par_chunks_mut(w).enumerate().for_each(|(r, dst)| {
            let row = m.row(r).expect("a row below the height");
            for (d, v) in dst.iter_mut().zip(row) {
                *d = v.to_elem();
            }
        });
    }
    out
}

/// The library's tree of `inputs` with `options`.
fn device_tree<F: GpuField, M: Matrix<F>>(
    ctx: &Context,
    inputs: &[M],
    options: &MerkleOptions,
) -> gpuprover::Result<MerkleTree> {
    let mut buffers = Vec::with_capacity(inputs.len());
    for m in inputs {
        let data = canonical_rows::<F, M>(m);
        buffers.push(Buffer::from_host(ctx, F::FIELD, 1, m.height(), m.width(), Layout::RowMajor, &data)?);
    }
    let refs: Vec<&Buffer> = buffers.iter().collect();
    ctx.merkle_commit(&refs, options)
}

/// Plonky3's cap height for a tree of the greatest height `max_height`:
/// `MerkleTreeMmcs` shortens the configured one to the tree's layers.
fn effective_cap_height(cap_height: usize, max_height: usize) -> usize {
    cap_height.min(log2_ceil(max_height))
}

/// The library profiles that may reproduce a `MerkleTreeMmcs` over `F`
/// with digests of `digest` words of `W`.
fn candidates<F: GpuField, W: DigestWord>(digest: usize) -> Vec<MerkleOptions> {
    let sponge = |perm: Permutation, compress: Option<Permutation>| MerkleOptions {
        kind: MerkleKind::FieldSponge,
        perm: Some(perm),
        compress_perm: compress,
        digest: digest as u32,
        ..MerkleOptions::default()
    };
    use Permutation as P;
    let keccak = |kind| vec![MerkleOptions { kind, ..MerkleOptions::default() }];
    match (W::KIND, F::FIELD) {
        (WordKind::Byte, _) => keccak(MerkleKind::KeccakPlonky3),
        (WordKind::Lane, _) => keccak(MerkleKind::KeccakU64),
        (WordKind::Field, Field::Goldilocks) => vec![
            sponge(P::Poseidon2Goldilocks8, None),
            sponge(P::Poseidon2Goldilocks12, None),
            sponge(P::Poseidon2Goldilocks16, None),
            sponge(P::Poseidon2Goldilocks12, Some(P::Poseidon2Goldilocks8)),
            sponge(P::Poseidon2Goldilocks16, Some(P::Poseidon2Goldilocks8)),
            sponge(P::Poseidon2GoldilocksHl8, None),
            sponge(P::Poseidon2GoldilocksHl12, None),
        ],
        (WordKind::Field, Field::BabyBear) => vec![
            sponge(P::Poseidon2BabyBear16, None),
            sponge(P::Poseidon2BabyBear24, None),
            sponge(P::Poseidon2BabyBear24, Some(P::Poseidon2BabyBear16)),
            sponge(P::Poseidon2BabyBearHl16, None),
            sponge(P::Poseidon2BabyBearHl24, None),
        ],
        (WordKind::Field, Field::KoalaBear) => vec![
            sponge(P::Poseidon2KoalaBear16, None),
            sponge(P::Poseidon2KoalaBear24, None),
            sponge(P::Poseidon2KoalaBear24, Some(P::Poseidon2KoalaBear16)),
        ],
    }
}

/// A sample of two matrices (heights `h` and `h / 2`, widths 11 and 3) of
/// fixed pseudo-random values.
fn sample<F: GpuField>(h: usize) -> Vec<RowMajorMatrix<F>> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        F::from_u64(s % F::ORDER_U64)
    };
    vec![
        RowMajorMatrix::new((0..h * 11).map(|_| next()).collect(), 11),
        RowMajorMatrix::new((0..(h / 2) * 3).map(|_| next()).collect(), 3),
    ]
}

/// The profile (with `inner`'s cap height) under which the library commits
/// and opens a sample as `inner` does.
fn detect<F, W, Inner, const DIGEST: usize>(inner: &Inner, ctx: &Context) -> Option<(MerkleOptions, usize)>
where
    F: GpuField,
    W: DigestWord + PartialEq,
    Inner: StockMmcs<F, W, DIGEST>,
{
    // A cap as wide as the sample's leaf layer may be a shortened one: a
    // taller sample tells the configured height (none does past 2^14).
    for log_h in [8usize, 14] {
        let h = 1usize << log_h;
        let mats = sample::<F>(h);
        let (cap, data) = inner.commit(mats.clone());
        let roots = cap.roots();
        if !roots.len().is_power_of_two() {
            return None;
        }
        let cap_height = roots.len().trailing_zeros() as usize;
        if cap_height >= log_h {
            continue;
        }
        let index = h / 3;
        let (_, inner_proof) = inner.open_batch(index, &data).unpack();
        for c in candidates::<F, W>(DIGEST) {
            let opts = MerkleOptions { cap_height: cap_height as u32, ..c };
            let Ok(tree) = device_tree::<F, _>(ctx, &mats, &opts) else { continue };
            let Ok(cap_bytes) = tree.cap() else { continue };
            if digests::<W, DIGEST>(&cap_bytes) != roots {
                continue;
            }
            let Ok(mut open) = tree.open::<F::Elem>(&[index]) else { continue };
            if digests::<W, DIGEST>(&open.remove(0).path) == inner_proof {
                return Some((c, cap_height));
            }
        }
        return None;
    }
    None
}

/// The rows of `matrices` (as `MerkleTreeMmcs` opens them) at `index` of
/// the tallest: a matrix of height `h` at `index >> log2(max height / h)`,
/// both rounded up to powers of two.
fn rows_at<F: Clone + Send + Sync, M: Matrix<F>>(matrices: &[M], index: usize) -> Vec<Vec<F>> {
    let max_height = matrices.iter().map(|m| m.height()).max().unwrap_or(0);
    assert!(index < max_height, "index {index} out of bounds for height {max_height}");
    let log_max = log2_ceil(max_height);
    matrices
        .iter()
        .map(|m| {
            let reduced = index >> (log_max - log2_ceil(m.height()));
            m.row(reduced).unwrap().into_iter().collect()
        })
        .collect()
}

/// The library's authentication paths (below the cap, leaf level first) of
/// `indices` in `tree`, in one call.
fn device_paths<F: GpuField, W: DigestWord, const DIGEST: usize>(
    tree: &MerkleTree,
    indices: &[usize],
) -> Vec<Vec<[W; DIGEST]>> {
    tree.open::<F::Elem>(indices)
        .unwrap_or_else(|e| panic!("gpuprover: opening indices {indices:?}: {e}"))
        .iter()
        .map(|o| digests::<W, DIGEST>(&o.path))
        .collect()
}

/// The pruned multi-opening of a binary tree, as `MerkleTreeMmcs` sends it:
/// of the full `paths` (one per leaf, leaf level first) of the ascending
/// distinct `leaves`, the siblings the verifier cannot compute. Level by
/// level from the leaves, and within a level in ascending order, every
/// opened node (a leaf, or the parent of opened nodes) gives its sibling,
/// unless the sibling is opened too (their parent is computed from both).
#[cfg(feature = "plonky3-main")]
fn prune_paths<D: Copy>(leaves: &[usize], paths: &[Vec<D>]) -> Vec<D> {
    let levels = paths.first().map_or(0, Vec::len);
    // The opened nodes of the level, each with a path through it.
    let mut nodes: Vec<(usize, &[D])> = leaves.iter().zip(paths).map(|(&i, p)| (i, p.as_slice())).collect();
    let mut sent = Vec::new();
    for level in 0..levels {
        let mut parents = Vec::with_capacity(nodes.len());
        let mut k = 0;
        while k < nodes.len() {
            let (node, path) = nodes[k];
            if nodes.get(k + 1).map(|n| n.0) == Some(node ^ 1) {
                k += 2;
            } else {
                sent.push(path[level]);
                k += 1;
            }
            parents.push((node >> 1, path));
        }
        nodes = parents;
    }
    sent
}

impl<F, W, Inner, const DIGEST: usize> Mmcs<F> for GpuMmcs<F, W, Inner, DIGEST>
where
    F: GpuField,
    W: DigestWord + PartialEq,
    [W; DIGEST]: Serialize + DeserializeOwned,
    Inner: StockMmcs<F, W, DIGEST>,
{
    type ProverData<M> = GpuProverData<M, Inner::ProverData<M>>;
    type Commitment = MerkleCap<F, [W; DIGEST]>;
    type Proof = Vec<[W; DIGEST]>;
    #[cfg(feature = "plonky3-main")]
    type MultiProof = PrunedMerklePaths<W, DIGEST>;
    type Error = Inner::Error;

    fn commit<M: Matrix<F>>(&self, inputs: Vec<M>) -> (Self::Commitment, Self::ProverData<M>) {
        let max_height = inputs.iter().map(|m| m.height()).max().unwrap_or(0);
        if let Some(options) = self.options_for(max_height) {
            let built = if max_height == 0 {
                Err(gpuprover::Error::new(gpuprover::Status::InvalidArgument, "no rows"))
            } else {
                device_tree::<F, M>(&self.ctx, &inputs, &options).and_then(|t| Self::cap_of(&t).map(|c| (t, c)))
            };
            match built {
                Ok((tree, cap)) => {
                    self.count_device();
                    return (cap, GpuProverData::Device { tree, matrices: inputs, device: Vec::new() });
                }
                Err(e) => {
                    if let Ok(mut g) = self.stats.last_fallback.lock() {
                        *g = Some(e.to_string());
                    }
                }
            }
        }
        self.stats.host.fetch_add(1, Ordering::Relaxed);
        let (cap, data) = self.inner.commit(inputs);
        (cap, GpuProverData::Host(data))
    }

    fn open_batch<M: Matrix<F>>(&self, index: usize, prover_data: &Self::ProverData<M>) -> BatchOpening<F, Self> {
        match prover_data {
            GpuProverData::Device { tree, matrices, .. } => {
                let rows = rows_at(matrices, index);
                let path = device_paths::<F, W, DIGEST>(tree, &[index]).remove(0);
                BatchOpening::new(rows, path)
            }
            GpuProverData::Host(data) => {
                let (rows, proof) = self.inner.open_batch(index, data).unpack();
                BatchOpening::new(rows, proof)
            }
        }
    }

    fn get_matrices<'a, M: Matrix<F>>(&self, prover_data: &'a Self::ProverData<M>) -> Vec<&'a M> {
        match prover_data {
            GpuProverData::Device { matrices, .. } => matrices.iter().collect(),
            GpuProverData::Host(data) => self.inner.get_matrices(data),
        }
    }

    fn verify_batch(
        &self,
        commit: &Self::Commitment,
        dimensions: &[Dimensions],
        index: usize,
        batch_opening: BatchOpeningRef<'_, F, Self>,
    ) -> Result<(), Self::Error> {
        let (values, proof) = batch_opening.unpack();
        self.inner.verify_batch(commit, dimensions, index, BatchOpeningRef::new(values, proof))
    }

    #[cfg(feature = "plonky3-main")]
    fn open_multi_batch<M: Matrix<F>>(
        &self,
        indices: &[usize],
        prover_data: &Self::ProverData<M>,
    ) -> (Vec<Vec<Vec<F>>>, Self::MultiProof) {
        match prover_data {
            GpuProverData::Device { tree, matrices, .. } => {
                let rows = indices.iter().map(|&index| rows_at(matrices, index)).collect();
                let mut leaves = indices.to_vec();
                leaves.sort_unstable();
                leaves.dedup();
                let paths = device_paths::<F, W, DIGEST>(tree, &leaves);
                (rows, PrunedMerklePaths { sibling_hashes: prune_paths(&leaves, &paths) })
            }
            GpuProverData::Host(data) => self.inner.open_multi_batch(indices, data),
        }
    }

    #[cfg(feature = "plonky3-main")]
    fn verify_multi_batch<R: AsRef<[F]> + PartialEq>(
        &self,
        commit: &Self::Commitment,
        dimensions: &[Dimensions],
        indices: &[usize],
        opened_values: &[Vec<R>],
        proof: &Self::MultiProof,
    ) -> Result<(), Self::Error> {
        self.inner.verify_multi_batch(commit, dimensions, indices, opened_values, proof)
    }
}
