// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`GpuTraceLde`]: winterfell's `TraceLde` with the LDE and row
//! commitment of each segment computed by the library.

use std::time::Instant;

use winter_air::PartitionOptions;
use winter_prover::crypto::{ElementHasher, MerkleTree};
use winter_prover::math::fields::f64::BaseElement;
use winter_prover::math::FieldElement;
use winter_prover::matrix::ColMatrix;
use winter_prover::proof::Queries;
use winter_prover::{EvaluationFrame, StarkDomain, TraceInfo, TraceLde, TracePolyTable};

use crate::committer::{Committer, Phase};
use crate::segment::Committed;

/// winterfell's [`TraceLde`] for `f64` whose segments (the main trace over
/// the base field, the auxiliary one over `E`: `BaseElement`,
/// `QuadExtension` or `CubeExtension`) are extended and committed by the
/// library: each is uploaded once, interpolated on the trace domain and
/// evaluated on `offset * <g_lde>` in winterfell's natural row order with
/// winterfell's roots of unity (`gp_lde_batch` and `gp_ntt_batch` with
/// `root`), its rows committed as winter-crypto's `MerkleTree<H>` commits
/// them (`gp_merkle_commit`, `MerkleKind::Winterfell`), and the LDE and the
/// column polynomials downloaded for winterfell's constraint evaluator,
/// frames, OOD evaluation and openings. Openings take their paths from the
/// library's tree and merge them as `MerkleTree::open_many` does.
///
/// Everything it returns equals `DefaultTraceLde<E, H, MerkleTree<H>>`'s
/// (the commitments, frames, polynomials, openings): a proof made with it is
/// the stock prover's. A segment the library does not commit is extended
/// and committed by winterfell's code (the calls `DefaultTraceLde` makes),
/// counted in [`Committer::stats`]: rows hashed in several partitions
/// (`PartitionOptions` with more than one part for the segment's width), a
/// hasher other than `Blake3_256`, `Blake3_192`, `Sha3_256` and `Rp64_256`,
/// a host-only committer, or a call the library refuses.
pub struct GpuTraceLde<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement>,
{
    main: Committed<BaseElement, H>,
    aux: Option<Committed<E, H>>,
    blowup: usize,
    trace_info: TraceInfo,
    partition_options: PartitionOptions,
    committer: Committer,
}

impl<E, H> GpuTraceLde<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement> + 'static,
{
    /// Extends and commits the main segment, as
    /// `DefaultTraceLde::new(trace_info, main_trace, domain,
    /// partition_options)`, on `committer`'s context; returns the trace LDE
    /// and the table of the trace polynomials.
    pub fn new(
        committer: &Committer,
        trace_info: &TraceInfo,
        main_trace: &ColMatrix<BaseElement>,
        domain: &StarkDomain<BaseElement>,
        partition_options: PartitionOptions,
    ) -> (Self, TracePolyTable<E>) {
        let (main, polys) = committer.commit_trace::<BaseElement, H>(main_trace, domain, partition_options);
        assert_eq!(main.num_rows(), domain.lde_domain_size());
        let lde = GpuTraceLde {
            main,
            aux: None,
            blowup: domain.trace_to_lde_blowup(),
            trace_info: trace_info.clone(),
            partition_options,
            committer: committer.clone(),
        };
        (lde, TracePolyTable::new(polys))
    }
}

impl<E, H> GpuTraceLde<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement>,
{
    /// Whether the library committed the main segment (else winterfell's
    /// code did).
    pub fn main_on_device(&self) -> bool {
        self.main.on_device()
    }

    /// Whether the library committed the auxiliary segment; `None` without
    /// one.
    pub fn aux_on_device(&self) -> Option<bool> {
        self.aux.as_ref().map(Committed::on_device)
    }

    /// Row `i` of the main segment's LDE (the value at `offset * g_lde^i`
    /// of every column).
    pub fn main_row(&self, i: usize) -> &[BaseElement] {
        self.main.row(i)
    }

    /// Row `i` of the auxiliary segment's LDE, if there is one.
    pub fn aux_row(&self, i: usize) -> Option<&[E]> {
        self.aux.as_ref().map(|a| a.row(i))
    }

    /// Columns of the main segment.
    pub fn main_width(&self) -> usize {
        self.main.num_cols()
    }
}

impl<E, H> TraceLde<E> for GpuTraceLde<E, H>
where
    E: FieldElement<BaseField = BaseElement>,
    H: ElementHasher<BaseField = BaseElement> + Sync + 'static,
{
    type HashFn = H;
    type VC = MerkleTree<H>;

    fn get_main_trace_commitment(&self) -> H::Digest {
        self.main.root()
    }

    fn set_aux_trace(
        &mut self,
        aux_trace: &ColMatrix<E>,
        domain: &StarkDomain<BaseElement>,
    ) -> (ColMatrix<E>, H::Digest) {
        let start = Instant::now();
        let (aux, polys) = self
            .committer
            .commit_trace::<E, H>(aux_trace, domain, self.partition_options);
        assert!(
            usize::from(self.aux.is_some()) < self.trace_info.num_aux_segments(),
            "the auxiliary trace has already been added"
        );
        assert_eq!(
            self.main.num_rows(),
            aux.num_rows(),
            "the number of rows in the auxiliary segment must be the same as in the main segment"
        );
        let root = aux.root();
        self.aux = Some(aux);
        self.committer.add(Phase::TraceCommit, start.elapsed());
        (polys, root)
    }

    fn read_main_trace_frame_into(&self, lde_step: usize, frame: &mut EvaluationFrame<BaseElement>) {
        // At the end of the trace, the next state wraps around.
        let next = (lde_step + self.blowup) % self.trace_len();
        frame.current_mut().copy_from_slice(self.main.row(lde_step));
        frame.next_mut().copy_from_slice(self.main.row(next));
    }

    fn read_aux_trace_frame_into(&self, lde_step: usize, frame: &mut EvaluationFrame<E>) {
        let next = (lde_step + self.blowup) % self.trace_len();
        let aux = self.aux.as_ref().expect("expected aux segment to be present");
        frame.current_mut().copy_from_slice(aux.row(lde_step));
        frame.next_mut().copy_from_slice(aux.row(next));
    }

    fn query(&self, positions: &[usize]) -> Vec<Queries> {
        self.committer.since_mark(Phase::DeepFri);
        let start = Instant::now();
        let mut result = vec![self.main.query(positions, &self.committer, "trace queries")];
        if let Some(aux) = &self.aux {
            result.push(aux.query(positions, &self.committer, "trace queries"));
        }
        self.committer.add(Phase::Queries, start.elapsed());
        result
    }

    fn trace_len(&self) -> usize {
        self.main.num_rows()
    }

    fn blowup(&self) -> usize {
        self.blowup
    }

    fn trace_info(&self) -> &TraceInfo {
        &self.trace_info
    }
}
