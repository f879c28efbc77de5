// SPDX-License-Identifier: MIT OR Apache-2.0
//! Fields as types: where the field is known at compile time, the element
//! type follows from it (`u64` for Goldilocks, `u32` for BabyBear and
//! KoalaBear) and the `*_typed` functions need neither a [`Field`] value nor
//! a turbofish on the element type.
//!
//! ```no_run
//! use gpuprover::{Buffer, Context, Goldilocks, Layout};
//! # fn main() -> gpuprover::Result<()> {
//! let ctx = Context::new()?;
//! let buf = Buffer::from_host_typed::<Goldilocks>(&ctx, 1, 4, 1, Layout::ColMajor, &[1, 2, 3, 4])?;
//! let back = buf.to_vec_typed::<Goldilocks>(Layout::ColMajor)?; // Vec<u64>
//! # Ok(()) }
//! ```

use std::fmt;

use crate::{
    Buffer, Context, Element, Error, Field, Fri, FriOptions, Layout, LdeOptions, MerkleOpening,
    MerkleTree, Result, Status,
};

/// A prime field known at compile time: its [`Field`] and the host type of
/// its canonical elements. Implemented by [`Goldilocks`], [`BabyBear`] and
/// [`KoalaBear`]; sealed.
pub trait FieldType: Copy + Default + fmt::Debug + Send + Sync + 'static + private::Sealed {
    /// The field.
    const FIELD: Field;
    /// Canonical elements: `u64` for Goldilocks, `u32` for the 31-bit
    /// fields.
    type Repr: Element;
    /// The modulus p.
    const MODULUS: u64;
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::Goldilocks {}
    impl Sealed for super::BabyBear {}
    impl Sealed for super::KoalaBear {}
}

/// p = 2^64 - 2^32 + 1; elements `u64`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Goldilocks;

/// p = 2^31 - 2^27 + 1; elements `u32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BabyBear;

/// p = 2^31 - 2^24 + 1; elements `u32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KoalaBear;

impl FieldType for Goldilocks {
    const FIELD: Field = Field::Goldilocks;
    type Repr = u64;
    const MODULUS: u64 = crate::GOLDILOCKS_MODULUS;
}

impl FieldType for BabyBear {
    const FIELD: Field = Field::BabyBear;
    type Repr = u32;
    const MODULUS: u64 = crate::BABYBEAR_MODULUS as u64;
}

impl FieldType for KoalaBear {
    const FIELD: Field = Field::KoalaBear;
    type Repr = u32;
    const MODULUS: u64 = crate::KOALABEAR_MODULUS as u64;
}

/// `Ok` when `actual` is `F`'s field: the typed accessors of a buffer, tree
/// or FRI commitment check the field itself, not only the element size.
fn check_field<F: FieldType>(actual: Field, what: &str) -> Result<()> {
    if actual == F::FIELD {
        Ok(())
    } else {
        Err(Error::new(
            Status::FieldMismatch,
            format!("{} is over {:?}, not {:?}", what, actual, F::FIELD),
        ))
    }
}

impl Buffer {
    /// [`Buffer::from_host`] over the field `F`: `data` holds `rows * cols *
    /// ext_degree` canonical `F::Repr` values in `layout`.
    pub fn from_host_typed<F: FieldType>(
        ctx: &Context,
        ext_degree: u32,
        rows: usize,
        cols: usize,
        layout: Layout,
        data: &[F::Repr],
    ) -> Result<Buffer> {
        Buffer::from_host(ctx, F::FIELD, ext_degree, rows, cols, layout, data)
    }

    /// [`Buffer::new`] over the field `F`.
    pub fn new_typed<F: FieldType>(
        ctx: &Context,
        ext_degree: u32,
        rows: usize,
        cols: usize,
    ) -> Result<Buffer> {
        Buffer::new(ctx, F::FIELD, ext_degree, rows, cols)
    }

    /// [`Buffer::to_vec`] for a buffer over `F`; [`Status::FieldMismatch`]
    /// when the buffer is over another field (even one of the same element
    /// size).
    pub fn to_vec_typed<F: FieldType>(&self, layout: Layout) -> Result<Vec<F::Repr>> {
        check_field::<F>(self.field(), "the buffer")?;
        self.to_vec(layout)
    }
}

impl Context {
    /// [`Context::lde_host`] over the field `F`.
    pub fn lde_host_typed<F: FieldType>(
        &self,
        ext_degree: u32,
        data: &[F::Repr],
        rows: usize,
        cols: usize,
        options: &LdeOptions,
        output: &mut Buffer,
    ) -> Result<()> {
        self.lde_host(F::FIELD, ext_degree, data, rows, cols, options, output)
    }

    /// [`Context::fri_begin_host`] over the field `F`.
    pub fn fri_begin_host_typed<F: FieldType>(
        &self,
        ext_degree: u32,
        codeword: &[F::Repr],
        options: &FriOptions,
    ) -> Result<Fri> {
        self.fri_begin_host(F::FIELD, ext_degree, codeword, options)
    }
}

impl MerkleTree {
    /// [`MerkleTree::open`] for a tree over `F`.
    pub fn open_typed<F: FieldType>(
        &self,
        indices: &[usize],
    ) -> Result<Vec<MerkleOpening<F::Repr>>> {
        check_field::<F>(self.field(), "the tree")?;
        self.open(indices)
    }
}

impl Fri {
    /// [`Fri::remainder`] for a commitment over `F`.
    pub fn remainder_typed<F: FieldType>(&self) -> Result<Vec<F::Repr>> {
        check_field::<F>(self.field(), "the FRI commitment")?;
        self.remainder()
    }
}
