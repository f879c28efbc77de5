// SPDX-License-Identifier: MIT OR Apache-2.0
//! The FRI commit phase (`gp_fri_*`): begin, fold layer by layer (or commit
//! in one call with a challenge closure), the remainder, query openings and
//! the host verifier.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;
use std::os::raw::c_void;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::{self, NonNull};

use crate::{
    check, check_element, elements_from_le_bytes, elements_to_le_bytes, nonnull, sys, to_u64,
    to_usize, type_name_of, Buffer, Context, Element, Error, Extension, Field, MerkleOptions,
    Order, Result, Status,
};

/// How a group of sibling values is combined with the challenge
/// (`gp_fri_fold_kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FriFold {
    /// Plonky3 and winterfell: the value at beta of the polynomial of degree
    /// `< arity` through the group; for arity 2,
    /// `(f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x)`.
    #[default]
    Halved,
    /// Lambda VM: the same without the `1/arity` factor.
    Unhalved,
}

impl FriFold {
    fn to_raw(self) -> sys::gp_fri_fold_kind {
        match self {
            FriFold::Halved => sys::gp_fri_fold_kind::GP_FRI_FOLD_HALVED,
            FriFold::Unhalved => sys::gp_fri_fold_kind::GP_FRI_FOLD_UNHALVED,
        }
    }
}

/// What one leaf of a FRI layer's tree holds (`gp_fri_leaf`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FriLeaf {
    /// The group of `arity` values one fold combines (see `order`).
    #[default]
    Group,
    /// One value per leaf, leaf i = position i of the layer in its order:
    /// Triton VM's FRI (arity 2, natural order, shift 7,
    /// [`Extension::Triton`], [`MerkleKind::TritonDigest`](crate::MerkleKind::TritonDigest)).
    /// A query's opening then holds, per layer, the group's values followed
    /// by one path per member (in member order); [`Fri::opening_size`] gives
    /// its length.
    Element,
}

impl FriLeaf {
    fn to_raw(self) -> sys::gp_fri_leaf {
        match self {
            FriLeaf::Group => sys::gp_fri_leaf::GP_FRI_LEAF_GROUP,
            FriLeaf::Element => sys::gp_fri_leaf::GP_FRI_LEAF_ELEMENT,
        }
    }
}

/// Options of a FRI commitment (`gp_fri_options`). Build them with
/// struct-update syntax: `FriOptions { arity: 4, ..FriOptions::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FriOptions {
    /// Folding arity: 2 (default), 4 or 8.
    pub arity: u32,
    /// Folding stops at this layer size (a power of two below the codeword
    /// size, reached by folds of `arity`); default 1. That layer is the
    /// remainder.
    pub final_size: usize,
    /// Order of the codeword's evaluations, kept by every layer. Default
    /// bit-reversed (Plonky3).
    pub order: Order,
    /// The evaluation domain is `shift * <omega>`; default 1 (Plonky3 folds
    /// as if on the subgroup).
    pub shift: u64,
    /// Default [`FriFold::Halved`].
    pub fold: FriFold,
    /// Profile of every layer's Merkle commitment; its `cap_height` may not
    /// exceed log2(`final_size`).
    pub merkle: MerkleOptions,
    /// The codeword's extension (its products with the challenges). Default
    /// [`Extension::Plonky3`]; [`Extension::Triton`] for Goldilocks cubics
    /// only.
    pub extension: Extension,
    /// What a layer's Merkle leaf holds. Default [`FriLeaf::Group`].
    pub leaf: FriLeaf,
}

impl Default for FriOptions {
    fn default() -> FriOptions {
        FriOptions {
            arity: 2,
            final_size: 1,
            order: Order::BitReversed,
            shift: 1,
            fold: FriFold::Halved,
            merkle: MerkleOptions::default(),
            extension: Extension::Plonky3,
            leaf: FriLeaf::Group,
        }
    }
}

impl FriOptions {
    /// Bytes of one layer's cap for a codeword over `field`.
    fn cap_bytes(&self, field: Field) -> Result<usize> {
        // As the library requires (checked here too, before the cap buffer
        // is allocated): 2^cap_height <= final_size.
        let cap_height = self.merkle.cap_height;
        if cap_height >= usize::BITS || (1usize << cap_height) > self.final_size {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "options.merkle.cap_height = {} exceeds log2(final_size = {}), the height of the last committed layer's tree",
                    cap_height, self.final_size
                ),
            ));
        }
        Ok(self.merkle.digest_bytes(field)? << cap_height)
    }

    fn to_raw(self, field: Field) -> sys::gp_fri_options {
        // SAFETY: plain data, filled by gp_fri_options_init.
        let mut raw: sys::gp_fri_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_fri_options_init(&mut raw) };
        raw.arity = self.arity;
        raw.final_size = to_u64(self.final_size);
        raw.order = self.order.to_raw();
        raw.shift = self.shift;
        raw.fold = self.fold.to_raw();
        let merkle_size = raw.merkle.struct_size;
        raw.merkle = self.merkle.to_raw(field);
        raw.merkle.struct_size = merkle_size;
        raw.extension = self.extension.to_raw();
        raw.leaf = self.leaf.to_raw();
        raw
    }
}

/// A FRI commitment in progress or done (`gp_fri`): every layer and its tree,
/// on the device for the CUDA backend. It keeps the caps the library wrote
/// and the challenges it was folded with, so that [`Fri::verify`] can check
/// openings. It holds its context (the codeword was copied). Destroyed on
/// drop, before the context.
///
/// `Send` and `Sync`: [`Fri::open`] and the other `&self` methods may run on
/// several threads at once (the library serializes the calls on one
/// context); [`Fri::fold`] takes `&mut self`.
pub struct Fri {
    raw: NonNull<sys::gp_fri>,
    ctx: Context,
    field: Field,
    ext_degree: u32,
    n: usize,
    options: FriOptions,
    layers: u32,
    folded: u32,
    cap_size: usize,
    caps: Vec<u8>,
    betas: Vec<u8>,
}

// SAFETY: gpuprover.h: "Contexts, and every handle of a context, may be used
// from several threads at once: the calls on one context are serialized".
// The handle is destroyed only in `Drop`; the Rust fields are plain data,
// written only through `&mut self`.
unsafe impl Send for Fri {}
// SAFETY: as for `Send`: the methods on `&Fri` are thread-safe C calls and
// reads of fields that only `&mut self` methods write.
unsafe impl Sync for Fri {}

impl fmt::Debug for Fri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fri")
            .field("field", &self.field)
            .field("ext_degree", &self.ext_degree)
            .field("n", &self.n)
            .field("layers", &self.layers)
            .field("folded", &self.folded)
            .finish()
    }
}

/// What the challenge trampoline needs: the closure, the caps and betas it
/// saw, and the closure's error or panic, reported after gp_fri_commit.
struct Challenge<'f, T, F> {
    closure: &'f mut F,
    ext_degree: usize,
    caps: Vec<u8>,
    betas: Vec<u8>,
    error: Option<Error>,
    panic: Option<Box<dyn Any + Send + 'static>>,
    _element: PhantomData<T>,
}

unsafe extern "C" fn challenge_trampoline<T, F>(
    user: *mut c_void,
    layer: u32,
    cap: *const c_void,
    cap_size: u64,
    beta: *mut c_void,
    beta_size: u64,
) -> sys::gp_status
where
    T: Element,
    F: FnMut(u32, &[u8], &mut [T]) -> Result<()>,
{
    // SAFETY: `user` is the &mut Challenge passed to gp_fri_commit, which
    // calls back on the calling thread while it is borrowed.
    let state = &mut *(user as *mut Challenge<'_, T, F>);
    if beta.is_null() || beta_size != to_u64(state.ext_degree * size_of::<T>()) {
        state.error = Some(Error::new(
            Status::Internal,
            format!(
                "gp_fri_commit asked for a {}-byte challenge; expected {} {} values",
                beta_size,
                state.ext_degree,
                type_name_of::<T>()
            ),
        ));
        return sys::gp_status::GP_ERR_INTERNAL;
    }
    // SAFETY: the library passes its cap buffer of `cap_size` bytes.
    let cap = if cap_size == 0 || cap.is_null() {
        &[][..]
    } else {
        std::slice::from_raw_parts(cap as *const u8, cap_size as usize)
    };
    let mut value = vec![T::default(); state.ext_degree];
    let closure = &mut *state.closure;
    match panic::catch_unwind(AssertUnwindSafe(|| closure(layer, cap, &mut value))) {
        Ok(Ok(())) => {
            let bytes = elements_to_le_bytes(&value);
            // SAFETY: `beta` is valid for `beta_size` = bytes.len() bytes.
            ptr::copy_nonoverlapping(bytes.as_ptr(), beta as *mut u8, bytes.len());
            state.caps.extend_from_slice(cap);
            state.betas.extend_from_slice(&bytes);
            sys::gp_status::GP_OK
        }
        Ok(Err(e)) => {
            let status = e.status().to_raw();
            state.error = Some(e);
            if status == sys::gp_status::GP_OK {
                sys::gp_status::GP_ERR_INVALID_ARGUMENT
            } else {
                status
            }
        }
        Err(payload) => {
            state.panic = Some(payload);
            sys::gp_status::GP_ERR_INTERNAL
        }
    }
}

impl Context {
    /// Starts a FRI commitment of `codeword` (one column of any supported
    /// extension degree, a power-of-two number of rows) and commits layer 0
    /// (`gp_fri_begin`). The codeword is copied: it may be dropped or changed
    /// afterwards.
    pub fn fri_begin(&self, codeword: &Buffer, options: &FriOptions) -> Result<Fri> {
        let field = codeword.field();
        let raw_options = options.to_raw(field);
        let mut cap = vec![0u8; options.cap_bytes(field)?];
        let mut raw = ptr::null_mut();
        // SAFETY: the handles are valid; `cap` is valid for its length (the
        // library checks that it is large enough).
        check(unsafe {
            sys::gp_fri_begin(
                self.as_raw(),
                codeword.as_raw(),
                &raw_options,
                cap.as_mut_ptr().cast(),
                to_u64(cap.len()),
                &mut raw,
            )
        })?;
        let mut fri = Fri::wrap(self, raw, field, codeword, options)?;
        fri.set_first_cap(cap)?;
        Ok(fri)
    }

    /// Like [`Context::fri_begin`], with the codeword in host memory: `n =
    /// codeword.len() / ext_degree` elements of degree `ext_degree`, each as
    /// its canonical base coefficients, lowest first (`gp_fri_begin_host`).
    pub fn fri_begin_host<T: Element>(
        &self,
        field: Field,
        ext_degree: u32,
        codeword: &[T],
        options: &FriOptions,
    ) -> Result<Fri> {
        // The same as gp_fri_begin_host: upload, then begin.
        if ext_degree == 0 || codeword.len() % ext_degree as usize != 0 {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!(
                    "codeword holds {} values, not a multiple of ext_degree = {}",
                    codeword.len(),
                    ext_degree
                ),
            ));
        }
        check_element::<T>(field)?;
        let n = codeword.len() / ext_degree as usize;
        let raw_options = options.to_raw(field);
        let mut cap = vec![0u8; options.cap_bytes(field)?];
        let mut raw = ptr::null_mut();
        // SAFETY: `codeword` holds n * ext_degree elements of the field's
        // size (checked above); `cap` is valid for its length.
        check(unsafe {
            sys::gp_fri_begin_host(
                self.as_raw(),
                field.to_raw(),
                ext_degree,
                codeword.as_ptr().cast(),
                to_u64(n),
                &raw_options,
                cap.as_mut_ptr().cast(),
                to_u64(cap.len()),
                &mut raw,
            )
        })?;
        let mut fri = Fri::wrap_shape(self, raw, field, ext_degree, n, options)?;
        fri.set_first_cap(cap)?;
        Ok(fri)
    }

    /// The whole commit phase in one call (`gp_fri_commit`): commits layer 0,
    /// then for every layer k calls `challenge(k, cap_k, beta)`, which writes
    /// the challenge for folding layer k into `beta` (`ext_degree` canonical
    /// coefficients of type `T`, the field's element type), and folds.
    ///
    /// An `Err` from the closure stops the commitment and is returned as it
    /// is; a panic in the closure is caught at the C boundary, stops the
    /// commitment and is resumed here. The closure must not use this context
    /// (it is in the middle of the commitment); derive challenges on the host
    /// or with another context.
    pub fn fri_commit<T, F>(
        &self,
        codeword: &Buffer,
        options: &FriOptions,
        mut challenge: F,
    ) -> Result<Fri>
    where
        T: Element,
        F: FnMut(u32, &[u8], &mut [T]) -> Result<()>,
    {
        let field = codeword.field();
        check_element::<T>(field)?;
        let raw_options = options.to_raw(field);
        let mut state = Challenge::<T, F> {
            closure: &mut challenge,
            ext_degree: codeword.ext_degree() as usize,
            caps: Vec::new(),
            betas: Vec::new(),
            error: None,
            panic: None,
            _element: PhantomData,
        };
        let mut raw = ptr::null_mut();
        // SAFETY: the handles are valid; `state` outlives the call and is
        // only reached through `user` by the trampoline on this thread.
        let status = unsafe {
            sys::gp_fri_commit(
                self.as_raw(),
                codeword.as_raw(),
                &raw_options,
                Some(challenge_trampoline::<T, F>),
                &mut state as *mut Challenge<'_, T, F> as *mut c_void,
                &mut raw,
            )
        };
        if let Some(payload) = state.panic.take() {
            // gp_fri_commit released its state before returning.
            panic::resume_unwind(payload);
        }
        // A panic of the progress or log callback during the call.
        crate::monitor::resume_pending_panic();
        if let Some(error) = state.error.take() {
            return Err(error);
        }
        check(status)?;
        let mut fri = Fri::wrap(self, raw, field, codeword, options)?;
        fri.folded = fri.layers;
        fri.caps = state.caps;
        fri.betas = state.betas;
        Ok(fri)
    }
}

impl Fri {
    fn wrap(
        ctx: &Context,
        raw: *mut sys::gp_fri,
        field: Field,
        codeword: &Buffer,
        options: &FriOptions,
    ) -> Result<Fri> {
        Fri::wrap_shape(
            ctx,
            raw,
            field,
            codeword.ext_degree(),
            codeword.rows(),
            options,
        )
    }

    fn wrap_shape(
        ctx: &Context,
        raw: *mut sys::gp_fri,
        field: Field,
        ext_degree: u32,
        n: usize,
        options: &FriOptions,
    ) -> Result<Fri> {
        let raw = NonNull::new(raw)
            .ok_or_else(|| Error::new(Status::Internal, "gp_fri_* returned GP_OK and NULL"))?;
        // SAFETY: the handle is valid.
        let (layers, cap_size) = unsafe {
            (
                sys::gp_fri_layer_count(raw.as_ptr()),
                sys::gp_fri_cap_size(raw.as_ptr()),
            )
        };
        let mut options = *options;
        options.merkle.perm = Some(options.merkle.permutation_for(field));
        Ok(Fri {
            raw,
            ctx: ctx.clone(),
            field,
            ext_degree,
            n,
            options,
            layers,
            folded: 0,
            cap_size: to_usize(cap_size, "cap size"),
            caps: Vec::new(),
            betas: Vec::new(),
        })
    }

    /// Keeps layer 0's cap, as gp_fri_begin wrote it into a buffer of the
    /// size the options give; that size must be the library's.
    fn set_first_cap(&mut self, cap: Vec<u8>) -> Result<()> {
        if cap.len() != self.cap_size {
            return Err(Error::new(
                Status::Internal,
                format!(
                    "gp_fri_cap_size = {} bytes, but the options give {}",
                    self.cap_size,
                    cap.len()
                ),
            ));
        }
        self.caps = cap;
        Ok(())
    }

    /// The raw handle, for calling `gpuprover_sys` functions directly. It
    /// stays owned by `self`.
    pub fn as_raw(&self) -> *mut sys::gp_fri {
        self.raw.as_ptr()
    }

    /// The context the commitment belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The codeword's field.
    pub fn field(&self) -> Field {
        self.field
    }

    /// The codeword's extension degree.
    pub fn ext_degree(&self) -> u32 {
        self.ext_degree
    }

    /// The codeword size n.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the codeword is empty (never: FRI needs n >= 2).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The options of the commitment (`merkle.perm` resolved).
    pub fn options(&self) -> &FriOptions {
        &self.options
    }

    /// Layers committed in all, i.e. the number of folds the commitment takes
    /// (`gp_fri_layer_count`).
    pub fn layer_count(&self) -> u32 {
        self.layers
    }

    /// Folds done so far.
    pub fn folded(&self) -> u32 {
        self.folded
    }

    /// Bytes of one layer's cap (`gp_fri_cap_size`).
    pub fn cap_size(&self) -> usize {
        self.cap_size
    }

    /// The cap of committed layer `layer`, once committed.
    pub fn cap(&self, layer: u32) -> Option<&[u8]> {
        let start = layer as usize * self.cap_size;
        self.caps.get(start..start + self.cap_size)
    }

    /// The caps of the layers committed so far, back to back (after the last
    /// fold: `layer_count` caps, as [`fri_verify`] takes them).
    pub fn caps(&self) -> &[u8] {
        &self.caps
    }

    /// The challenges folded with so far, back to back (`ext_degree` values
    /// each).
    pub fn betas<T: Element>(&self) -> Result<Vec<T>> {
        check_element::<T>(self.field)?;
        Ok(elements_from_le_bytes(&self.betas))
    }

    /// Folds the last committed layer with `beta` (`ext_degree` canonical
    /// coefficients; `gp_fri_fold`). Unless it is the last fold, the folded
    /// layer is committed and its cap kept ([`Fri::cap`]). Fails once every
    /// layer has been folded.
    pub fn fold<T: Element>(&mut self, beta: &[T]) -> Result<()> {
        check_element::<T>(self.field)?;
        if beta.len() != self.ext_degree as usize {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!(
                    "beta holds {} values; a challenge is one degree-{} element",
                    beta.len(),
                    self.ext_degree
                ),
            ));
        }
        let mut cap = vec![0u8; self.cap_size];
        // SAFETY: `beta` holds ext_degree elements of the field's size,
        // `cap` is valid for cap_size bytes; the handle is owned (&mut).
        check(unsafe {
            sys::gp_fri_fold(
                self.raw.as_ptr(),
                beta.as_ptr().cast(),
                to_u64(std::mem::size_of_val(beta)),
                cap.as_mut_ptr().cast(),
                to_u64(cap.len()),
            )
        })?;
        self.folded += 1;
        if self.folded < self.layers {
            self.caps.extend_from_slice(&cap);
        }
        self.betas.extend_from_slice(&elements_to_le_bytes(beta));
        Ok(())
    }

    /// Bytes of the remainder: `final_size x ext_degree x element size`
    /// (`gp_fri_remainder_size`).
    pub fn remainder_size(&self) -> usize {
        // SAFETY: the handle is valid.
        to_usize(
            unsafe { sys::gp_fri_remainder_size(self.raw.as_ptr()) },
            "remainder size",
        )
    }

    /// The remainder, `final_size` extension elements in the codeword's
    /// order, once every layer has been folded (`gp_fri_remainder`).
    pub fn remainder<T: Element>(&self) -> Result<Vec<T>> {
        check_element::<T>(self.field)?;
        let mut out = vec![0u8; self.remainder_size()];
        // SAFETY: `out` is valid for its length.
        check(unsafe {
            sys::gp_fri_remainder(
                self.raw.as_ptr(),
                out.as_mut_ptr().cast(),
                to_u64(out.len()),
            )
        })?;
        Ok(elements_from_le_bytes(&out))
    }

    /// Bytes of one query's opening: for every layer its group (`arity`
    /// extension elements) and the group's Merkle path
    /// (`gp_fri_opening_size`).
    pub fn opening_size(&self) -> usize {
        // SAFETY: the handle is valid.
        to_usize(
            unsafe { sys::gp_fri_opening_size(self.raw.as_ptr()) },
            "opening size",
        )
    }

    /// Opens the queries at `indices` (positions `< n` in the codeword's
    /// order) after the last fold (`gp_fri_open`): one opening per index, as
    /// [`fri_verify`] takes it.
    pub fn open(&self, indices: &[usize]) -> Result<Vec<Vec<u8>>> {
        let each = self.opening_size();
        let raw_indices: Vec<u64> = indices.iter().map(|&i| to_u64(i)).collect();
        let mut out = vec![0u8; each * indices.len()];
        // A non-NULL pointer even when nothing is opened.
        let mut dummy = [0u8; 1];
        let out_ptr = if out.is_empty() {
            dummy.as_mut_ptr()
        } else {
            out.as_mut_ptr()
        };
        // SAFETY: `out` is valid for its length, `raw_indices` for count.
        check(unsafe {
            sys::gp_fri_open(
                self.raw.as_ptr(),
                raw_indices.as_ptr(),
                to_u64(indices.len()),
                out_ptr.cast(),
                to_u64(out.len()),
            )
        })?;
        if each == 0 {
            return Ok(vec![Vec::new(); indices.len()]);
        }
        Ok(out.chunks_exact(each).map(<[u8]>::to_vec).collect())
    }

    /// Checks one query's opening against this commitment's caps,
    /// challenges and remainder with [`fri_verify`].
    pub fn verify(&self, index: usize, opening: &[u8]) -> Result<()> {
        let mut remainder = vec![0u8; self.remainder_size()];
        // SAFETY: `remainder` is valid for its length.
        check(unsafe {
            sys::gp_fri_remainder(
                self.raw.as_ptr(),
                remainder.as_mut_ptr().cast(),
                to_u64(remainder.len()),
            )
        })?;
        fri_verify_bytes(
            &self.options,
            self.field,
            self.ext_degree,
            self.n,
            &self.caps,
            &self.betas,
            &remainder,
            index,
            opening,
        )
    }
}

impl Drop for Fri {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned; its context is alive (a
        // field, dropped after this).
        unsafe { sys::gp_fri_destroy(self.raw.as_ptr()) }
    }
}

/// Checks one FRI query on the host, without a context (`gp_fri_verify`):
/// every layer's group against that layer's cap (`caps`: one per layer, back
/// to back), and every fold (`betas`: one challenge of `ext_degree` values
/// per layer) against the next layer's group or the `remainder`. `n` is the
/// codeword size, `options` those of the commitment.
///
/// Returns `Ok(())` for a valid opening and an error with
/// [`Status::VerifyFailed`] for an invalid one; other statuses mean
/// malformed arguments.
#[allow(clippy::too_many_arguments)]
pub fn fri_verify<T: Element>(
    options: &FriOptions,
    field: Field,
    ext_degree: u32,
    n: usize,
    caps: &[u8],
    betas: &[T],
    remainder: &[T],
    index: usize,
    opening: &[u8],
) -> Result<()> {
    check_element::<T>(field)?;
    fri_verify_bytes(
        options,
        field,
        ext_degree,
        n,
        caps,
        &elements_to_le_bytes(betas),
        &elements_to_le_bytes(remainder),
        index,
        opening,
    )
}

#[allow(clippy::too_many_arguments)]
fn fri_verify_bytes(
    options: &FriOptions,
    field: Field,
    ext_degree: u32,
    n: usize,
    caps: &[u8],
    betas: &[u8],
    remainder: &[u8],
    index: usize,
    opening: &[u8],
) -> Result<()> {
    let raw_options = options.to_raw(field);
    // SAFETY: every pointer is valid for the size passed with it; the
    // library checks the sizes against the shape before reading.
    check(unsafe {
        sys::gp_fri_verify(
            &raw_options,
            field.to_raw(),
            ext_degree,
            to_u64(n),
            nonnull(caps),
            to_u64(caps.len()),
            nonnull(betas),
            to_u64(betas.len()),
            nonnull(remainder),
            to_u64(remainder.len()),
            to_u64(index),
            nonnull(opening),
            to_u64(opening.len()),
        )
    })
}
