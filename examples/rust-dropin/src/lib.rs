// SPDX-License-Identifier: MIT OR Apache-2.0
//! A drop-in replacement for a CPU commitment routine, computed by gpuprover.
//!
//! The routine replaced is Plonky3's `MerkleTreeMmcs` commitment of one
//! row-major KoalaBear matrix with the usual Poseidon2 configuration:
//!
//! ```text
//! type Perm = Poseidon2KoalaBear<16>;
//! type Hash = PaddingFreeSponge<Perm, 16, 8, 8>;            // width 16, rate 8, digest 8
//! type Compress = TruncatedPermutation<Perm, 2, 8, 16>;
//! type Mmcs = MerkleTreeMmcs<Val, Val, Hash, Compress, 8>;
//!
//! let (root, _tree) = mmcs.commit_matrix(RowMajorMatrix::new(values, width));
//! ```
//!
//! given as canonical `u32` values (`as_canonical_u32()`) and returning the
//! root as the 8 canonical digest elements. The matrix height
//! (`values.len() / width`) may be any positive number, as Plonky3's MMCS
//! allows.
//!
//! ```no_run
//! // (no_run: doctests do not get the library's rpath with older cargo; the
//! // same call runs in tests/dropin.rs.)
//! let values: Vec<u32> = (0..8 * 5).collect(); // 8 rows x 5 columns, row-major
//! let root: [u32; 8] = gpuprover_dropin::koalabear_poseidon2_mmcs_root(&values, 5);
//! ```

use gpuprover::{
    elements_from_le_bytes, Buffer, Context, Error, Field, Layout, MerkleKind, MerkleOptions,
    Permutation, Result, Status,
};

/// Plonky3's `MerkleTreeMmcs<_, _, PaddingFreeSponge<Poseidon2KoalaBear<16>,
/// 16, 8, 8>, TruncatedPermutation<Poseidon2KoalaBear<16>, 2, 8, 16>, 8>`
/// root of the row-major matrix `values` with `width` columns.
///
/// This is the drop-in: the signature and output of the CPU routine, computed
/// by gpuprover on the best backend present (CUDA if a usable GPU exists,
/// else the CPU). Like the CPU routine it panics on input it cannot commit:
/// `width` 0, a length that is not a multiple of `width` (or 0), or a value
/// that is not a canonical KoalaBear element.
/// Use [`try_koalabear_poseidon2_mmcs_root`] for a `Result` and to reuse a
/// context.
pub fn koalabear_poseidon2_mmcs_root(values: &[u32], width: usize) -> [u32; 8] {
    let ctx = Context::new().unwrap_or_else(|e| panic!("gpuprover context: {}", e));
    try_koalabear_poseidon2_mmcs_root(&ctx, values, width)
        .unwrap_or_else(|e| panic!("koalabear_poseidon2_mmcs_root: {}", e))
}

/// The same commitment on `ctx`, with the errors as a `Result`.
pub fn try_koalabear_poseidon2_mmcs_root(
    ctx: &Context,
    values: &[u32],
    width: usize,
) -> Result<[u32; 8]> {
    if width == 0 {
        return Err(Error::new(Status::InvalidArgument, "width is 0"));
    }
    if values.is_empty() || values.len() % width != 0 {
        return Err(Error::new(
            Status::ShapeMismatch,
            format!(
                "values.len() = {} is not a positive multiple of width = {}",
                values.len(),
                width
            ),
        ));
    }
    let height = values.len() / width;
    let matrix = Buffer::from_host(
        ctx,
        Field::KoalaBear,
        1,
        height,
        width,
        Layout::RowMajor,
        values,
    )?;
    let options = MerkleOptions {
        kind: MerkleKind::FieldSponge,
        perm: Some(Permutation::Poseidon2KoalaBear16),
        digest: 8, // PaddingFreeSponge<_, 16, 8, 8>: OUT = 8
        rate: 8,   // RATE = 8
        cap_height: 0,
        compress_perm: None,
        leaf_rows: 0,
    };
    let tree = ctx.merkle_commit(&[&matrix], &options)?;
    let root = elements_from_le_bytes::<u32>(&tree.root()?);
    <[u32; 8]>::try_from(root).map_err(|r| {
        Error::new(
            Status::Internal,
            format!("the root has {} elements, not 8", r.len()),
        )
    })
}
