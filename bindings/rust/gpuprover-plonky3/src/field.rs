// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Plonky3 fields the library computes over, and the words of Merkle
//! digests, converted to and from the library's canonical elements.

use gpuprover::{Element, Field};
use p3_baby_bear::BabyBear;
use p3_field::{PrimeCharacteristicRing, PrimeField64, TwoAdicField};
use p3_goldilocks::Goldilocks;
use p3_koala_bear::KoalaBear;
use p3_maybe_rayon::prelude::*;

/// A Plonky3 field that gpuprover computes over: BabyBear, KoalaBear and
/// Goldilocks. The library takes canonical values (`u32` for the 31-bit
/// fields, `u64` for Goldilocks), never Plonky3's Montgomery form.
pub trait GpuField: PrimeField64 + TwoAdicField {
    /// The library's element type for the field.
    type Elem: Element + Copy + Into<u64> + Send + Sync + 'static;
    /// The library's name for the field.
    const FIELD: Field;
    /// The canonical value.
    fn to_elem(self) -> Self::Elem;
    /// The element of a canonical value (the library returns only those).
    fn from_elem(e: Self::Elem) -> Self;

    /// The elements of canonical values, converted in place (in parallel
    /// with the `parallel` feature): the vector's memory becomes the
    /// result's, without a second allocation of its size.
    fn vec_from_elems(mut v: Vec<Self::Elem>) -> Vec<Self> {
        v.par_iter_mut().for_each(|e| *e = to_storage::<Self>(Self::from_elem(*e)));
        // SAFETY: the fields are `#[repr(transparent)]` over their storage
        // word, which is `Self::Elem` (checked by `to_storage`), and every
        // word now holds the storage of a valid element.
        unsafe { reinterpret(v) }
    }
}

/// The storage word of a field element: BabyBear and KoalaBear hold their
/// Montgomery form in a `u32`, Goldilocks a `u64`, each
/// `#[repr(transparent)]`.
fn to_storage<F: GpuField>(f: F) -> F::Elem {
    assert!(size_of::<F>() == size_of::<F::Elem>() && align_of::<F>() == align_of::<F::Elem>());
    // SAFETY: same size (asserted); a field element is its storage word.
    unsafe { core::mem::transmute_copy::<F, F::Elem>(&f) }
}

/// A vector of `A` as a vector of `B` over the same memory.
///
/// # Safety
/// `A` and `B` have the same size and alignment, and every `A` of `v` is a
/// valid `B`.
unsafe fn reinterpret<A, B>(v: Vec<A>) -> Vec<B> {
    assert!(size_of::<A>() == size_of::<B>() && align_of::<A>() == align_of::<B>());
    let mut v = core::mem::ManuallyDrop::new(v);
    Vec::from_raw_parts(v.as_mut_ptr().cast::<B>(), v.len(), v.capacity())
}

/// The 31-bit Montgomery fields: canonical `u32` values.
macro_rules! monty31_gpu_field {
    ($f:ident) => {
        impl GpuField for $f {
            type Elem = u32;
            const FIELD: Field = Field::$f;
            #[inline]
            fn to_elem(self) -> u32 {
                self.as_canonical_u64() as u32
            }
            #[inline]
            fn from_elem(e: u32) -> Self {
                $f::from_u32(e)
            }
        }
    };
}
monty31_gpu_field!(BabyBear);
monty31_gpu_field!(KoalaBear);

impl GpuField for Goldilocks {
    type Elem = u64;
    const FIELD: Field = Field::Goldilocks;
    #[inline]
    fn to_elem(self) -> u64 {
        self.as_canonical_u64()
    }
    #[inline]
    fn from_elem(e: u64) -> Self {
        Goldilocks::from_u64(e)
    }
}

/// What a digest word is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordKind {
    /// A field element (field hashes: Poseidon2).
    Field,
    /// A 64-bit lane (the Keccak-f sponge).
    Lane,
    /// A byte (Keccak-256).
    Byte,
}

/// A word of a Merkle digest as `MerkleTreeMmcs` stores it (`PW::Value`):
/// a field element for the field hashes (Poseidon2), a `u64` lane for the
/// Keccak-f sponge, a byte for Keccak-256. `SIZE` bytes of the library's
/// digest layout (canonical little-endian elements, little-endian lanes,
/// hash bytes) make one word.
pub trait DigestWord: Copy + Send + Sync + 'static {
    /// What the word is.
    const KIND: WordKind;
    /// Bytes of one word in the library's digest layout.
    const SIZE: usize;
    /// The word of `SIZE` little-endian bytes.
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! field_digest_word {
    ($f:ty, $n:expr) => {
        impl DigestWord for $f {
            const KIND: WordKind = WordKind::Field;
            const SIZE: usize = $n;
            fn from_le(bytes: &[u8]) -> Self {
                let mut v = 0u64;
                for (i, b) in bytes[..$n].iter().enumerate() {
                    v |= (*b as u64) << (8 * i);
                }
                <$f>::from_u64(v)
            }
        }
    };
}
field_digest_word!(BabyBear, 4);
field_digest_word!(KoalaBear, 4);
field_digest_word!(Goldilocks, 8);

impl DigestWord for u64 {
    const KIND: WordKind = WordKind::Lane;
    const SIZE: usize = 8;
    fn from_le(bytes: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[..8]);
        u64::from_le_bytes(a)
    }
}

impl DigestWord for u8 {
    const KIND: WordKind = WordKind::Byte;
    const SIZE: usize = 1;
    fn from_le(bytes: &[u8]) -> Self {
        bytes[0]
    }
}

/// `N`-word digests from the library's digest bytes, back to back.
pub(crate) fn digests<W: DigestWord, const N: usize>(bytes: &[u8]) -> Vec<[W; N]> {
    let step = W::SIZE * N;
    bytes
        .chunks_exact(step)
        .map(|d| core::array::from_fn(|k| W::from_le(&d[k * W::SIZE..])))
        .collect()
}
