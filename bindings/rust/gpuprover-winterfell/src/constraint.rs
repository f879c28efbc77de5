// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`GpuConstraintCommitment`]: winterfell's `ConstraintCommitment` with the
//! composition columns extended and committed by the library.

use std::time::Instant;

use winter_air::PartitionOptions;
use winter_prover::crypto::{ElementHasher, Hasher, MerkleTree};
use winter_prover::math::fields::f64::BaseElement;
use winter_prover::math::FieldElement;
use winter_prover::proof::Queries;
use winter_prover::{CompositionPoly, CompositionPolyTrace, ConstraintCommitment, StarkDomain};

use crate::committer::{Committer, Phase};
use crate::segment::Committed;

/// winterfell's [`ConstraintCommitment`] for `f64` whose composition
/// columns are extended and committed by the library.
///
/// winterfell 0.13 builds the composition polynomial's columns with
/// `CompositionPoly::new`, its only constructor, which interpolates the
/// constraint evaluations (on `offset * <g_ce>`) on the CPU and splits the
/// coefficients into `D` columns of `N`; the prover needs that value (OOD
/// frame, DEEP composition), so it is made there, once. The library then
/// takes the columns' coefficients: each column's values on the trace
/// domain (`gp_ntt_batch`) and its LDE on `offset * <g_lde>`
/// (`gp_lde_batch`), both with winterfell's roots, and the rows' tree
/// (`gp_merkle_commit`, `MerkleKind::Winterfell`). `D` is usually below the
/// constraint blowup `C`, which `gp_constraint_commit` does not take.
///
/// The commitment and openings equal `DefaultConstraintCommitment<E, H,
/// MerkleTree<H>>`'s. What the library does not commit (as for
/// [`GpuTraceLde`](crate::GpuTraceLde)) is committed by winterfell's code
/// from the same columns, counted in [`Committer::stats`].
pub struct GpuConstraintCommitment<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement>,
{
    columns: Committed<E, H>,
    committer: Committer,
}

impl<E, H> GpuConstraintCommitment<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement> + 'static,
{
    /// Commits the composition polynomial of `composition_poly_trace` in
    /// `num_constraint_composition_columns` columns, as
    /// `DefaultConstraintCommitment::new` does, on `committer`'s context;
    /// returns the commitment and the polynomial.
    pub fn new(
        committer: &Committer,
        composition_poly_trace: CompositionPolyTrace<E>,
        num_constraint_composition_columns: usize,
        domain: &StarkDomain<BaseElement>,
        partition_options: PartitionOptions,
    ) -> (Self, CompositionPoly<E>) {
        let poly = CompositionPoly::new(composition_poly_trace, domain, num_constraint_composition_columns);
        assert_eq!(poly.num_columns(), num_constraint_composition_columns);
        assert_eq!(poly.column_degree(), domain.trace_length() - 1);
        let columns = committer.commit_composition::<E, H>(poly.data(), domain, partition_options);
        assert_eq!(columns.num_rows(), domain.lde_domain_size());
        (
            GpuConstraintCommitment {
                columns,
                committer: committer.clone(),
            },
            poly,
        )
    }
}

impl<E, H> GpuConstraintCommitment<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement>,
{
    /// Whether the library committed the columns.
    pub fn on_device(&self) -> bool {
        self.columns.on_device()
    }

    /// Row `i` of the columns' LDE.
    pub fn row(&self, i: usize) -> &[E] {
        self.columns.row(i)
    }
}

impl<E, H> ConstraintCommitment<E> for GpuConstraintCommitment<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement> + Sync + 'static,
{
    type HashFn = H;
    type VC = MerkleTree<H>;

    fn commitment(&self) -> <H as Hasher>::Digest {
        self.columns.root()
    }

    fn query(self, positions: &[usize]) -> Queries {
        let start = Instant::now();
        let q = self.columns.query(positions, &self.committer, "constraint queries");
        self.committer.add(Phase::Queries, start.elapsed());
        q
    }
}
