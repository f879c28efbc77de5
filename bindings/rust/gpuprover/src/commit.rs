// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one-call commitment of host traces (`gp_commit_host`): the coset LDE
//! of every matrix and one Merkle tree over all of them, streamed through
//! the device in column batches.

use std::any::Any;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use crate::{
    check, check_element, check_len, nonnull, sys, to_u64, Buffer, Context, Element, Error, Field,
    LdeOptions, MatrixDims, MerkleOptions, MerkleTree, Result, Status,
};

/// Where [`Context::commit_host`] leaves the LDE it committed (`gp_keep`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Keep {
    /// On the device (default): one new [`Buffer`] per matrix, returned by
    /// the call and held by the tree, as [`Context::merkle_commit`]'s trees
    /// hold their matrices. The whole LDE must fit in device memory beside
    /// the call's working set.
    #[default]
    Device,
    /// In host memory: matrix i's LDE is written to its
    /// [`CommitMatrix::lde_host`], column-major as [`Buffer::to_host`] with
    /// [`crate::Layout::ColMajor`] writes a buffer. The tree takes the
    /// vectors and its openings read their rows there
    /// ([`MerkleTree::host_lde`], [`MerkleTree::into_host_lde`]).
    Host,
    /// Nowhere: only the tree is kept. The tree holds the traces and its
    /// openings run the LDE again over them, without hashing: each
    /// [`MerkleTree::open`] call costs one upload and LDE of every
    /// committed column, however few the indices.
    None,
}

impl Keep {
    /// The raw `gp_keep` value.
    pub fn to_raw(self) -> sys::gp_keep {
        match self {
            Keep::Device => sys::gp_keep::GP_KEEP_DEVICE,
            Keep::Host => sys::gp_keep::GP_KEEP_HOST,
            Keep::None => sys::gp_keep::GP_KEEP_NONE,
        }
    }
}

/// One trace matrix of [`Context::commit_host`] (`gp_commit_matrix`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitMatrix<T: Element> {
    /// `rows` x `cols` elements of degree `ext_degree` in the options'
    /// `lde.input_layout`: exactly `rows * cols * ext_degree` values of the
    /// field's element type. Shared, not copied (`Arc::new(vec)` shares a
    /// vector without a copy): with [`Keep::None`] the tree holds a clone
    /// and its openings read the trace, which the `Arc` keeps unchanged.
    pub data: Arc<Vec<T>>,
    /// Trace rows: a power of two. The LDE has `rows * blowup` rows;
    /// matrices of different heights are committed as
    /// [`Context::merkle_commit`] commits them.
    pub rows: usize,
    /// Columns, each of `ext_degree` base elements.
    pub cols: usize,
    /// Extension degree (1 for the base field).
    pub ext_degree: u32,
    /// [`Keep::Host`]: where the matrix's LDE goes, at least
    /// `rows * blowup * cols * ext_degree` elements (the tree takes the
    /// vector). `None` otherwise.
    pub lde_host: Option<Vec<T>>,
}

impl<T: Element> CommitMatrix<T> {
    /// A matrix of `rows` x `cols` base elements (`ext_degree` 1) without an
    /// LDE destination. `data` is a `Vec<T>` or an `Arc<Vec<T>>`.
    pub fn new(data: impl Into<Arc<Vec<T>>>, rows: usize, cols: usize) -> CommitMatrix<T> {
        CommitMatrix {
            data: data.into(),
            rows,
            cols,
            ext_degree: 1,
            lde_host: None,
        }
    }
}

/// Options of [`Context::commit_host`] (`gp_commit_options`). Build them
/// with struct-update syntax:
/// `CommitOptions { keep: Keep::Host, ..CommitOptions::default() }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitOptions {
    /// The LDE of every matrix (blowup, shift, input_shift, output_order,
    /// input_layout), as [`Context::lde_host`] takes it; `n` must be 0
    /// (each matrix is extended over its own rows).
    pub lde: LdeOptions,
    /// The Merkle profile, as [`Context::merkle_commit`] takes it.
    pub merkle: MerkleOptions,
    /// Default [`Keep::Device`].
    pub keep: Keep,
    /// Device memory the call may use, in bytes: the tree, the row sponge
    /// states, the batches in flight and, with [`Keep::Device`], the kept
    /// LDE. 0 (default) means what the device has free (no limit on the CPU
    /// backend). The columns are streamed in batches as large as the budget
    /// allows; a budget below the least working set is an error with
    /// [`Status::InvalidArgument`] whose message names that minimum.
    pub device_budget: u64,
}

impl Context {
    /// Commits host traces in one call (`gp_commit_host`): the coset LDE of
    /// every matrix (`options.lde`), then one Merkle tree over all of them
    /// (`options.merkle`), with the same bytes as [`Context::lde_host`] of
    /// every matrix followed by [`Context::merkle_commit`] of the LDEs. The
    /// columns are uploaded, extended and absorbed into the row hashes in
    /// batches, so the whole LDE is on the device only with [`Keep::Device`].
    ///
    /// Returns the kept LDE buffers (one per matrix, in order, with
    /// [`Keep::Device`]; empty otherwise) and the tree. The tree holds what
    /// its openings read, as the keep mode says: the buffers, the
    /// [`CommitMatrix::lde_host`] vectors or the traces. `T` is the field's
    /// element type.
    pub fn commit_host<T: Element>(
        &self,
        field: Field,
        matrices: Vec<CommitMatrix<T>>,
        options: &CommitOptions,
    ) -> Result<(Vec<Buffer>, MerkleTree)> {
        self.commit_host_impl(field, matrices, options, None, &[])
    }

    /// Like [`Context::commit_host`], with the LDE randomized inside its own
    /// passes as [`Context::lde_randomized`] describes (zero knowledge, as
    /// Triton VM commits its tables): `randomizers` holds the coefficients
    /// of every matrix's columns in turn (matrix 0's, then matrix 1's, each
    /// laid out as `lde_host_randomized` takes them), `count` a column. The
    /// library adds them inside the LDE only: at most `n` coefficients with
    /// `blowup * count <= max(n, n * blowup / 8)` (Triton's 98 at any real
    /// height); otherwise [`Status::Unsupported`]. They are copied, so a
    /// [`Keep::None`] tree reopens rows without them. Triton draws the
    /// coefficients from its seeded `StdRng`: the caller's business.
    pub fn commit_host_randomized<T: Element>(
        &self,
        field: Field,
        matrices: Vec<CommitMatrix<T>>,
        options: &CommitOptions,
        randomizers: &[T],
    ) -> Result<(Vec<Buffer>, MerkleTree)> {
        self.commit_host_impl(field, matrices, options, None, randomizers)
    }

    /// Like [`Context::commit_host`] with [`Keep::Device`], the LDE written
    /// into the caller's buffers instead of new ones
    /// (`gp_commit_options.lde_into`): `into[i]` receives matrix i's LDE
    /// and must be a buffer of this context over `field` with matrix i's
    /// `ext_degree`, `rows * blowup` rows and `cols` columns. A prover that
    /// commits trace after trace of one shape saves the allocation of the
    /// LDE each time. `options.keep` must be [`Keep::Device`]; the buffers
    /// are not counted in `options.device_budget`.
    ///
    /// Returns the tree, which holds the buffers as [`Context::merkle_commit`]'s
    /// trees hold their matrices: they are read-only
    /// ([`Buffer::is_shared`]) until it is dropped, and then may be written
    /// by the next call. None of them may be committed by a live tree when
    /// the call is made.
    pub fn commit_host_into<T: Element>(
        &self,
        field: Field,
        matrices: Vec<CommitMatrix<T>>,
        options: &CommitOptions,
        into: &mut [Buffer],
    ) -> Result<MerkleTree> {
        if options.keep != Keep::Device {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "commit_host_into writes the LDE into device buffers: keep must be \
                     Keep::Device, not {:?}",
                    options.keep
                ),
            ));
        }
        if into.len() != matrices.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "into holds {} buffers for {} matrices (one per matrix)",
                    into.len(),
                    matrices.len()
                ),
            ));
        }
        self.commit_host_impl(field, matrices, options, Some(into), &[])
            .map(|(_, tree)| tree)
    }

    fn commit_host_impl<T: Element>(
        &self,
        field: Field,
        mut matrices: Vec<CommitMatrix<T>>,
        options: &CommitOptions,
        mut into: Option<&mut [Buffer]>,
        randomizers: &[T],
    ) -> Result<(Vec<Buffer>, MerkleTree)> {
        check_element::<T>(field)?;
        let count = crate::merkle::matrix_count(matrices.len())?;
        let mut raw_mats = Vec::with_capacity(matrices.len());
        for (i, m) in matrices.iter_mut().enumerate() {
            check_len(
                &format!("matrices[{}].data", i),
                m.data.len(),
                m.rows,
                m.cols,
                m.ext_degree,
            )?;
            let (lde_host, lde_host_bytes) = match m.lde_host.as_mut() {
                Some(v) => (
                    v.as_mut_ptr().cast(),
                    to_u64(std::mem::size_of_val(v.as_slice())),
                ),
                None => (ptr::null_mut(), 0),
            };
            raw_mats.push(sys::gp_commit_matrix {
                data: nonnull(m.data.as_slice()),
                rows: to_u64(m.rows),
                cols: to_u64(m.cols),
                ext_degree: m.ext_degree,
                lde_host,
                lde_host_bytes,
            });
        }
        let mut raw_lde = options.lde.to_raw();
        if !randomizers.is_empty() {
            // Every matrix's columns in turn, each of its degree.
            let mut columns = 0usize;
            for m in &matrices {
                columns = columns
                    .checked_add(crate::element_count(1, m.cols, m.ext_degree)?)
                    .ok_or_else(|| Error::new(Status::SizeOverflow, "the matrices' columns overflow usize"))?;
            }
            raw_lde.randomizer_count = crate::randomizer_count(randomizers.len(), columns, 1)?;
            // `randomizers` holds count * columns elements of the field's
            // size (checked just now) and outlives the call (it is copied).
            raw_lde.randomizers = nonnull(randomizers);
        }
        let raw_merkle = options.merkle.to_raw(field);
        // SAFETY: plain data, filled by gp_commit_options_init.
        let mut raw_options: sys::gp_commit_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_commit_options_init(&mut raw_options) };
        raw_options.lde = &raw_lde;
        raw_options.merkle = &raw_merkle;
        raw_options.keep = options.keep.to_raw();
        raw_options.device_budget = options.device_budget;
        // The caller's buffers (`into`): each unshared and exclusively
        // borrowed for the call, so the library may write them.
        let raw_into = match into.as_deref_mut() {
            Some(bufs) => bufs
                .iter_mut()
                .enumerate()
                .map(|(i, b)| b.raw_mut(&format!("into[{}]", i)))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        if into.is_some() {
            raw_options.lde_into = raw_into.as_ptr();
        }
        let mut raw_lde_out: Vec<*mut sys::gp_buffer> = match options.keep {
            Keep::Device if into.is_none() => vec![ptr::null_mut(); matrices.len()],
            _ => Vec::new(),
        };
        let mut raw_tree = ptr::null_mut();
        // SAFETY: every trace holds rows * cols * ext_degree elements of the
        // field's size (checked above); every destination is valid for
        // writes of the size passed with it and exclusively borrowed; the
        // out-pointers are valid for `count` buffers and one tree; `into`'s
        // handles, when given, are `count` distinct writable buffers. The
        // memory the tree's openings read is moved into the tree below.
        check(unsafe {
            sys::gp_commit_host(
                self.as_raw(),
                field.to_raw(),
                raw_mats.as_ptr(),
                count,
                &raw_options,
                if raw_lde_out.is_empty() {
                    ptr::null_mut()
                } else {
                    raw_lde_out.as_mut_ptr()
                },
                &mut raw_tree,
            )
        })?;
        let raw_tree = match NonNull::new(raw_tree) {
            Some(raw) if raw_lde_out.iter().all(|b| !b.is_null()) => raw,
            _ => {
                // SAFETY: whichever handles came back are owned here; NULL is
                // a no-op for both destroy functions.
                unsafe {
                    sys::gp_merkle_tree_destroy(raw_tree);
                    for &b in &raw_lde_out {
                        sys::gp_buffer_destroy(b);
                    }
                }
                return Err(Error::new(
                    Status::Internal,
                    "gp_commit_host returned GP_OK and a NULL tree or LDE buffer",
                ));
            }
        };
        let lde = raw_lde_out
            .into_iter()
            .map(|b| Buffer::from_handle(self, b, "gp_commit_host", None))
            .collect::<Result<Vec<_>>>()?;
        let blowup = options.lde.blowup as usize;
        let dims = matrices
            .iter()
            .map(|m| MatrixDims {
                rows: m.rows * blowup,
                cols: m.cols,
                ext_degree: m.ext_degree,
            })
            .collect();
        let host: Option<Box<dyn Any + Send + Sync>> = match options.keep {
            Keep::Device => None,
            Keep::Host => Some(Box::new(
                matrices
                    .iter_mut()
                    .map(|m| m.lde_host.take().unwrap_or_default())
                    .collect::<Vec<Vec<T>>>(),
            )),
            Keep::None => Some(Box::new(
                matrices
                    .iter()
                    .map(|m| Arc::clone(&m.data))
                    .collect::<Vec<Arc<Vec<T>>>>(),
            )),
        };
        let held = match into {
            Some(bufs) => bufs.iter().map(Buffer::share).collect(),
            None => lde.iter().map(Buffer::share).collect(),
        };
        let tree = MerkleTree::from_commit(
            raw_tree,
            self,
            held,
            field,
            MerkleOptions {
                perm: Some(options.merkle.permutation_for(field)),
                ..options.merkle
            },
            dims,
            host,
        );
        Ok((lde, tree))
    }
}
