// SPDX-License-Identifier: MIT OR Apache-2.0
//! An AIR's constraints as a library constraint program, and the quotient
//! evaluated from the trace LDE kept on the device.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use gpuprover::{Buffer, ConstraintProgram, Context, Node, Order, ProgramDesc, QuotientInputs};
use p3_air::symbolic::{get_constraint_layout, get_symbolic_constraints, AirLayout, BaseLeaf, SymbolicAirBuilder, SymbolicExpr, SymbolicExpression};
use p3_air::{Air, BaseEntry};
use p3_matrix::dense::RowMajorMatrix;

use crate::dft::download;
use crate::field::GpuField;

/// How a configuration's quotients were computed: on the device, or by the
/// stock `quotient_values` on the host (with the last reason). The first
/// fallback of a value and its clones is also written to standard error.
#[derive(Debug, Default)]
pub struct QuotientStats {
    device: AtomicU64,
    host: AtomicU64,
    nanos: AtomicU64,
    last_fallback: Mutex<Option<String>>,
    logged: AtomicBool,
}

impl QuotientStats {
    /// Quotients evaluated by the library.
    pub fn device(&self) -> u64 {
        self.device.load(Ordering::Relaxed)
    }
    /// Quotients evaluated by Plonky3's `quotient_values`.
    pub fn host(&self) -> u64 {
        self.host.load(Ordering::Relaxed)
    }
    /// Time spent computing quotients (either way), in nanoseconds.
    pub fn nanos(&self) -> u64 {
        self.nanos.load(Ordering::Relaxed)
    }
    pub(crate) fn add_nanos(&self, ns: u64) {
        self.nanos.fetch_add(ns, Ordering::Relaxed);
    }
    /// Why the last fallback happened.
    pub fn last_fallback(&self) -> Option<String> {
        self.last_fallback.lock().ok().and_then(|g| g.clone())
    }
    pub(crate) fn count_device(&self) {
        self.device.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn count_host(&self, why: String) {
        self.host.fetch_add(1, Ordering::Relaxed);
        if !self.logged.swap(true, Ordering::Relaxed) {
            eprintln!("gpuprover-plonky3: the quotient runs on the host (stock quotient_values): {why}");
        }
        if let Ok(mut g) = self.last_fallback.lock() {
            *g = Some(why);
        }
    }
}

/// The program of `air`'s constraints (Plonky3's symbolic constraints, in
/// their order) over `F` with challenges of degree `ext_degree`; `Err` says
/// why an AIR cannot be one (constraints over the extension).
pub fn compile_air<F, A>(air: &A, layout: AirLayout, ext_degree: u32) -> Result<ConstraintProgram, String>
where
    F: GpuField,
    A: Air<SymbolicAirBuilder<F>>,
{
    let cl = get_constraint_layout::<F, F, A>(air, layout);
    if !cl.ext_indices.is_empty() {
        return Err(format!("the AIR has {} constraints over the extension", cl.ext_indices.len()));
    }
    let constraints = get_symbolic_constraints::<F, A>(air, layout);
    let mut c = Compiler::<F> { nodes: Vec::new(), constants: Vec::new(), const_index: HashMap::new(), memo: HashMap::new() };
    let mut roots = Vec::with_capacity(constraints.len());
    for e in &constraints {
        roots.push(c.visit(e)?);
    }
    let count = |n: usize, what: &str| u32::try_from(n).map_err(|_| format!("{what} = {n} does not fit 32 bits"));
    let desc = ProgramDesc {
        ext_degree,
        main_width: count(layout.main_width, "main width")?,
        preprocessed_width: count(layout.preprocessed_width, "preprocessed width")?,
        periodic_width: count(layout.num_periodic_columns, "periodic columns")?,
        public_count: count(layout.num_public_values, "public values")?,
        challenge_count: 0,
        nodes: c.nodes,
        constants: c.constants,
        constraints: roots,
    };
    ConstraintProgram::new(F::FIELD, &desc).map_err(|e| e.to_string())
}

struct Compiler<F: GpuField> {
    nodes: Vec<Node>,
    constants: Vec<F::Elem>,
    const_index: HashMap<u64, u32>,
    // Nodes already emitted, by address: the expressions share subtrees
    // through Arc, which are walked once.
    memo: HashMap<*const SymbolicExpression<F>, u32>,
}

impl<F: GpuField> Compiler<F> {
    fn push(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }

    fn leaf(&mut self, l: &BaseLeaf<F>) -> Result<Node, String> {
        let offset = |o: usize| match o {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(format!("a constraint reads row offset {o} (two rows at most)")),
        };
        Ok(match l {
            BaseLeaf::Variable(v) => {
                let col = v.index as u32;
                match v.entry {
                    BaseEntry::Main { offset: o } => Node::Main { col, next: offset(o)? },
                    BaseEntry::Preprocessed { offset: o } => Node::Preprocessed { col, next: offset(o)? },
                    BaseEntry::Periodic => Node::Periodic(col),
                    BaseEntry::Public => Node::Public(col),
                }
            }
            BaseLeaf::IsFirstRow => Node::IsFirstRow,
            BaseLeaf::IsLastRow => Node::IsLastRow,
            BaseLeaf::IsTransition => Node::IsTransition,
            BaseLeaf::Constant(c) => {
                let e = c.to_elem();
                let next = self.constants.len() as u32;
                let k = *self.const_index.entry(e.into()).or_insert(next);
                if k == next {
                    self.constants.push(e);
                }
                Node::Const(k)
            }
        })
    }

    // Post-order without recursion: constraint trees can be deep.
    fn visit(&mut self, root: &SymbolicExpression<F>) -> Result<u32, String> {
        let mut stack: Vec<(&SymbolicExpression<F>, bool)> = vec![(root, false)];
        while let Some((e, expanded)) = stack.pop() {
            let key = e as *const _;
            if self.memo.contains_key(&key) {
                continue;
            }
            let id = match e {
                SymbolicExpr::Leaf(l) => {
                    let n = self.leaf(l)?;
                    self.push(n)
                }
                SymbolicExpr::Add { x, y, .. } | SymbolicExpr::Sub { x, y, .. } | SymbolicExpr::Mul { x, y, .. } => {
                    let (xa, ya) = (&**x as *const _, &**y as *const _);
                    if !expanded {
                        stack.push((e, true));
                        stack.push((&**y, false));
                        stack.push((&**x, false));
                        continue;
                    }
                    let (a, b) = (self.memo[&xa], self.memo[&ya]);
                    let n = match e {
                        SymbolicExpr::Add { .. } => Node::Add(a, b),
                        SymbolicExpr::Sub { .. } => Node::Sub(a, b),
                        _ => Node::Mul(a, b),
                    };
                    self.push(n)
                }
                SymbolicExpr::Neg { x, .. } => {
                    let xa = &**x as *const _;
                    if !expanded {
                        stack.push((e, true));
                        stack.push((&**x, false));
                        continue;
                    }
                    let a = self.memo[&xa];
                    self.push(Node::Neg(a))
                }
            };
            self.memo.insert(key, id);
        }
        Ok(self.memo[&(root as *const _)])
    }
}

/// The inputs of one device quotient, as the prover has them.
pub(crate) struct DeviceQuotient<'a, F: GpuField> {
    pub ctx: &'a Context,
    pub program: &'a ConstraintProgram,
    pub main: &'a Buffer,
    pub preprocessed: Option<&'a Buffer>,
    pub log_trace_rows: u32,
    pub log_quotient_rows: u32,
    pub shift: F,
    /// periodic_rows x periodic columns, row-major.
    pub periodic: Vec<F>,
    pub periodic_rows: usize,
    pub public_values: &'a [F],
    pub alpha: &'a [F],
}

impl<F: GpuField> DeviceQuotient<'_, F> {
    /// The quotient's values flattened to the base field (Q rows, D
    /// coefficients each): what `RowMajorMatrix::new_col(quotient_values)
    /// .flatten_to_base()` holds.
    pub fn run(&self) -> gpuprover::Result<RowMajorMatrix<F>> {
        let d = self.alpha.len();
        let elems = |v: &[F]| v.iter().map(|x| x.to_elem()).collect::<Vec<_>>();
        let (periodic, public, alpha) = (elems(&self.periodic), elems(self.public_values), elems(self.alpha));
        // D base columns: the same memory as one column of degree D, for
        // every degree the programs take (buffers take 1-4 only).
        let mut out = Buffer::new(self.ctx, F::FIELD, 1, 1usize << self.log_quotient_rows, d)?;
        let inputs = QuotientInputs {
            log_trace_rows: self.log_trace_rows,
            log_quotient_rows: self.log_quotient_rows,
            shift: Some(self.shift.to_elem().into()),
            order: Order::BitReversed,
            main: Some(self.main),
            preprocessed: self.preprocessed,
            periodic: &periodic,
            periodic_rows: self.periodic_rows,
            public_values: &public,
            challenges: &[],
            alpha: &alpha,
        };
        self.ctx.quotient_evaluate(self.program, &inputs, &mut out)?;
        download::<F>(&out, d)
    }
}
