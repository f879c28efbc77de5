// SPDX-License-Identifier: MIT OR Apache-2.0
//! Proofs through `GpuProver` against the stock prover: byte-identical
//! (`Proof::to_bytes`; with winterfell's `concurrent` feature, equal up to
//! the proof-of-work nonce its parallel search picks, see
//! `common::Same`), accepted by winterfell's `verify`, rejected once a
//! commitment or an opening is changed; for each test AIR, each hasher
//! winterfell provers use and each field extension, with the library's
//! paths counted (every commitment on the library unless the test is about
//! a fallback).

mod common;

use common::*;
use gpuprover::Context;
use gpuprover_winterfell::{CommitStats, GpuProver};
use winter_prover::proof::{Commitments, Queries};
use winter_prover::{Deserializable, Serializable, SliceReader};
use winterfell::crypto::hashers::{Blake3_192, Blake3_256, Rp64_256, RpJive64_256, Sha3_256};
use winterfell::crypto::{BatchMerkleProof, ElementHasher, Hasher, MerkleTree};
use winterfell::math::fields::f64::BaseElement;
use winterfell::math::FieldElement;
use winterfell::{verify, AcceptableOptions, Air, ByteWriter, FieldExtension, Proof, Prover};

/// Proves `trace()` with `make()` (a stock prover) and with
/// `GpuProver::new(make(), ctx)`; checks the bytes are equal, the proof
/// verifies and its tampered variants do not; returns the GpuProver's
/// counters.
fn check<P>(make: impl Fn() -> P, trace: impl Fn() -> P::Trace, ctx: &Context) -> CommitStats
where
    P: Prover<BaseField = BaseElement, VC = MerkleTree<<P as Prover>::HashFn>>,
    P::HashFn: ElementHasher<BaseField = BaseElement> + Sync + 'static,
    <P::Air as Air>::PublicInputs: Send + Clone,
{
    let gpu = GpuProver::new(make(), ctx);
    check_with(make, trace, &gpu);
    assert!(gpu.phase_times().total() > std::time::Duration::ZERO);
    gpu.stats()
}

/// As `check`, through the given wrapper; returns the proof.
fn check_with<P>(make: impl Fn() -> P, trace: impl Fn() -> P::Trace, gpu: &GpuProver<P>) -> Proof
where
    P: Prover<BaseField = BaseElement, VC = MerkleTree<<P as Prover>::HashFn>>,
    P::HashFn: ElementHasher<BaseField = BaseElement> + Sync + 'static,
    <P::Air as Air>::PublicInputs: Send + Clone,
{
    let stock = make();
    let t = trace();
    let pub_inputs = stock.get_pub_inputs(&t);
    let accept = AcceptableOptions::OptionSet(vec![stock.options().clone()]);
    let expected = stock.prove(t).expect("the stock proof");
    let proof = gpu.prove(trace()).expect("the proof through GpuProver");
    compare(&proof, &expected).expect("the proof equals the stock prover's");
    type Vc<P> = MerkleTree<<P as Prover>::HashFn>;
    verify::<P::Air, P::HashFn, P::RandomCoin, Vc<P>>(proof.clone(), pub_inputs.clone(), &accept)
        .expect("winterfell's verifier accepts the proof");
    for (what, bad) in tampered::<P::HashFn>(&proof) {
        let r = verify::<P::Air, P::HashFn, P::RandomCoin, Vc<P>>(bad, pub_inputs.clone(), &accept);
        assert!(r.is_err(), "a proof with a changed {what} verified");
    }
    proof
}

/// Copies of `proof` with one thing changed: each trace commitment, the
/// constraint commitment, a value and a path digest of the main trace's
/// openings, the auxiliary and constraint openings' last byte.
fn tampered<H: ElementHasher<BaseField = BaseElement>>(proof: &Proof) -> Vec<(String, Proof)> {
    let digest = H::Digest::default().to_bytes().len();
    let segments = proof.trace_queries.len();
    let mut out = Vec::new();
    // Commitments: a u16 length, then the trace roots, the constraint
    // root, the FRI roots.
    for (what, at) in (0..segments)
        .map(|s| (format!("trace commitment {s}"), s * digest))
        .chain([("constraint commitment".to_string(), segments * digest)])
    {
        let mut bytes = proof.commitments.to_bytes();
        bytes[2 + at] ^= 1;
        let mut p = proof.clone();
        p.commitments = Commitments::read_from_bytes(&bytes).unwrap();
        out.push((what, p));
    }
    // The main trace's openings, parsed: one row value, one path digest.
    let (lde, queries) = (proof.context.lde_domain_size(), proof.num_unique_queries as usize);
    let width = proof.trace_info().main_trace_width();
    let (paths, rows) = proof.trace_queries[0]
        .clone()
        .parse::<BaseElement, H, MerkleTree<H>>(lde, queries, width)
        .expect("the main trace openings parse");
    let rows: Vec<Vec<BaseElement>> = rows.rows().map(<[_]>::to_vec).collect();
    let mut changed = rows.clone();
    changed[0][0] += BaseElement::ONE;
    let mut p = proof.clone();
    p.trace_queries[0] = Queries::new::<H, BaseElement, MerkleTree<H>>(copy(&paths), changed);
    out.push(("main trace row value".into(), p));
    let mut bad_paths = copy(&paths);
    let node = bad_paths
        .nodes
        .iter_mut()
        .find(|n| !n.is_empty())
        .expect("a path digest");
    let mut bytes = node[0].to_bytes();
    bytes[0] ^= 1;
    node[0] = H::Digest::read_from_bytes(&bytes).unwrap();
    let mut p = proof.clone();
    p.trace_queries[0] = Queries::new::<H, BaseElement, MerkleTree<H>>(bad_paths, rows);
    out.push(("main trace path digest".into(), p));
    // The other openings: their last byte (a path digest's).
    let last_byte = |q: &Queries| {
        let mut bytes = q.to_bytes();
        *bytes.last_mut().unwrap() ^= 1;
        Queries::read_from_bytes(&bytes).unwrap()
    };
    if segments > 1 {
        let mut p = proof.clone();
        p.trace_queries[1] = last_byte(&p.trace_queries[1]);
        out.push(("auxiliary trace opening".into(), p));
    }
    let mut p = proof.clone();
    p.constraint_queries = last_byte(&p.constraint_queries);
    out.push(("constraint opening".into(), p));
    // A value of the constraint openings: the first value byte, after
    // the values' length.
    let mut bytes = proof.constraint_queries.to_bytes();
    let values = Vec::<u8>::read_from(&mut SliceReader::new(&bytes)).unwrap();
    let mut prefix = Vec::new();
    prefix.write_usize(values.len());
    bytes[prefix.len()] ^= 1;
    let mut p = proof.clone();
    p.constraint_queries = Queries::read_from_bytes(&bytes).unwrap();
    out.push(("constraint row value".into(), p));
    out
}

fn copy<H: Hasher>(p: &BatchMerkleProof<H>) -> BatchMerkleProof<H> {
    BatchMerkleProof {
        nodes: p.nodes.clone(),
        depth: p.depth,
    }
}

/// The library committed every segment and the constraints, `segments`
/// trace segments per proof.
fn all_device(stats: &CommitStats, segments: u64) {
    assert_eq!(
        (
            stats.device_trace_segments,
            stats.host_trace_segments,
            stats.device_constraint_commitments,
            stats.host_constraint_commitments
        ),
        (segments, 0, 1, 0),
        "{stats:?}"
    );
    assert_eq!(stats.host_openings, 0, "{stats:?}");
}

const EXTENSIONS: [FieldExtension; 3] = [FieldExtension::None, FieldExtension::Quadratic, FieldExtension::Cubic];

macro_rules! per_hasher {
    ($($name:ident: $h:ty),* $(,)?) => {$(
        mod $name {
            use super::*;
            type H = $h;

            #[test]
            fn fibonacci() {
                let ctx = context();
                for ext in EXTENSIONS {
                    let stats = check(|| FibProver::<H>::new(options(20, 8, ext)), || fib_trace(64), &ctx);
                    all_device(&stats, 1);
                }
            }

            #[test]
            fn rescue() {
                let ctx = context();
                for ext in [FieldExtension::None, FieldExtension::Quadratic] {
                    let stats = check(|| RescueProver::<H>::new(options(20, 8, ext)), || rescue_trace(64), &ctx);
                    all_device(&stats, 1);
                }
            }

            #[test]
            fn auxiliary_segment() {
                let ctx = context();
                for ext in [FieldExtension::Quadratic, FieldExtension::Cubic] {
                    let stats = check(|| AuxProver::<H>::new(options(20, 4, ext)), || AuxTrace::new(64), &ctx);
                    all_device(&stats, 2);
                }
            }
        }
    )*};
}

per_hasher! {
    blake3_256: Blake3_256<BaseElement>,
    blake3_192: Blake3_192<BaseElement>,
    sha3_256: Sha3_256<BaseElement>,
    rp64_256: Rp64_256,
}

#[test]
fn longer_trace_and_blowups_above_the_lde_limit() {
    let ctx = context();
    type H = Blake3_256<BaseElement>;
    // 2^10 steps, blowup 16.
    let stats = check(
        || FibProver::<H>::new(options(30, 16, FieldExtension::Quadratic)),
        || fib_trace(1024),
        &ctx,
    );
    all_device(&stats, 1);
    // Blowups 64 and 128: the LDE is a forward transform of the padded
    // coefficients.
    for blowup in [64, 128] {
        let stats = check(
            || FibProver::<H>::new(options(20, blowup, FieldExtension::None)),
            || fib_trace(32),
            &ctx,
        );
        all_device(&stats, 1);
        let stats = check(
            || AuxProver::<H>::new(options(20, blowup, FieldExtension::Cubic)),
            || AuxTrace::new(32),
            &ctx,
        );
        all_device(&stats, 2);
    }
}

/// (library, winterfell's code) counts of the trace segments and of the
/// constraint commitments.
fn assert_where_committed(stats: &CommitStats, trace: (u64, u64), constraint: (u64, u64)) {
    assert_eq!(
        (stats.device_trace_segments, stats.host_trace_segments),
        trace,
        "{stats:?}"
    );
    assert_eq!(
        (stats.device_constraint_commitments, stats.host_constraint_commitments),
        constraint,
        "{stats:?}"
    );
}

#[test]
fn partitioned_rows_are_committed_by_winterfell() {
    let ctx = context();
    type H = Rp64_256;
    // Two partitions of 1 element: the 2-column main trace is hashed in
    // parts (winterfell's code), the 1-column composition is not (the
    // library).
    let stats = check(
        || FibProver::<H>::new(options(20, 8, FieldExtension::None).with_partitions(2, 1)),
        || fib_trace(64),
        &ctx,
    );
    assert_where_committed(&stats, (0, 1), (1, 0));
    assert!(stats.last_fallback.unwrap().contains("in parts"));
    // Every segment partitioned, the 7 composition columns too.
    let stats = check(
        || RescueProver::<H>::new(options(20, 8, FieldExtension::Quadratic).with_partitions(3, 4)),
        || rescue_trace(64),
        &ctx,
    );
    assert_where_committed(&stats, (0, 1), (0, 1));
}

#[test]
fn other_hashers_are_committed_by_winterfell() {
    let ctx = context();
    let stats = check(
        || AuxProver::<RpJive64_256>::new(options(20, 4, FieldExtension::Quadratic)),
        || AuxTrace::new(64),
        &ctx,
    );
    assert_eq!(
        (
            stats.device_trace_segments,
            stats.host_trace_segments,
            stats.device_constraint_commitments,
            stats.host_constraint_commitments
        ),
        (0, 2, 0, 1),
        "{stats:?}"
    );
    assert!(stats.last_fallback.unwrap().contains("RpJive64_256"));
}

#[test]
fn host_only_is_the_stock_prover_timed() {
    type H = Sha3_256<BaseElement>;
    let make = || AuxProver::<H>::new(options(20, 8, FieldExtension::Quadratic));
    let gpu = GpuProver::host_only(make());
    check_with(make, || AuxTrace::new(128), &gpu);
    let stats = gpu.stats();
    assert_eq!(
        (
            stats.device_trace_segments,
            stats.host_trace_segments,
            stats.host_constraint_commitments
        ),
        (0, 2, 1)
    );
    let t = gpu.phase_times();
    assert!(t.trace_commit > std::time::Duration::ZERO && t.constraint_commitment > std::time::Duration::ZERO);
    assert!(
        t.queries > std::time::Duration::ZERO && t.deep_fri > std::time::Duration::ZERO,
        "{t:?}"
    );
}

#[test]
fn one_prover_many_proofs_from_threads() {
    let ctx = context();
    type H = Blake3_192<BaseElement>;
    let make = || RescueProver::<H>::new(options(20, 8, FieldExtension::Quadratic));
    let expected = make().prove(rescue_trace(64)).unwrap();
    let gpu = GpuProver::new(make(), &ctx);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| compare(&gpu.prove(rescue_trace(64)).unwrap(), &expected).unwrap());
        }
    });
    let stats = gpu.stats();
    assert_eq!(
        (stats.device_trace_segments, stats.device_constraint_commitments),
        (3, 3),
        "{stats:?}"
    );
    assert_eq!(
        (stats.host_trace_segments, stats.host_constraint_commitments),
        (0, 0),
        "{stats:?}"
    );
}
