// SPDX-License-Identifier: MIT OR Apache-2.0
//! Naive reference arithmetic for the tests: u128 modular arithmetic,
//! O(n^2) interpolation and evaluation, bit reversal, a small PRNG.
#![allow(dead_code)]

pub const GOLDILOCKS_P: u64 = 0xffff_ffff_0000_0001;
/// Plonky3's Goldilocks TWO_ADIC_GENERATOR (a primitive 2^32-th root of unity).
pub const GOLDILOCKS_ROOT_2_32: u64 = 0x1856_29dc_da58_878c;

pub fn add(a: u64, b: u64, p: u64) -> u64 {
    ((a as u128 + b as u128) % p as u128) as u64
}

pub fn sub(a: u64, b: u64, p: u64) -> u64 {
    ((a as u128 + p as u128 - b as u128) % p as u128) as u64
}

pub fn mul(a: u64, b: u64, p: u64) -> u64 {
    ((a as u128 * b as u128) % p as u128) as u64
}

pub fn pow(mut base: u64, mut exp: u64, p: u64) -> u64 {
    let mut acc = 1u64 % p;
    base %= p;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = mul(acc, base, p);
        }
        base = mul(base, base, p);
        exp >>= 1;
    }
    acc
}

pub fn inv(a: u64, p: u64) -> u64 {
    assert_ne!(a % p, 0);
    pow(a, p - 2, p)
}

/// The primitive 2^log_n-th root of unity of Goldilocks, from Plonky3's
/// generator (independently of the library).
pub fn goldilocks_root(log_n: u32) -> u64 {
    let mut w = GOLDILOCKS_ROOT_2_32;
    for _ in log_n..32 {
        w = mul(w, w, GOLDILOCKS_P);
    }
    w
}

/// Checks that `w` has multiplicative order exactly 2^log_n.
pub fn assert_primitive(w: u64, log_n: u32, p: u64) {
    assert_eq!(pow(w, 1u64 << log_n, p), 1, "w^(2^log_n) != 1");
    if log_n > 0 {
        assert_eq!(
            pow(w, 1u64 << (log_n - 1), p),
            p - 1,
            "w^(2^(log_n-1)) != -1"
        );
    }
}

pub fn bit_reverse(i: usize, log_n: u32) -> usize {
    if log_n == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - log_n)
    }
}

/// Coefficients of the polynomial f of degree < n with f(s * w^i) = evals[i]
/// (w a primitive n-th root of unity), by the O(n^2) inverse DFT.
pub fn interpolate(evals: &[u64], w: u64, s: u64, p: u64) -> Vec<u64> {
    let n = evals.len();
    let w_inv = inv(w, p);
    let n_inv = inv(n as u64 % p, p);
    let s_inv = inv(s, p);
    let mut coeffs = vec![0u64; n];
    let mut s_inv_k = 1u64;
    for (k, c) in coeffs.iter_mut().enumerate() {
        let step = pow(w_inv, k as u64, p);
        let mut x = 1u64;
        let mut acc = 0u64;
        for &v in evals {
            acc = add(acc, mul(v, x, p), p);
            x = mul(x, step, p);
        }
        // g(y) = f(s y) has coefficients d_k; f has d_k / s^k.
        *c = mul(mul(acc, n_inv, p), s_inv_k, p);
        s_inv_k = mul(s_inv_k, s_inv, p);
    }
    coeffs
}

/// f(x) by Horner's rule.
pub fn evaluate(coeffs: &[u64], x: u64, p: u64) -> u64 {
    coeffs
        .iter()
        .rev()
        .fold(0u64, |acc, &c| add(mul(acc, x, p), c, p))
}

/// Naive coset LDE of one column: input evaluations on s * H_n (natural
/// order, zero-padded to n), output f(g * W^j) for j < n * blowup, W the
/// primitive (n * blowup)-th root; bit-reversed order if `bitrev`.
#[allow(clippy::too_many_arguments)]
pub fn naive_lde_column(
    column: &[u64],
    n: usize,
    blowup: usize,
    root_of: &dyn Fn(u32) -> u64,
    s: u64,
    g: u64,
    bitrev: bool,
    p: u64,
) -> Vec<u64> {
    let log_n = n.trailing_zeros();
    let log_m = (n * blowup).trailing_zeros();
    let mut evals = column.to_vec();
    evals.resize(n, 0);
    let coeffs = interpolate(&evals, root_of(log_n), s, p);
    let big_w = root_of(log_m);
    (0..n * blowup)
        .map(|j| {
            let idx = if bitrev { bit_reverse(j, log_m) } else { j };
            evaluate(&coeffs, mul(g, pow(big_w, idx as u64, p), p), p)
        })
        .collect()
}

/// xorshift64*: deterministic test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A uniform-ish canonical element of F_p.
    pub fn field(&mut self, p: u64) -> u64 {
        self.next_u64() % p
    }

    pub fn vec(&mut self, len: usize, p: u64) -> Vec<u64> {
        (0..len).map(|_| self.field(p)).collect()
    }
}

/// Column-major -> row-major (and back, with rows and cols swapped).
pub fn transpose(data: &[u64], rows: usize, cols: usize) -> Vec<u64> {
    let mut out = vec![0u64; data.len()];
    for c in 0..cols {
        for r in 0..rows {
            out[r * cols + c] = data[c * rows + r];
        }
    }
    out
}

/// A Goldilocks buffer of `cols` base columns of `rows` values, column-major.
pub fn goldilocks_columns(
    ctx: &gpuprover::Context,
    data: &[u64],
    rows: usize,
    cols: usize,
) -> gpuprover::Buffer {
    gpuprover::Buffer::from_host(
        ctx,
        gpuprover::Field::Goldilocks,
        1,
        rows,
        cols,
        gpuprover::Layout::ColMajor,
        data,
    )
    .unwrap()
}

pub fn cpu() -> gpuprover::Context {
    gpuprover::Context::with_options(&gpuprover::ContextOptions {
        backend: gpuprover::Backend::Cpu,
        cpu_threads: 2,
        ..Default::default()
    })
    .expect("CPU context")
}

/// LDE (bit-reversed, blowup 4) and its Merkle root, a few openings, on a
/// context: for comparing contexts (several devices, a remote server) with
/// one in-process device.
pub fn lde_and_commit(
    ctx: &gpuprover::Context,
    trace: &[u64],
    rows: usize,
    cols: usize,
) -> (Vec<u64>, Vec<u8>, Vec<gpuprover::MerkleOpening<u64>>) {
    use gpuprover::{Buffer, Field, Layout, LdeOptions, MerkleOptions, Order};
    let options = LdeOptions {
        blowup: 4,
        output_order: Order::BitReversed,
        ..LdeOptions::default()
    };
    let mut lde = Buffer::new(ctx, Field::Goldilocks, 1, rows * 4, cols).unwrap();
    ctx.lde_host(Field::Goldilocks, 1, trace, rows, cols, &options, &mut lde)
        .unwrap();
    let values = lde.to_vec::<u64>(Layout::ColMajor).unwrap();
    let tree = ctx
        .merkle_commit(&[&lde], &MerkleOptions::default())
        .unwrap();
    let root = tree.root().unwrap();
    let openings = tree.open::<u64>(&[0, 5, rows * 4 - 1]).unwrap();
    for opening in &openings {
        tree.verify(opening).unwrap();
    }
    (values, root, openings)
}

/// Checks an opening of `tree` with the tree's own verifier and with the
/// free `merkle_verify` against `root`, then that flipping `mask` in byte
/// `byte` of its path fails with `Status::VerifyFailed`.
pub fn verify_opening_and_tamper(
    tree: &gpuprover::MerkleTree,
    field: gpuprover::Field,
    root: &[u8],
    o: &gpuprover::MerkleOpening<u64>,
    byte: usize,
    mask: u8,
) {
    tree.verify(o).unwrap();
    gpuprover::merkle_verify(
        tree.options(),
        field,
        tree.dims(),
        root,
        o.index,
        &o.rows,
        &o.path,
    )
    .unwrap();
    let mut bad = o.clone();
    bad.path[byte] ^= mask;
    assert_eq!(
        tree.verify(&bad).unwrap_err().status(),
        gpuprover::Status::VerifyFailed
    );
}
