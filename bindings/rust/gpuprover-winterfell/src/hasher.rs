// SPDX-License-Identifier: MIT OR Apache-2.0
//! winterfell's hashers as the library's `GP_MERKLE_WINTERFELL` profiles,
//! and their digests.

use std::any::TypeId;

use gpuprover::Permutation;
use winter_prover::crypto::hashers::{Blake3_192, Blake3_256, Rp64_256, Sha3_256};
use winter_prover::crypto::Hasher;
use winter_prover::math::fields::f64::BaseElement;
use winter_prover::{Deserializable, Serializable};

/// The library hash that reproduces winter-crypto's `MerkleTree<H>` over
/// `f64` (with `MerkleKind::Winterfell`): `Blake3_256`, `Blake3_192`,
/// `Sha3_256` and `Rp64_256` have one; any other hasher is `None`, and is
/// committed by winterfell's code.
pub fn library_hash<H: 'static>() -> Option<Permutation> {
    let t = TypeId::of::<H>();
    if t == TypeId::of::<Blake3_256<BaseElement>>() {
        Some(Permutation::Blake3)
    } else if t == TypeId::of::<Blake3_192<BaseElement>>() {
        Some(Permutation::Blake3_192)
    } else if t == TypeId::of::<Sha3_256<BaseElement>>() {
        Some(Permutation::Sha3_256)
    } else if t == TypeId::of::<Rp64_256>() {
        Some(Permutation::Rp64_256)
    } else {
        None
    }
}

/// Bytes of one serialized `H` digest (what the library writes per digest
/// for the profile of `H`).
pub(crate) fn digest_size<H: Hasher>() -> usize {
    H::Digest::default().to_bytes().len()
}

/// The digests serialized back to back in `bytes`.
pub(crate) fn digests<H: Hasher>(bytes: &[u8]) -> Result<Vec<H::Digest>, String> {
    let size = digest_size::<H>();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(format!(
            "{} digest bytes are not whole {}-byte digests",
            bytes.len(),
            size
        ));
    }
    bytes
        .chunks(size)
        .map(|d| H::Digest::read_from_bytes(d).map_err(|e| format!("a digest the library wrote does not parse: {e}")))
        .collect()
}
