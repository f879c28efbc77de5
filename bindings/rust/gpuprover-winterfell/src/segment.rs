// SPDX-License-Identifier: MIT OR Apache-2.0
//! A committed LDE (a trace segment or the composition columns): its rows,
//! kept on the host for winterfell's constraint evaluator and openings, and
//! its tree (the library's, or winter-crypto's on the fallback path).

use std::collections::BTreeSet;

use gpuprover::MerkleTree;
use winter_prover::crypto::{
    BatchMerkleProof, ElementHasher, Hasher, MerkleTree as WinterMerkleTree, VectorCommitment,
};
use winter_prover::math::fields::f64::BaseElement;
use winter_prover::math::FieldElement;
use winter_prover::matrix::RowMatrix;
use winter_prover::proof::Queries;

use crate::committer::Committer;
use crate::hasher::digests;

enum Rows<F: FieldElement> {
    /// Downloaded from the library: row-major, `width` elements a row.
    Device { rows: Vec<F>, width: usize },
    /// winterfell's own LDE.
    Host(RowMatrix<F>),
}

enum Tree<H: ElementHasher> {
    Device(MerkleTree),
    Host(WinterMerkleTree<H>),
}

/// An LDE and the vector commitment to its rows, as `DefaultTraceLde`
/// keeps each segment and `DefaultConstraintCommitment` the composition
/// columns.
pub(crate) struct Committed<F: FieldElement<BaseField = BaseElement>, H: ElementHasher<BaseField = BaseElement>> {
    rows: Rows<F>,
    tree: Tree<H>,
    root: H::Digest,
}

impl<F, H> Committed<F, H>
where
    F: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement>,
{
    /// The library's LDE (`rows`, row-major, `width` elements a row) and
    /// tree, whose root is `root`.
    pub(crate) fn device(rows: Vec<F>, width: usize, tree: MerkleTree, root: H::Digest) -> Self {
        Committed {
            rows: Rows::Device { rows, width },
            tree: Tree::Device(tree),
            root,
        }
    }

    /// winterfell's LDE and tree.
    pub(crate) fn host(lde: RowMatrix<F>, tree: WinterMerkleTree<H>) -> Self {
        let root = tree.commitment();
        Committed {
            rows: Rows::Host(lde),
            tree: Tree::Host(tree),
            root,
        }
    }

    /// Whether the library built it.
    pub(crate) fn on_device(&self) -> bool {
        matches!(self.tree, Tree::Device(_))
    }

    /// The commitment (the tree's root).
    pub(crate) fn root(&self) -> H::Digest {
        self.root
    }

    /// Row `i` of the LDE.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[F] {
        match &self.rows {
            Rows::Device { rows, width } => &rows[i * width..(i + 1) * width],
            Rows::Host(m) => m.row(i),
        }
    }

    /// Rows of the LDE.
    pub(crate) fn num_rows(&self) -> usize {
        match &self.rows {
            Rows::Device { rows, width } => rows.len() / width,
            Rows::Host(m) => m.num_rows(),
        }
    }

    /// Columns of the LDE.
    pub(crate) fn num_cols(&self) -> usize {
        match &self.rows {
            Rows::Device { width, .. } => *width,
            Rows::Host(m) => m.num_cols(),
        }
    }

    /// The rows at `positions` and their batch opening, as winterfell's
    /// `build_segment_queries` (and the constraint commitment's `query`)
    /// serialize them. `what` names the openings in a panic, as winterfell
    /// does when `positions` is empty, repeats an index or runs past the
    /// end.
    pub(crate) fn query(&self, positions: &[usize], committer: &Committer, what: &str) -> Queries {
        let values: Vec<Vec<F>> = positions.iter().map(|&p| self.row(p).to_vec()).collect();
        let proof = match &self.tree {
            Tree::Host(tree) => open_many(tree, positions, what),
            Tree::Device(tree) => {
                let n = self.num_rows();
                let distinct = positions.iter().collect::<BTreeSet<_>>().len() == positions.len();
                if positions.is_empty() || !distinct || positions.iter().any(|&p| p >= n) {
                    panic!(
                        "failed to generate a batch opening proof for {what}: positions {positions:?} of {n} leaves"
                    );
                }
                match self.device_proof(tree, positions, &values) {
                    Ok(proof) => proof,
                    Err(why) => {
                        // The rows are here: the stock tree of them opens
                        // the same proof.
                        committer.count_host_opening(format!("opening the {what}: {why}"));
                        let leaves = (0..n).map(|i| H::hash_elements(self.row(i))).collect();
                        let tree = WinterMerkleTree::<H>::new(leaves).expect("a tree of the kept rows");
                        open_many(&tree, positions, what)
                    }
                }
            }
        };
        Queries::new::<H, F, WinterMerkleTree<H>>(proof, values)
    }

    /// The batch proof of `positions` (distinct, in range) from the
    /// library's paths, merged by winter-crypto's `from_single_proofs` as
    /// `open_many` merges them.
    fn device_proof(
        &self,
        tree: &MerkleTree,
        positions: &[usize],
        values: &[Vec<F>],
    ) -> Result<BatchMerkleProof<H>, String> {
        let paths = tree.open_paths(positions).map_err(|e| e.to_string())?;
        let openings = paths
            .iter()
            .zip(values)
            .map(|(path, row)| Ok((H::hash_elements(row), digests::<H>(path)?)))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(BatchMerkleProof::from_single_proofs(&openings, positions))
    }
}

fn open_many<H: Hasher>(tree: &WinterMerkleTree<H>, positions: &[usize], what: &str) -> BatchMerkleProof<H> {
    tree.open_many(positions)
        .unwrap_or_else(|e| panic!("failed to generate a batch opening proof for {what}: {e}"))
        .1
}

#[cfg(test)]
mod tests {
    //! The library's openings are single paths merged by
    //! `BatchMerkleProof::from_single_proofs`: for the sorted, distinct
    //! positions winterfell draws that is `MerkleTree::open_many`'s proof.

    use winter_prover::crypto::hashers::{Blake3_192, Rp64_256};
    use winter_prover::crypto::Hasher;

    use super::*;

    fn merged_equals_open_many<H: Hasher>() {
        let mut s = 0x1234_5678u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for depth in 1..8 {
            let leaves: Vec<H::Digest> = (0..1u64 << depth).map(|i| H::hash(&i.to_le_bytes())).collect();
            let tree = WinterMerkleTree::<H>::new(leaves).unwrap();
            for count in [1usize, 2, 3, 9, 40] {
                let set: BTreeSet<usize> = (0..count).map(|_| next() as usize % (1 << depth)).collect();
                let positions: Vec<usize> = set.into_iter().collect();
                let singles: Vec<_> = positions.iter().map(|&p| tree.prove(p).unwrap()).collect();
                let merged = BatchMerkleProof::<H>::from_single_proofs(&singles, &positions);
                let (_, stock) = tree.open_many(&positions).unwrap();
                assert!(
                    merged.depth == stock.depth && merged.nodes == stock.nodes,
                    "depth {depth}, positions {positions:?}"
                );
            }
        }
    }

    #[test]
    fn from_single_proofs_is_open_many() {
        merged_equals_open_many::<Blake3_192<BaseElement>>();
        merged_equals_open_many::<Rp64_256>();
    }
}
