// SPDX-License-Identifier: MIT OR Apache-2.0
//! Constraint programs (`gp_constraint_program_*`) and an AIR's quotient
//! on the device (`gp_quotient_evaluate`).

use std::fmt;
use std::ptr::{self, NonNull};

use crate::{check, check_element, sys, to_u64, Buffer, Context, Element, Error, Field, Order, Result, Status};

/// One node of a constraint program (`gp_cp_node`). Operands name earlier
/// nodes by index: a program is a DAG in topological order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// Main trace column `col`, at this row or (`next`) the next row.
    Main { col: u32, next: bool },
    /// Preprocessed column `col`, at this row or the next.
    Preprocessed { col: u32, next: bool },
    /// Periodic column.
    Periodic(u32),
    /// Public value.
    Public(u32),
    /// Constant of the program's constants.
    Const(u32),
    /// Challenge (an extension element).
    Challenge(u32),
    /// Plonky3's unnormalized selectors of the trace domain.
    IsFirstRow,
    IsLastRow,
    IsTransition,
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Neg(u32),
}

impl Node {
    fn to_raw(self) -> sys::gp_cp_node {
        use sys::gp_cp_op as O;
        let (op, a, b) = match self {
            Node::Main { col, next } => (O::GP_CP_MAIN, col, next as u32),
            Node::Preprocessed { col, next } => (O::GP_CP_PREPROCESSED, col, next as u32),
            Node::Periodic(c) => (O::GP_CP_PERIODIC, c, 0),
            Node::Public(c) => (O::GP_CP_PUBLIC, c, 0),
            Node::Const(c) => (O::GP_CP_CONST, c, 0),
            Node::Challenge(c) => (O::GP_CP_CHALLENGE, c, 0),
            Node::IsFirstRow => (O::GP_CP_IS_FIRST_ROW, 0, 0),
            Node::IsLastRow => (O::GP_CP_IS_LAST_ROW, 0, 0),
            Node::IsTransition => (O::GP_CP_IS_TRANSITION, 0, 0),
            Node::Add(a, b) => (O::GP_CP_ADD, a, b),
            Node::Sub(a, b) => (O::GP_CP_SUB, a, b),
            Node::Mul(a, b) => (O::GP_CP_MUL, a, b),
            Node::Neg(a) => (O::GP_CP_NEG, a, 0),
        };
        sys::gp_cp_node { op: op.0 as u32, a, b }
    }
}

/// A program as written (`gp_constraint_program_desc`); `T` is the field's
/// element type (`u64` Goldilocks, `u32` BabyBear and KoalaBear).
#[derive(Clone, Debug, Default)]
pub struct ProgramDesc<T> {
    pub ext_degree: u32,
    pub main_width: u32,
    pub preprocessed_width: u32,
    pub periodic_width: u32,
    pub public_count: u32,
    pub challenge_count: u32,
    pub nodes: Vec<Node>,
    /// Canonical base-field constants ([`Node::Const`]).
    pub constants: Vec<T>,
    /// The constraints: node indices, in the AIR's order.
    pub constraints: Vec<u32>,
}

/// What compiling made of a program (`gp_constraint_program_info`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgramInfo {
    pub nodes: u64,
    pub instructions: u64,
    pub base_slots: u64,
    pub ext_slots: u64,
    pub constraints: u64,
    pub max_degree: u64,
}

/// A validated, compiled constraint program (`gp_constraint_program`): a
/// host object of no context, usable from any thread and context.
pub struct ConstraintProgram {
    raw: NonNull<sys::gp_constraint_program>,
    field: Field,
    ext_degree: u32,
    // Declared counts, which bound what an evaluation reads of the caller's
    // slices.
    public_count: usize,
    challenge_count: usize,
    periodic_width: usize,
}

// SAFETY: gpuprover.h: a program is immutable once made and serves every
// context and thread; it is destroyed only in Drop.
unsafe impl Send for ConstraintProgram {}
// SAFETY: as for Send.
unsafe impl Sync for ConstraintProgram {}

impl Drop for ConstraintProgram {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned.
        unsafe { sys::gp_constraint_program_destroy(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for ConstraintProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConstraintProgram").field("field", &self.field).field("info", &self.info().ok()).finish()
    }
}

fn count(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::new(Status::InvalidArgument, format!("{what} = {n} does not fit 32 bits")))
}

impl ConstraintProgram {
    /// Validates and compiles `desc` over `field` (`gp_constraint_program_create`).
    pub fn new<T: Element>(field: Field, desc: &ProgramDesc<T>) -> Result<ConstraintProgram> {
        check_element::<T>(field)?;
        let nodes: Vec<sys::gp_cp_node> = desc.nodes.iter().map(|n| n.to_raw()).collect();
        let mut d = sys::gp_constraint_program_desc::default();
        // SAFETY: fills the defaults of a struct of the header's layout.
        unsafe { sys::gp_constraint_program_desc_init(&mut d) };
        d.field = field.to_raw();
        d.ext_degree = desc.ext_degree;
        d.main_width = desc.main_width;
        d.preprocessed_width = desc.preprocessed_width;
        d.periodic_width = desc.periodic_width;
        d.public_count = desc.public_count;
        d.challenge_count = desc.challenge_count;
        d.nodes = nodes.as_ptr();
        d.node_count = count(nodes.len(), "nodes")?;
        d.constants = if desc.constants.is_empty() { ptr::null() } else { desc.constants.as_ptr().cast() };
        d.constant_count = count(desc.constants.len(), "constants")?;
        d.constraints = desc.constraints.as_ptr();
        d.constraint_count = count(desc.constraints.len(), "constraints")?;
        let mut raw = ptr::null_mut();
        // SAFETY: every array pointer is valid for its count; `raw` is valid
        // for writes.
        check(unsafe { sys::gp_constraint_program_create(&d, &mut raw) })?;
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::new(Status::Internal, "gp_constraint_program_create returned no program"))?;
        Ok(ConstraintProgram {
            raw,
            field,
            ext_degree: desc.ext_degree,
            public_count: desc.public_count as usize,
            challenge_count: desc.challenge_count as usize,
            periodic_width: desc.periodic_width as usize,
        })
    }

    /// The field the program is over.
    pub fn field(&self) -> Field {
        self.field
    }

    /// The degree of its challenges, alpha and quotient.
    pub fn ext_degree(&self) -> u32 {
        self.ext_degree
    }

    /// What compiling made of it (`gp_constraint_program_get_info`).
    pub fn info(&self) -> Result<ProgramInfo> {
        let mut i = sys::gp_constraint_program_info { struct_size: std::mem::size_of::<sys::gp_constraint_program_info>() as u32, ..Default::default() };
        // SAFETY: the handle is valid, `i` valid for writes of its size.
        check(unsafe { sys::gp_constraint_program_get_info(self.raw.as_ptr(), &mut i) })?;
        Ok(ProgramInfo {
            nodes: i.nodes,
            instructions: i.instructions,
            base_slots: i.base_slots,
            ext_slots: i.ext_slots,
            constraints: i.constraints,
            max_degree: i.max_degree,
        })
    }

    /// The handle, for calls this binding does not wrap.
    pub fn as_raw(&self) -> *mut sys::gp_constraint_program {
        self.raw.as_ptr()
    }
}

/// The inputs of one quotient evaluation (`gp_quotient_options`).
#[derive(Clone, Debug)]
pub struct QuotientInputs<'a, T> {
    pub log_trace_rows: u32,
    pub log_quotient_rows: u32,
    /// `None`: the field's generator.
    pub shift: Option<u64>,
    /// Row order of `main` and `preprocessed` (Plonky3's committed LDE:
    /// bit-reversed).
    pub order: Order,
    pub main: Option<&'a Buffer>,
    pub preprocessed: Option<&'a Buffer>,
    /// periodic_rows x periodic_width, row-major.
    pub periodic: &'a [T],
    pub periodic_rows: usize,
    pub public_values: &'a [T],
    pub challenges: &'a [T],
    pub alpha: &'a [T],
}

impl Context {
    /// The quotient of `program` on every row of the quotient domain into
    /// `out` (Q rows, one column of the program's degree, natural order):
    /// `q(x) = (sum_j alpha^(C-1-j) c_j(x)) / Z_H(x)` (`gp_quotient_evaluate`).
    pub fn quotient_evaluate<T: Element>(
        &self,
        program: &ConstraintProgram,
        inputs: &QuotientInputs<'_, T>,
        out: &mut Buffer,
    ) -> Result<()> {
        check_element::<T>(program.field)?;
        let need = program.ext_degree as usize;
        if inputs.alpha.len() != need {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("alpha has {} coefficients; the program's degree is {need}", inputs.alpha.len()),
            ));
        }
        let short = |what: &str, got: usize, want: usize| -> Result<()> {
            if got < want {
                return Err(Error::new(
                    Status::InvalidArgument,
                    format!("{what} holds {got} elements; the program reads {want}"),
                ));
            }
            Ok(())
        };
        short("public_values", inputs.public_values.len(), program.public_count)?;
        short("challenges", inputs.challenges.len(), program.challenge_count * need)?;
        if program.periodic_width > 0 {
            let want = inputs.periodic_rows.checked_mul(program.periodic_width).ok_or_else(|| {
                Error::new(Status::SizeOverflow, "periodic_rows * periodic_width overflows")
            })?;
            short("periodic", inputs.periodic.len(), want)?;
        }
        let mut o = sys::gp_quotient_options::default();
        // SAFETY: fills the defaults of a struct of the header's layout.
        unsafe { sys::gp_quotient_options_init(&mut o) };
        o.log_trace_rows = inputs.log_trace_rows;
        o.log_quotient_rows = inputs.log_quotient_rows;
        o.shift = inputs.shift.unwrap_or(0);
        o.order = inputs.order.to_raw();
        o.main = inputs.main.map_or(ptr::null(), |b| b.as_raw() as *const _);
        o.preprocessed = inputs.preprocessed.map_or(ptr::null(), |b| b.as_raw() as *const _);
        let ptr_of = |s: &[T]| if s.is_empty() { ptr::null() } else { s.as_ptr().cast() };
        o.periodic = ptr_of(inputs.periodic);
        o.periodic_rows = to_u64(inputs.periodic_rows);
        o.public_values = ptr_of(inputs.public_values);
        o.challenges = ptr_of(inputs.challenges);
        o.alpha = inputs.alpha.as_ptr().cast();
        let out_raw = out.raw_mut("out")?;
        // SAFETY: the handles are valid; the library reads the declared
        // counts of the arrays, which the program's widths bound, and checks
        // every length it can (the caller's slices hold what the program
        // declares).
        check(unsafe { sys::gp_quotient_evaluate(self.as_raw(), program.as_raw(), &o, out_raw) })
    }
}
