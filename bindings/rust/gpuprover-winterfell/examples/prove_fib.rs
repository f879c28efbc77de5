// SPDX-License-Identifier: MIT OR Apache-2.0
//! winterfell's Fibonacci at 2^k steps, proved by the stock prover and
//! through `GpuProver`, with the time of each phase:
//!
//!   cargo run --release --example prove_fib -- [K] [HASH] [EXT]
//!
//! K: log2 of the steps (default 16); HASH: blake3_256 (default),
//! blake3_192, sha3_256, rp64_256; EXT: none, quadratic (default), cubic.
//! The stock prover's phases are timed behind `GpuProver::host_only`
//! (winterfell's own trace LDE and constraint commitment); the total is the
//! stock prover's `prove` alone. The proofs are checked byte-identical and
//! verified. GP_TEST_BACKEND=cuda|cpu chooses the library's backend
//! (default: the best present); GP_LOG=1 prints each library call.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{compare, context, fib_trace, FibProver, Same};
use gpuprover_winterfell::{GpuProver, PhaseTimes};
use winterfell::crypto::hashers::{Blake3_192, Blake3_256, Rp64_256, Sha3_256};
use winterfell::crypto::{ElementHasher, MerkleTree};
use winterfell::math::fields::f64::BaseElement;
use winterfell::{verify, AcceptableOptions, BatchingMethod, FieldExtension, ProofOptions, Prover};

fn ms(d: Duration) -> String {
    format!("{:10.1}", d.as_secs_f64() * 1e3)
}

/// `Blake3_256` for `winter_crypto::hash::blake::Blake3_256<...>`.
fn hasher_name<H>() -> &'static str {
    let full = std::any::type_name::<H>();
    let path = full.split('<').next().unwrap_or(full);
    path.rsplit("::").next().unwrap_or(path)
}

fn run<H: ElementHasher<BaseField = BaseElement> + Sync + 'static>(k: u32, options: ProofOptions) {
    let n = 1usize << k;
    let ctx = context();
    if std::env::var_os("GP_LOG").is_some() {
        // One line per library call (entry point, status, wall time).
        ctx.set_log(|line| eprintln!("  {line}")).expect("a log callback");
        eprintln!("(the warm-up proof's calls, then the timed proof's)");
    }
    println!(
        "Fibonacci, 2^{k} steps (2 columns), blowup {}, {} queries, {:?} extension, {}",
        options.blowup_factor(),
        options.num_queries(),
        options.field_extension(),
        hasher_name::<H>(),
    );
    println!(
        "gpuprover on {} ({:?} backend)",
        ctx.device_name().unwrap_or_default(),
        ctx.backend()
    );

    let start = Instant::now();
    let trace = fib_trace(n);
    let result = trace.get(1, n - 1);
    println!("trace built in {} ms", ms(start.elapsed()).trim());

    // The stock prover alone, then its phases behind host_only, then the
    // library; each after one proof of the same size (twiddles, the
    // library's scratch and staging, the allocator's pages).
    let stock = FibProver::<H>::new(options.clone());
    let host = GpuProver::host_only(FibProver::<H>::new(options.clone()));
    let gpu = GpuProver::new(FibProver::<H>::new(options.clone()), &ctx);
    stock.prove(fib_trace(n)).expect("warm-up");
    host.prove(fib_trace(n)).expect("warm-up");
    gpu.prove(fib_trace(n)).expect("warm-up");

    let start = Instant::now();
    let expected = stock.prove(fib_trace(n)).expect("stock proof");
    let stock_total = start.elapsed();

    let start = Instant::now();
    let host_proof = host.prove(fib_trace(n)).expect("host-only proof");
    let host_total = start.elapsed();
    let host_phases = host.phase_times();

    let before = gpu.stats();
    let start = Instant::now();
    let proof = gpu.prove(trace).expect("gpuprover proof");
    let gpu_total = start.elapsed();
    let gpu_phases = gpu.phase_times();

    type Column = fn(&PhaseTimes) -> Duration;
    let rows: [(&str, Column); 5] = [
        ("trace LDE + commit", |t| t.trace_commit),
        ("constraint evaluation", |t| t.constraint_evaluation),
        ("constraint commitment", |t| t.constraint_commitment),
        ("DEEP / FRI", |t| t.deep_fri),
        ("queries", |t| t.queries),
    ];
    println!("{:<24}{:>14}{:>14}", "phase (ms)", "stock", "gpuprover");
    for (name, f) in rows {
        println!("{:<24}{:>14}{:>14}", name, ms(f(&host_phases)), ms(f(&gpu_phases)));
    }
    println!("{:<24}{:>14}{:>14}", "prove (total)", ms(stock_total), ms(gpu_total));
    println!("{:<24}{:>14}", "prove (host_only total)", ms(host_total));

    // Byte-identical; with the `concurrent` feature possibly only up to the
    // nonce winterfell's parallel search picks (common::Same).
    let same = compare(&proof, &expected).and_then(|a| Ok((a, compare(&host_proof, &expected)?)));
    let accept = AcceptableOptions::OptionSet(vec![options]);
    let verified =
        verify::<common::FibAir, H, winterfell::crypto::DefaultRandomCoin<H>, MerkleTree<H>>(proof, result, &accept);
    let stats = gpu.stats();
    println!(
        "proof {} bytes; identical to the stock proof: {}; verified: {}; library commitments: {} trace, {} constraint; winterfell's code: {} trace, {} constraint{}",
        expected.to_bytes().len(),
        match &same {
            Ok((Same::Bytes, _)) => "yes".to_string(),
            Ok(_) => "yes up to the proof-of-work nonce (winterfell's concurrent search picked another)".to_string(),
            Err(e) => format!("NO ({e})"),
        },
        if verified.is_ok() { "yes" } else { "NO" },
        stats.device_trace_segments - before.device_trace_segments,
        stats.device_constraint_commitments - before.device_constraint_commitments,
        stats.host_trace_segments - before.host_trace_segments,
        stats.host_constraint_commitments - before.host_constraint_commitments,
        stats.last_fallback.map(|w| format!(" ({w})")).unwrap_or_default(),
    );
    assert!(same.is_ok() && verified.is_ok());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: u32 = args.get(1).map_or(16, |s| s.parse().expect("K: log2 of the steps"));
    assert!((3..=30).contains(&k), "K must be in [3, 30]");
    let ext = match args.get(3).map_or("quadratic", String::as_str) {
        "none" => FieldExtension::None,
        "quadratic" => FieldExtension::Quadratic,
        "cubic" => FieldExtension::Cubic,
        other => panic!("EXT: none, quadratic or cubic, not {other}"),
    };
    let options = ProofOptions::new(32, 8, 0, ext, 8, 31, BatchingMethod::Linear, BatchingMethod::Linear);
    match args.get(2).map_or("blake3_256", String::as_str) {
        "blake3_256" => run::<Blake3_256<BaseElement>>(k, options),
        "blake3_192" => run::<Blake3_192<BaseElement>>(k, options),
        "sha3_256" => run::<Sha3_256<BaseElement>>(k, options),
        "rp64_256" => run::<Rp64_256>(k, options),
        other => panic!("HASH: blake3_256, blake3_192, sha3_256 or rp64_256, not {other}"),
    }
}
