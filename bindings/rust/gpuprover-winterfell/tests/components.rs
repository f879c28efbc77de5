// SPDX-License-Identifier: MIT OR Apache-2.0
//! `GpuTraceLde` against `DefaultTraceLde` and `GpuConstraintCommitment`
//! against `DefaultConstraintCommitment`, outside a prover: commitments,
//! every LDE row (through the frames), the trace polynomials, openings;
//! for each hasher and extension, blowups inside and above the LDE's limit.

mod common;

use common::*;
use gpuprover_winterfell::{library_hash, Committer, GpuConstraintCommitment, GpuTraceLde};
use winter_prover::ConstraintCommitment;
use winterfell::crypto::hashers::{Blake3_192, Blake3_256, Rp64_256, RpJive64_256, Sha3_256};
use winterfell::crypto::{ElementHasher, MerkleTree};
use winterfell::math::fields::f64::BaseElement;
use winterfell::math::fields::{CubeExtension, QuadExtension};
use winterfell::math::{fft, FieldElement, StarkField};
use winterfell::matrix::ColMatrix;
use winterfell::{
    CompositionPolyTrace, DefaultConstraintCommitment, DefaultTraceLde, EvaluationFrame, PartitionOptions, StarkDomain,
    TraceInfo, TraceLde,
};

type Quad = QuadExtension<BaseElement>;
type Cube = CubeExtension<BaseElement>;

fn domain(n: usize, blowup: usize) -> StarkDomain<B> {
    StarkDomain::from_twiddles(fft::get_twiddles::<B>(n), blowup, B::GENERATOR)
}

fn matrix<E: FieldElement<BaseField = B>>(rng: &mut Rng, n: usize, cols: usize) -> ColMatrix<E> {
    ColMatrix::new((0..cols).map(|_| rng.elements::<E>(n)).collect())
}

/// Positions as winterfell draws them: sorted, distinct.
fn positions(rng: &mut Rng, size: usize, count: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..count).map(|_| rng.next() as usize % size).collect();
    p.sort_unstable();
    p.dedup();
    p
}

fn trace_lde<E, H>(committer: &Committer, n: usize, blowup: usize, main_width: usize, aux_width: usize)
where
    E: FieldElement<BaseField = B>,
    H: ElementHasher<BaseField = B> + Sync + 'static,
{
    let what = format!(
        "{} n = {n}, blowup {blowup}, E of degree {}",
        std::any::type_name::<H>(),
        E::EXTENSION_DEGREE
    );
    let mut rng = Rng(n as u64 * 1000 + blowup as u64);
    let info = TraceInfo::new_multi_segment(main_width, aux_width, 1, n, vec![]);
    let d = domain(n, blowup);
    let main = matrix::<B>(&mut rng, n, main_width);
    let po = PartitionOptions::default();
    let (mut gpu, gpu_polys) = GpuTraceLde::<E, H>::new(committer, &info, &main, &d, po);
    let (mut stock, stock_polys) = DefaultTraceLde::<E, H, MerkleTree<H>>::new(&info, &main, &d, po);
    assert!(gpu.main_on_device(), "{what}: {:?}", committer.stats());
    assert_eq!(
        gpu.get_main_trace_commitment(),
        stock.get_main_trace_commitment(),
        "{what}"
    );
    assert_eq!((gpu.trace_len(), gpu.blowup()), (stock.trace_len(), stock.blowup()));
    let polys = |t: &winterfell::TracePolyTable<E>| t.main_trace_polys().map(<[B]>::to_vec).collect::<Vec<_>>();
    assert!(
        polys(&gpu_polys) == polys(&stock_polys),
        "{what}: main trace polynomials"
    );

    let aux = matrix::<E>(&mut rng, n, aux_width);
    let (gpu_aux_polys, gpu_root) = gpu.set_aux_trace(&aux, &d);
    let (stock_aux_polys, stock_root) = stock.set_aux_trace(&aux, &d);
    assert_eq!(gpu.aux_on_device(), Some(true), "{what}");
    assert_eq!(gpu_root, stock_root, "{what}: auxiliary commitment");
    assert!(
        gpu_aux_polys.into_columns() == stock_aux_polys.into_columns(),
        "{what}: auxiliary polynomials"
    );

    // Every row, through the frames (row step and step + blowup).
    let mut frames = (EvaluationFrame::new(main_width), EvaluationFrame::new(main_width));
    let mut aux_frames = (
        EvaluationFrame::<E>::new(aux_width),
        EvaluationFrame::<E>::new(aux_width),
    );
    for step in 0..n * blowup {
        gpu.read_main_trace_frame_into(step, &mut frames.0);
        stock.read_main_trace_frame_into(step, &mut frames.1);
        assert!(
            frames.0.current() == frames.1.current() && frames.0.next() == frames.1.next(),
            "{what}: row {step}"
        );
        gpu.read_aux_trace_frame_into(step, &mut aux_frames.0);
        stock.read_aux_trace_frame_into(step, &mut aux_frames.1);
        assert!(
            aux_frames.0.current() == aux_frames.1.current(),
            "{what}: auxiliary row {step}"
        );
        assert!(
            aux_frames.0.next() == aux_frames.1.next(),
            "{what}: auxiliary row {step}"
        );
    }
    for count in [1, 2, 7, 40] {
        let p = positions(&mut rng, n * blowup, count);
        assert!(gpu.query(&p) == stock.query(&p), "{what}: openings at {p:?}");
    }
    // Neighbours (siblings share their path) and both ends.
    let p = vec![0, 1, 2, 5, n * blowup - 2, n * blowup - 1];
    assert!(gpu.query(&p) == stock.query(&p), "{what}: openings at {p:?}");
}

fn constraint<E, H>(committer: &Committer, n: usize, blowup: usize, ce_blowup: usize, columns: usize)
where
    E: FieldElement<BaseField = B>,
    H: ElementHasher<BaseField = B> + Sync + 'static,
{
    let what = format!(
        "{} n = {n}, D = {columns}, C = {ce_blowup}, blowup {blowup}, E of degree {}",
        std::any::type_name::<H>(),
        E::EXTENSION_DEGREE
    );
    let mut rng = Rng(n as u64 * 31 + columns as u64);
    let d = domain(n, blowup);
    // A composition of degree below D n (as winterfell's is), evaluated on
    // the constraint domain offset * <g_ce>.
    let mut coefficients = rng.elements::<E>(n * columns);
    coefficients.resize(n * ce_blowup, E::ZERO);
    let twiddles = fft::get_twiddles::<B>(n * ce_blowup);
    let evaluations = fft::evaluate_poly_with_offset(&coefficients, &twiddles, d.offset(), 1);
    let po = PartitionOptions::default();
    let (gpu, gpu_poly) = GpuConstraintCommitment::<E, H>::new(
        committer,
        CompositionPolyTrace::new(evaluations.clone()),
        columns,
        &d,
        po,
    );
    let (stock, stock_poly) = DefaultConstraintCommitment::<E, H, MerkleTree<H>>::new(
        CompositionPolyTrace::new(evaluations),
        columns,
        &d,
        po,
    );
    assert!(gpu.on_device(), "{what}: {:?}", committer.stats());
    assert!(gpu_poly.into_columns() == stock_poly.into_columns(), "{what}: columns");
    assert_eq!(gpu.commitment(), stock.commitment(), "{what}: commitment");
    let p = positions(&mut rng, n * blowup, 30);
    assert!(gpu.query(&p) == stock.query(&p), "{what}: openings");
}

fn all_shapes<H: ElementHasher<BaseField = B> + Sync + 'static>() {
    assert!(library_hash::<H>().is_some());
    let committer = Committer::new(&context());
    for (n, blowup) in [(8, 2), (64, 8), (32, 32), (16, 64)] {
        trace_lde::<B, H>(&committer, n, blowup, 3, 2);
        trace_lde::<Quad, H>(&committer, n, blowup, 1, 3);
        trace_lde::<Cube, H>(&committer, n, blowup, 5, 1);
    }
    for (n, blowup, ce, d) in [(8, 2, 2, 1), (64, 8, 8, 7), (32, 16, 4, 3), (16, 64, 8, 2)] {
        constraint::<B, H>(&committer, n, blowup, ce, d);
        constraint::<Quad, H>(&committer, n, blowup, ce, d);
        constraint::<Cube, H>(&committer, n, blowup, ce, d);
    }
    let stats = committer.stats();
    assert_eq!(
        (
            stats.host_trace_segments,
            stats.host_constraint_commitments,
            stats.host_openings
        ),
        (0, 0, 0),
        "{stats:?}"
    );
}

#[test]
fn blake3_256() {
    all_shapes::<Blake3_256<B>>();
}

#[test]
fn blake3_192() {
    all_shapes::<Blake3_192<B>>();
}

#[test]
fn sha3_256() {
    all_shapes::<Sha3_256<B>>();
}

#[test]
fn rp64_256() {
    all_shapes::<Rp64_256>();
}

#[test]
fn fallbacks_equal_the_stock_types() {
    // A hasher without a library profile, and a host-only committer: the
    // same values from winterfell's code, counted.
    assert!(library_hash::<RpJive64_256>().is_none());
    let committer = Committer::new(&context());
    let n = 32;
    let mut rng = Rng(5);
    let info = TraceInfo::new(4, n);
    let d = domain(n, 8);
    let main = matrix::<B>(&mut rng, n, 4);
    let po = PartitionOptions::default();
    let (gpu, _) = GpuTraceLde::<Quad, RpJive64_256>::new(&committer, &info, &main, &d, po);
    let (stock, _) = DefaultTraceLde::<Quad, RpJive64_256, MerkleTree<RpJive64_256>>::new(&info, &main, &d, po);
    assert!(!gpu.main_on_device());
    assert_eq!(gpu.get_main_trace_commitment(), stock.get_main_trace_commitment());
    assert!(gpu.query(&[3, 9, 200]) == stock.query(&[3, 9, 200]));
    let stats = committer.stats();
    assert_eq!((stats.device_trace_segments, stats.host_trace_segments), (0, 1));

    let host = Committer::host_only();
    let (gpu, _) = GpuTraceLde::<B, Sha3_256<B>>::new(&host, &info, &main, &d, PartitionOptions::new(2, 1));
    let (stock, _) =
        DefaultTraceLde::<B, Sha3_256<B>, MerkleTree<Sha3_256<B>>>::new(&info, &main, &d, PartitionOptions::new(2, 1));
    assert_eq!(gpu.get_main_trace_commitment(), stock.get_main_trace_commitment());
    assert!(gpu.query(&[0, 255]) == stock.query(&[0, 255]));
    assert_eq!(host.stats().host_trace_segments, 1);
    assert!(host.context().is_none());
}

#[test]
#[should_panic(expected = "failed to generate a batch opening proof for trace queries")]
fn repeated_positions_panic_as_winterfell_does() {
    let committer = Committer::new(&context());
    let n = 16;
    let info = TraceInfo::new(2, n);
    let main = matrix::<B>(&mut Rng(9), n, 2);
    let (gpu, _) =
        GpuTraceLde::<B, Blake3_256<B>>::new(&committer, &info, &main, &domain(n, 4), PartitionOptions::default());
    let _ = gpu.query(&[3, 3]);
}
