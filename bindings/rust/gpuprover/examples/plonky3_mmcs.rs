// SPDX-License-Identifier: MIT OR Apache-2.0
//! A Plonky3-shaped MMCS (mixed-matrix commitment scheme) on gpuprover.
//!
//! `GpuMmcs<F>` has the shape of Plonky3's `Mmcs` trait as
//! `MerkleTreeMmcs<F, F, PaddingFreeSponge<Poseidon2, ..>,
//! TruncatedPermutation<Poseidon2, ..>, DIGEST>` implements it: `commit`
//! returns the commitment (the Merkle cap) and the prover data, `open_batch`
//! opens one row of every committed matrix with its authentication path,
//! `verify_batch` checks such an opening, `get_matrices` / `get_max_height`
//! read the prover data. It is `Clone + Send + Sync`, and so is its prover
//! data: the tree holds the committed matrices (on the device for the CUDA
//! backend) and the context, without lifetimes or locks.
//!
//! These are types of this example, mirroring Plonky3's; an implementation
//! of `p3_commit::Mmcs` would wrap them (converting `F` with
//! `as_canonical_u32` / `from_canonical_u32`, or `u64` for Goldilocks).
//!
//! Run it with `cargo run --example plonky3_mmcs`; `cargo test` runs its
//! tests.

use std::marker::PhantomData;

use gpuprover::{
    elements_from_le_bytes, elements_to_le_bytes, merkle_verify, Buffer, Context, Error, FieldType,
    Layout, MatrixDims, MerkleOptions, MerkleTree, Result, Status,
};

/// Plonky3's `RowMajorMatrix`: `values.len() / width` rows of `width`
/// canonical values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowMajorMatrix<T> {
    pub values: Vec<T>,
    pub width: usize,
}

impl<T: Copy> RowMajorMatrix<T> {
    pub fn new(values: Vec<T>, width: usize) -> Self {
        assert!(width > 0 && values.len() % width == 0);
        RowMajorMatrix { values, width }
    }

    pub fn height(&self) -> usize {
        self.values.len() / self.width
    }

    pub fn row(&self, r: usize) -> &[T] {
        &self.values[r * self.width..(r + 1) * self.width]
    }

    pub fn dimensions(&self) -> Dimensions {
        Dimensions {
            width: self.width,
            height: self.height(),
        }
    }
}

/// Plonky3's `Dimensions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dimensions {
    pub width: usize,
    pub height: usize,
}

/// Plonky3's `MerkleCap`: `2^cap_height` digests of `DIGEST` elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MerkleCap<T> {
    pub digests: Vec<Vec<T>>,
}

/// The opening proof: the sibling digests from the leaf layer up to the
/// layer below the cap (Plonky3's `Vec<[W; DIGEST]>`).
pub type Proof<T> = Vec<Vec<T>>;

/// What `open_batch` returns (Plonky3's `BatchOpening`): the opened row of
/// every matrix, in commit order, and the proof.
pub type BatchOpening<T> = (Vec<Vec<T>>, Proof<T>);

/// Plonky3's `MerkleTreeMmcs::ProverData`: the tree, which holds the
/// committed matrices and its context.
#[derive(Debug)]
pub struct GpuProverData {
    tree: MerkleTree,
}

/// The MMCS: a context (shared by every clone) and the tree profile.
#[derive(Clone, Debug)]
pub struct GpuMmcs<F: FieldType> {
    ctx: Context,
    options: MerkleOptions,
    _field: PhantomData<F>,
}

impl<F: FieldType> GpuMmcs<F> {
    /// Plonky3's Poseidon2 `MerkleTreeMmcs` for `F` (Goldilocks: width 8,
    /// rate 4, digest 4; BabyBear and KoalaBear: width 16, rate 8, digest 8)
    /// with a cap of `2^cap_height` digests.
    pub fn new(ctx: Context, cap_height: u32) -> Self {
        GpuMmcs {
            ctx,
            options: MerkleOptions {
                cap_height,
                ..MerkleOptions::plonky3_poseidon2(F::FIELD)
            },
            _field: PhantomData,
        }
    }

    fn digest_len(&self) -> usize {
        // Elements per digest, from the profile (see MerkleOptions).
        match self.options.digest {
            0 if F::FIELD.element_size() == 8 => 4,
            0 => 8,
            d => d as usize,
        }
    }

    /// Commits the matrices (heights powers of two, in this order) and
    /// returns the cap and the prover data. The matrices are uploaded and
    /// hashed where they are; the host copies are dropped.
    pub fn commit(
        &self,
        inputs: Vec<RowMajorMatrix<F::Repr>>,
    ) -> Result<(MerkleCap<F::Repr>, GpuProverData)> {
        let buffers = inputs
            .iter()
            .map(|m| {
                Buffer::from_host_typed::<F>(
                    &self.ctx,
                    1,
                    m.height(),
                    m.width,
                    Layout::RowMajor,
                    &m.values,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Buffer> = buffers.iter().collect();
        let tree = self.ctx.merkle_commit(&refs, &self.options)?;
        // `buffers` drop here; the tree keeps them.
        let cap = self.cap_of(&tree.cap()?);
        Ok((cap, GpuProverData { tree }))
    }

    /// `commit` of one matrix.
    pub fn commit_matrix(
        &self,
        input: RowMajorMatrix<F::Repr>,
    ) -> Result<(MerkleCap<F::Repr>, GpuProverData)> {
        self.commit(vec![input])
    }

    fn cap_of(&self, bytes: &[u8]) -> MerkleCap<F::Repr> {
        let elements = elements_from_le_bytes::<F::Repr>(bytes);
        MerkleCap {
            digests: elements
                .chunks(self.digest_len())
                .map(<[_]>::to_vec)
                .collect(),
        }
    }

    /// Opens row `index` of the tallest matrices: the row of every matrix
    /// (a matrix of height h at `index >> log2(max height / h)`) and the
    /// authentication path.
    pub fn open_batch(
        &self,
        index: usize,
        prover_data: &GpuProverData,
    ) -> Result<BatchOpening<F::Repr>> {
        let tree = &prover_data.tree;
        let opening = tree.open_typed::<F>(&[index])?.remove(0);
        let mut rows = Vec::with_capacity(tree.dims().len());
        let mut rest = &opening.rows[..];
        for d in tree.dims() {
            let (row, tail) = rest.split_at(d.cols * d.ext_degree as usize);
            rows.push(row.to_vec());
            rest = tail;
        }
        let path = elements_from_le_bytes::<F::Repr>(&opening.path);
        let proof = path.chunks(self.digest_len()).map(<[_]>::to_vec).collect();
        Ok((rows, proof))
    }

    /// The committed matrices, in commit order (on the device for CUDA).
    pub fn get_matrices<'a>(&self, prover_data: &'a GpuProverData) -> Vec<&'a Buffer> {
        prover_data.tree.matrices().iter().collect()
    }

    /// The greatest height of the committed matrices.
    pub fn get_max_height(&self, prover_data: &GpuProverData) -> usize {
        prover_data.tree.height()
    }

    /// Checks an opening against the commitment, on the host.
    /// `Err` with [`Status::VerifyFailed`] when it does not verify.
    pub fn verify_batch(
        &self,
        commit: &MerkleCap<F::Repr>,
        dimensions: &[Dimensions],
        index: usize,
        opened_values: &[Vec<F::Repr>],
        proof: &Proof<F::Repr>,
    ) -> Result<()> {
        if dimensions.len() != opened_values.len() {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!(
                    "{} dimensions but {} opened rows",
                    dimensions.len(),
                    opened_values.len()
                ),
            ));
        }
        let dims: Vec<MatrixDims> = dimensions
            .iter()
            .map(|d| MatrixDims {
                rows: d.height,
                cols: d.width,
                ext_degree: 1,
            })
            .collect();
        let cap: Vec<F::Repr> = commit.digests.concat();
        let rows: Vec<F::Repr> = opened_values.concat();
        let path: Vec<F::Repr> = proof.concat();
        merkle_verify(
            &self.options,
            F::FIELD,
            &dims,
            &elements_to_le_bytes(&cap),
            index,
            &rows,
            &elements_to_le_bytes(&path),
        )
    }
}

fn main() -> Result<()> {
    use gpuprover::BabyBear;
    let ctx = Context::new()?;
    println!("{:?} on {}", ctx.backend(), ctx.device_name()?);
    let mmcs = GpuMmcs::<BabyBear>::new(ctx, 1);
    let big = RowMajorMatrix::new((0..64 * 4).map(|i| i as u32 * 17 % 1000).collect(), 4);
    let small = RowMajorMatrix::new((0..16 * 2).map(|i| i as u32 + 5).collect(), 2);
    let dims = [big.dimensions(), small.dimensions()];
    let (commit, data) = mmcs.commit(vec![big, small])?;
    println!("cap: {:?}", commit.digests);
    let (rows, proof) = mmcs.open_batch(37, &data)?;
    mmcs.verify_batch(&commit, &dims, 37, &rows, &proof)?;
    println!(
        "row 37: {:?}, path of {} digests verified",
        rows,
        proof.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuprover::{BabyBear, Backend, ContextOptions, Goldilocks, KoalaBear};
    use std::sync::Arc;

    fn cpu() -> Context {
        Context::with_options(&ContextOptions {
            backend: Backend::Cpu,
            cpu_threads: 2,
            ..ContextOptions::default()
        })
        .unwrap()
    }

    fn matrix<F: FieldType>(height: usize, width: usize, seed: u64) -> RowMajorMatrix<F::Repr>
    where
        F::Repr: TryFrom<u64>,
        <F::Repr as TryFrom<u64>>::Error: std::fmt::Debug,
    {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let values = (0..height * width)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                F::Repr::try_from(x % F::MODULUS).unwrap()
            })
            .collect();
        RowMajorMatrix::new(values, width)
    }

    fn assert_shapes<T: Clone + Send + Sync>() {}

    #[test]
    fn mmcs_and_prover_data_are_clone_send_sync() {
        assert_shapes::<GpuMmcs<BabyBear>>();
        fn send_sync<T: Send + Sync>() {}
        send_sync::<GpuProverData>();
    }

    fn round_trip<F: FieldType>()
    where
        F::Repr: TryFrom<u64> + PartialEq,
        <F::Repr as TryFrom<u64>>::Error: std::fmt::Debug,
    {
        let mmcs = GpuMmcs::<F>::new(cpu(), 1);
        // Mixed heights, in Plonky3's commit order.
        let inputs = vec![
            matrix::<F>(32, 3, 1),
            matrix::<F>(32, 1, 2),
            matrix::<F>(8, 2, 3),
            matrix::<F>(4, 5, 4),
        ];
        let dims: Vec<Dimensions> = inputs.iter().map(|m| m.dimensions()).collect();
        let (commit, data) = mmcs.commit(inputs.clone()).unwrap();
        assert_eq!(commit.digests.len(), 2);
        assert_eq!(mmcs.get_max_height(&data), 32);
        let mats = mmcs.get_matrices(&data);
        assert_eq!(mats.len(), 4);
        for (buf, m) in mats.iter().zip(&inputs) {
            assert_eq!(buf.to_vec_typed::<F>(Layout::RowMajor).unwrap(), m.values);
        }

        // Open every index from two threads at once, with clones of the
        // MMCS and the prover data shared through an Arc.
        let data = Arc::new(data);
        let handles: Vec<_> = (0..2usize)
            .map(|t| {
                let (mmcs, data, commit, dims, inputs) = (
                    mmcs.clone(),
                    Arc::clone(&data),
                    commit.clone(),
                    dims.clone(),
                    inputs.clone(),
                );
                std::thread::spawn(move || {
                    for index in (t..32).step_by(2) {
                        let (rows, proof) = mmcs.open_batch(index, &data).unwrap();
                        for (row, m) in rows.iter().zip(&inputs) {
                            let r = index >> (32 / m.height()).trailing_zeros();
                            assert_eq!(&row[..], m.row(r));
                        }
                        assert_eq!(proof.len(), 5 - 1, "log2(32) - cap_height");
                        mmcs.verify_batch(&commit, &dims, index, &rows, &proof)
                            .unwrap();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }

        // Tampered rows and paths do not verify.
        let (mut rows, mut proof) = mmcs.open_batch(13, &data).unwrap();
        let mut other_index_rows = rows.clone();
        let good = rows[2][1];
        rows[2][1] = F::Repr::try_from(0).unwrap();
        if good == rows[2][1] {
            rows[2][1] = F::Repr::try_from(1).unwrap();
        }
        assert_eq!(
            mmcs.verify_batch(&commit, &dims, 13, &rows, &proof)
                .unwrap_err()
                .status(),
            Status::VerifyFailed
        );
        rows[2][1] = good;
        let d = proof[1][0];
        proof[1][0] = F::Repr::try_from(if d == F::Repr::try_from(7).unwrap() {
            8
        } else {
            7
        })
        .unwrap();
        assert_eq!(
            mmcs.verify_batch(&commit, &dims, 13, &rows, &proof)
                .unwrap_err()
                .status(),
            Status::VerifyFailed
        );
        other_index_rows.swap(0, 1);
        assert!(mmcs
            .verify_batch(&commit, &dims, 13, &other_index_rows, &proof)
            .is_err());
    }

    #[test]
    fn babybear_round_trip() {
        round_trip::<BabyBear>();
    }

    #[test]
    fn koalabear_round_trip() {
        round_trip::<KoalaBear>();
    }

    #[test]
    fn goldilocks_round_trip() {
        round_trip::<Goldilocks>();
    }

    #[test]
    fn prover_data_outlives_the_mmcs_and_equals_another_context() {
        let inputs = vec![matrix::<KoalaBear>(16, 4, 9), matrix::<KoalaBear>(8, 1, 10)];
        let (commit, data) = {
            let mmcs = GpuMmcs::<KoalaBear>::new(cpu(), 0);
            mmcs.commit(inputs.clone()).unwrap()
        }; // the MMCS and its context value are gone; the data holds both
        let again = GpuMmcs::<KoalaBear>::new(cpu(), 0);
        let (commit2, _) = again.commit(inputs).unwrap();
        assert_eq!(commit, commit2);
        let (rows, proof) = again.open_batch(6, &data).unwrap();
        let dims = [
            Dimensions {
                width: 4,
                height: 16,
            },
            Dimensions {
                width: 1,
                height: 8,
            },
        ];
        again
            .verify_batch(&commit, &dims, 6, &rows, &proof)
            .unwrap();
    }
}
