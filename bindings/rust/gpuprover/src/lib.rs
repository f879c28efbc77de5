// SPDX-License-Identifier: MIT OR Apache-2.0
//! Safe Rust API of gpuprover: batched coset low-degree extensions, NTTs,
//! hash permutations, Merkle trees ([`Context::merkle_commit`],
//! [`merkle_verify`]; [`Context::commit_host`] extends and commits host
//! traces in one streamed call) and the FRI commit phase ([`Context::fri_begin`],
//! [`Context::fri_commit`], [`fri_verify`]), the constraint commitment
//! ([`Context::constraint_commit`]), out-of-domain evaluation and the DEEP
//! composition ([`Context::evaluate_ood`], [`Context::deep_composition`])
//! for STARK provers, on a CUDA GPU
//! or on the CPU, with bit-identical results on both.
//!
//! ```no_run
//! // (no_run: doctests do not get the library's rpath with older cargo; the
//! // same calls run in tests/lde.rs.)
//! use gpuprover::{Buffer, Context, Field, LdeOptions, Layout, Order};
//!
//! # fn main() -> Result<(), gpuprover::Error> {
//! let ctx = Context::new()?; // CUDA if a usable GPU exists, else the CPU
//! // A 4 x 2 Goldilocks trace, column-major (column 0 first).
//! let trace: Vec<u64> = vec![1, 2, 3, 4, 10, 20, 30, 40];
//! let mut lde = Buffer::new(&ctx, Field::Goldilocks, 1, 4 * 8, 2)?;
//! let options = LdeOptions {
//!     blowup: 8,
//!     output_order: Order::BitReversed,
//!     ..LdeOptions::default()
//! };
//! ctx.lde_host(Field::Goldilocks, 1, &trace, 4, 2, &options, &mut lde)?;
//! let values: Vec<u64> = lde.to_vec(Layout::ColMajor)?;
//! assert_eq!(values.len(), 32 * 2);
//! # Ok(())
//! # }
//! ```
//!
//! Conventions (those of the C API, `gpuprover.h`):
//!
//! - Field elements are canonical: Goldilocks as `u64` in `[0, p)`, BabyBear
//!   and KoalaBear as `u32` in `[0, p)`. Input holding a value `>= p` is
//!   rejected with [`Status::NonCanonical`], never reduced. Where the field is
//!   known at compile time, the `*_typed` functions take it as a type
//!   ([`Goldilocks`], [`BabyBear`], [`KoalaBear`]; see [`FieldType`]).
//! - Extension-field elements are `ext_degree` consecutive base values,
//!   lowest degree first (Plonky3's `BinomialExtensionField` layout).
//! - Every fallible call returns [`Result`]; the [`Error`] carries the
//!   library's status and its message (`gp_last_error`). A failed call leaves
//!   every object usable.
//!
//! Ownership and threads:
//!
//! - [`Context`] is a cheap-to-clone handle (an `Arc` of the library
//!   context). [`Buffer`], [`MerkleTree`], [`Fri`] and
//!   [`ConstraintCommitment`] have no lifetime parameter: each holds what it
//!   needs. A buffer holds its context; a tree holds its context and the
//!   buffers it commits (the library reads them again to open rows; a tree
//!   of [`Context::commit_host`], the host memory its openings read); a FRI
//!   commitment holds its context (the codeword is copied). So a struct can
//!   own "context + LDE + tree" together, and every C handle is destroyed
//!   before the handles it depends on.
//! - All of them are `Send` and `Sync`: the header guarantees that contexts
//!   and their handles may be used from several threads at once (the calls
//!   on one context are serialized). [`Context::cancel`] stops the call in
//!   flight from another thread; [`Context::set_progress`] and
//!   [`Context::set_log`] install callbacks; [`Context::counters`] and
//!   [`Context::call_stats`] report what the calls cost.
//! - A buffer committed by a live tree is read-only: writing it
//!   ([`Context::lde`], [`Context::ntt`], ... as output) fails with
//!   [`Status::InvalidArgument`] until the tree is dropped.
//! - Digests, caps, paths and openings are bytes as the library lays them
//!   out; a proof that does not verify is an [`Error`] with
//!   [`Status::VerifyFailed`].
//!
//! ```no_run
//! // (Checked when the doctest compiles.)
//! fn shared_between_threads<T: Send + Sync>() {}
//! shared_between_threads::<gpuprover::Context>();
//! shared_between_threads::<gpuprover::Buffer>();
//! shared_between_threads::<gpuprover::MerkleTree>();
//! shared_between_threads::<gpuprover::Fri>();
//! ```

use std::ffi::{CStr, CString};
use std::fmt;
use std::mem::size_of;
use std::os::raw::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex};

/// The raw FFI bindings this crate is built on.
pub use gpuprover_sys as sys;

mod commit;
mod deep;
mod fri;
mod host;
mod merkle;
mod monitor;
mod quotient;
mod typed;

pub use commit::{CommitMatrix, CommitOptions, Keep};
pub use deep::{CompositionSplit, ConstraintCommitment, ConstraintOptions, OodOptions};
pub use fri::{fri_verify, Fri, FriFold, FriLeaf, FriOptions};
pub use host::HostMemory;
pub use merkle::{merkle_verify, MatrixDims, MerkleKind, MerkleOpening, MerkleOptions, MerkleTree};
pub use monitor::{CallStats, CancelHandle, Counters};
pub use quotient::{ConstraintProgram, Node, ProgramDesc, ProgramInfo, QuotientInputs};
pub use typed::{BabyBear, FieldType, Goldilocks, KoalaBear};

/// `Result` with [`Error`] as the error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The Goldilocks modulus, 2^64 - 2^32 + 1.
pub const GOLDILOCKS_MODULUS: u64 = 0xffff_ffff_0000_0001;
/// The BabyBear modulus, 2^31 - 2^27 + 1.
pub const BABYBEAR_MODULUS: u32 = 0x7800_0001;
/// The KoalaBear modulus, 2^31 - 2^24 + 1.
pub const KOALABEAR_MODULUS: u32 = 0x7f00_0001;
/// A [`ContextOptions::devices`] entry meaning every visible GPU, as the
/// list's only entry (`GP_DEVICES_ALL`): `devices: vec![DEVICES_ALL]`.
pub const DEVICES_ALL: i32 = sys::GP_DEVICES_ALL as i32;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// Why a call failed: the non-`GP_OK` values of `gp_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// An argument has a value outside its documented range.
    InvalidArgument,
    /// A required pointer argument was NULL.
    NullPointer,
    /// The combination is valid in principle but not supported (yet).
    Unsupported,
    /// A CUDA backend was requested but no usable GPU exists.
    NoDevice,
    /// Host memory could not be allocated.
    HostOutOfMemory,
    /// Device memory could not be allocated, or the request exceeds it.
    DeviceOutOfMemory,
    /// A size product overflows 64 bits.
    SizeOverflow,
    /// Buffers or arguments of different fields / extension degrees.
    FieldMismatch,
    /// A buffer was created by a different context.
    ContextMismatch,
    /// Buffer shapes (rows, columns) do not fit the operation.
    ShapeMismatch,
    /// A size exceeds the field's two-adicity.
    TwoAdicity,
    /// Input contains a value that is not a canonical field element.
    NonCanonical,
    /// The CUDA runtime reported an error.
    Cuda,
    /// An internal invariant failed.
    Internal,
    /// A proof or opening did not verify ([`merkle_verify`], [`fri_verify`]).
    VerifyFailed,
    /// The call was cancelled (`gp_context_cancel`).
    Cancelled,
    /// The server of a remote context ([`Backend::Remote`]) cannot be
    /// reached, refused the session (version, token, quota) or went away;
    /// the message says which. A context whose server went away fails every
    /// later call with it.
    Remote,
    /// A status this version of the bindings does not know.
    Unknown(u32),
}

impl Status {
    /// Converts a raw status; `None` for `GP_OK`.
    pub fn from_raw(status: sys::gp_status) -> Option<Status> {
        use sys::gp_status as S;
        Some(match status {
            S::GP_OK => return None,
            S::GP_ERR_INVALID_ARGUMENT => Status::InvalidArgument,
            S::GP_ERR_NULL_POINTER => Status::NullPointer,
            S::GP_ERR_UNSUPPORTED => Status::Unsupported,
            S::GP_ERR_NO_DEVICE => Status::NoDevice,
            S::GP_ERR_HOST_OUT_OF_MEMORY => Status::HostOutOfMemory,
            S::GP_ERR_DEVICE_OUT_OF_MEMORY => Status::DeviceOutOfMemory,
            S::GP_ERR_SIZE_OVERFLOW => Status::SizeOverflow,
            S::GP_ERR_FIELD_MISMATCH => Status::FieldMismatch,
            S::GP_ERR_CONTEXT_MISMATCH => Status::ContextMismatch,
            S::GP_ERR_SHAPE_MISMATCH => Status::ShapeMismatch,
            S::GP_ERR_TWO_ADICITY => Status::TwoAdicity,
            S::GP_ERR_NON_CANONICAL => Status::NonCanonical,
            S::GP_ERR_CUDA => Status::Cuda,
            S::GP_ERR_INTERNAL => Status::Internal,
            S::GP_ERR_VERIFY_FAILED => Status::VerifyFailed,
            S::GP_ERR_CANCELLED => Status::Cancelled,
            S::GP_ERR_REMOTE => Status::Remote,
            // `as`: the C enum's integer type is platform-dependent.
            #[allow(clippy::unnecessary_cast)]
            other => Status::Unknown(other.0 as u32),
        })
    }

    /// The raw `gp_status` value.
    pub fn to_raw(self) -> sys::gp_status {
        use sys::gp_status as S;
        match self {
            Status::InvalidArgument => S::GP_ERR_INVALID_ARGUMENT,
            Status::NullPointer => S::GP_ERR_NULL_POINTER,
            Status::Unsupported => S::GP_ERR_UNSUPPORTED,
            Status::NoDevice => S::GP_ERR_NO_DEVICE,
            Status::HostOutOfMemory => S::GP_ERR_HOST_OUT_OF_MEMORY,
            Status::DeviceOutOfMemory => S::GP_ERR_DEVICE_OUT_OF_MEMORY,
            Status::SizeOverflow => S::GP_ERR_SIZE_OVERFLOW,
            Status::FieldMismatch => S::GP_ERR_FIELD_MISMATCH,
            Status::ContextMismatch => S::GP_ERR_CONTEXT_MISMATCH,
            Status::ShapeMismatch => S::GP_ERR_SHAPE_MISMATCH,
            Status::TwoAdicity => S::GP_ERR_TWO_ADICITY,
            Status::NonCanonical => S::GP_ERR_NON_CANONICAL,
            Status::Cuda => S::GP_ERR_CUDA,
            Status::Internal => S::GP_ERR_INTERNAL,
            Status::VerifyFailed => S::GP_ERR_VERIFY_FAILED,
            Status::Cancelled => S::GP_ERR_CANCELLED,
            Status::Remote => S::GP_ERR_REMOTE,
            Status::Unknown(raw) => sys::gp_status(raw as _),
        }
    }

    /// The symbolic C name, as `gp_status_name` gives it
    /// (`"GP_ERR_SHAPE_MISMATCH"`, ..., `"GP_ERR_UNKNOWN"`).
    pub fn name(self) -> &'static str {
        match self {
            Status::InvalidArgument => "GP_ERR_INVALID_ARGUMENT",
            Status::NullPointer => "GP_ERR_NULL_POINTER",
            Status::Unsupported => "GP_ERR_UNSUPPORTED",
            Status::NoDevice => "GP_ERR_NO_DEVICE",
            Status::HostOutOfMemory => "GP_ERR_HOST_OUT_OF_MEMORY",
            Status::DeviceOutOfMemory => "GP_ERR_DEVICE_OUT_OF_MEMORY",
            Status::SizeOverflow => "GP_ERR_SIZE_OVERFLOW",
            Status::FieldMismatch => "GP_ERR_FIELD_MISMATCH",
            Status::ContextMismatch => "GP_ERR_CONTEXT_MISMATCH",
            Status::ShapeMismatch => "GP_ERR_SHAPE_MISMATCH",
            Status::TwoAdicity => "GP_ERR_TWO_ADICITY",
            Status::NonCanonical => "GP_ERR_NON_CANONICAL",
            Status::Cuda => "GP_ERR_CUDA",
            Status::Internal => "GP_ERR_INTERNAL",
            Status::VerifyFailed => "GP_ERR_VERIFY_FAILED",
            Status::Cancelled => "GP_ERR_CANCELLED",
            Status::Remote => "GP_ERR_REMOTE",
            Status::Unknown(_) => "GP_ERR_UNKNOWN",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed call: the status and the library's message, which names the
/// offending argument and its value.
///
/// Arguments that the Rust layer checks before calling into the library
/// (slice lengths and element types, which C cannot see) give errors of the
/// same kind, with a message written by the bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

impl Error {
    /// An error with the given status and message.
    pub fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    /// The status of the failed call.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The message of the failed call (`gp_last_error()` right after it).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    /// `"GP_ERR_SHAPE_MISMATCH: <message>"`, as the C examples print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status.name(), self.message)
    }
}

impl std::error::Error for Error {}

/// Turns a raw status into a `Result`, reading the thread-local message of a
/// failure at once (before any other gp_* call can replace it). A panic of a
/// progress or log callback during the call is resumed here.
fn check(status: sys::gp_status) -> Result<()> {
    monitor::resume_pending_panic();
    match Status::from_raw(status) {
        None => Ok(()),
        Some(status) => {
            // SAFETY: gp_last_error never returns NULL and the string stays
            // valid until the next gp_* call on this thread; it is copied here.
            let message = unsafe { cstr_to_string(sys::gp_last_error()) };
            Err(Error { status, message })
        }
    }
}

unsafe fn cstr_to_string(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// A NUL-terminated copy of `bytes` for the C API; an interior NUL is an
/// [`Status::InvalidArgument`] error naming `what`.
fn c_string(what: &str, bytes: &[u8]) -> Result<CString> {
    CString::new(bytes).map_err(|e| {
        Error::new(
            Status::InvalidArgument,
            format!("{} holds a NUL byte at index {}", what, e.nul_position()),
        )
    })
}

/// The bytes of a path as the C API takes it.
#[cfg(unix)]
fn path_bytes(path: &Path) -> Result<std::borrow::Cow<'_, [u8]>> {
    use std::os::unix::ffi::OsStrExt;
    Ok(std::borrow::Cow::Borrowed(path.as_os_str().as_bytes()))
}

/// The bytes of a path as the C API takes it (UTF-8 off unix).
#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Result<std::borrow::Cow<'_, [u8]>> {
    path.to_str()
        .map(|s| std::borrow::Cow::Borrowed(s.as_bytes()))
        .ok_or_else(|| {
            Error::new(
                Status::InvalidArgument,
                format!("path {} is not valid UTF-8", path.display()),
            )
        })
}

fn to_u64(n: usize) -> u64 {
    n as u64 // usize is at most 64 bits on every supported target
}

fn to_usize(n: u64, what: &str) -> usize {
    usize::try_from(n).unwrap_or_else(|_| panic!("{} {} does not fit in usize", what, n))
}

/// The start of `s`, or a dangling but non-NULL pointer for an empty slice:
/// the library checks the sizes before it reads.
fn nonnull<U>(s: &[U]) -> *const std::os::raw::c_void {
    if s.is_empty() {
        NonNull::<u64>::dangling().as_ptr() as *const _
    } else {
        s.as_ptr().cast()
    }
}

// ---------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------

/// The prime fields the library supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// p = 2^64 - 2^32 + 1, elements `u64`, generator 7, two-adicity 32.
    Goldilocks,
    /// p = 2^31 - 2^27 + 1, elements `u32`, generator 31, two-adicity 27.
    BabyBear,
    /// p = 2^31 - 2^24 + 1, elements `u32`, generator 3, two-adicity 24.
    KoalaBear,
}

/// A field's modulus, multiplicative generator (the default LDE coset shift)
/// and two-adicity, as the library reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldInfo {
    pub modulus: u64,
    pub generator: u64,
    pub two_adicity: u32,
}

impl Field {
    /// The raw `gp_field` value.
    pub fn to_raw(self) -> sys::gp_field {
        match self {
            Field::Goldilocks => sys::gp_field::GP_FIELD_GOLDILOCKS,
            Field::BabyBear => sys::gp_field::GP_FIELD_BABYBEAR,
            Field::KoalaBear => sys::gp_field::GP_FIELD_KOALABEAR,
        }
    }

    /// Converts a raw `gp_field`; `None` for unknown values.
    pub fn from_raw(field: sys::gp_field) -> Option<Field> {
        match field {
            sys::gp_field::GP_FIELD_GOLDILOCKS => Some(Field::Goldilocks),
            sys::gp_field::GP_FIELD_BABYBEAR => Some(Field::BabyBear),
            sys::gp_field::GP_FIELD_KOALABEAR => Some(Field::KoalaBear),
            _ => None,
        }
    }

    /// Bytes per base-field element: 8 for Goldilocks (`u64`), 4 for
    /// BabyBear and KoalaBear (`u32`).
    pub fn element_size(self) -> usize {
        match self {
            Field::Goldilocks => 8,
            Field::BabyBear | Field::KoalaBear => 4,
        }
    }

    /// The modulus p.
    pub fn modulus(self) -> u64 {
        match self {
            Field::Goldilocks => GOLDILOCKS_MODULUS,
            Field::BabyBear => BABYBEAR_MODULUS as u64,
            Field::KoalaBear => KOALABEAR_MODULUS as u64,
        }
    }

    /// Modulus, generator and two-adicity (`gp_field_info`).
    pub fn info(self) -> Result<FieldInfo> {
        let mut info = FieldInfo {
            modulus: 0,
            generator: 0,
            two_adicity: 0,
        };
        // SAFETY: the three pointers are valid for writes.
        check(unsafe {
            sys::gp_field_info(
                self.to_raw(),
                &mut info.modulus,
                &mut info.generator,
                &mut info.two_adicity,
            )
        })?;
        Ok(info)
    }

    /// The primitive 2^`log_n`-th root of unity the library uses for
    /// size-2^`log_n` transforms (Plonky3's `two_adic_generator(log_n)`).
    pub fn two_adic_generator(self, log_n: u32) -> Result<u64> {
        let mut root = 0u64;
        // SAFETY: `root` is valid for writes.
        check(unsafe { sys::gp_field_two_adic_generator(self.to_raw(), log_n, &mut root) })?;
        Ok(root)
    }
}

/// Which backend a [`Context`] runs on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The server named by the `GPUPROVER_SERVER` environment variable (or
    /// [`ContextOptions::endpoint`]) when one is configured and reachable;
    /// otherwise CUDA if a usable GPU exists, else the CPU (only as a
    /// request). [`Context::remote_fallback`] says why a configured server
    /// was not used.
    #[default]
    Auto,
    /// The CPU backend.
    Cpu,
    /// The CUDA backend.
    Cuda,
    /// A `gpuprover-server` process, reached at [`ContextOptions::endpoint`]
    /// or, when that is `None`, at the `GPUPROVER_SERVER` environment
    /// variable: a unix socket path (`"/tmp/gpu-prover.sock"`, or
    /// `"unix:/path"`), `"HOST:PORT"`, or several of those separated by
    /// commas (sessions are spread over them). Every call works unchanged and
    /// gives the same bytes as in process; buffers and trees live on the
    /// server's device. Creating the context fails with [`Status::Remote`]
    /// when no server answers.
    Remote,
}

impl Backend {
    /// The raw `gp_backend` value.
    pub fn to_raw(self) -> sys::gp_backend {
        match self {
            Backend::Auto => sys::gp_backend::GP_BACKEND_AUTO,
            Backend::Cpu => sys::gp_backend::GP_BACKEND_CPU,
            Backend::Cuda => sys::gp_backend::GP_BACKEND_CUDA,
            Backend::Remote => sys::gp_backend::GP_BACKEND_REMOTE,
        }
    }

    fn from_raw(backend: sys::gp_backend) -> Backend {
        match backend {
            sys::gp_backend::GP_BACKEND_CPU => Backend::Cpu,
            sys::gp_backend::GP_BACKEND_CUDA => Backend::Cuda,
            sys::gp_backend::GP_BACKEND_REMOTE => Backend::Remote,
            _ => Backend::Auto,
        }
    }
}

/// Priority of a remote context's jobs in the server's queue
/// ([`ContextOptions::priority`]): higher runs first; within a priority,
/// first come first served. A waiting job gains one priority level per
/// `--aging-ms` of waiting (default 2000 ms), so low-priority work is never
/// starved for long. Ignored in process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Priority {
    /// The default.
    #[default]
    Normal,
    /// Runs after waiting normal- and high-priority jobs.
    Low,
    /// Runs before waiting normal- and low-priority jobs.
    High,
}

impl Priority {
    /// The raw `gp_priority` value.
    pub fn to_raw(self) -> sys::gp_priority {
        match self {
            Priority::Normal => sys::gp_priority::GP_PRIORITY_NORMAL,
            Priority::Low => sys::gp_priority::GP_PRIORITY_LOW,
            Priority::High => sys::gp_priority::GP_PRIORITY_HIGH,
        }
    }
}

/// How a matrix is laid out in host memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Column c is contiguous: element (r, c) at index `c * rows + r`.
    #[default]
    ColMajor,
    /// Row r is contiguous: element (r, c) at index `r * cols + c`
    /// (Plonky3's `RowMajorMatrix`).
    RowMajor,
}

impl Layout {
    fn to_raw(self) -> sys::gp_layout {
        match self {
            Layout::ColMajor => sys::gp_layout::GP_LAYOUT_COL_MAJOR,
            Layout::RowMajor => sys::gp_layout::GP_LAYOUT_ROW_MAJOR,
        }
    }
}

/// What the input rows of an LDE hold (`gp_lde_input`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LdeInput {
    /// The values on the input domain.
    #[default]
    Evaluations,
    /// The polynomials' coefficients, lowest degree first: the output is
    /// their evaluations on the output coset (basefold's encoding, SP1's
    /// `batch_coset_dft` of zero-padded coefficients). The input shift must
    /// be `None` or 1.
    Coefficients,
}

impl LdeInput {
    fn to_raw(self) -> sys::gp_lde_input {
        match self {
            LdeInput::Evaluations => sys::gp_lde_input::GP_LDE_INPUT_EVALUATIONS,
            LdeInput::Coefficients => sys::gp_lde_input::GP_LDE_INPUT_COEFFICIENTS,
        }
    }
}

/// Which extension of the field a degree-D element belongs to
/// (`gp_extension`). The elements are stored alike (D canonical base
/// coefficients, lowest degree first); only their products differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Extension {
    /// Plonky3's extensions: Goldilocks D = 2 with `X^2 = 7`, D = 3 with
    /// `X^3 = X + 1`; BabyBear D = 4 with `X^4 = 11`; KoalaBear D = 4 with
    /// `X^4 = 3`.
    #[default]
    Plonky3,
    /// Triton VM's `XFieldElement` (twenty-first): Goldilocks D = 3 with
    /// `X^3 = X - 1` (the Shah polynomial `X^3 - X + 1`). Goldilocks only,
    /// with D = 3.
    Triton,
}

impl Extension {
    /// The raw `gp_extension` value.
    pub fn to_raw(self) -> sys::gp_extension {
        match self {
            Extension::Plonky3 => sys::gp_extension::GP_EXT_PLONKY3,
            Extension::Triton => sys::gp_extension::GP_EXT_TRITON,
        }
    }
}

/// Row order of transform inputs and outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Row i holds the value at index i.
    #[default]
    Natural,
    /// Row i holds the value at index `bit_reverse(i, log2(rows))`.
    BitReversed,
}

impl Order {
    fn to_raw(self) -> sys::gp_order {
        match self {
            Order::Natural => sys::gp_order::GP_ORDER_NATURAL,
            Order::BitReversed => sys::gp_order::GP_ORDER_BIT_REVERSED,
        }
    }
}

/// Direction of an NTT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NttDirection {
    /// Coefficients -> evaluations: `out[i] = sum_k c_k (shift * w^i)^k`.
    #[default]
    Forward,
    /// Evaluations on `shift * H` -> coefficients (divided by n).
    Inverse,
}

impl NttDirection {
    fn to_raw(self) -> sys::gp_ntt_direction {
        match self {
            NttDirection::Forward => sys::gp_ntt_direction::GP_NTT_FORWARD,
            NttDirection::Inverse => sys::gp_ntt_direction::GP_NTT_INVERSE,
        }
    }
}

/// The hash permutations of [`Context::permute_batch`], and
/// [`Permutation::Blake3`], a hash function that names the hash of the
/// Merkle kinds that take it ([`MerkleKind::MidenLmcs`]). Constants are those
/// of the named reference implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permutation {
    /// Plonky3 Poseidon2 over Goldilocks, width 8 (x^7).
    Poseidon2Goldilocks8,
    /// Plonky3 Poseidon2 over Goldilocks, width 12 (x^7).
    Poseidon2Goldilocks12,
    /// Plonky3 Poseidon2 over Goldilocks, width 16 (x^7).
    Poseidon2Goldilocks16,
    /// HorizenLabs-compatible Poseidon2 over Goldilocks, width 8.
    Poseidon2GoldilocksHl8,
    /// Plonky3 Poseidon2 over BabyBear, width 16 (x^7).
    Poseidon2BabyBear16,
    /// Plonky3 Poseidon2 over BabyBear, width 24 (x^7).
    Poseidon2BabyBear24,
    /// Plonky3 Poseidon2 over KoalaBear, width 16 (x^3).
    Poseidon2KoalaBear16,
    /// Plonky3 Poseidon2 over KoalaBear, width 24 (x^3).
    Poseidon2KoalaBear24,
    /// Miden's Rescue-Prime Optimized, width 12.
    Rpo256,
    /// Miden's RPX, width 12.
    Rpx256,
    /// Plonky2's Poseidon over Goldilocks, width 12.
    PoseidonGoldilocks12,
    /// Triton VM's Tip5, width 16.
    Tip5,
    /// Keccak-f\[1600\] on 25 raw 64-bit lanes (lane (x, y) at index x + 5y).
    KeccakF1600,
    /// Plonky3 Poseidon2 over BabyBear, width 32 (x^7).
    Poseidon2BabyBear32,
    /// Plonky3 Poseidon2 over KoalaBear, width 32 (x^3).
    Poseidon2KoalaBear32,
    /// HorizenLabs' Poseidon2 over BabyBear, width 16.
    Poseidon2BabyBearHl16,
    /// HorizenLabs' Poseidon2 over BabyBear, width 24.
    Poseidon2BabyBearHl24,
    /// HorizenLabs' Poseidon2 over Goldilocks, width 12 (miden-crypto
    /// v0.22 and v0.23 trees).
    Poseidon2GoldilocksHl12,
    /// BLAKE3 (hash mode, 32-byte output). A hash function, not a
    /// permutation: [`Context::permute_batch`] refuses it
    /// ([`Status::Unsupported`]) and [`Permutation::info`] reports width 16
    /// (its compression state of 32-bit words) and no field.
    Blake3,
    /// winterfell's `Sha3_256` (SHA3-256 over the rows' canonical bytes): a
    /// hash, named by [`MerkleKind::Winterfell`](crate::MerkleKind::Winterfell);
    /// [`Context::permute_batch`] refuses it as it refuses `Blake3`.
    Sha3_256,
    /// winterfell's `Blake3_192` (BLAKE3 truncated to 24 bytes): a hash,
    /// named by [`MerkleKind::Winterfell`](crate::MerkleKind::Winterfell);
    /// [`Context::permute_batch`] refuses it as it refuses `Blake3`.
    Blake3_192,
    /// winterfell's `Rp64_256` permutation (Rescue-XLIX over Goldilocks,
    /// width 12, 7 rounds), the permutation of winterfell's `Rp64_256`
    /// hasher ([`MerkleKind::Winterfell`](crate::MerkleKind::Winterfell)).
    Rp64_256,
    /// SP1 v6's Poseidon2 over KoalaBear, width 16 (the constants of
    /// [`Permutation::Poseidon2KoalaBear16`], the internal layer of Plonky3
    /// 0.1-0.4-succinct); with the field sponge, SP1's tensor commitment
    /// trees ([`MerkleTree::sp1_commitment`](crate::MerkleTree::sp1_commitment)).
    Poseidon2KoalaBear16Sp1,
    /// SP1 v4/v5's Poseidon2 over BabyBear, width 16 (SP1's constants).
    Poseidon2BabyBear16Sp1,
}

/// A permutation's state width and field, as the library reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PermutationInfo {
    /// State width in field elements (64-bit lanes for Keccak, 32-bit words
    /// of the compression state for BLAKE3).
    pub width: usize,
    /// The state's field; `None` for Keccak's raw 64-bit lanes and BLAKE3.
    pub field: Option<Field>,
}

impl Permutation {
    /// The raw `gp_permutation` value.
    pub fn to_raw(self) -> sys::gp_permutation {
        use sys::gp_permutation as P;
        match self {
            Permutation::Poseidon2Goldilocks8 => P::GP_PERM_POSEIDON2_GOLDILOCKS_8,
            Permutation::Poseidon2Goldilocks12 => P::GP_PERM_POSEIDON2_GOLDILOCKS_12,
            Permutation::Poseidon2Goldilocks16 => P::GP_PERM_POSEIDON2_GOLDILOCKS_16,
            Permutation::Poseidon2GoldilocksHl8 => P::GP_PERM_POSEIDON2_GOLDILOCKS_HL_8,
            Permutation::Poseidon2BabyBear16 => P::GP_PERM_POSEIDON2_BABYBEAR_16,
            Permutation::Poseidon2BabyBear24 => P::GP_PERM_POSEIDON2_BABYBEAR_24,
            Permutation::Poseidon2KoalaBear16 => P::GP_PERM_POSEIDON2_KOALABEAR_16,
            Permutation::Poseidon2KoalaBear24 => P::GP_PERM_POSEIDON2_KOALABEAR_24,
            Permutation::Rpo256 => P::GP_PERM_RPO256,
            Permutation::Rpx256 => P::GP_PERM_RPX256,
            Permutation::PoseidonGoldilocks12 => P::GP_PERM_POSEIDON_GOLDILOCKS_12,
            Permutation::Tip5 => P::GP_PERM_TIP5,
            Permutation::KeccakF1600 => P::GP_PERM_KECCAK_F1600,
            Permutation::Poseidon2BabyBear32 => P::GP_PERM_POSEIDON2_BABYBEAR_32,
            Permutation::Poseidon2KoalaBear32 => P::GP_PERM_POSEIDON2_KOALABEAR_32,
            Permutation::Poseidon2BabyBearHl16 => P::GP_PERM_POSEIDON2_BABYBEAR_HL_16,
            Permutation::Poseidon2BabyBearHl24 => P::GP_PERM_POSEIDON2_BABYBEAR_HL_24,
            Permutation::Poseidon2GoldilocksHl12 => P::GP_PERM_POSEIDON2_GOLDILOCKS_HL_12,
            Permutation::Blake3 => P::GP_PERM_BLAKE3,
            // Spelled as numbers: GP_PERM_SHA3_256 = 20, GP_PERM_BLAKE3_192
            // = 21, GP_PERM_RP64_256 = 22, GP_PERM_POSEIDON2_KOALABEAR_16_SP1
            // = 23, GP_PERM_POSEIDON2_BABYBEAR_16_SP1 = 24 (gpuprover.h).
            Permutation::Sha3_256 => P(20),
            Permutation::Blake3_192 => P(21),
            Permutation::Rp64_256 => P(22),
            Permutation::Poseidon2KoalaBear16Sp1 => P(23),
            Permutation::Poseidon2BabyBear16Sp1 => P(24),
        }
    }

    /// State width and field (`gp_permutation_info`).
    pub fn info(self) -> Result<PermutationInfo> {
        let mut width = 0u32;
        let mut field = sys::gp_field(0);
        // SAFETY: both pointers are valid for writes.
        check(unsafe { sys::gp_permutation_info(self.to_raw(), &mut width, &mut field) })?;
        Ok(PermutationInfo {
            width: width as usize,
            field: Field::from_raw(field),
        })
    }
}

// ---------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------

mod private {
    pub trait Sealed {
        fn read_le(bytes: &[u8]) -> Self;
        fn write_le(self, out: &mut Vec<u8>);
    }
    macro_rules! impl_sealed {
        ($t:ty) => {
            impl Sealed for $t {
                fn read_le(bytes: &[u8]) -> $t {
                    let mut b = [0u8; std::mem::size_of::<$t>()];
                    b.copy_from_slice(bytes);
                    <$t>::from_le_bytes(b)
                }
                fn write_le(self, out: &mut Vec<u8>) {
                    out.extend_from_slice(&self.to_le_bytes());
                }
            }
        };
    }
    impl_sealed!(u64);
    impl_sealed!(u32);
}

/// The host representations of base-field elements: `u64` (Goldilocks,
/// Keccak lanes) and `u32` (BabyBear, KoalaBear). Sealed.
pub trait Element: Copy + Default + Send + Sync + fmt::Debug + 'static + private::Sealed {}
impl Element for u64 {}
impl Element for u32 {}

/// Decodes little-endian elements, as the library writes digests, caps,
/// opened rows and FRI openings: `bytes.len() / size_of::<T>()` values (a
/// trailing partial element is ignored). For example a Goldilocks root
/// `tree.root()?` as `elements_from_le_bytes::<u64>(&root)`.
pub fn elements_from_le_bytes<T: Element>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(size_of::<T>())
        .map(<T as private::Sealed>::read_le)
        .collect()
}

/// Encodes elements little-endian, element after element (the inverse of
/// [`elements_from_le_bytes`]).
pub fn elements_to_le_bytes<T: Element>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(values));
    for &v in values {
        <T as private::Sealed>::write_le(v, &mut out);
    }
    out
}

fn type_name_of<T: Element>() -> &'static str {
    if size_of::<T>() == 8 {
        "u64"
    } else {
        "u32"
    }
}

fn check_element<T: Element>(field: Field) -> Result<()> {
    if size_of::<T>() == field.element_size() {
        Ok(())
    } else {
        Err(Error::new(
            Status::FieldMismatch,
            format!(
                "host elements are {} but {:?} elements are {} bytes (use {})",
                type_name_of::<T>(),
                field,
                field.element_size(),
                if field.element_size() == 8 {
                    "u64"
                } else {
                    "u32"
                }
            ),
        ))
    }
}

/// `rows * cols * ext_degree`, checked for overflow.
fn element_count(rows: usize, cols: usize, ext_degree: u32) -> Result<usize> {
    rows.checked_mul(cols)
        .and_then(|n| n.checked_mul(ext_degree as usize))
        .ok_or_else(|| {
            Error::new(
                Status::SizeOverflow,
                format!(
                    "rows * cols * ext_degree = {} * {} * {} overflows",
                    rows, cols, ext_degree
                ),
            )
        })
}

fn check_len(what: &str, len: usize, rows: usize, cols: usize, ext_degree: u32) -> Result<()> {
    let expected = element_count(rows, cols, ext_degree)?;
    if len == expected {
        Ok(())
    } else {
        Err(Error::new(
            Status::ShapeMismatch,
            format!(
                "{} holds {} elements, but rows * cols * ext_degree = {} * {} * {} = {}",
                what, len, rows, cols, ext_degree, expected
            ),
        ))
    }
}

/// The randomizer coefficients per column that `len` values give for `cols`
/// columns of degree `ext_degree`.
fn randomizer_count(len: usize, cols: usize, ext_degree: u32) -> Result<u64> {
    let per_coefficient = element_count(1, cols, ext_degree)?;
    if per_coefficient == 0 || len % per_coefficient != 0 {
        return Err(Error::new(
            Status::ShapeMismatch,
            format!(
                "randomizers holds {} values, not a multiple of cols * ext_degree = {} * {}",
                len, cols, ext_degree
            ),
        ));
    }
    Ok(to_u64(len / per_coefficient))
}

// ---------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------

/// Options of [`Context::with_options`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextOptions {
    /// Which backend to use. Default [`Backend::Auto`].
    pub backend: Backend,
    /// The devices the context owns: CUDA device ordinals; empty (default)
    /// means device 0. With more than one entry every buffer is spread over
    /// the devices by blocks of whole columns and every call runs on all of
    /// them, with the same results as one device (see "Several devices" in
    /// `gpuprover.h`). An ordinal may be listed more than once: each entry
    /// is a share of its GPU with its own streams and memory.
    /// `vec![DEVICES_ALL]` means every visible GPU ([`DEVICES_ALL`]).
    ///
    /// On the CPU backend (and when [`Backend::Auto`] falls back to it) the
    /// length of the list is the number of emulated devices: the worker
    /// threads are divided into that many shares, which run the same split
    /// and exchange as GPUs; the values are not used (`vec![0; 3]` gives
    /// three). [`Context::device_count`] and [`Context::devices_info`]
    /// report what the context got.
    pub devices: Vec<i32>,
    /// Worker threads of the CPU backend (and of host-side staging on CUDA);
    /// 0 (default) means one per hardware thread.
    pub cpu_threads: u32,
    /// [`Backend::Remote`] (and [`Backend::Auto`]): the server's address, as
    /// `GPUPROVER_SERVER` takes it (see [`Backend::Remote`]); `None`
    /// (default) means that variable. The library copies it.
    pub endpoint: Option<String>,
    /// Priority of this context's jobs on the server. Default
    /// [`Priority::Normal`]. Ignored in process.
    pub priority: Priority,
    /// `true`: the server runs this context's jobs on its CPU worker pool
    /// (bit-identical; for work that is faster there). Ignored in process.
    pub force_cpu: bool,
    /// A file holding the shared token the server requires of TCP clients
    /// not on loopback; `None` (default) means the
    /// `GPUPROVER_SERVER_TOKEN_FILE` environment variable, if set. The token
    /// is never passed inline.
    pub token_file: Option<PathBuf>,
}

/// Memory use of a context (`gp_context_memory_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes currently held by live buffers.
    pub buffer_bytes: u64,
    /// Bytes currently held by the context's caches (twiddles, scratch,
    /// staging).
    pub cache_bytes: u64,
    /// Persistent allocations made since the context was created. Repeating
    /// a call of one shape leaves it unchanged.
    pub allocations: u64,
    /// Cached coset tables released, least recently used first, to keep the
    /// cache within its budget.
    pub evictions: u64,
}

/// One device of a context (`gp_context_device_info`): see
/// [`Context::device_info`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The CUDA device ordinal, or -1 for a (share of the) CPU.
    pub ordinal: i32,
    /// A description of the device, as [`Context::device_name`] gives it.
    pub name: String,
    /// Bytes of buffers, trees and FRI layers the context holds on this
    /// device.
    pub buffer_bytes: u64,
    /// Bytes of the device's caches (twiddles, scratch, staging).
    pub cache_bytes: u64,
    /// Persistent allocations made on the device (see
    /// [`MemoryStats::allocations`]).
    pub allocations: u64,
    /// Device memory free now (`cudaMemGetInfo`); 0 on the CPU.
    pub free_bytes: u64,
    /// Device memory in all (`cudaMemGetInfo`); 0 on the CPU.
    pub total_bytes: u64,
}

/// A gpuprover context: one backend (CUDA device or CPU thread pool) with its
/// caches.
///
/// A `Context` is a cheap-to-clone handle: every clone refers to the same
/// library context, which is destroyed when the last clone, and the last
/// [`Buffer`], [`MerkleTree`] or [`Fri`] made on it, is dropped. It is `Send`
/// and `Sync`: clones (or `&Context`) may be used from several threads at
/// once. The library serializes the calls on one context (a call waits for
/// the one in flight); for parallel work give each thread its own context.
/// [`Context::cancel`] is the exception: it does not wait, and stops the call
/// in flight from another thread.
///
/// Two `Context` values compare equal when they are clones of one context.
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

/// What every clone of a [`Context`] shares: the C handle and the callbacks
/// the library calls back into (their address is the callbacks' `user`
/// pointer, so it must not move: it lives in the `Arc`).
pub(crate) struct ContextInner {
    raw: NonNull<sys::gp_context>,
    pub(crate) progress: Mutex<Option<monitor::ProgressFn>>,
    pub(crate) log: Mutex<Option<monitor::LogFn>>,
}

// SAFETY: gpuprover.h guarantees that "contexts, and every handle of a
// context, may be used from several threads at once: the calls on one context
// are serialized (a call waits for the one in flight)", and that
// gp_context_cancel is "safe to call from any thread at any time while the
// context is alive". The handle is only destroyed in `Drop`, when no other
// reference to it exists. The callback slots are behind mutexes and hold
// `Send` closures.
unsafe impl Send for ContextInner {}
// SAFETY: as for `Send` above: every method reachable through `&ContextInner`
// is a C call that the library makes thread-safe, or a mutex-guarded slot.
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned; no clone of the context and
        // no buffer, tree or FRI commitment of it is left (each holds an Arc
        // of this), so no call is in flight. The callbacks are unregistered
        // first, so the library never calls into a closure the context no
        // longer owns; the closures themselves drop after this.
        unsafe {
            // The log first: clearing the progress callback is a call that
            // would be logged.
            sys::gp_context_set_log(self.raw.as_ptr(), None, ptr::null_mut());
            sys::gp_context_set_progress(self.raw.as_ptr(), None, ptr::null_mut());
            sys::gp_context_destroy(self.raw.as_ptr());
        }
    }
}

impl PartialEq for Context {
    /// Whether both are clones of one context.
    fn eq(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Context {}

impl std::hash::Hash for Context {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.inner) as usize).hash(state)
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("backend", &self.backend())
            .field("device", &self.device_name().unwrap_or_default())
            .finish()
    }
}

impl Context {
    /// A context on the best backend present: the server named by the
    /// `GPUPROVER_SERVER` environment variable when it is set and reachable
    /// ([`Backend::Auto`]), otherwise CUDA if a usable GPU exists, else the
    /// CPU.
    pub fn new() -> Result<Context> {
        Context::with_options(&ContextOptions::default())
    }

    /// A context on `backend`. [`Backend::Cuda`] fails with
    /// [`Status::NoDevice`] where no usable GPU exists.
    pub fn with_backend(backend: Backend) -> Result<Context> {
        Context::with_options(&ContextOptions {
            backend,
            ..ContextOptions::default()
        })
    }

    /// A context with explicit options.
    pub fn with_options(options: &ContextOptions) -> Result<Context> {
        // SAFETY: gp_context_options is plain data (integers, a pointer);
        // gp_context_options_init fills every field.
        let mut raw_options: sys::gp_context_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_context_options_init(&mut raw_options) };
        raw_options.backend = options.backend.to_raw();
        raw_options.cpu_threads = options.cpu_threads;
        if !options.devices.is_empty() {
            raw_options.devices = options.devices.as_ptr();
            raw_options.num_devices = u32::try_from(options.devices.len())
                .map_err(|_| Error::new(Status::InvalidArgument, "too many device ordinals"))?;
        }
        // The C strings live until the end of this function, past
        // gp_context_create (which copies them).
        let endpoint = options
            .endpoint
            .as_deref()
            .map(|e| c_string("options.endpoint", e.as_bytes()))
            .transpose()?;
        let token_file = options
            .token_file
            .as_deref()
            .map(|p| c_string("options.token_file", path_bytes(p)?.as_ref()))
            .transpose()?;
        raw_options.endpoint = endpoint.as_ref().map_or(ptr::null(), |s| s.as_ptr());
        raw_options.token_file = token_file.as_ref().map_or(ptr::null(), |s| s.as_ptr());
        raw_options.priority = options.priority.to_raw();
        raw_options.force_cpu = u32::from(options.force_cpu);
        let mut raw = ptr::null_mut();
        // SAFETY: the options (and the device array and strings, which the
        // library copies) outlive the call; `raw` is valid for writes.
        check(unsafe { sys::gp_context_create(&raw_options, &mut raw) })?;
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::new(
                Status::Internal,
                "gp_context_create returned GP_OK and NULL",
            )
        })?;
        Ok(Context {
            inner: Arc::new(ContextInner {
                raw,
                progress: Mutex::new(None),
                log: Mutex::new(None),
            }),
        })
    }

    /// The raw handle, for calling `gpuprover_sys` functions directly. It
    /// stays owned by the context (alive while any clone of it, or any of
    /// its buffers, trees and FRI commitments, is).
    pub fn as_raw(&self) -> *mut sys::gp_context {
        self.inner.raw.as_ptr()
    }

    pub(crate) fn inner(&self) -> &Arc<ContextInner> {
        &self.inner
    }

    /// The backend the context runs on: [`Backend::Cpu`],
    /// [`Backend::Cuda`] or [`Backend::Remote`], never `Auto`.
    pub fn backend(&self) -> Backend {
        // SAFETY: the handle is valid.
        Backend::from_raw(unsafe { sys::gp_context_backend(self.as_raw()) })
    }

    /// Why a [`Backend::Auto`] context with a server configured
    /// (`GPUPROVER_SERVER` or [`ContextOptions::endpoint`]) runs in process
    /// instead: the connection error (`gp_context_remote_fallback`). `None`
    /// when the context runs on the server or no server was configured.
    pub fn remote_fallback(&self) -> Option<String> {
        // SAFETY: the handle is valid; the string is owned by the context
        // and copied here at once.
        let p = unsafe { sys::gp_context_remote_fallback(self.as_raw()) };
        if p.is_null() {
            None
        } else {
            Some(unsafe { cstr_to_string(p) })
        }
    }

    /// Why a [`Backend::Auto`] context runs on the CPU backend instead of
    /// CUDA (no CUDA in this build, no driver, a driver older than the
    /// library's CUDA runtime, no visible device; `gp_context_cpu_fallback`).
    /// `None` when it runs on a GPU or a server, or the CPU was asked for.
    pub fn cpu_fallback(&self) -> Option<String> {
        // SAFETY: as in remote_fallback.
        let p = unsafe { sys::gp_context_cpu_fallback(self.as_raw()) };
        if p.is_null() {
            None
        } else {
            Some(unsafe { cstr_to_string(p) })
        }
    }

    /// A description of the device ("NVIDIA H100 80GB HBM3",
    /// "CPU, 16 threads"; for several devices, "2 devices: " and each
    /// one's).
    pub fn device_name(&self) -> Result<String> {
        let mut name = [0 as c_char; 256];
        // SAFETY: `name` is valid for `name.len()` bytes; the library writes a
        // NUL-terminated string truncated to that size.
        check(unsafe {
            sys::gp_context_device_name(self.as_raw(), name.as_mut_ptr(), name.len())
        })?;
        name[name.len() - 1] = 0;
        // SAFETY: NUL-terminated (forced above).
        Ok(unsafe { cstr_to_string(name.as_ptr()) })
    }

    /// The context's memory use.
    pub fn memory_stats(&self) -> Result<MemoryStats> {
        // SAFETY: plain data; struct_size is set before the call.
        let mut raw: sys::gp_memory_stats = unsafe { std::mem::zeroed() };
        raw.struct_size = size_of::<sys::gp_memory_stats>() as u32;
        check(unsafe { sys::gp_context_memory_stats(self.as_raw(), &mut raw) })?;
        Ok(MemoryStats {
            buffer_bytes: raw.buffer_bytes,
            cache_bytes: raw.cache_bytes,
            allocations: raw.allocations,
            evictions: raw.evictions,
        })
    }

    /// The number of devices the context owns
    /// (`gp_context_device_count`): 1 for a single GPU or the plain CPU
    /// backend, the length of [`ContextOptions::devices`] for several GPUs
    /// or emulated CPU devices.
    pub fn device_count(&self) -> usize {
        // SAFETY: the handle is valid.
        unsafe { sys::gp_context_device_count(self.as_raw()) as usize }
    }

    /// Describes device `index` of the context, `0 <= index <
    /// device_count()` (`gp_context_device_info`). An index out of range
    /// fails with [`Status::InvalidArgument`].
    pub fn device_info(&self, index: usize) -> Result<DeviceInfo> {
        let raw_index = u32::try_from(index).map_err(|_| {
            Error::new(
                Status::InvalidArgument,
                format!(
                    "gp_context_device_info: index = {} but the context has {} device(s)",
                    index,
                    self.device_count()
                ),
            )
        })?;
        // SAFETY: plain data (integers and a char array); struct_size is
        // set before the call.
        let mut raw: sys::gp_device_info = unsafe { std::mem::zeroed() };
        raw.struct_size = size_of::<sys::gp_device_info>() as u32;
        check(unsafe { sys::gp_context_device_info(self.as_raw(), raw_index, &mut raw) })?;
        let last = raw.name.len() - 1;
        raw.name[last] = 0;
        Ok(DeviceInfo {
            ordinal: raw.ordinal,
            // SAFETY: NUL-terminated (forced above).
            name: unsafe { cstr_to_string(raw.name.as_ptr()) },
            buffer_bytes: raw.buffer_bytes,
            cache_bytes: raw.cache_bytes,
            allocations: raw.allocations,
            free_bytes: raw.free_bytes,
            total_bytes: raw.total_bytes,
        })
    }

    /// [`Context::device_info`] of every device of the context, in order.
    pub fn devices_info(&self) -> Result<Vec<DeviceInfo>> {
        (0..self.device_count())
            .map(|i| self.device_info(i))
            .collect()
    }

    /// Releases cached twiddle tables and scratch memory.
    pub fn trim(&self) -> Result<()> {
        // SAFETY: the handle is valid; the library serializes the call with
        // the others on the context.
        check(unsafe { sys::gp_context_trim(self.as_raw()) })
    }

    /// Coset LDE of every column of `input` into `output`
    /// (`gp_lde_batch`).
    ///
    /// Input column c holds `f_c(s * w_n^i)` for `i < input.rows()` (s =
    /// `options.input_shift`; rows up to n beyond the input are zero). Output
    /// row j holds `f_c(g * w_{nB}^j)` (natural order) or
    /// `f_c(g * w_{nB}^bitrev(j))` (bit-reversed). `output` must have
    /// `n * blowup` rows, the input's column count, field and extension
    /// degree, and belong to this context. `output` must not be committed
    /// by a live [`MerkleTree`] (see [`Buffer::is_shared`]).
    pub fn lde(&self, input: &Buffer, options: &LdeOptions, output: &mut Buffer) -> Result<()> {
        self.lde_raw(input, &options.to_raw(), output)
    }

    /// `gp_lde_batch` with options already in the library's form; their
    /// pointers (randomizers) must outlive the call.
    fn lde_raw(
        &self,
        input: &Buffer,
        raw_options: &sys::gp_lde_options,
        output: &mut Buffer,
    ) -> Result<()> {
        let out = output.raw_mut("output")?;
        // SAFETY: all handles are valid; the library checks that the buffers
        // belong to this context and fit the operation.
        check(unsafe { sys::gp_lde_batch(self.as_raw(), input.as_raw(), raw_options, out) })
    }

    /// Like [`Context::lde`], with the input in host memory: `rows` x `cols`
    /// elements of degree `ext_degree` in `options.input_layout`
    /// (`gp_lde_batch_host`). `data.len()` must be `rows * cols *
    /// ext_degree`, and `T` the field's element type.
    #[allow(clippy::too_many_arguments)]
    pub fn lde_host<T: Element>(
        &self,
        field: Field,
        ext_degree: u32,
        data: &[T],
        rows: usize,
        cols: usize,
        options: &LdeOptions,
        output: &mut Buffer,
    ) -> Result<()> {
        check_element::<T>(field)?;
        check_len("data", data.len(), rows, cols, ext_degree)?;
        self.lde_host_raw(
            field,
            ext_degree,
            data,
            rows,
            cols,
            &options.to_raw(),
            output,
        )
    }

    /// `gp_lde_batch_host` on checked arguments: `data` holds exactly
    /// rows * cols * ext_degree elements of the field's size, and whatever
    /// `raw_options` points at outlives the call.
    #[allow(clippy::too_many_arguments)]
    fn lde_host_raw<T: Element>(
        &self,
        field: Field,
        ext_degree: u32,
        data: &[T],
        rows: usize,
        cols: usize,
        raw_options: &sys::gp_lde_options,
        output: &mut Buffer,
    ) -> Result<()> {
        let out = output.raw_mut("output")?;
        // SAFETY: the sizes were checked by the callers; the handles are
        // valid; the options' pointers outlive the call.
        check(unsafe {
            sys::gp_lde_batch_host(
                self.as_raw(),
                field.to_raw(),
                ext_degree,
                data.as_ptr().cast(),
                to_u64(rows),
                to_u64(cols),
                raw_options,
                out,
            )
        })
    }

    /// The randomized LDE (zero knowledge, as Triton VM extends its
    /// tables; `gp_lde_options.randomizers`): like [`Context::lde`], with
    /// output column c holding the evaluations of
    /// `f_c(X) + (X^n - s^n) r_c(X)` (s the input shift), the interpolant
    /// plus the trace domain's zerofier times the randomizer r_c, which
    /// leaves the values on the trace domain as they were.
    ///
    /// `randomizers` holds the coefficients of one randomizer polynomial
    /// per input column, lowest degree first, canonical: `count` per column
    /// (`count * cols * ext_degree` values of the field's element type `T`;
    /// an extension column's coefficients are extension elements, base
    /// element k of coefficient j of column c at
    /// `(c * count + j) * ext_degree + k`). `count` must be at least 1 and
    /// at most `n * (blowup - 1)`. The call costs one more transform of the
    /// output's size and that size again in device memory while it runs;
    /// contexts of several devices give [`Status::Unsupported`].
    pub fn lde_randomized<T: Element>(
        &self,
        input: &Buffer,
        options: &LdeOptions,
        randomizers: &[T],
        output: &mut Buffer,
    ) -> Result<()> {
        check_element::<T>(input.field())?;
        let count = randomizer_count(randomizers.len(), input.cols(), input.ext_degree())?;
        let mut raw_options = options.to_raw();
        // `randomizers` holds count * cols * ext_degree elements of the
        // field's size (checked above) and outlives the call.
        raw_options.randomizers = nonnull(randomizers);
        raw_options.randomizer_count = count;
        self.lde_raw(input, &raw_options, output)
    }

    /// Like [`Context::lde_host`], randomized as [`Context::lde_randomized`]
    /// describes: `randomizers` holds `count * cols * ext_degree` values,
    /// `count` coefficients per column.
    #[allow(clippy::too_many_arguments)]
    pub fn lde_host_randomized<T: Element>(
        &self,
        field: Field,
        ext_degree: u32,
        data: &[T],
        rows: usize,
        cols: usize,
        options: &LdeOptions,
        randomizers: &[T],
        output: &mut Buffer,
    ) -> Result<()> {
        check_element::<T>(field)?;
        check_len("data", data.len(), rows, cols, ext_degree)?;
        let count = randomizer_count(randomizers.len(), cols, ext_degree)?;
        let mut raw_options = options.to_raw();
        // `randomizers` holds count * cols * ext_degree elements (checked
        // above) and outlives the call.
        raw_options.randomizers = nonnull(randomizers);
        raw_options.randomizer_count = count;
        self.lde_host_raw(field, ext_degree, data, rows, cols, &raw_options, output)
    }

    /// [`Context::lde`] on the domains of another root of unity
    /// (`gp_lde_options.root`): `root` is an element of order exactly
    /// 2^two_adicity of the field (0: the library's), and the domain of n
    /// rows uses `root^(2^two_adicity / n)` as its generator. Input row i is
    /// then the value at `s * w_n^i`, output row j the value at
    /// `g * w_{nB}^j` with those generators: winterfell's trace and LDE rows
    /// for winterfell's `TWO_ADIC_ROOT_OF_UNITY` (Goldilocks:
    /// 7277203076849721926). With another root than the library's the
    /// output order must be natural; contexts of several devices and remote
    /// contexts give [`Status::Unsupported`].
    pub fn lde_with_root(
        &self,
        input: &Buffer,
        options: &LdeOptions,
        root: u64,
        output: &mut Buffer,
    ) -> Result<()> {
        let mut raw_options = options.to_raw();
        raw_options.root = root;
        self.lde_raw(input, &raw_options, output)
    }

    /// [`Context::lde_host`] on the domains of another root of unity, as
    /// [`Context::lde_with_root`] describes.
    #[allow(clippy::too_many_arguments)]
    pub fn lde_host_with_root<T: Element>(
        &self,
        field: Field,
        ext_degree: u32,
        data: &[T],
        rows: usize,
        cols: usize,
        options: &LdeOptions,
        root: u64,
        output: &mut Buffer,
    ) -> Result<()> {
        check_element::<T>(field)?;
        check_len("data", data.len(), rows, cols, ext_degree)?;
        let mut raw_options = options.to_raw();
        raw_options.root = root;
        self.lde_host_raw(field, ext_degree, data, rows, cols, &raw_options, output)
    }

    /// [`Context::ntt`] on the domain of another root of unity
    /// (`gp_ntt_options.root`, as [`Context::lde_with_root`] describes):
    /// row i is the evaluation at `s * w^i` with `w = root^(2^two_adicity /
    /// n)`. With another root than the library's both orders must be
    /// natural.
    pub fn ntt_with_root(
        &self,
        buffer: &mut Buffer,
        options: &NttOptions,
        root: u64,
    ) -> Result<()> {
        let mut raw_options = options.to_raw();
        raw_options.root = root;
        self.ntt_raw(buffer, &raw_options)
    }

    /// Transforms every column of `buffer` in place (`gp_ntt_batch`).
    /// `buffer.rows()` must be a power of two not above 2^two_adicity, and
    /// the buffer must not be committed by a live [`MerkleTree`].
    pub fn ntt(&self, buffer: &mut Buffer, options: &NttOptions) -> Result<()> {
        self.ntt_raw(buffer, &options.to_raw())
    }

    fn ntt_raw(&self, buffer: &mut Buffer, raw_options: &sys::gp_ntt_options) -> Result<()> {
        let buf = buffer.raw_mut("buffer")?;
        // SAFETY: the handles are valid; the library checks the context.
        check(unsafe { sys::gp_ntt_batch(self.as_raw(), buf, raw_options) })
    }

    /// Applies `permutation` in place to the states stored back to back in
    /// `states` (`gp_permute_batch`). `states.len()` must be a multiple of
    /// the permutation's width; `T` is `u64` for Goldilocks permutations and
    /// Keccak, `u32` for BabyBear and KoalaBear. Field states must be
    /// canonical. [`Permutation::Blake3`], a hash, is refused (and so are
    /// the hashes [`Permutation::Sha3_256`] and [`Permutation::Blake3_192`])
    /// ([`Status::Unsupported`]) whatever `states` holds, as the library
    /// does.
    pub fn permute_batch<T: Element>(
        &self,
        permutation: Permutation,
        states: &mut [T],
    ) -> Result<()> {
        if matches!(
            permutation,
            Permutation::Blake3 | Permutation::Sha3_256 | Permutation::Blake3_192
        ) {
            // The library refuses it before looking at the states.
            // SAFETY: no states are passed (count 0).
            return check(unsafe {
                sys::gp_permute_batch(
                    self.as_raw(),
                    permutation.to_raw(),
                    states.as_mut_ptr().cast(),
                    0,
                )
            });
        }
        let info = permutation.info()?;
        let element_size = info.field.map_or(8, Field::element_size);
        if size_of::<T>() != element_size {
            return Err(Error::new(
                Status::FieldMismatch,
                format!(
                    "host states are {} but {:?} works on {}-byte elements",
                    type_name_of::<T>(),
                    permutation,
                    element_size
                ),
            ));
        }
        if info.width == 0 || states.len() % info.width != 0 {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "states.len() = {} is not a multiple of the width {} of {:?}",
                    states.len(),
                    info.width,
                    permutation
                ),
            ));
        }
        let count = states.len() / info.width;
        if count == 0 {
            return Ok(());
        }
        // SAFETY: `states` holds count * width elements of the permutation's
        // element size (checked above) and is exclusively borrowed.
        check(unsafe {
            sys::gp_permute_batch(
                self.as_raw(),
                permutation.to_raw(),
                states.as_mut_ptr().cast(),
                to_u64(count),
            )
        })
    }

    /// Plonky3's commitment LDE on this context; see the free function
    /// [`coset_lde_bitrev_rows`].
    pub fn coset_lde_bitrev_rows(
        &self,
        values: &[u64],
        width: usize,
        log_blowup: usize,
    ) -> Result<Vec<u64>> {
        if width == 0 {
            return Err(Error::new(Status::InvalidArgument, "width is 0"));
        }
        if values.len() % width != 0 {
            return Err(Error::new(
                Status::ShapeMismatch,
                format!(
                    "values.len() = {} is not a multiple of width = {}",
                    values.len(),
                    width
                ),
            ));
        }
        if log_blowup >= 32 {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("log_blowup = {} is too large", log_blowup),
            ));
        }
        let height = values.len() / width;
        let blowup = 1u32 << log_blowup;
        let lde_height = height.checked_mul(blowup as usize).ok_or_else(|| {
            Error::new(
                Status::SizeOverflow,
                format!("height {} << log_blowup {} overflows", height, log_blowup),
            )
        })?;
        let options = LdeOptions {
            blowup,
            output_order: Order::BitReversed,
            input_layout: Layout::RowMajor,
            ..LdeOptions::default()
        };
        let mut output = Buffer::new(self, Field::Goldilocks, 1, lde_height, width)?;
        self.lde_host(
            Field::Goldilocks,
            1,
            values,
            height,
            width,
            &options,
            &mut output,
        )?;
        output.to_vec(Layout::RowMajor)
    }
}

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// Options of [`Context::lde`] and [`Context::lde_host`]. Build them with
/// struct-update syntax: `LdeOptions { blowup: 4, ..LdeOptions::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdeOptions {
    /// Trace length n (power of two); 0 (default) means the input's row
    /// count. Missing input rows are zero (virtual padding).
    pub n: usize,
    /// Blowup factor B, a power of two in [1, 32]. Default 2.
    pub blowup: u32,
    /// Output coset shift g (canonical, nonzero). `None` (default): the
    /// field's multiplicative generator (7, 31, 3), as Plonky3 uses.
    pub shift: Option<u64>,
    /// Shift s of the domain the input is evaluated on. `None` (default): 1.
    pub input_shift: Option<u64>,
    /// Row order of the output. Default natural; Plonky3 commits the
    /// bit-reversed LDE.
    pub output_order: Order,
    /// Layout of host input for [`Context::lde_host`]. Default column-major.
    pub input_layout: Layout,
    /// What the input rows hold. Default evaluations.
    pub input: LdeInput,
}

impl Default for LdeOptions {
    fn default() -> LdeOptions {
        LdeOptions {
            n: 0,
            blowup: 2,
            shift: None,
            input_shift: None,
            output_order: Order::Natural,
            input_layout: Layout::ColMajor,
            input: LdeInput::Evaluations,
        }
    }
}

impl LdeOptions {
    fn to_raw(self) -> sys::gp_lde_options {
        // SAFETY: plain data, filled by gp_lde_options_init.
        let mut raw: sys::gp_lde_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_lde_options_init(&mut raw) };
        raw.n = to_u64(self.n);
        raw.blowup = self.blowup;
        raw.shift = self.shift.unwrap_or(0);
        raw.input_shift = self.input_shift.unwrap_or(0);
        raw.output_order = self.output_order.to_raw();
        raw.input_layout = self.input_layout.to_raw();
        raw.input = self.input.to_raw();
        raw
    }
}

/// Options of [`Context::ntt`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NttOptions {
    /// Default forward.
    pub direction: NttDirection,
    /// Coset shift s (canonical, nonzero): the forward transform evaluates
    /// on `s * H`, the inverse interpolates from `s * H`. `None` (default):
    /// the plain subgroup.
    pub shift: Option<u64>,
    /// Order of the input rows. Default natural.
    pub input_order: Order,
    /// Order of the output rows. Default natural.
    pub output_order: Order,
}

impl NttOptions {
    /// The forward transform with natural orders.
    pub fn forward() -> NttOptions {
        NttOptions::default()
    }

    /// The inverse transform with natural orders.
    pub fn inverse() -> NttOptions {
        NttOptions {
            direction: NttDirection::Inverse,
            ..NttOptions::default()
        }
    }

    fn to_raw(self) -> sys::gp_ntt_options {
        // SAFETY: plain data, filled by gp_ntt_options_init.
        let mut raw: sys::gp_ntt_options = unsafe { std::mem::zeroed() };
        unsafe { sys::gp_ntt_options_init(&mut raw) };
        raw.direction = self.direction.to_raw();
        raw.shift = self.shift.unwrap_or(0);
        raw.input_order = self.input_order.to_raw();
        raw.output_order = self.output_order.to_raw();
        raw
    }
}

// ---------------------------------------------------------------------------
// Buffer
// ---------------------------------------------------------------------------

/// A `rows` x `cols` matrix of field elements owned by the library (device
/// memory on CUDA, host memory on the CPU backend), belonging to one
/// [`Context`]. Destroyed when dropped and no longer committed.
///
/// A buffer keeps its context alive (it holds a clone of it), so it may
/// outlive the `Context` value it was made with, and its handle is always
/// destroyed before the context's. It is `Send` and `Sync`.
///
/// A [`MerkleTree`] keeps the buffers it commits alive too, because the
/// library reads them again to open rows: dropping the `Buffer` after
/// committing it is fine. While a tree holds it, the buffer is *shared*
/// ([`Buffer::is_shared`]) and calls that would write it ([`Context::lde`],
/// [`Context::lde_host`], [`Context::ntt`] and
/// [`Context::deep_composition`] as output) fail with
/// [`Status::InvalidArgument`] instead of changing committed data.
pub struct Buffer {
    inner: Arc<BufferInner>,
}

struct BufferInner {
    raw: NonNull<sys::gp_buffer>,
    // Keeps the context alive; dropped after the handle is destroyed.
    ctx: Context,
    // Memory that a wrapped buffer reads and the binding owns
    // (Buffer::from_vec); released after the handle.
    _memory: Option<Box<dyn std::any::Any + Send + Sync>>,
}

// SAFETY: gpuprover.h: "Contexts, and every handle of a context, may be used
// from several threads at once: the calls on one context are serialized".
// The handle is destroyed only in `Drop`, when no other reference exists;
// writes to the buffer need `&mut Buffer` and an unshared handle
// (`Buffer::raw_mut`), so Rust's aliasing rules hold for its contents too.
unsafe impl Send for BufferInner {}
// SAFETY: as for `Send`: every method on `&BufferInner` is a thread-safe C
// call (shape getters, gp_buffer_to_host, gp_buffer_data).
unsafe impl Sync for BufferInner {}

impl Drop for BufferInner {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned; no tree refers to it any
        // more (each holds an Arc of this). The context is alive: `self.ctx`
        // is dropped after this.
        unsafe { sys::gp_buffer_destroy(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("field", &self.field())
            .field("ext_degree", &self.ext_degree())
            .field("rows", &self.rows())
            .field("cols", &self.cols())
            .finish()
    }
}

/// A `Vec` whose allocation a wrapped buffer reads and writes through a raw
/// pointer; freed (as the `Vec` it was) after the buffer's handle.
struct OwnedVec<T> {
    ptr: *mut T,
    len: usize,
    cap: usize,
}

// SAFETY: plain owned memory of `Send + Sync` elements; only the library
// (through the buffer handle, serialized per context) touches it until drop.
unsafe impl<T: Send> Send for OwnedVec<T> {}
// SAFETY: as above; `OwnedVec` exposes nothing through `&self`.
unsafe impl<T: Sync> Sync for OwnedVec<T> {}

impl<T> Drop for OwnedVec<T> {
    fn drop(&mut self) {
        // SAFETY: ptr, len and cap come from a Vec<T> that was forgotten.
        drop(unsafe { Vec::from_raw_parts(self.ptr, self.len, self.cap) });
    }
}

impl Buffer {
    /// A zero-filled buffer of `rows` x `cols` elements of the field's
    /// degree-`ext_degree` extension (1 for the base field). `cols` may be 0:
    /// a matrix of width 0, holding no memory, whose rows the Merkle
    /// commitments ([`Context::merkle_commit`], [`Context::merkle_hash_rows`])
    /// hash as empty inputs; transforms, LDEs, FRI, OOD/DEEP and DLPack
    /// export refuse it.
    pub fn new(
        ctx: &Context,
        field: Field,
        ext_degree: u32,
        rows: usize,
        cols: usize,
    ) -> Result<Buffer> {
        let mut raw = ptr::null_mut();
        // SAFETY: the context is valid; `raw` is valid for writes.
        check(unsafe {
            sys::gp_buffer_create(
                ctx.as_raw(),
                field.to_raw(),
                ext_degree,
                to_u64(rows),
                to_u64(cols),
                &mut raw,
            )
        })?;
        Buffer::from_handle(ctx, raw, "gp_buffer_create", None)
    }

    /// A buffer holding `data`: `rows` x `cols` elements of degree
    /// `ext_degree` in `layout`. `data.len()` must be `rows * cols *
    /// ext_degree` (empty when `cols` is 0) and `T` the field's element type
    /// (`u64` for Goldilocks, `u32` for BabyBear and KoalaBear); values
    /// `>= p` give [`Status::NonCanonical`]. [`Buffer::from_host_typed`]
    /// takes the field as a type.
    pub fn from_host<T: Element>(
        ctx: &Context,
        field: Field,
        ext_degree: u32,
        rows: usize,
        cols: usize,
        layout: Layout,
        data: &[T],
    ) -> Result<Buffer> {
        check_element::<T>(field)?;
        check_len("data", data.len(), rows, cols, ext_degree)?;
        let mut raw = ptr::null_mut();
        // SAFETY: `data` holds exactly rows * cols * ext_degree elements of
        // the field's size (checked above).
        check(unsafe {
            sys::gp_buffer_from_host(
                ctx.as_raw(),
                field.to_raw(),
                ext_degree,
                to_u64(rows),
                to_u64(cols),
                layout.to_raw(),
                data.as_ptr().cast(),
                &mut raw,
            )
        })?;
        Buffer::from_handle(ctx, raw, "gp_buffer_from_host", None)
    }

    /// Wraps memory the caller owns as a buffer of `ctx`, without a copy
    /// (`gp_buffer_wrap`). `data` holds `rows` x `cols` elements of degree
    /// `ext_degree` in the buffer layout: `cols * ext_degree` base columns
    /// one after another, each `rows` contiguous canonical elements (`u64`
    /// for Goldilocks, `u32` for BabyBear and KoalaBear; the base columns of
    /// extension column c are `c * ext_degree + k`). The values are checked
    /// to be canonical. Results written into the buffer (as the output of an
    /// LDE or NTT) are read in place. `cols` must be at least 1
    /// ([`Buffer::new`] and [`Buffer::from_host`] take 0 columns).
    ///
    /// # Safety
    ///
    /// `data` must be valid for reads and writes of the buffer's size,
    /// aligned to the element size, and be device memory of the context's
    /// GPU (CUDA backend: `cudaMalloc`, `cudaMallocAsync` or managed memory)
    /// or host memory (CPU backend). It must stay valid, and not be accessed
    /// otherwise while a call uses the buffer, until the returned `Buffer`
    /// *and every [`MerkleTree`] that commits it* are dropped (a tree keeps
    /// its buffers alive). [`Buffer::from_vec`] is the safe form for host
    /// memory.
    pub unsafe fn wrap(
        ctx: &Context,
        field: Field,
        ext_degree: u32,
        rows: usize,
        cols: usize,
        data: *mut c_void,
    ) -> Result<Buffer> {
        let mut raw = ptr::null_mut();
        // SAFETY: the caller's contract above.
        check(sys::gp_buffer_wrap(
            ctx.as_raw(),
            field.to_raw(),
            ext_degree,
            to_u64(rows),
            to_u64(cols),
            data,
            &mut raw,
        ))?;
        Buffer::from_handle(ctx, raw, "gp_buffer_wrap", None)
    }

    /// A buffer holding `data`, given in the buffer layout (see
    /// [`Buffer::wrap`]; for the base field it is column-major). On the CPU
    /// backend the buffer wraps the vector's memory without a copy and owns
    /// it until it is dropped; on the CUDA backend (where buffers live in
    /// device memory) the values are uploaded and the vector is freed.
    /// `data.len()` must be `rows * cols * ext_degree` and `T` the field's
    /// element type.
    pub fn from_vec<T: Element>(
        ctx: &Context,
        field: Field,
        ext_degree: u32,
        rows: usize,
        cols: usize,
        data: Vec<T>,
    ) -> Result<Buffer> {
        check_element::<T>(field)?;
        check_len("data", data.len(), rows, cols, ext_degree)?;
        if ctx.backend() != Backend::Cpu || data.is_empty() {
            // The buffer layout, as Layout::ColMajor (coefficients of an
            // extension element consecutive) for the upload.
            let e = ext_degree as usize;
            let host = if e <= 1 {
                data
            } else {
                let mut out = vec![T::default(); data.len()];
                for c in 0..cols {
                    for k in 0..e {
                        for r in 0..rows {
                            out[(c * rows + r) * e + k] = data[(c * e + k) * rows + r];
                        }
                    }
                }
                out
            };
            return Buffer::from_host(ctx, field, ext_degree, rows, cols, Layout::ColMajor, &host);
        }
        let mut data = std::mem::ManuallyDrop::new(data);
        let memory = OwnedVec {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            cap: data.capacity(),
        };
        let mut raw = ptr::null_mut();
        // SAFETY: host memory of the right size and alignment for a CPU
        // context; `memory` owns it and is released after the handle (or
        // right away, on failure).
        check(unsafe {
            sys::gp_buffer_wrap(
                ctx.as_raw(),
                field.to_raw(),
                ext_degree,
                to_u64(rows),
                to_u64(cols),
                memory.ptr.cast(),
                &mut raw,
            )
        })?;
        Buffer::from_handle(ctx, raw, "gp_buffer_wrap", Some(Box::new(memory)))
    }

    pub(crate) fn from_handle(
        ctx: &Context,
        raw: *mut sys::gp_buffer,
        what: &str,
        memory: Option<Box<dyn std::any::Any + Send + Sync>>,
    ) -> Result<Buffer> {
        let raw = NonNull::new(raw).ok_or_else(|| {
            Error::new(
                Status::Internal,
                format!("{} returned GP_OK and NULL", what),
            )
        })?;
        Ok(Buffer {
            inner: Arc::new(BufferInner {
                raw,
                ctx: ctx.clone(),
                _memory: memory,
            }),
        })
    }

    /// Another handle to the same buffer, as a tree keeps it.
    pub(crate) fn share(&self) -> Buffer {
        Buffer {
            inner: Arc::clone(&self.inner),
        }
    }

    /// Whether a [`MerkleTree`] (or a [`ConstraintCommitment`]) still
    /// refers to this buffer. A shared buffer cannot be written: the calls
    /// that would write it fail with [`Status::InvalidArgument`].
    pub fn is_shared(&self) -> bool {
        Arc::strong_count(&self.inner) > 1
    }

    /// The handle, for a call that writes the buffer: only when no tree
    /// refers to it (`&mut self` and a unique Arc: nobody else can read it).
    pub(crate) fn raw_mut(&mut self, what: &str) -> Result<*mut sys::gp_buffer> {
        match Arc::get_mut(&mut self.inner) {
            Some(inner) => Ok(inner.raw.as_ptr()),
            None => Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "`{}` is committed by a live MerkleTree, which reads it to open rows; \
                     drop the tree before writing the buffer",
                    what
                ),
            )),
        }
    }

    /// Copies the buffer into `out` in `layout`. `out` must hold at least
    /// `rows * cols * ext_degree` elements of the field's type (it may be
    /// empty for a buffer of 0 columns).
    pub fn to_host<T: Element>(&self, layout: Layout, out: &mut [T]) -> Result<()> {
        check_element::<T>(self.field())?;
        let size_bytes = to_u64(out.len()) * size_of::<T>() as u64;
        // SAFETY: `out` is valid for `size_bytes` bytes of writes; the
        // library checks that it is large enough.
        check(unsafe {
            sys::gp_buffer_to_host(
                self.as_raw(),
                layout.to_raw(),
                out.as_mut_ptr().cast(),
                size_bytes,
            )
        })
    }

    /// The buffer's contents in `layout`, as a new vector of
    /// `rows * cols * ext_degree` elements.
    pub fn to_vec<T: Element>(&self, layout: Layout) -> Result<Vec<T>> {
        check_element::<T>(self.field())?;
        let mut out = vec![T::default(); self.len()];
        self.to_host(layout, &mut out)?;
        Ok(out)
    }

    /// The address of the buffer's memory (`gp_buffer_data`): device memory
    /// on the CUDA backend, host memory on the CPU backend, in the buffer
    /// layout described at [`Buffer::wrap`]. It stays valid while the
    /// buffer is alive (this `Buffer` or a tree committing it). Reading or
    /// writing it is `unsafe` and races with calls on the context that use
    /// the buffer; writing it while a tree refers to the buffer changes
    /// committed data.
    pub fn data_ptr(&self) -> Result<*mut c_void> {
        let mut data = ptr::null_mut();
        // SAFETY: the handle is valid; `data` is valid for writes.
        check(unsafe { sys::gp_buffer_data(self.as_raw(), &mut data) })?;
        Ok(data)
    }

    /// The context the buffer belongs to (a clone of the one it was made
    /// with: `buf.context() == &ctx`).
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// The raw handle, for calling `gpuprover_sys` functions directly. It
    /// stays owned by `self`.
    pub fn as_raw(&self) -> *mut sys::gp_buffer {
        self.inner.raw.as_ptr()
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        // SAFETY: the handle is valid.
        to_usize(unsafe { sys::gp_buffer_rows(self.as_raw()) }, "rows")
    }

    /// Number of columns (extension elements count as one column).
    pub fn cols(&self) -> usize {
        // SAFETY: the handle is valid.
        to_usize(unsafe { sys::gp_buffer_cols(self.as_raw()) }, "cols")
    }

    /// The field.
    pub fn field(&self) -> Field {
        // SAFETY: the handle is valid; a buffer always has a known field.
        Field::from_raw(unsafe { sys::gp_buffer_field(self.as_raw()) })
            .expect("buffer of an unknown field")
    }

    /// The extension degree (1 for the base field).
    pub fn ext_degree(&self) -> u32 {
        // SAFETY: the handle is valid.
        unsafe { sys::gp_buffer_ext_degree(self.as_raw()) }
    }

    /// Number of base-field values: `rows * cols * ext_degree`.
    pub fn len(&self) -> usize {
        self.rows() * self.cols() * self.ext_degree() as usize
    }

    /// Whether the buffer holds no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> u64 {
        // SAFETY: the handle is valid.
        unsafe { sys::gp_buffer_size_bytes(self.as_raw()) }
    }
}

// ---------------------------------------------------------------------------
// Free functions
// ---------------------------------------------------------------------------

/// The library version string, e.g. `"0.1.0"`.
pub fn version() -> &'static str {
    // SAFETY: gp_version returns a static, NUL-terminated string.
    unsafe { CStr::from_ptr(sys::gp_version()) }
        .to_str()
        .unwrap_or("")
}

/// Plonky3's commitment LDE of a Goldilocks matrix, computed by gpuprover.
///
/// `values` is a row-major matrix (Plonky3's `RowMajorMatrix`) of `width`
/// columns and `values.len() / width` rows (a power of two, n): column c
/// holds the evaluations of a polynomial `f_c` of degree `< n` on the
/// subgroup `H` of order n, in natural order, as canonical `u64`. The result
/// is the row-major `(n << log_blowup) x width` matrix whose row j holds
/// `f_c(GENERATOR * w^bitrev(j))`, where `GENERATOR = 7` and w generates the
/// subgroup `K` of order `n << log_blowup`: the LDE on the coset
/// `GENERATOR * K` in bit-reversed row order, which is what
///
/// ```text
/// dft.coset_lde_batch(mat, log_blowup, Goldilocks::GENERATOR).bit_reverse_rows()
/// ```
///
/// gives in Plonky3 (for example in `TwoAdicFriPcs::commit` of a trace
/// domain without shift). Convert with `as_canonical_u64` /
/// `from_canonical_u64`. `log_blowup` is at most 5.
///
/// This creates a [`Context`] per call (CUDA if present, else the CPU); use
/// [`Context::coset_lde_bitrev_rows`] to reuse one.
pub fn coset_lde_bitrev_rows(
    values: &[u64],
    width: usize,
    log_blowup: usize,
) -> Result<Vec<u64>, Error> {
    Context::new()?.coset_lde_bitrev_rows(values, width, log_blowup)
}
