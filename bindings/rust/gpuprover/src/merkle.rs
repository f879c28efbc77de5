// SPDX-License-Identifier: MIT OR Apache-2.0
//! Merkle commitments (`gp_merkle_*`): trees over one or more matrices of a
//! context, their roots, caps and openings, and the host verifier.

use std::any::Any;
use std::fmt;
use std::ptr::{self, NonNull};

use crate::{
    check, check_element, elements_from_le_bytes, nonnull, sys, to_u64, to_usize, type_name_of,
    Buffer, Context, Element, Error, Field, Permutation, Result, Status,
};

/// How leaves and nodes are hashed (`gp_merkle_kind`); the header spells out
/// the bytes each profile hashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MerkleKind {
    /// Plonky3's `MerkleTreeMmcs` over a field hash: `PaddingFreeSponge`
    /// leaves, `TruncatedPermutation` nodes, shorter matrices injected at
    /// their height. Any permutation but Keccak-f\[1600\].
    #[default]
    FieldSponge,
    /// miden-crypto / winterfell with RPO256 or RPX256 (miden-crypto v0.21
    /// and later). One height; Goldilocks.
    Miden,
    /// As `Miden` in miden-crypto's layout of v0.11 to v0.20.
    MidenV0_11,
    /// As `MidenV0_11` with the padding of v0.10 and before.
    MidenV0_10,
    /// Plonky3's `MerkleTreeMmcs` over Keccak-256 of the rows' bytes.
    KeccakPlonky3,
    /// lambdaworks / Lambda VM Keccak-256 tree over big-endian Goldilocks.
    KeccakBe,
    /// Plonky3's `MerkleTreeMmcs` over the Keccak-f sponge on 64-bit lanes
    /// (`PaddingFreeSponge<KeccakF, 25, 17, 4>`, Plonky3's fast Keccak
    /// MMCS): 32-byte digests, any field, mixed heights.
    KeccakU64,
    /// Triton VM / twenty-first Tip5 tree: `hash_varlen` leaves,
    /// `hash_pair` nodes, 5-element Goldilocks digests, one height.
    Triton,
    /// twenty-first's tree of digests, as Triton VM commits each FRI round:
    /// leaf = the row's elements taken as the digest (at most 5 Goldilocks
    /// elements, zero-filled; `Digest::from` of an `XFieldElement`), node =
    /// Tip5 `hash_pair`; one height. With
    /// [`FriLeaf::Element`](crate::FriLeaf::Element) this is Triton's FRI
    /// round commitment.
    TritonDigest,
    /// Miden's lifted MMCS (LMCS; miden-vm `lifted-stark`) over Goldilocks:
    /// matrices of power-of-two heights given in ascending order of height,
    /// lifted cyclically to the tallest (leaf i absorbs row `i mod h` of
    /// every matrix of height h). Permutation RPO256, RPX256,
    /// Poseidon2 Goldilocks width 12 (the default), Keccak-f\[1600\] or
    /// BLAKE3 (Miden's default configuration: leaf = BLAKE3 chained over the
    /// rows' bytes, node = BLAKE3(left || right)); 32-byte digests (4
    /// Goldilocks elements, 4 Keccak lanes, or a BLAKE3 hash).
    MidenLmcs,
    /// winter-crypto's `MerkleTree<H>` (winterfell 0.13) over Goldilocks:
    /// leaf = `H::hash_elements(row)` (the row of all matrices
    /// concatenated, extension elements flattened to their coefficients),
    /// node = `H::merge(left, right)`; one power-of-two height of at least
    /// 2. `H` is the permutation: [`Permutation::Blake3`] (`Blake3_256`,
    /// the default), [`Permutation::Blake3_192`] (24-byte digests),
    /// [`Permutation::Sha3_256`] or [`Permutation::Rp64_256`] (digests of 4
    /// Goldilocks elements). Digest bytes are what winterfell serializes:
    /// the hash bytes, or the 4 elements canonical little-endian.
    Winterfell,
}

impl MerkleKind {
    /// The raw `gp_merkle_kind` value.
    pub fn to_raw(self) -> sys::gp_merkle_kind {
        use sys::gp_merkle_kind as K;
        match self {
            MerkleKind::FieldSponge => K::GP_MERKLE_FIELD_SPONGE,
            MerkleKind::Miden => K::GP_MERKLE_MIDEN,
            MerkleKind::MidenV0_11 => K::GP_MERKLE_MIDEN_V0_11,
            MerkleKind::MidenV0_10 => K::GP_MERKLE_MIDEN_V0_10,
            MerkleKind::KeccakPlonky3 => K::GP_MERKLE_KECCAK_PLONKY3,
            MerkleKind::KeccakBe => K::GP_MERKLE_KECCAK_BE,
            MerkleKind::KeccakU64 => K::GP_MERKLE_KECCAK_U64,
            MerkleKind::Triton => K::GP_MERKLE_TRITON,
            MerkleKind::TritonDigest => K::GP_MERKLE_TRITON_DIGEST,
            MerkleKind::MidenLmcs => K::GP_MERKLE_MIDEN_LMCS,
            // GP_MERKLE_WINTERFELL (gpuprover.h), spelled as its number.
            MerkleKind::Winterfell => K(11),
        }
    }
}

/// A Merkle profile (`gp_merkle_options`). Build it with struct-update
/// syntax: `MerkleOptions { cap_height: 2, ..MerkleOptions::default() }`.
/// The default is Plonky3's Poseidon2 `MerkleTreeMmcs` for the matrices'
/// field with the root as the cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MerkleOptions {
    /// Default [`MerkleKind::FieldSponge`].
    pub kind: MerkleKind,
    /// The permutation of the sponge and (unless `compress_perm` is set) of
    /// the compression. `None` (default): the kind's permutation for the
    /// matrices' field, see [`MerkleOptions::permutation_for`].
    pub perm: Option<Permutation>,
    /// `FieldSponge` only (0 otherwise): digest elements; 0 (default) means
    /// 4 for Goldilocks, 8 for BabyBear and KoalaBear.
    pub digest: u32,
    /// `FieldSponge` only (0 otherwise): the sponge rate; 0 (default) means
    /// width - digest.
    pub rate: u32,
    /// The cap is the layer `2^cap_height` nodes wide; 0 (default) is the
    /// root. At most log2 of the least matrix height.
    pub cap_height: u32,
    /// `FieldSponge` only (`None` otherwise): the permutation of the
    /// compression when it differs from the sponge's, as in Plonky3's
    /// `PaddingFreeSponge<Perm24, 24, 16, 8>` leaves with
    /// `TruncatedPermutation<Perm16, 2, 8, 16>` nodes. `None` (default):
    /// `perm`. Offered pairs (sponge -> compression): Poseidon2 BabyBear
    /// 24 -> 16, KoalaBear 24 -> 16, Goldilocks 12 or 16 -> 8; others give
    /// [`Status::Unsupported`].
    pub compress_perm: Option<Permutation>,
    /// Rows per leaf: 0 (default) or 1 hashes row i as leaf i. 2 hashes rows
    /// 2i and 2i + 1 as leaf i (the elements of row 2i of every matrix in
    /// commit order, then those of row 2i + 1), as lambdaworks' STARK prover
    /// commits its composition polynomial and FRI layers with
    /// [`MerkleKind::KeccakBe`]. The matrices must share one even height H:
    /// the tree has H / 2 leaves, an opening of index i < H / 2 holds row 2i
    /// of every matrix followed by row 2i + 1 of every matrix,
    /// [`Context::merkle_hash_rows`] returns H / 2 digests, and
    /// [`merkle_verify`] takes the same options with the matrices' own
    /// shapes. Only [`Context::merkle_commit`], [`Context::merkle_hash_rows`]
    /// and [`merkle_verify`] accept 2; the FRI, constraint and one-call
    /// commitments give [`Status::Unsupported`].
    pub leaf_rows: u32,
}

impl MerkleOptions {
    /// Plonky3's Poseidon2 `MerkleTreeMmcs` for `field`: width 8, rate 4,
    /// digest 4 for Goldilocks; width 16, rate 8, digest 8 for BabyBear and
    /// KoalaBear; cap height 0.
    pub fn plonky3_poseidon2(field: Field) -> MerkleOptions {
        MerkleOptions {
            perm: Some(MerkleKind::FieldSponge.default_permutation(field)),
            ..MerkleOptions::default()
        }
    }

    /// The permutation used for matrices over `field`: `perm` if set, else
    /// Poseidon2 (Goldilocks width 8, BabyBear and KoalaBear width 16) for
    /// `FieldSponge`, RPO256 for the Miden kinds, Poseidon2 Goldilocks
    /// width 12 for `MidenLmcs`, Keccak-f\[1600\] for the Keccak kinds,
    /// Tip5 for the Triton kinds and BLAKE3 for `Winterfell`.
    pub fn permutation_for(&self, field: Field) -> Permutation {
        self.perm
            .unwrap_or_else(|| self.kind.default_permutation(field))
    }

    pub(crate) fn to_raw(self, field: Field) -> sys::gp_merkle_options {
        // SAFETY: plain data, filled by gp_merkle_options_init.
        let mut raw: sys::gp_merkle_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_merkle_options_init(&mut raw) };
        raw.kind = self.kind.to_raw();
        raw.perm = self.permutation_for(field).to_raw();
        raw.digest = self.digest;
        raw.rate = self.rate;
        raw.cap_height = self.cap_height;
        raw.compress_perm = self
            .compress_perm
            .map_or(sys::gp_permutation(0), Permutation::to_raw);
        raw.leaf_rows = self.leaf_rows;
        raw
    }

    /// Bytes of one digest for matrices over `field`, as the library lays
    /// digests out (elements x element size: 5 x 8 for Tip5, or 32 for
    /// Keccak).
    pub(crate) fn digest_bytes(&self, field: Field) -> Result<usize> {
        match self.kind {
            MerkleKind::FieldSponge => {
                let info = self.permutation_for(field).info()?;
                let elem = info.field.map_or(8, Field::element_size);
                let digest = if self.digest != 0 {
                    self.digest as usize
                } else if elem == 8 {
                    4
                } else {
                    8
                };
                Ok(digest * elem)
            }
            // Tip5 digests: 5 Goldilocks elements.
            MerkleKind::Triton | MerkleKind::TritonDigest => Ok(5 * 8),
            // winterfell's Blake3_192: 24 bytes.
            MerkleKind::Winterfell if self.permutation_for(field) == Permutation::Blake3_192 => {
                Ok(24)
            }
            // 4 Goldilocks elements, 4 Keccak lanes or BLAKE3 (MidenLmcs),
            // Keccak-256.
            _ => Ok(32),
        }
    }

    /// Rows hashed into one leaf: 2 with `leaf_rows` 2, else 1.
    pub(crate) fn rows_per_leaf(&self) -> usize {
        if self.leaf_rows == 2 {
            2
        } else {
            1
        }
    }
}

impl MerkleKind {
    fn default_permutation(self, field: Field) -> Permutation {
        match self {
            MerkleKind::FieldSponge => match field {
                Field::Goldilocks => Permutation::Poseidon2Goldilocks8,
                Field::BabyBear => Permutation::Poseidon2BabyBear16,
                Field::KoalaBear => Permutation::Poseidon2KoalaBear16,
            },
            MerkleKind::Miden | MerkleKind::MidenV0_11 | MerkleKind::MidenV0_10 => {
                Permutation::Rpo256
            }
            MerkleKind::KeccakPlonky3 | MerkleKind::KeccakBe | MerkleKind::KeccakU64 => {
                Permutation::KeccakF1600
            }
            MerkleKind::Triton | MerkleKind::TritonDigest => Permutation::Tip5,
            MerkleKind::MidenLmcs => Permutation::Poseidon2Goldilocks12,
            MerkleKind::Winterfell => Permutation::Blake3,
        }
    }
}

/// The shape of one committed matrix, for [`merkle_verify`]
/// (`gp_matrix_dims`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixDims {
    /// Rows (a power of two, or a height of a Plonky3 MMCS ladder).
    pub rows: usize,
    /// Columns, each of `ext_degree` base elements.
    pub cols: usize,
    /// Extension degree (1 for the base field).
    pub ext_degree: u32,
}

impl MatrixDims {
    /// The shape of a buffer.
    pub fn of(buffer: &Buffer) -> MatrixDims {
        MatrixDims {
            rows: buffer.rows(),
            cols: buffer.cols(),
            ext_degree: buffer.ext_degree(),
        }
    }

    fn to_raw(self) -> Result<sys::gp_matrix_dims> {
        let cols = u32::try_from(self.cols).map_err(|_| {
            Error::new(
                Status::InvalidArgument,
                format!(
                    "cols = {} does not fit the 32 bits of gp_matrix_dims",
                    self.cols
                ),
            )
        })?;
        Ok(sys::gp_matrix_dims {
            rows: to_u64(self.rows),
            cols,
            ext_degree: self.ext_degree,
        })
    }

    /// Base elements of one row: `cols * ext_degree`.
    fn row_len(&self) -> usize {
        self.cols * self.ext_degree as usize
    }
}

/// One opened leaf ([`MerkleTree::open`]): the row of every matrix in
/// commit order (base elements, canonical) and the sibling digests from the
/// leaf layer up to the layer below the cap, back to back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MerkleOpening<T> {
    /// The opened index (a row of the tallest matrices; with
    /// [`MerkleOptions::leaf_rows`] 2, a leaf: rows 2 x index and
    /// 2 x index + 1).
    pub index: usize,
    /// The opened rows, matrix after matrix in commit order. A matrix of
    /// height h is read at row `index >> log2(greatest height / h)`. With
    /// [`MerkleOptions::leaf_rows`] 2: row 2 x index of every matrix, then
    /// row 2 x index + 1 of every matrix.
    pub rows: Vec<T>,
    /// The authentication path (`digest_size` bytes per layer).
    pub path: Vec<u8>,
}

/// A committed Merkle tree (`gp_merkle_tree`). It keeps every layer up to the
/// root (on the device for the CUDA backend) and refers to its matrices,
/// which the library reads again to open rows: the tree holds them (and its
/// context), so they live at least as long as it does, whatever happens to
/// the [`Buffer`] values they were committed from. While the tree exists
/// they are read-only: a call that would write one fails with
/// [`Status::InvalidArgument`] ([`Buffer::is_shared`]). Destroyed on drop,
/// before its matrices and its context.
///
/// A tree of [`Context::commit_host`] holds what its openings read in the
/// same way: the kept LDE buffers ([`crate::Keep::Device`]), the LDE
/// vectors it was given ([`crate::Keep::Host`], see
/// [`MerkleTree::host_lde`]) or the traces ([`crate::Keep::None`]).
///
/// `Send` and `Sync`: openings may be taken from several threads at once
/// (the library serializes the calls on one context).
///
/// ```no_run
/// use gpuprover::{Buffer, Context, Field, MerkleOptions, NttOptions, Status};
/// let ctx = Context::new().unwrap();
/// let tree = {
///     let matrix = Buffer::new(&ctx, Field::Goldilocks, 1, 8, 2).unwrap();
///     ctx.merkle_commit(&[&matrix], &MerkleOptions::default()).unwrap()
/// }; // `matrix` is dropped here; the tree keeps the buffer alive
/// let opening = tree.open::<u64>(&[3]).unwrap().remove(0);
/// tree.verify(&opening).unwrap();
///
/// let mut matrix = Buffer::new(&ctx, Field::Goldilocks, 1, 8, 2).unwrap();
/// let tree = ctx.merkle_commit(&[&matrix], &MerkleOptions::default()).unwrap();
/// let err = ctx.ntt(&mut matrix, &NttOptions::forward()).unwrap_err();
/// assert_eq!(err.status(), Status::InvalidArgument); // committed: read-only
/// drop(tree);
/// ctx.ntt(&mut matrix, &NttOptions::forward()).unwrap();
/// ```
pub struct MerkleTree {
    raw: NonNull<sys::gp_merkle_tree>,
    // Dropped after the handle is destroyed (see Drop): the matrices the
    // library reads, then the context.
    matrices: Vec<Buffer>,
    ctx: Context,
    field: Field,
    options: MerkleOptions,
    dims: Vec<MatrixDims>,
    // Host memory the library reads to open rows (Context::commit_host):
    // the LDE vectors (a Vec<Vec<T>>, Keep::Host) or the traces (a
    // Vec<Arc<Vec<T>>>, Keep::None). Dropped after the handle.
    host: Option<Box<dyn Any + Send + Sync>>,
}

// SAFETY: gpuprover.h: "Contexts, and every handle of a context, may be used
// from several threads at once: the calls on one context are serialized".
// The tree handle is destroyed only in `Drop`; the buffers it reads are kept
// alive and unwritable (shared) by `matrices`, the host memory it reads by
// `host`, which lends it out read-only.
unsafe impl Send for MerkleTree {}
// SAFETY: as for `Send`: the methods on `&MerkleTree` are thread-safe C calls
// (root, cap, sizes, open) and reads of immutable Rust fields.
unsafe impl Sync for MerkleTree {}

impl fmt::Debug for MerkleTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MerkleTree")
            .field("field", &self.field)
            .field("options", &self.options)
            .field("dims", &self.dims)
            .finish()
    }
}

/// The number of matrices of one tree, as the C calls take it: at least
/// one, at most `u32::MAX`.
pub(crate) fn matrix_count(len: usize) -> Result<u32> {
    if len == 0 {
        return Err(Error::new(
            Status::InvalidArgument,
            "no matrices (a tree needs at least one)",
        ));
    }
    u32::try_from(len).map_err(|_| Error::new(Status::InvalidArgument, "too many matrices"))
}

fn raw_matrices(matrices: &[&Buffer]) -> Result<(Vec<*const sys::gp_buffer>, u32)> {
    let count = matrix_count(matrices.len())?;
    let raw = matrices
        .iter()
        .map(|b| b.as_raw() as *const sys::gp_buffer)
        .collect();
    Ok((raw, count))
}

impl Context {
    /// Commits `matrices` (buffers of this context over one field; heights
    /// powers of two, or for Plonky3's MMCS kinds any heights on the ladder
    /// ceil(M / 2^k) of the greatest M) as one tree (`gp_merkle_commit`). The matrices are
    /// hashed where they are (on the device for the CUDA backend, without a
    /// copy); the tree holds them (see [`MerkleTree`]).
    pub fn merkle_commit(
        &self,
        matrices: &[&Buffer],
        options: &MerkleOptions,
    ) -> Result<MerkleTree> {
        let (raw_mats, count) = raw_matrices(matrices)?;
        let field = matrices[0].field();
        let raw_options = options.to_raw(field);
        let mut raw = ptr::null_mut();
        // SAFETY: the handles are valid and outlive the call; the library
        // checks that they belong to this context.
        check(unsafe {
            sys::gp_merkle_commit(
                self.as_raw(),
                raw_mats.as_ptr(),
                count,
                &raw_options,
                &mut raw,
            )
        })?;
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::new(Status::Internal, "gp_merkle_commit returned GP_OK and NULL")
        })?;
        Ok(MerkleTree {
            raw,
            matrices: matrices.iter().map(|b| b.share()).collect(),
            ctx: self.clone(),
            field,
            options: MerkleOptions {
                perm: Some(options.permutation_for(field)),
                ..*options
            },
            dims: matrices.iter().map(|b| MatrixDims::of(b)).collect(),
            host: None,
        })
    }

    /// The leaf hash of every row of `matrices` (all of one height):
    /// digest i hashes row i of all matrices concatenated (rows 2i and
    /// 2i + 1 with [`MerkleOptions::leaf_rows`] 2)
    /// (`gp_merkle_hash_rows`; `cap_height` is ignored). Returns one digest
    /// per leaf (per row, or per pair of rows), back to back, laid out as
    /// [`MerkleTree::root`] is.
    pub fn merkle_hash_rows(
        &self,
        matrices: &[&Buffer],
        options: &MerkleOptions,
    ) -> Result<Vec<u8>> {
        let (raw_mats, count) = raw_matrices(matrices)?;
        let field = matrices[0].field();
        let raw_options = options.to_raw(field);
        let size = (matrices[0].rows() / options.rows_per_leaf())
            .checked_mul(options.digest_bytes(field)?)
            .ok_or_else(|| Error::new(Status::SizeOverflow, "rows x digest bytes overflows"))?;
        let mut out = vec![0u8; size];
        // SAFETY: `out` is valid for `size` bytes; the handles are valid.
        check(unsafe {
            sys::gp_merkle_hash_rows(
                self.as_raw(),
                raw_mats.as_ptr(),
                count,
                &raw_options,
                out.as_mut_ptr().cast(),
                to_u64(out.len()),
            )
        })?;
        Ok(out)
    }
}

impl MerkleTree {
    /// Wraps a tree the library returned from another call (the constraint
    /// commitment) over `matrices`, which it holds.
    pub(crate) fn from_raw(
        raw: NonNull<sys::gp_merkle_tree>,
        matrices: Vec<Buffer>,
        field: Field,
        options: MerkleOptions,
    ) -> MerkleTree {
        let ctx = matrices[0].context().clone();
        let dims = matrices.iter().map(MatrixDims::of).collect();
        MerkleTree {
            raw,
            matrices,
            ctx,
            field,
            options,
            dims,
            host: None,
        }
    }

    /// Wraps a tree of [`Context::commit_host`]: `matrices` are the kept LDE
    /// buffers (possibly none), `dims` the LDE shapes, `host` the host
    /// memory the openings read.
    pub(crate) fn from_commit(
        raw: NonNull<sys::gp_merkle_tree>,
        ctx: &Context,
        matrices: Vec<Buffer>,
        field: Field,
        options: MerkleOptions,
        dims: Vec<MatrixDims>,
        host: Option<Box<dyn Any + Send + Sync>>,
    ) -> MerkleTree {
        MerkleTree {
            raw,
            matrices,
            ctx: ctx.clone(),
            field,
            options,
            dims,
            host,
        }
    }

    /// The raw handle, for calling `gpuprover_sys` functions directly. It
    /// stays owned by `self`.
    pub fn as_raw(&self) -> *mut sys::gp_merkle_tree {
        self.raw.as_ptr()
    }

    /// The context the tree belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The committed matrices, in commit order (Plonky3's `get_matrices`).
    /// They are read-only while the tree exists. For a tree of
    /// [`Context::commit_host`]: the kept LDE buffers with
    /// [`crate::Keep::Device`], none otherwise.
    pub fn matrices(&self) -> &[Buffer] {
        &self.matrices
    }

    /// A tree of [`Context::commit_host`] with [`crate::Keep::Host`]: the LDE
    /// of matrix `index` as the call wrote it into that matrix's
    /// [`crate::CommitMatrix::lde_host`] (column-major, the first
    /// `rows * blowup * cols * ext_degree` elements of the vector), which
    /// the tree holds and its openings read. `None` for another tree, an
    /// index past the last matrix, or a `T` other than the field's element
    /// type.
    pub fn host_lde<T: Element>(&self, index: usize) -> Option<&[T]> {
        let v = self
            .host
            .as_ref()?
            .downcast_ref::<Vec<Vec<T>>>()?
            .get(index)?;
        let d = self.dims[index];
        Some(&v[..d.rows * d.row_len()])
    }

    /// Destroys the tree and gives back the vectors that a tree of
    /// [`Context::commit_host`] with [`crate::Keep::Host`] holds (whole, as
    /// they were given, with the LDE written at their start); `None` for
    /// another tree or a `T` other than the field's element type.
    pub fn into_host_lde<T: Element>(mut self) -> Option<Vec<Vec<T>>> {
        let host = self.host.take();
        // The handle is destroyed here: nothing reads the vectors any more.
        drop(self);
        host?.downcast::<Vec<Vec<T>>>().ok().map(|b| *b)
    }

    /// The greatest height of the committed matrices (Plonky3's
    /// `get_max_height`): the number of leaves, or twice it with
    /// [`MerkleOptions::leaf_rows`] 2.
    pub fn height(&self) -> usize {
        self.dims.iter().map(|d| d.rows).max().unwrap_or(0)
    }

    /// The field of the committed matrices.
    pub fn field(&self) -> Field {
        self.field
    }

    /// The profile the tree was committed with (`perm` resolved).
    pub fn options(&self) -> &MerkleOptions {
        &self.options
    }

    /// The shapes of the committed matrices, in commit order.
    pub fn dims(&self) -> &[MatrixDims] {
        &self.dims
    }

    /// Bytes of one digest: digest elements x element size (8 for
    /// Goldilocks, 4 for BabyBear and KoalaBear), or 32 for Keccak
    /// (`gp_merkle_digest_size`).
    pub fn digest_size(&self) -> usize {
        // SAFETY: the handle is valid.
        to_usize(
            unsafe { sys::gp_merkle_digest_size(self.raw.as_ptr()) },
            "digest size",
        )
    }

    /// Bytes of the cap: `2^cap_height` digests (`gp_merkle_cap_size`).
    pub fn cap_size(&self) -> usize {
        // SAFETY: the handle is valid.
        to_usize(
            unsafe { sys::gp_merkle_cap_size(self.raw.as_ptr()) },
            "cap size",
        )
    }

    /// The root digest (`gp_merkle_root`): field digests element by element,
    /// canonical, little-endian (see [`crate::elements_from_le_bytes`]);
    /// Keccak digests as the 32 hash bytes.
    pub fn root(&self) -> Result<Vec<u8>> {
        self.read(self.digest_size(), sys::gp_merkle_root)
    }

    /// The cap, `2^cap_height` digests left to right (`gp_merkle_cap`):
    /// what openings verify against.
    pub fn cap(&self) -> Result<Vec<u8>> {
        self.read(self.cap_size(), sys::gp_merkle_cap)
    }

    /// SP1's commitment of the tree (`gp_merkle_sp1_commitment`):
    /// `compress(root, sponge([log2 height, width]))`, what SP1 v6's
    /// verifier checks an opening's root against. Field-sponge trees of one
    /// height only ([`Status::Unsupported`](crate::Status::Unsupported)
    /// otherwise).
    pub fn sp1_commitment(&self) -> Result<Vec<u8>> {
        self.read(self.digest_size(), sys::gp_merkle_sp1_commitment)
    }

    /// The `size` bytes that `read` (`gp_merkle_root` or `gp_merkle_cap`)
    /// writes for this tree.
    fn read(
        &self,
        size: usize,
        read: unsafe extern "C" fn(
            *const sys::gp_merkle_tree,
            *mut std::os::raw::c_void,
            u64,
        ) -> sys::gp_status,
    ) -> Result<Vec<u8>> {
        let mut out = vec![0u8; size];
        // SAFETY: the handle is valid; `out` is valid for its length.
        check(unsafe {
            read(
                self.raw.as_ptr(),
                out.as_mut_ptr().cast(),
                to_u64(out.len()),
            )
        })?;
        Ok(out)
    }

    /// Bytes per opened index: of its rows and of its path
    /// (`gp_merkle_opening_size`).
    pub fn opening_size(&self) -> Result<(usize, usize)> {
        let (mut rows, mut path) = (0u64, 0u64);
        // SAFETY: both pointers are valid for writes.
        check(unsafe { sys::gp_merkle_opening_size(self.raw.as_ptr(), &mut rows, &mut path) })?;
        Ok((to_usize(rows, "row bytes"), to_usize(path, "path bytes")))
    }

    /// Opens the leaves at `indices` (rows of the tallest matrices, or
    /// leaves of two rows with [`MerkleOptions::leaf_rows`] 2;
    /// `gp_merkle_open`). `T` is the field's element type.
    pub fn open<T: Element>(&self, indices: &[usize]) -> Result<Vec<MerkleOpening<T>>> {
        check_element::<T>(self.field)?;
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let (row_bytes, path_bytes) = self.opening_size()?;
        let count = indices.len();
        let raw_indices: Vec<u64> = indices.iter().map(|&i| to_u64(i)).collect();
        let mut rows = vec![0u8; count * row_bytes];
        let mut paths = vec![0u8; count * path_bytes];
        // SAFETY: `rows` and `paths` are valid for their lengths, `indices`
        // for `count` values; the committed matrices are alive (held).
        check(unsafe {
            sys::gp_merkle_open(
                self.raw.as_ptr(),
                raw_indices.as_ptr(),
                to_u64(count),
                if row_bytes == 0 {
                    ptr::null_mut()
                } else {
                    rows.as_mut_ptr().cast()
                },
                to_u64(rows.len()),
                if path_bytes == 0 {
                    ptr::null_mut()
                } else {
                    paths.as_mut_ptr().cast()
                },
                to_u64(paths.len()),
            )
        })?;
        Ok(indices
            .iter()
            .enumerate()
            .map(|(j, &index)| MerkleOpening {
                index,
                rows: elements_from_le_bytes(&rows[j * row_bytes..(j + 1) * row_bytes]),
                path: paths[j * path_bytes..(j + 1) * path_bytes].to_vec(),
            })
            .collect())
    }

    /// The authentication paths of the leaves at `indices`, without their
    /// rows (`gp_merkle_open` with no row output): for each index, the
    /// sibling digests from the leaf layer up to the layer below the cap,
    /// back to back, as [`MerkleOpening::path`]. For a caller that keeps
    /// the rows itself.
    pub fn open_paths(&self, indices: &[usize]) -> Result<Vec<Vec<u8>>> {
        if indices.is_empty() {
            return Ok(Vec::new());
        }
        let (_, path_bytes) = self.opening_size()?;
        let count = indices.len();
        let raw_indices: Vec<u64> = indices.iter().map(|&i| to_u64(i)).collect();
        if path_bytes == 0 {
            return Ok(vec![Vec::new(); count]);
        }
        let mut paths = vec![0u8; count * path_bytes];
        // SAFETY: `paths` is valid for its length, `raw_indices` for `count`
        // values; no rows are written (NULL, size 0).
        check(unsafe {
            sys::gp_merkle_open(
                self.raw.as_ptr(),
                raw_indices.as_ptr(),
                to_u64(count),
                ptr::null_mut(),
                0,
                paths.as_mut_ptr().cast(),
                to_u64(paths.len()),
            )
        })?;
        Ok(paths.chunks(path_bytes).map(<[u8]>::to_vec).collect())
    }

    /// Checks `opening` against this tree's cap with [`merkle_verify`]: `Ok`
    /// when it is valid, an error with [`Status::VerifyFailed`] when not.
    pub fn verify<T: Element>(&self, opening: &MerkleOpening<T>) -> Result<()> {
        merkle_verify(
            &self.options,
            self.field,
            &self.dims,
            &self.cap()?,
            opening.index,
            &opening.rows,
            &opening.path,
        )
    }
}

impl Drop for MerkleTree {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned; its matrices and context are
        // alive (fields, dropped after this).
        unsafe { sys::gp_merkle_tree_destroy(self.raw.as_ptr()) }
    }
}

/// Checks one opening on the host, without a context (`gp_merkle_verify`):
/// recomputes the leaf from `rows` (the opened rows of matrices of shapes
/// `dims` in commit order, over `field`; empty when the opened row is, as
/// for matrices of 0 columns), walks `path` up to the cap and compares with
/// the cap's digest. `options` must be those of the commitment. With [`MerkleOptions::leaf_rows`] 2, `dims` are the matrices'
/// own shapes and `rows` holds two rows of each (see [`MerkleOpening`]).
///
/// Returns `Ok(())` for a valid opening and an error with
/// [`Status::VerifyFailed`] for an invalid one; other statuses mean
/// malformed arguments (sizes that do not fit the shapes, an index past the
/// end, non-canonical row elements).
pub fn merkle_verify<T: Element>(
    options: &MerkleOptions,
    field: Field,
    dims: &[MatrixDims],
    cap: &[u8],
    index: usize,
    rows: &[T],
    path: &[u8],
) -> Result<()> {
    check_element::<T>(field)?;
    if dims.is_empty() {
        return Err(Error::new(
            Status::InvalidArgument,
            "no matrix shapes (a tree has at least one matrix)",
        ));
    }
    let want: usize = dims.iter().map(MatrixDims::row_len).sum::<usize>() * options.rows_per_leaf();
    if rows.len() != want {
        return Err(Error::new(
            Status::ShapeMismatch,
            format!(
                "rows holds {} {} values, but the shapes give {} per opening",
                rows.len(),
                type_name_of::<T>(),
                want
            ),
        ));
    }
    let raw_dims = dims
        .iter()
        .map(|d| d.to_raw())
        .collect::<Result<Vec<_>>>()?;
    let count = u32::try_from(raw_dims.len())
        .map_err(|_| Error::new(Status::InvalidArgument, "too many matrices"))?;
    let raw_options = options.to_raw(field);
    // SAFETY: every pointer is valid for the size passed with it.
    check(unsafe {
        sys::gp_merkle_verify(
            &raw_options,
            field.to_raw(),
            raw_dims.as_ptr(),
            count,
            nonnull(cap),
            to_u64(cap.len()),
            to_u64(index),
            nonnull(rows),
            to_u64(std::mem::size_of_val(rows)),
            nonnull(path),
            to_u64(path.len()),
        )
    })
}
