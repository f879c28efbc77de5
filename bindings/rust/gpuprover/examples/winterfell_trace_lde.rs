// SPDX-License-Identifier: MIT OR Apache-2.0
//! A winterfell-shaped trace LDE on gpuprover.
//!
//! `GpuTraceLde` has the shape of winterfell's `DefaultTraceLde` (the
//! prover's `TraceLde` trait) over Goldilocks (`f64::BaseElement`): `new`
//! takes the main trace segment (columns of a `ColMatrix`) and the blowup,
//! extends every column to the LDE domain `offset * <w>` (offset the field
//! generator 7, natural row order, as winterfell's `StarkDomain`) and commits
//! the rows with the RPO256 Merkle tree of miden-crypto (winterfell's
//! `MerkleTree<Rpo256>` vector commitment); it also returns the trace
//! polynomials (`TracePolyTable`). `get_main_trace_commitment`,
//! `set_aux_trace` (columns of the quadratic extension),
//! `read_main_trace_frame_into` / `read_aux_trace_frame_into`, `query`,
//! `get_main_segment`, `trace_len` and `blowup` follow.
//!
//! It is `Send + Sync` (winterfell's `TraceLde: Sync`): the trees hold the
//! LDEs (on the device for the CUDA backend) and the context, without
//! lifetimes or locks; the host copy used for frames is made once.
//!
//! The subgroup's generator `w` is the library's (Plonky3's) root of unity,
//! not winterfell's (docs/WINTERFELL.md): the shape is winterfell's, the
//! rows are not yet.
//!
//! These are types of this example, mirroring winterfell's; an
//! implementation of `winter_prover::TraceLde` would wrap them (converting
//! with `as_int` / `BaseElement::new`).
//!
//! Run it with `cargo run --example winterfell_trace_lde`; `cargo test`
//! runs its tests.

use std::sync::{Arc, Mutex};

use gpuprover::{
    elements_from_le_bytes, merkle_verify, Buffer, Context, Error, Field, Goldilocks, Layout,
    LdeOptions, MatrixDims, MerkleKind, MerkleOptions, MerkleTree, NttOptions, Result, Status,
};

/// winterfell's `ColMatrix`: columns of equal length. For the auxiliary
/// segment over the quadratic extension every element is 2 consecutive
/// base values (lowest degree first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColMatrix {
    pub columns: Vec<Vec<u64>>,
    /// Base values per element: 1 (base field) or 2 (quadratic extension).
    pub ext_degree: usize,
}

impl ColMatrix {
    pub fn new(columns: Vec<Vec<u64>>, ext_degree: usize) -> Self {
        ColMatrix {
            columns,
            ext_degree,
        }
    }

    pub fn num_cols(&self) -> usize {
        self.columns.len()
    }

    pub fn num_rows(&self) -> usize {
        self.columns
            .first()
            .map_or(0, |c| c.len() / self.ext_degree)
    }
}

/// winterfell's `RowMatrix`: rows of `width` base values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowMatrix {
    pub data: Vec<u64>,
    pub width: usize,
}

impl RowMatrix {
    pub fn num_rows(&self) -> usize {
        self.data.len() / self.width
    }

    pub fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.width..(r + 1) * self.width]
    }
}

/// winterfell's `EvaluationFrame`: the current and the next row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvaluationFrame {
    pub current: Vec<u64>,
    pub next: Vec<u64>,
}

/// winterfell's `Queries` of one segment: the opened rows and their
/// authentication paths (here one path per position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queries {
    pub rows: Vec<Vec<u64>>,
    pub paths: Vec<Vec<u8>>,
}

/// An RPO256 digest: 4 Goldilocks elements.
pub type Digest = [u64; 4];

/// One committed segment: the tree holds its LDE; the host copy for frames
/// is downloaded once, on first use.
#[derive(Debug)]
struct Segment {
    tree: MerkleTree,
    host: Mutex<Option<Arc<RowMatrix>>>,
}

impl Segment {
    fn lde(&self) -> &Buffer {
        &self.tree.matrices()[0]
    }

    fn rows(&self) -> Result<Arc<RowMatrix>> {
        let mut host = self.host.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(rows) = host.as_ref() {
            return Ok(Arc::clone(rows));
        }
        let lde = self.lde();
        let rows = Arc::new(RowMatrix {
            data: lde.to_vec_typed::<Goldilocks>(Layout::RowMajor)?,
            width: lde.cols() * lde.ext_degree() as usize,
        });
        *host = Some(Arc::clone(&rows));
        Ok(rows)
    }

    fn commitment(&self) -> Result<Digest> {
        let root = elements_from_le_bytes::<u64>(&self.tree.root()?);
        <Digest>::try_from(root)
            .map_err(|r| Error::new(Status::Internal, format!("{}-element digest", r.len())))
    }

    fn frame(&self, lde_step: usize, blowup: usize, frame: &mut EvaluationFrame) -> Result<()> {
        let rows = self.rows()?;
        let n = rows.num_rows();
        frame.current.clear();
        frame.current.extend_from_slice(rows.row(lde_step % n));
        frame.next.clear();
        frame
            .next
            .extend_from_slice(rows.row((lde_step + blowup) % n));
        Ok(())
    }

    fn query(&self, positions: &[usize]) -> Result<Queries> {
        let openings = self.tree.open_typed::<Goldilocks>(positions)?;
        Ok(Queries {
            rows: openings.iter().map(|o| o.rows.clone()).collect(),
            paths: openings.into_iter().map(|o| o.path).collect(),
        })
    }
}

/// The trace LDE and its commitments.
#[derive(Debug)]
pub struct GpuTraceLde {
    main: Segment,
    aux: Option<Segment>,
    trace_len: usize,
    blowup: usize,
}

/// The vector commitment of the trace rows: miden-crypto's RPO256 tree.
pub fn vc_options() -> MerkleOptions {
    MerkleOptions {
        kind: MerkleKind::Miden,
        ..MerkleOptions::default()
    }
}

/// Extends `segment` by `blowup` on winterfell's LDE domain (natural order,
/// offset 7) and commits its rows.
fn extend_and_commit(ctx: &Context, segment: &ColMatrix, blowup: usize) -> Result<Segment> {
    let (n, cols, ext) = (segment.num_rows(), segment.num_cols(), segment.ext_degree);
    let data: Vec<u64> = segment.columns.concat(); // column-major
    let mut lde = Buffer::new(ctx, Field::Goldilocks, ext as u32, n * blowup, cols)?;
    let options = LdeOptions {
        blowup: blowup as u32,
        ..LdeOptions::default() // natural order, shift = generator (7)
    };
    ctx.lde_host_typed::<Goldilocks>(ext as u32, &data, n, cols, &options, &mut lde)?;
    let tree = ctx.merkle_commit(&[&lde], &vc_options())?;
    Ok(Segment {
        tree,
        host: Mutex::new(None),
    })
}

/// The polynomials of `segment`'s columns (coefficients, lowest first), by
/// an inverse NTT on the context.
fn interpolate(ctx: &Context, segment: &ColMatrix) -> Result<ColMatrix> {
    let (n, cols, ext) = (segment.num_rows(), segment.num_cols(), segment.ext_degree);
    let mut buf = Buffer::from_host_typed::<Goldilocks>(
        ctx,
        ext as u32,
        n,
        cols,
        Layout::ColMajor,
        &segment.columns.concat(),
    )?;
    ctx.ntt(&mut buf, &NttOptions::inverse())?;
    let flat = buf.to_vec_typed::<Goldilocks>(Layout::ColMajor)?;
    Ok(ColMatrix::new(
        flat.chunks(n * ext).map(<[u64]>::to_vec).collect(),
        ext,
    ))
}

impl GpuTraceLde {
    /// Extends and commits the main trace segment (`trace`: base-field
    /// columns of a power-of-two length, evaluations on the trace domain);
    /// returns the LDE and the trace polynomials.
    pub fn new(ctx: &Context, trace: &ColMatrix, blowup: usize) -> Result<(Self, ColMatrix)> {
        if trace.ext_degree != 1 {
            return Err(Error::new(
                Status::FieldMismatch,
                "the main segment is over the base field",
            ));
        }
        let main = extend_and_commit(ctx, trace, blowup)?;
        let polys = interpolate(ctx, trace)?;
        Ok((
            GpuTraceLde {
                main,
                aux: None,
                trace_len: trace.num_rows(),
                blowup,
            },
            polys,
        ))
    }

    /// The root of the main segment's tree.
    pub fn get_main_trace_commitment(&self) -> Result<Digest> {
        self.main.commitment()
    }

    /// Extends and commits the auxiliary segment (columns over the
    /// quadratic extension) on the main segment's context; returns its
    /// polynomials and commitment.
    pub fn set_aux_trace(&mut self, aux_trace: &ColMatrix) -> Result<(ColMatrix, Digest)> {
        if aux_trace.num_rows() != self.trace_len {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!(
                    "the auxiliary segment has {} rows, the trace {}",
                    aux_trace.num_rows(),
                    self.trace_len
                ),
            ));
        }
        let ctx = self.main.tree.context().clone();
        let aux = extend_and_commit(&ctx, aux_trace, self.blowup)?;
        let polys = interpolate(&ctx, aux_trace)?;
        let commitment = aux.commitment()?;
        self.aux = Some(aux);
        Ok((polys, commitment))
    }

    /// The root of the auxiliary segment's tree, once set.
    pub fn get_aux_trace_commitment(&self) -> Option<Result<Digest>> {
        self.aux.as_ref().map(Segment::commitment)
    }

    /// Rows `lde_step` and `lde_step + blowup` (cyclically) of the main LDE.
    pub fn read_main_trace_frame_into(
        &self,
        lde_step: usize,
        frame: &mut EvaluationFrame,
    ) -> Result<()> {
        self.main.frame(lde_step, self.blowup, frame)
    }

    /// The same for the auxiliary LDE (2 base values per element).
    pub fn read_aux_trace_frame_into(
        &self,
        lde_step: usize,
        frame: &mut EvaluationFrame,
    ) -> Result<()> {
        self.aux
            .as_ref()
            .ok_or_else(|| Error::new(Status::InvalidArgument, "no auxiliary segment set"))?
            .frame(lde_step, self.blowup, frame)
    }

    /// The rows at `positions` of every segment with their paths.
    pub fn query(&self, positions: &[usize]) -> Result<Vec<Queries>> {
        let mut out = vec![self.main.query(positions)?];
        if let Some(aux) = &self.aux {
            out.push(aux.query(positions)?);
        }
        Ok(out)
    }

    /// The main segment's LDE, row-major, on the host.
    pub fn get_main_segment(&self) -> Result<RowMatrix> {
        Ok((*self.main.rows()?).clone())
    }

    /// The main segment's LDE where it is (on the device for CUDA).
    pub fn main_lde_buffer(&self) -> &Buffer {
        self.main.lde()
    }

    pub fn trace_len(&self) -> usize {
        self.trace_len
    }

    pub fn blowup(&self) -> usize {
        self.blowup
    }

    pub fn lde_domain_size(&self) -> usize {
        self.trace_len * self.blowup
    }
}

/// Checks one queried row against a segment commitment, on the host.
pub fn verify_query(
    commitment: &Digest,
    lde_domain_size: usize,
    width: usize,
    ext_degree: u32,
    position: usize,
    row: &[u64],
    path: &[u8],
) -> Result<()> {
    let dims = [MatrixDims {
        rows: lde_domain_size,
        cols: width,
        ext_degree,
    }];
    merkle_verify(
        &vc_options(),
        Field::Goldilocks,
        &dims,
        &gpuprover::elements_to_le_bytes(commitment),
        position,
        row,
        path,
    )
}

fn main() -> Result<()> {
    let ctx = Context::new()?;
    println!("{:?} on {}", ctx.backend(), ctx.device_name()?);
    // A Fibonacci-like trace: 2 columns, 64 rows.
    let n = 64;
    let p = gpuprover::GOLDILOCKS_MODULUS as u128;
    let (mut a, mut b) = (vec![1u64], vec![1u64]);
    for i in 1..n {
        let s = ((a[i - 1] as u128 + b[i - 1] as u128) % p) as u64;
        let t = ((b[i - 1] as u128 + s as u128) % p) as u64;
        a.push(s);
        b.push(t);
    }
    let trace = ColMatrix::new(vec![a, b], 1);
    let (lde, _polys) = GpuTraceLde::new(&ctx, &trace, 8)?;
    let commitment = lde.get_main_trace_commitment()?;
    println!("main trace commitment: {:x?}", commitment);
    let mut frame = EvaluationFrame::default();
    lde.read_main_trace_frame_into(5, &mut frame)?;
    println!("frame at lde step 5: {:?}", frame);
    let q = lde.query(&[3, 100])?.remove(0);
    for (i, &pos) in [3usize, 100].iter().enumerate() {
        verify_query(
            &commitment,
            lde.lde_domain_size(),
            2,
            1,
            pos,
            &q.rows[i],
            &q.paths[i],
        )?;
    }
    println!("queries at 3 and 100 verified");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuprover::{Backend, ContextOptions};

    const P: u64 = gpuprover::GOLDILOCKS_MODULUS;

    fn mul(a: u64, b: u64) -> u64 {
        ((a as u128 * b as u128) % P as u128) as u64
    }

    fn add(a: u64, b: u64) -> u64 {
        ((a as u128 + b as u128) % P as u128) as u64
    }

    fn pow(mut b: u64, mut e: u64) -> u64 {
        let mut acc = 1;
        while e > 0 {
            if e & 1 == 1 {
                acc = mul(acc, b);
            }
            b = mul(b, b);
            e >>= 1;
        }
        acc
    }

    fn eval(coeffs: &[u64], x: u64) -> u64 {
        coeffs.iter().rev().fold(0, |acc, &c| add(mul(acc, x), c))
    }

    fn cpu() -> Context {
        Context::with_options(&ContextOptions {
            backend: Backend::Cpu,
            cpu_threads: 2,
            ..ContextOptions::default()
        })
        .unwrap()
    }

    fn random_columns(cols: usize, len: usize, seed: u64) -> Vec<Vec<u64>> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..cols)
            .map(|_| {
                (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x % P
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn trace_lde_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<GpuTraceLde>();
    }

    #[test]
    fn lde_polys_frames_and_queries() {
        let ctx = cpu();
        let (n, blowup) = (16usize, 4usize);
        let trace = ColMatrix::new(random_columns(3, n, 1), 1);
        let (lde, polys) = GpuTraceLde::new(&ctx, &trace, blowup).unwrap();
        assert_eq!(
            (lde.trace_len(), lde.blowup(), lde.lde_domain_size()),
            (16, 4, 64)
        );

        // The polynomials interpolate the trace on <w_n>; the LDE evaluates
        // them on 7 * <w_{n blowup}>, natural order.
        let gen = Field::Goldilocks.info().unwrap().generator;
        assert_eq!(gen, 7);
        let w_n = Field::Goldilocks.two_adic_generator(4).unwrap();
        let w_m = Field::Goldilocks.two_adic_generator(6).unwrap();
        let segment = lde.get_main_segment().unwrap();
        assert_eq!((segment.num_rows(), segment.width), (64, 3));
        for c in 0..3 {
            for r in 0..n {
                assert_eq!(
                    eval(&polys.columns[c], pow(w_n, r as u64)),
                    trace.columns[c][r]
                );
            }
            for j in 0..64 {
                let x = mul(gen, pow(w_m, j as u64));
                assert_eq!(
                    segment.row(j)[c],
                    eval(&polys.columns[c], x),
                    "col {} row {}",
                    c,
                    j
                );
            }
        }

        let mut frame = EvaluationFrame::default();
        lde.read_main_trace_frame_into(62, &mut frame).unwrap();
        assert_eq!(frame.current, segment.row(62));
        assert_eq!(frame.next, segment.row((62 + blowup) % 64));

        let commitment = lde.get_main_trace_commitment().unwrap();
        let positions = [0usize, 9, 33, 63];
        let q = lde.query(&positions).unwrap();
        assert_eq!(q.len(), 1);
        for (i, &pos) in positions.iter().enumerate() {
            assert_eq!(q[0].rows[i], segment.row(pos));
            verify_query(&commitment, 64, 3, 1, pos, &q[0].rows[i], &q[0].paths[i]).unwrap();
            let mut bad = q[0].rows[i].clone();
            bad[0] = add(bad[0], 1);
            assert_eq!(
                verify_query(&commitment, 64, 3, 1, pos, &bad, &q[0].paths[i])
                    .unwrap_err()
                    .status(),
                Status::VerifyFailed
            );
        }

        // The commitment is the RPO256 tree of the LDE rows, whatever
        // context computes it.
        let other = cpu();
        let rows = Buffer::from_host(
            &other,
            Field::Goldilocks,
            1,
            64,
            3,
            Layout::RowMajor,
            &segment.data,
        )
        .unwrap();
        let root = other
            .merkle_commit(&[&rows], &vc_options())
            .unwrap()
            .root()
            .unwrap();
        assert_eq!(elements_from_le_bytes::<u64>(&root), commitment.to_vec());
    }

    #[test]
    fn aux_segment_over_the_quadratic_extension() {
        let ctx = cpu();
        let (n, blowup) = (8usize, 2usize);
        let trace = ColMatrix::new(random_columns(2, n, 2), 1);
        let (mut lde, _) = GpuTraceLde::new(&ctx, &trace, blowup).unwrap();
        assert!(lde.get_aux_trace_commitment().is_none());
        // 2 extension columns: each element 2 base values, lowest first.
        let aux = ColMatrix::new(random_columns(2, n * 2, 3), 2);
        let (aux_polys, aux_commitment) = lde.set_aux_trace(&aux).unwrap();
        assert_eq!(
            lde.get_aux_trace_commitment().unwrap().unwrap(),
            aux_commitment
        );

        // The extension LDE is componentwise: coordinate k of column c is
        // the LDE of coordinate k's values.
        let gen = 7u64;
        let w_m = Field::Goldilocks.two_adic_generator(4).unwrap();
        let mut frame = EvaluationFrame::default();
        for j in 0..n * blowup {
            lde.read_aux_trace_frame_into(j, &mut frame).unwrap();
            assert_eq!(frame.current.len(), 4);
            let x = mul(gen, pow(w_m, j as u64));
            for c in 0..2 {
                for k in 0..2 {
                    let coeffs: Vec<u64> = aux_polys.columns[c].chunks(2).map(|e| e[k]).collect();
                    assert_eq!(frame.current[c * 2 + k], eval(&coeffs, x));
                }
            }
        }
        let q = lde.query(&[5]).unwrap();
        assert_eq!(q.len(), 2);
        verify_query(&aux_commitment, 16, 2, 2, 5, &q[1].rows[0], &q[1].paths[0]).unwrap();
        assert_eq!(
            lde.set_aux_trace(&ColMatrix::new(random_columns(1, 4, 4), 2))
                .unwrap_err()
                .status(),
            Status::ShapeMismatch
        );
    }

    #[test]
    fn shared_between_threads() {
        let ctx = cpu();
        let trace = ColMatrix::new(random_columns(2, 32, 5), 1);
        let (lde, _) = GpuTraceLde::new(&ctx, &trace, 2).unwrap();
        drop(ctx); // the trace LDE holds its context
        let lde = Arc::new(lde);
        let commitment = lde.get_main_trace_commitment().unwrap();
        let handles: Vec<_> = (0..3usize)
            .map(|t| {
                let lde = Arc::clone(&lde);
                std::thread::spawn(move || {
                    let mut frame = EvaluationFrame::default();
                    for pos in (t..64).step_by(3) {
                        lde.read_main_trace_frame_into(pos, &mut frame).unwrap();
                        let q = lde.query(&[pos]).unwrap().remove(0);
                        assert_eq!(q.rows[0], frame.current);
                        verify_query(&commitment, 64, 2, 1, pos, &q.rows[0], &q.paths[0]).unwrap();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}
