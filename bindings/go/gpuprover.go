// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

/*
#cgo pkg-config: gpuprover
#include <stdlib.h>
#include <gpuprover.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"
)

// ---------------------------------------------------------------------------
// Version

// Version returns the version string of the loaded library, e.g. "0.1.0".
func Version() string { return C.GoString(C.gp_version()) }

// VersionNumber returns the loaded library's version as
// major*10000 + minor*100 + patch.
func VersionNumber() uint32 { return uint32(C.gp_version_number()) }

// ---------------------------------------------------------------------------
// Status and errors

// Status is a gp_status code. A Status is itself an error, so that errors
// returned by this package can be matched with errors.Is(err, ErrShapeMismatch).
type Status int

// The gp_status codes.
const (
	StatusOK             Status = C.GP_OK
	ErrInvalidArgument   Status = C.GP_ERR_INVALID_ARGUMENT
	ErrNullPointer       Status = C.GP_ERR_NULL_POINTER
	ErrUnsupported       Status = C.GP_ERR_UNSUPPORTED
	ErrNoDevice          Status = C.GP_ERR_NO_DEVICE
	ErrHostOutOfMemory   Status = C.GP_ERR_HOST_OUT_OF_MEMORY
	ErrDeviceOutOfMemory Status = C.GP_ERR_DEVICE_OUT_OF_MEMORY
	ErrSizeOverflow      Status = C.GP_ERR_SIZE_OVERFLOW
	ErrFieldMismatch     Status = C.GP_ERR_FIELD_MISMATCH
	ErrContextMismatch   Status = C.GP_ERR_CONTEXT_MISMATCH
	ErrShapeMismatch     Status = C.GP_ERR_SHAPE_MISMATCH
	ErrTwoAdicity        Status = C.GP_ERR_TWO_ADICITY
	ErrNonCanonical      Status = C.GP_ERR_NON_CANONICAL
	ErrCUDA              Status = C.GP_ERR_CUDA
	ErrInternal          Status = C.GP_ERR_INTERNAL
	// ErrVerifyFailed: a Merkle opening or FRI query did not verify
	// (MerkleVerify, FRIVerify). Other statuses from the verifiers mean
	// malformed arguments.
	ErrVerifyFailed Status = C.GP_ERR_VERIFY_FAILED
	// ErrCancelled: the call was cancelled (Context.Cancel).
	ErrCancelled Status = C.GP_ERR_CANCELLED
	// ErrRemote: the server of a remote context (BackendRemote) cannot be
	// reached, refused the session (version, token, quota) or went away;
	// the message says which. A context whose server went away fails every
	// later call with it.
	ErrRemote Status = C.GP_ERR_REMOTE
)

// String returns the status' symbolic name, e.g. "GP_ERR_SHAPE_MISMATCH".
func (s Status) String() string { return C.GoString(C.gp_status_name(C.gp_status(s))) }

// Error implements error; it returns the same symbolic name as String.
func (s Status) Error() string { return s.String() }

// Error is the error returned by every failing call of this package: the
// library's status code, the library's message (gp_last_error, which names
// the offending argument and its value) and the C function that failed.
type Error struct {
	Op      string // the C function, e.g. "gp_lde_batch_host"
	Status  Status
	Message string
	// Err is the cause, if any: for a call stopped because its
	// context.Context was done (the *Context methods, such as LDEContext),
	// that context's Err(), context.Canceled or context.DeadlineExceeded,
	// so that errors.Is(err, context.Canceled) works as well as
	// errors.Is(err, ErrCancelled).
	Err error
}

// Error returns "gpuprover: STATUS: message"; the message names the function.
// A cause (Err) is appended in parentheses.
func (e *Error) Error() string {
	s := "gpuprover: " + e.Status.String() + ": " + e.Message
	if e.Message == "" {
		s = "gpuprover: " + e.Status.String() + ": " + e.Op
	}
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

// Is reports whether target is the Status of e, so that
// errors.Is(err, gpuprover.ErrNonCanonical) works.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Status
}

// Unwrap returns the cause (Err), or nil.
func (e *Error) Unwrap() error { return e.Err }

// ErrClosed is matched (errors.Is) by the errors of methods called on a
// closed Context, Buffer, MerkleTree or FRI (or on one whose Context was
// closed), of calls given a closed Buffer, and of MerkleTree.Open once a
// committed matrix was closed. The errors themselves are *ClosedError,
// which name the method and the object.
var ErrClosed = errors.New("gpuprover: use of closed context, buffer, tree or FRI")

// ClosedError is the error of a method called on a closed object, e.g.
// "gpuprover: Buffer.ToHost on a closed Buffer" or "gpuprover: Context.LDE
// on a closed Buffer (output)". errors.Is(err, ErrClosed) holds for it.
type ClosedError struct {
	Op   string // the method, e.g. "Buffer.ToHost"
	What string // what was closed, e.g. "a closed Buffer", "a Buffer of a closed Context"
}

func (e *ClosedError) Error() string { return "gpuprover: " + e.Op + " on " + e.What }

// Is reports whether target is ErrClosed.
func (e *ClosedError) Is(target error) bool { return target == ErrClosed }

// check turns a status into an error, reading the thread-local message.
// The caller must hold the OS thread (runtime.LockOSThread) across the C call
// and this one, so that gp_last_error is read on the thread that failed.
func check(op string, st C.gp_status) error {
	if st == C.GP_OK {
		return nil
	}
	return &Error{Op: op, Status: Status(st), Message: C.GoString(C.gp_last_error())}
}

// call runs a fallible C call and reads its error message on one OS thread.
func call(op string, f func() C.gp_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return check(op, f())
}

// argError is an error found by the binding before calling the library; its
// message starts with the function's name, as the library's messages do.
func argError(op string, st Status, format string, args ...interface{}) error {
	return &Error{Op: op, Status: st, Message: op + ": " + fmt.Sprintf(format, args...)}
}

// ---------------------------------------------------------------------------
// Fields

// Field is a base field (gp_field).
type Field uint32

const (
	// Goldilocks: p = 2^64 - 2^32 + 1, elements uint64, generator 7, two-adicity 32.
	Goldilocks Field = C.GP_FIELD_GOLDILOCKS
	// BabyBear: p = 2^31 - 2^27 + 1, elements uint32, generator 31, two-adicity 27.
	BabyBear Field = C.GP_FIELD_BABYBEAR
	// KoalaBear: p = 2^31 - 2^24 + 1, elements uint32, generator 3, two-adicity 24.
	KoalaBear Field = C.GP_FIELD_KOALABEAR
)

func (f Field) String() string {
	switch f {
	case Goldilocks:
		return "Goldilocks"
	case BabyBear:
		return "BabyBear"
	case KoalaBear:
		return "KoalaBear"
	}
	return fmt.Sprintf("Field(%d)", uint32(f))
}

// Extension is the extension of the field a degree-D element belongs to
// (gp_extension). The elements are stored alike (D canonical base
// coefficients, lowest degree first); only their products differ. The zero
// value means ExtPlonky3.
type Extension int

const (
	// ExtPlonky3: Plonky3's extensions, Goldilocks D = 2 with X^2 = 7, D = 3
	// with X^3 = X + 1; BabyBear D = 4 with X^4 = 11; KoalaBear D = 4 with
	// X^4 = 3.
	ExtPlonky3 Extension = C.GP_EXT_PLONKY3
	// ExtTriton: Triton VM's XFieldElement (twenty-first), Goldilocks D = 3
	// with X^3 = X - 1 (the Shah polynomial X^3 - X + 1). Goldilocks only,
	// with D = 3.
	ExtTriton Extension = C.GP_EXT_TRITON
)

func (e Extension) String() string {
	switch e {
	case ExtPlonky3:
		return "Plonky3"
	case ExtTriton:
		return "Triton"
	}
	return fmt.Sprintf("Extension(%d)", int(e))
}

// ElementSize returns the bytes per base-field element (8 or 4), or 0 for an
// unknown field.
func (f Field) ElementSize() int { return int(C.gp_field_element_size(C.gp_field(f))) }

// FieldInfo describes a field.
type FieldInfo struct {
	Modulus    uint64
	Generator  uint64 // multiplicative generator, the default LDE coset shift
	TwoAdicity uint32
}

// Info returns the field's modulus, generator and two-adicity.
func (f Field) Info() (FieldInfo, error) {
	var m, g C.uint64_t
	var a C.uint32_t
	err := call("gp_field_info", func() C.gp_status { return C.gp_field_info(C.gp_field(f), &m, &g, &a) })
	if err != nil {
		return FieldInfo{}, err
	}
	return FieldInfo{Modulus: uint64(m), Generator: uint64(g), TwoAdicity: uint32(a)}, nil
}

// TwoAdicGenerator returns the primitive 2^logN-th root of unity the library
// uses for size-2^logN transforms (Plonky3's two_adic_generator).
func (f Field) TwoAdicGenerator(logN uint32) (uint64, error) {
	var r C.uint64_t
	err := call("gp_field_two_adic_generator", func() C.gp_status {
		return C.gp_field_two_adic_generator(C.gp_field(f), C.uint32_t(logN), &r)
	})
	return uint64(r), err
}

// ---------------------------------------------------------------------------
// Enumerations

// Backend is the backend a context runs on.
type Backend int

const (
	// BackendAuto uses the server named by ContextOptions.Endpoint or the
	// GPUPROVER_SERVER environment variable when one is configured and
	// reachable; otherwise CUDA if a usable GPU exists, else the CPU.
	// Context.RemoteFallback says why a configured server was not used.
	BackendAuto Backend = C.GP_BACKEND_AUTO
	BackendCPU  Backend = C.GP_BACKEND_CPU
	BackendCUDA Backend = C.GP_BACKEND_CUDA
	// BackendRemote runs the context's work on a gpuprover-server process,
	// reached at ContextOptions.Endpoint or, when that is empty, at the
	// GPUPROVER_SERVER environment variable: a unix socket path
	// ("/tmp/gpu-prover.sock", or "unix:/path"), "HOST:PORT", or several of
	// those separated by commas (sessions are spread over them). Every
	// method works unchanged and gives the same bytes as in process;
	// buffers and trees live on the server's device. NewContext fails with
	// ErrRemote when no server answers.
	BackendRemote Backend = C.GP_BACKEND_REMOTE
)

func (b Backend) String() string {
	switch b {
	case BackendAuto:
		return "auto"
	case BackendCPU:
		return "cpu"
	case BackendCUDA:
		return "cuda"
	case BackendRemote:
		return "remote"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// Priority is the priority of a remote context's jobs in the server's
// queue (gp_priority): higher runs first; within a priority, first come
// first served. A waiting job gains one priority level per --aging-ms of
// waiting (default 2000 ms), so low-priority work is never starved for
// long. It is ignored in process.
type Priority int

const (
	PriorityNormal Priority = C.GP_PRIORITY_NORMAL
	PriorityLow    Priority = C.GP_PRIORITY_LOW
	PriorityHigh   Priority = C.GP_PRIORITY_HIGH
)

func (p Priority) String() string {
	switch p {
	case PriorityNormal:
		return "normal"
	case PriorityLow:
		return "low"
	case PriorityHigh:
		return "high"
	}
	return fmt.Sprintf("Priority(%d)", int(p))
}

// Layout is the layout of a host matrix.
type Layout int

const (
	// ColMajor: element (r, c) at index c*rows + r (times extDegree).
	ColMajor Layout = C.GP_LAYOUT_COL_MAJOR
	// RowMajor: element (r, c) at index r*cols + c (times extDegree);
	// Plonky3's RowMajorMatrix.
	RowMajor Layout = C.GP_LAYOUT_ROW_MAJOR
)

// LDEInput is what the input rows of an LDE hold (gp_lde_input).
type LDEInput int

const (
	// Evaluations: the values on the input domain (the default).
	Evaluations LDEInput = C.GP_LDE_INPUT_EVALUATIONS
	// Coefficients: the polynomials' coefficients, lowest degree first;
	// the output is their evaluations on the output coset (basefold's
	// encoding, SP1's batch_coset_dft of zero-padded coefficients).
	Coefficients LDEInput = C.GP_LDE_INPUT_COEFFICIENTS
)

// Order is the row order of an NTT or LDE input or output.
type Order int

const (
	// Natural: row i holds the value at index i.
	Natural Order = C.GP_ORDER_NATURAL
	// BitReversed: row i holds the value at index bitreverse(i, log2(rows)).
	BitReversed Order = C.GP_ORDER_BIT_REVERSED
)

// Direction is the direction of an NTT.
type Direction int

const (
	// Forward: coefficients -> evaluations on shift*H.
	Forward Direction = C.GP_NTT_FORWARD
	// Inverse: evaluations on shift*H -> coefficients (divided by n).
	Inverse Direction = C.GP_NTT_INVERSE
)

// Permutation is a hash permutation for PermuteBatch, or one of the hash
// functions Blake3, Sha3_256 and Blake3_192, which name the hash of the
// Merkle kinds that take them (MidenLMCS, Winterfell).
type Permutation int

const (
	Poseidon2Goldilocks8    Permutation = C.GP_PERM_POSEIDON2_GOLDILOCKS_8
	Poseidon2Goldilocks12   Permutation = C.GP_PERM_POSEIDON2_GOLDILOCKS_12
	Poseidon2Goldilocks16   Permutation = C.GP_PERM_POSEIDON2_GOLDILOCKS_16
	Poseidon2GoldilocksHL8  Permutation = C.GP_PERM_POSEIDON2_GOLDILOCKS_HL_8
	Poseidon2BabyBear16     Permutation = C.GP_PERM_POSEIDON2_BABYBEAR_16
	Poseidon2BabyBear24     Permutation = C.GP_PERM_POSEIDON2_BABYBEAR_24
	Poseidon2KoalaBear16    Permutation = C.GP_PERM_POSEIDON2_KOALABEAR_16
	Poseidon2KoalaBear24    Permutation = C.GP_PERM_POSEIDON2_KOALABEAR_24
	RPO256                  Permutation = C.GP_PERM_RPO256
	RPX256                  Permutation = C.GP_PERM_RPX256
	PoseidonGoldilocks12    Permutation = C.GP_PERM_POSEIDON_GOLDILOCKS_12
	Tip5                    Permutation = C.GP_PERM_TIP5
	KeccakF1600             Permutation = C.GP_PERM_KECCAK_F1600
	Poseidon2BabyBear32     Permutation = C.GP_PERM_POSEIDON2_BABYBEAR_32
	Poseidon2KoalaBear32    Permutation = C.GP_PERM_POSEIDON2_KOALABEAR_32
	Poseidon2BabyBearHL16   Permutation = C.GP_PERM_POSEIDON2_BABYBEAR_HL_16
	Poseidon2BabyBearHL24   Permutation = C.GP_PERM_POSEIDON2_BABYBEAR_HL_24
	Poseidon2GoldilocksHL12 Permutation = C.GP_PERM_POSEIDON2_GOLDILOCKS_HL_12
	// Blake3: BLAKE3 (hash mode, 32-byte output), a hash function, not a
	// permutation: PermuteBatch refuses it (ErrUnsupported) and Info reports
	// width 16 (its compression state of 32-bit words) and field 0.
	Blake3 Permutation = C.GP_PERM_BLAKE3
	// Sha3_256: SHA3-256 (winterfell's Sha3_256), a hash as Blake3 is;
	// Info reports width 25 (Keccak-f's lanes) and field 0.
	Sha3_256 Permutation = C.GP_PERM_SHA3_256
	// Blake3_192: BLAKE3's first 24 bytes (winterfell's Blake3_192), a hash
	// as Blake3 is; Info reports width 16 and field 0.
	Blake3_192 Permutation = C.GP_PERM_BLAKE3_192
	// Rp64_256: winterfell's Rescue-Prime permutation (Rescue-XLIX over
	// Goldilocks, width 12; not RPO256), the permutation of its Rp64_256
	// hasher.
	Rp64_256 Permutation = C.GP_PERM_RP64_256
	// Poseidon2KoalaBear16SP1: SP1 v6's Poseidon2 over KoalaBear, width 16
	// (Poseidon2KoalaBear16's constants, the internal layer of Plonky3
	// 0.1-0.4-succinct); with FieldSponge, SP1's tensor commitment trees.
	Poseidon2KoalaBear16SP1 Permutation = C.GP_PERM_POSEIDON2_KOALABEAR_16_SP1
	// Poseidon2BabyBear16SP1: SP1 v4/v5's Poseidon2 over BabyBear, width 16.
	Poseidon2BabyBear16SP1 Permutation = C.GP_PERM_POSEIDON2_BABYBEAR_16_SP1
)

// isHash reports whether perm names a hash function, which PermuteBatch
// refuses as the library does.
func (p Permutation) isHash() bool { return p == Blake3 || p == Sha3_256 || p == Blake3_192 }

// Info returns the permutation's state width (elements, or 64-bit lanes for
// Keccak) and its field (0 for Keccak's raw lanes; Blake3 gives 16 and 0).
func (p Permutation) Info() (width int, field Field, err error) {
	var w C.uint32_t
	var f C.gp_field
	err = call("gp_permutation_info", func() C.gp_status {
		return C.gp_permutation_info(C.gp_permutation(p), &w, &f)
	})
	return int(w), Field(f), err
}

// ---------------------------------------------------------------------------
// Host slices

// emptyHost stands in for the data of an empty slice.
var emptyHost [1]uint64

// hostSlice checks that data is a slice of uint64 or uint32 (or of a type
// whose underlying type is one of them) of elemSize-byte elements and returns
// a pointer to its first element (a dummy if empty) and its length in
// elements. The generic functions (Element) take typed slices instead.
func hostSlice(op string, data interface{}, elemSize int) (unsafe.Pointer, int, error) {
	p := unsafe.Pointer(&emptyHost[0]) // never NULL: the library checks the shape
	var n, size int
	switch d := data.(type) {
	case []uint64:
		n, size = len(d), 8
		if n > 0 {
			p = unsafe.Pointer(&d[0])
		}
	case []uint32:
		n, size = len(d), 4
		if n > 0 {
			p = unsafe.Pointer(&d[0])
		}
	default:
		v := reflect.ValueOf(data)
		if v.Kind() != reflect.Slice || (v.Type().Elem().Kind() != reflect.Uint64 && v.Type().Elem().Kind() != reflect.Uint32) {
			return nil, 0, argError(op, ErrInvalidArgument, "host data is %T; want []uint64 or []uint32", data)
		}
		n, size = v.Len(), int(v.Type().Elem().Size())
		if n > 0 {
			p = v.UnsafePointer()
		}
	}
	if elemSize != 0 && size != elemSize {
		return nil, 0, argError(op, ErrFieldMismatch,
			"host data has %d-byte elements; the field's elements are %d bytes (use []uint64 for Goldilocks and Keccak, []uint32 for BabyBear and KoalaBear)",
			size, elemSize)
	}
	return p, n, nil
}

// hostSliceOrNil is hostSlice that also takes nil (no elements), for the
// calls whose data may be empty: a buffer of 0 columns, an empty opened row.
func hostSliceOrNil(op string, data interface{}, elemSize int) (unsafe.Pointer, int, error) {
	if data == nil {
		return unsafe.Pointer(&emptyHost[0]), 0, nil
	}
	return hostSlice(op, data, elemSize)
}

// elementCount returns rows*cols*ext, or false on overflow.
func elementCount(rows, cols uint64, ext uint32) (uint64, bool) {
	if rows == 0 || cols == 0 || ext == 0 {
		return 0, true
	}
	n := rows * cols
	if n/cols != rows {
		return 0, false
	}
	m := n * uint64(ext)
	if m/uint64(ext) != n {
		return 0, false
	}
	return m, true
}

func checkLen(op string, n int, rows, cols uint64, ext uint32) error {
	want, ok := elementCount(rows, cols, ext)
	if !ok {
		return argError(op, ErrSizeOverflow, "rows=%d x cols=%d x ext_degree=%d overflows 64 bits", rows, cols, ext)
	}
	if uint64(n) != want {
		return argError(op, ErrShapeMismatch,
			"host data has %d elements; rows=%d x cols=%d x ext_degree=%d needs %d", n, rows, cols, ext, want)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Context

// DevicesAll as the only entry of ContextOptions.Devices means every
// visible GPU (GP_DEVICES_ALL).
const DevicesAll int32 = C.GP_DEVICES_ALL

// ContextOptions are the options of NewContext. The zero value means the
// defaults: automatic backend, device 0, one CPU worker per hardware thread,
// the server (if any) named by GPUPROVER_SERVER at normal priority.
type ContextOptions struct {
	Backend Backend
	// The devices the context owns: CUDA device ordinals; empty means
	// device 0. With more than one entry every buffer is spread over the
	// devices by blocks of whole columns and every call runs on all of
	// them, with the same results as one device ("Several devices" in
	// gpuprover.h). An ordinal may be listed more than once: each entry is
	// a share of its GPU with its own streams and memory. []int32{DevicesAll}
	// means every visible GPU. On the CPU backend (and when BackendAuto
	// falls back to it) the length of the list is the number of emulated
	// devices, which divide the worker threads between them; the values are
	// not used. DeviceCount and Devices report what the context got.
	Devices []int32
	// Worker threads of the CPU backend (and of host staging on the CUDA
	// backend); 0 means one per hardware thread.
	CPUThreads uint32
	// BackendRemote (and BackendAuto): the server's address, as
	// GPUPROVER_SERVER takes it (see BackendRemote); "" means that
	// variable. The library copies it.
	Endpoint string
	// Priority of the context's jobs on the server; the zero value is
	// PriorityNormal. Ignored in process.
	Priority Priority
	// ForceCPU: the server runs the context's jobs on its CPU worker pool
	// (bit-identical; for work that is faster there). Ignored in process.
	ForceCPU bool
	// A file holding the shared token the server requires of TCP clients
	// not on loopback; "" means the GPUPROVER_SERVER_TOKEN_FILE environment
	// variable, if set. The token is never passed inline.
	TokenFile string
}

// cString returns a C copy of s (nil for ""), which the caller frees with
// C.free; a NUL byte in s is an ErrInvalidArgument naming the option.
func cString(op, what, s string) (*C.char, error) {
	if s == "" {
		return nil, nil
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, argError(op, ErrInvalidArgument, "%s holds a NUL byte at index %d", what, i)
	}
	return C.CString(s), nil
}

// Context is a library context (gp_context): a backend and its caches.
// Calls on one Context are serialized, so it may be shared between
// goroutines; Cancel may be called from any goroutine while a call runs.
type Context struct {
	// mu serializes the calls on the context and guards h and the handles
	// of its objects.
	mu sync.Mutex
	// hmu guards h for Cancel, which must not wait for mu (the call to
	// cancel holds it); Close holds both to change h.
	hmu sync.Mutex
	h   *C.gp_context // nil once closed
	// mon is what the progress and log callbacks reach through monHandle.
	mon       *monitor
	monHandle cgo.Handle
}

// NewContext creates a context. opts may be nil for the defaults.
// With BackendCUDA it fails with ErrNoDevice when no usable GPU exists;
// with BackendRemote it fails with ErrRemote when no server answers;
// BackendAuto falls back in process (to the CPU without a GPU).
func NewContext(opts *ContextOptions) (*Context, error) {
	var o C.gp_context_options
	C.gp_context_options_init(&o)
	if opts != nil {
		o.backend = C.gp_backend(opts.Backend)
		o.cpu_threads = C.uint32_t(opts.CPUThreads)
		if len(opts.Devices) > 0 {
			// The options struct is passed to C, so the array must be C memory.
			n := len(opts.Devices)
			devs := (*C.int32_t)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.int32_t(0)))))
			if devs == nil {
				return nil, argError("gp_context_create", ErrHostOutOfMemory, "cannot allocate %d device ordinals", n)
			}
			defer C.free(unsafe.Pointer(devs))
			copy(unsafe.Slice((*int32)(unsafe.Pointer(devs)), n), opts.Devices)
			o.devices = devs
			o.num_devices = C.uint32_t(n)
		}
		// The strings are C memory, freed after gp_context_create (which
		// copies them).
		endpoint, err := cString("gp_context_create", "options.Endpoint", opts.Endpoint)
		if err != nil {
			return nil, err
		}
		defer C.free(unsafe.Pointer(endpoint))
		tokenFile, err := cString("gp_context_create", "options.TokenFile", opts.TokenFile)
		if err != nil {
			return nil, err
		}
		defer C.free(unsafe.Pointer(tokenFile))
		o.endpoint = endpoint
		o.token_file = tokenFile
		o.priority = C.gp_priority(opts.Priority)
		if opts.ForceCPU {
			o.force_cpu = 1
		}
	}
	var h *C.gp_context
	if err := call("gp_context_create", func() C.gp_status { return C.gp_context_create(&o, &h) }); err != nil {
		return nil, err
	}
	c := &Context{h: h, mon: &monitor{h: h}}
	c.monHandle = cgo.NewHandle(c.mon)
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// Close destroys the context, after the call in flight on it (if any). The
// library releases the FRIs, trees and buffers of the context that are still
// open with it; their methods then report ErrClosed. Closing a closed
// context does nothing. It always returns nil.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.unlock()
	if c.h == nil {
		return nil
	}
	c.hmu.Lock()
	C.gp_context_destroy(c.h)
	c.h = nil
	c.hmu.Unlock()
	c.monHandle.Delete()
	runtime.SetFinalizer(c, nil)
	return nil
}

// lock locks the context for the method op and returns a *ClosedError if it
// is closed. On success the caller must call c.unlock.
func (c *Context) lock(op string) error {
	c.mu.Lock()
	if c.h == nil {
		c.mu.Unlock()
		return &ClosedError{Op: op, What: "a closed Context"}
	}
	return nil
}

// unlock unlocks the context, then hands the log lines of the calls made
// meanwhile to the log callback (SetLog), outside the lock.
func (c *Context) unlock() {
	lines, fn := c.mon.takeLog()
	c.mu.Unlock()
	for _, l := range lines {
		fn(l)
	}
}

// call runs a C call on this context (c.mu held): as the package's call,
// then re-raises a panic of the progress callback during it.
func (c *Context) call(op string, f func() C.gp_status) error {
	err := call(op, f)
	c.mon.rethrow()
	return err
}

// Backend returns the backend the context runs on (BackendCPU,
// BackendCUDA or BackendRemote), or BackendAuto if the context is closed.
func (c *Context) Backend() Backend {
	if c.lock("Context.Backend") != nil {
		return BackendAuto
	}
	defer c.unlock()
	return Backend(C.gp_context_backend(c.h))
}

// RemoteFallback says why a BackendAuto context with a server configured
// (ContextOptions.Endpoint or GPUPROVER_SERVER) runs in process instead:
// the connection error (gp_context_remote_fallback). It returns "" when the
// context runs on the server, when no server was configured, or when the
// context is closed.
func (c *Context) RemoteFallback() string {
	if c.lock("Context.RemoteFallback") != nil {
		return ""
	}
	defer c.unlock()
	p := C.gp_context_remote_fallback(c.h)
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// CPUFallback says why a BackendAuto context runs on the CPU backend
// instead of CUDA: no CUDA in this build, no NVIDIA driver, a driver older
// than the library's CUDA runtime, or no visible device
// (gp_context_cpu_fallback). It returns "" when the context runs on a GPU
// or a server, when BackendCPU was asked for, or when the context is
// closed.
func (c *Context) CPUFallback() string {
	if c.lock("Context.CPUFallback") != nil {
		return ""
	}
	defer c.unlock()
	p := C.gp_context_cpu_fallback(c.h)
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// DeviceName describes the device the context runs on, e.g.
// "NVIDIA H100 80GB HBM3" or "CPU, 16 threads" (for several devices,
// "2 devices: " and each one's); "" if the context is closed.
func (c *Context) DeviceName() string {
	if c.lock("Context.DeviceName") != nil {
		return ""
	}
	defer c.unlock()
	var name [256]C.char
	if C.gp_context_device_name(c.h, &name[0], C.size_t(len(name))) != C.GP_OK {
		return ""
	}
	return C.GoString(&name[0])
}

// MemoryStats reports a context's memory use.
type MemoryStats struct {
	BufferBytes uint64 // held by live buffers
	CacheBytes  uint64 // held by caches (twiddles, scratch, staging)
	// Persistent allocations made since the context was created; repeating a
	// call of one shape leaves it unchanged.
	Allocations uint64
	// Cached coset tables released, least recently used first, to keep the
	// cache within its budget.
	Evictions uint64
}

// MemoryStats reports the context's memory use.
func (c *Context) MemoryStats() (MemoryStats, error) {
	if err := c.lock("Context.MemoryStats"); err != nil {
		return MemoryStats{}, err
	}
	defer c.unlock()
	var s C.gp_memory_stats
	s.struct_size = C.uint32_t(unsafe.Sizeof(s))
	if err := c.call("gp_context_memory_stats", func() C.gp_status { return C.gp_context_memory_stats(c.h, &s) }); err != nil {
		return MemoryStats{}, err
	}
	return MemoryStats{BufferBytes: uint64(s.buffer_bytes), CacheBytes: uint64(s.cache_bytes), Allocations: uint64(s.allocations), Evictions: uint64(s.evictions)}, nil
}

// DeviceCount returns the number of devices the context owns
// (gp_context_device_count): 1 for a single GPU or the plain CPU backend,
// the length of ContextOptions.Devices for several GPUs or emulated CPU
// devices; 0 if the context is closed.
func (c *Context) DeviceCount() int {
	if c.lock("Context.DeviceCount") != nil {
		return 0
	}
	defer c.unlock()
	return int(C.gp_context_device_count(c.h))
}

// DeviceInfo describes one device of a context (gp_device_info).
type DeviceInfo struct {
	Ordinal int32  // the CUDA device ordinal, or -1 for a (share of the) CPU
	Name    string // as DeviceName describes it, e.g. "NVIDIA H100 80GB HBM3"
	// Bytes of buffers, trees and FRI layers the context holds on the device.
	BufferBytes uint64
	CacheBytes  uint64 // the device's caches (twiddles, scratch, staging)
	Allocations uint64 // persistent allocations made on the device
	// Device memory free now and in all (cudaMemGetInfo); 0 on the CPU.
	FreeBytes  uint64
	TotalBytes uint64
}

// DeviceInfo describes device i of the context, 0 <= i < DeviceCount()
// (gp_context_device_info). An index out of range gives an *Error matching
// ErrInvalidArgument.
func (c *Context) DeviceInfo(i int) (DeviceInfo, error) {
	if err := c.lock("Context.DeviceInfo"); err != nil {
		return DeviceInfo{}, err
	}
	defer c.unlock()
	return c.deviceInfo(i)
}

// deviceInfo is DeviceInfo with c.mu held.
func (c *Context) deviceInfo(i int) (DeviceInfo, error) {
	const op = "gp_context_device_info"
	if i < 0 || uint64(i) > uint64(^C.uint32_t(0)) {
		return DeviceInfo{}, argError(op, ErrInvalidArgument, "index = %d but the context has %d device(s)",
			i, int(C.gp_context_device_count(c.h)))
	}
	var d C.gp_device_info
	d.struct_size = C.uint32_t(unsafe.Sizeof(d))
	if err := c.call(op, func() C.gp_status { return C.gp_context_device_info(c.h, C.uint32_t(i), &d) }); err != nil {
		return DeviceInfo{}, err
	}
	d.name[len(d.name)-1] = 0
	return DeviceInfo{
		Ordinal:     int32(d.ordinal),
		Name:        C.GoString(&d.name[0]),
		BufferBytes: uint64(d.buffer_bytes),
		CacheBytes:  uint64(d.cache_bytes),
		Allocations: uint64(d.allocations),
		FreeBytes:   uint64(d.free_bytes),
		TotalBytes:  uint64(d.total_bytes),
	}, nil
}

// Devices describes every device of the context, in order (DeviceInfo of
// 0 .. DeviceCount()-1).
func (c *Context) Devices() ([]DeviceInfo, error) {
	if err := c.lock("Context.Devices"); err != nil {
		return nil, err
	}
	defer c.unlock()
	n := int(C.gp_context_device_count(c.h))
	out := make([]DeviceInfo, n)
	for i := range out {
		d, err := c.deviceInfo(i)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// Trim releases the context's cached twiddle tables and scratch memory.
func (c *Context) Trim() error {
	if err := c.lock("Context.Trim"); err != nil {
		return err
	}
	defer c.unlock()
	return c.call("gp_context_trim", func() C.gp_status { return C.gp_context_trim(c.h) })
}

// ---------------------------------------------------------------------------
// Buffer

// Buffer is a matrix of field elements owned by the library (gp_buffer): in
// device memory on the CUDA backend, in host memory on the CPU backend. It
// belongs to the Context that created it and keeps that Context reachable.
type Buffer struct {
	ctx   *Context
	h     *C.gp_buffer // nil once closed
	field Field
	ext   uint32
	rows  uint64
	cols  uint64
}

// newBuffer wraps a new handle; c.mu must be held.
func (c *Context) newBuffer(h *C.gp_buffer) *Buffer {
	b := &Buffer{
		ctx:   c,
		h:     h,
		field: Field(C.gp_buffer_field(h)),
		ext:   uint32(C.gp_buffer_ext_degree(h)),
		rows:  uint64(C.gp_buffer_rows(h)),
		cols:  uint64(C.gp_buffer_cols(h)),
	}
	runtime.SetFinalizer(b, (*Buffer).Close)
	return b
}

// NewBuffer creates a zero-filled buffer of rows x cols elements of the
// field's degree-extDegree extension (1 for the base field). cols may be 0:
// a matrix of width 0, holding no memory, whose rows the Merkle commitments
// (MerkleCommit, MerkleHashRows) hash as empty inputs; transforms, LDEs,
// FRI, OOD/DEEP and DLPack export refuse it.
func (c *Context) NewBuffer(field Field, extDegree uint32, rows, cols uint64) (*Buffer, error) {
	if err := c.lock("Context.NewBuffer"); err != nil {
		return nil, err
	}
	defer c.unlock()
	var h *C.gp_buffer
	err := c.call("gp_buffer_create", func() C.gp_status {
		return C.gp_buffer_create(c.h, C.gp_field(field), C.uint32_t(extDegree), C.uint64_t(rows), C.uint64_t(cols), &h)
	})
	if err != nil {
		return nil, err
	}
	return c.newBuffer(h), nil
}

// BufferFromHost creates a buffer from rows x cols elements in layout. data
// is a []uint64 (Goldilocks) or []uint32 (BabyBear, KoalaBear) of exactly
// rows*cols*extDegree base elements (empty or nil when cols is 0). The
// generic BufferFromHost takes a typed slice.
func (c *Context) BufferFromHost(field Field, extDegree uint32, rows, cols uint64, layout Layout, data interface{}) (*Buffer, error) {
	p, n, err := hostSliceOrNil("gp_buffer_from_host", data, field.ElementSize())
	if err != nil {
		return nil, err
	}
	return c.bufferFromHost(field, extDegree, rows, cols, layout, p, n)
}

func (c *Context) bufferFromHost(field Field, extDegree uint32, rows, cols uint64, layout Layout, p unsafe.Pointer, n int) (*Buffer, error) {
	const op = "gp_buffer_from_host"
	if err := checkLen(op, n, rows, cols, extDegree); err != nil {
		return nil, err
	}
	if err := c.lock("Context.BufferFromHost"); err != nil {
		return nil, err
	}
	defer c.unlock()
	var h *C.gp_buffer
	err := c.call(op, func() C.gp_status {
		return C.gp_buffer_from_host(c.h, C.gp_field(field), C.uint32_t(extDegree), C.uint64_t(rows),
			C.uint64_t(cols), C.gp_layout(layout), p, &h)
	})
	if err != nil {
		return nil, err
	}
	return c.newBuffer(h), nil
}

// closeHandle is the Close of Buffer and FRI (obj, whose handle field is
// *h; MerkleTree.Close does the same, then frees its host copies): under
// c's lock, while both *h and c are open it destroys *h; then it clears *h
// and obj's finalizer. It always returns nil.
func closeHandle[H comparable](c *Context, obj interface{}, h *H, destroy func(H)) error {
	c.mu.Lock()
	defer c.unlock()
	var none H
	if *h != none && c.h != nil {
		destroy(*h)
	}
	*h = none
	runtime.SetFinalizer(obj, nil)
	return nil
}

// lockHandle locks c for the method op and returns a *ClosedError if c or
// the handle *h of one of its objects (a kind: "Buffer", "MerkleTree",
// "FRI") is closed. On success the caller must call c.unlock.
func lockHandle[H comparable](c *Context, h *H, op, kind string) error {
	c.mu.Lock()
	var none H
	switch {
	case *h == none:
		c.mu.Unlock()
		return &ClosedError{Op: op, What: "a closed " + kind}
	case c.h == nil:
		c.mu.Unlock()
		return &ClosedError{Op: op, What: "a " + kind + " of a closed Context"}
	}
	return nil
}

// Close destroys the buffer. Closing a closed buffer, or a buffer whose
// context was closed, does nothing. It always returns nil.
func (b *Buffer) Close() error {
	return closeHandle(b.ctx, b, &b.h, func(h *C.gp_buffer) { C.gp_buffer_destroy(h) })
}

// lock locks the buffer's context for the method op and returns a
// *ClosedError if the buffer or its context is closed. On success the caller
// must call b.ctx.unlock.
func (b *Buffer) lock(op string) error { return lockHandle(b.ctx, &b.h, op, "Buffer") }

// Context returns the context that created the buffer.
func (b *Buffer) Context() *Context { return b.ctx }

// Rows returns the number of rows.
func (b *Buffer) Rows() uint64 { return b.rows }

// Cols returns the number of columns.
func (b *Buffer) Cols() uint64 { return b.cols }

// Field returns the buffer's base field.
func (b *Buffer) Field() Field { return b.field }

// ExtDegree returns the extension degree of the elements (1 for the base field).
func (b *Buffer) ExtDegree() uint32 { return b.ext }

// Len returns the number of base-field values, rows*cols*extDegree.
func (b *Buffer) Len() int { return int(b.rows * b.cols * uint64(b.ext)) }

// SizeBytes returns the buffer's size in bytes.
func (b *Buffer) SizeBytes() uint64 { return uint64(b.Len()) * uint64(b.field.ElementSize()) }

// ToHost copies the buffer into dst in layout. dst is a []uint64 (Goldilocks)
// or []uint32 (BabyBear, KoalaBear) of at least Len() elements (empty or nil
// for a buffer of 0 columns). The generic ToHost takes a typed slice.
func (b *Buffer) ToHost(layout Layout, dst interface{}) error {
	p, n, err := hostSliceOrNil("gp_buffer_to_host", dst, b.field.ElementSize())
	if err != nil {
		return err
	}
	return b.toHost("Buffer.ToHost", layout, p, n)
}

func (b *Buffer) toHost(method string, layout Layout, p unsafe.Pointer, n int) error {
	const op = "gp_buffer_to_host"
	if n < b.Len() {
		return argError(op, ErrShapeMismatch, "destination has %d elements; the %dx%d buffer of degree %d needs %d",
			n, b.rows, b.cols, b.ext, b.Len())
	}
	if err := b.lock(method); err != nil {
		return err
	}
	defer b.ctx.unlock()
	return b.ctx.call(op, func() C.gp_status {
		return C.gp_buffer_to_host(b.h, C.gp_layout(layout), p, C.uint64_t(n*b.field.ElementSize()))
	})
}

// Uint64s returns the contents of a Goldilocks buffer in layout.
func (b *Buffer) Uint64s(layout Layout) ([]uint64, error) {
	out := make([]uint64, b.Len())
	if err := b.toHostSlice("Buffer.Uint64s", layout, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Uint32s returns the contents of a BabyBear or KoalaBear buffer in layout.
func (b *Buffer) Uint32s(layout Layout) ([]uint32, error) {
	out := make([]uint32, b.Len())
	if err := b.toHostSlice("Buffer.Uint32s", layout, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *Buffer) toHostSlice(method string, layout Layout, dst interface{}) error {
	p, n, err := hostSlice("gp_buffer_to_host", dst, b.field.ElementSize())
	if err != nil {
		return err
	}
	return b.toHost(method, layout, p, n)
}

// ---------------------------------------------------------------------------
// LDE, NTT, permutations

// LDEOptions are the options of LDE and LDEHost. The zero value means the
// defaults.
type LDEOptions struct {
	// N is the trace length (a power of two); 0 means the input's row count.
	// Input rows beyond the input's row count are zero.
	N uint64
	// Blowup is a power of two in [1, 32]; 0 means 2. The output has N*Blowup rows.
	Blowup uint32
	// Shift is the output coset shift; 0 means the field's generator.
	Shift uint64
	// InputShift is the shift of the domain the input is evaluated on; 0 means 1.
	InputShift uint64
	// OutputOrder is the row order of the output; Plonky3 commits BitReversed.
	OutputOrder Order
	// InputLayout is the layout of LDEHost's host input.
	InputLayout Layout
	// Root is the root of unity the input and output domains are drawn
	// from: 0 means the library's; winterfell's TWO_ADIC_ROOT_OF_UNITY
	// gives its trace and LDE row order (natural output order, no
	// randomizers; gp_lde_options.root).
	Root uint64
	// Input is what the input rows hold: Evaluations (the zero value) or
	// Coefficients (InputShift must then be 0 or 1; no Randomizers, no
	// other Root; gp_lde_options.input).
	Input LDEInput
	// Randomizers (LDE and LDEHost) is nil, or the coefficients of one
	// randomizer polynomial per input column for the randomized LDE (zero
	// knowledge, as Triton VM extends its tables;
	// gp_lde_options.randomizers): a []uint64 (Goldilocks) or []uint32
	// (BabyBear, KoalaBear), or a slice of a type defined on one of them, of
	// count x cols x extDegree canonical values, count coefficients per
	// column, lowest degree first (base element k of coefficient j of
	// column c at (c*count + j)*extDegree + k: an extension column's
	// coordinates are randomized each by its own polynomial). Output column
	// c then holds the evaluations of f_c(X) + (X^N - s^N) r_c(X), s the
	// input shift: the interpolant plus the trace domain's zerofier times
	// the randomizer, which leaves the values on the trace domain as they
	// were. count must be in [1, N*(Blowup-1)] (else ErrInvalidArgument).
	// The slice is read during the call only (it is copied to C memory for
	// the call). Where count <= N and Blowup*count <= max(N, N*Blowup/8)
	// (Triton's 98 at any real height) the randomizer joins the LDE's own
	// coefficients and costs about nothing (in a server session where its
	// Blowup*count elements of every column take at most 16 MiB); otherwise
	// one more transform of the output's size and that size again in device
	// memory while it runs. Contexts of several devices and
	// CommitHost take it within the first rule only (else ErrUnsupported);
	// CommitHost's cover every matrix's columns in turn.
	Randomizers interface{}
}

// setRandomizers copies o.Randomizers, if set, into a C block for a call
// over cols columns of degree ext and points co at it. It returns the block
// (nil when there are no randomizers), which the caller frees once the call
// returned: the options are passed by a pointer, so what they point to must
// not be Go memory.
func (o *LDEOptions) setRandomizers(op string, co *C.gp_lde_options, field Field, cols uint64, ext uint32) (unsafe.Pointer, error) {
	if o == nil || o.Randomizers == nil {
		return nil, nil
	}
	esz := field.ElementSize()
	p, n, err := hostSlice(op, o.Randomizers, esz)
	if err != nil {
		return nil, err
	}
	if ext == 0 {
		ext = 1
	}
	per, ok := elementCount(1, cols, ext)
	if !ok {
		return nil, argError(op, ErrSizeOverflow, "cols=%d x ext_degree=%d overflows 64 bits", cols, ext)
	}
	if per == 0 || uint64(n)%per != 0 {
		return nil, argError(op, ErrShapeMismatch,
			"Randomizers has %d values, not a multiple of cols x ext_degree = %d x %d", n, cols, ext)
	}
	block := cAlloc(n * esz)
	if block == nil {
		return nil, argError(op, ErrHostOutOfMemory, "cannot allocate a copy of Randomizers (%d bytes)", n*esz)
	}
	if n > 0 {
		copy(unsafe.Slice((*byte)(block), n*esz), unsafe.Slice((*byte)(p), n*esz))
	}
	runtime.KeepAlive(o.Randomizers)
	co.randomizers = block
	co.randomizer_count = C.uint64_t(uint64(n) / per)
	return block, nil
}

func (o *LDEOptions) c() C.gp_lde_options {
	var co C.gp_lde_options
	C.gp_lde_options_init(&co)
	if o != nil {
		co.n = C.uint64_t(o.N)
		if o.Blowup != 0 {
			co.blowup = C.uint32_t(o.Blowup)
		}
		co.shift = C.uint64_t(o.Shift)
		co.input_shift = C.uint64_t(o.InputShift)
		co.output_order = C.gp_order(o.OutputOrder)
		co.input_layout = C.gp_layout(o.InputLayout)
		co.root = C.uint64_t(o.Root)
		co.input = C.gp_lde_input(o.Input)
	}
	return co
}

// sameContext checks that a buffer argument (named name) of the method
// (C function op) belongs to c and is open; c.mu is held.
func (c *Context) sameContext(method, op string, b *Buffer, name string) error {
	if b == nil {
		return argError(op, ErrNullPointer, "%s is nil", name)
	}
	if b.ctx != c {
		return argError(op, ErrContextMismatch, "%s belongs to a different context", name)
	}
	if b.h == nil {
		return &ClosedError{Op: method, What: "a closed Buffer (" + name + ")"}
	}
	return nil
}

// LDE computes the coset low-degree extension of every column of input into
// output, which must have N*Blowup rows, input's columns, field and extension
// degree. opts may be nil for the defaults.
func (c *Context) LDE(input, output *Buffer, opts *LDEOptions) error {
	return c.LDEContext(context.Background(), input, output, opts)
}

// LDEContext is LDE, stopped when ctx is done (see Cancel): it then returns an
// error matching both ErrCancelled and ctx.Err().
func (c *Context) LDEContext(ctx context.Context, input, output *Buffer, opts *LDEOptions) error {
	const op, method = "gp_lde_batch", "Context.LDE"
	if err := c.lock(method); err != nil {
		return err
	}
	defer c.unlock()
	if err := c.sameContext(method, op, input, "input"); err != nil {
		return err
	}
	if err := c.sameContext(method, op, output, "output"); err != nil {
		return err
	}
	co := opts.c()
	rand, err := opts.setRandomizers(op, &co, input.field, input.cols, input.ext)
	if err != nil {
		return err
	}
	defer C.free(rand)
	return c.callContext(ctx, op, func() C.gp_status { return C.gp_lde_batch(c.h, input.h, &co, output.h) })
}

// LDEHost is LDE with the input in host memory: rows x cols elements of
// degree extDegree in opts.InputLayout, as a []uint64 (Goldilocks) or
// []uint32 (BabyBear, KoalaBear) of exactly rows*cols*extDegree values. The
// generic LDEHost takes a typed slice.
func (c *Context) LDEHost(field Field, extDegree uint32, data interface{}, rows, cols uint64, output *Buffer, opts *LDEOptions) error {
	return c.LDEHostContext(context.Background(), field, extDegree, data, rows, cols, output, opts)
}

// LDEHostContext is LDEHost, stopped when ctx is done (see LDEContext).
func (c *Context) LDEHostContext(ctx context.Context, field Field, extDegree uint32, data interface{}, rows, cols uint64, output *Buffer, opts *LDEOptions) error {
	p, n, err := hostSlice("gp_lde_batch_host", data, field.ElementSize())
	if err != nil {
		return err
	}
	return c.ldeHost(ctx, field, extDegree, p, n, rows, cols, output, opts)
}

func (c *Context) ldeHost(ctx context.Context, field Field, extDegree uint32, p unsafe.Pointer, n int, rows, cols uint64, output *Buffer, opts *LDEOptions) error {
	const op, method = "gp_lde_batch_host", "Context.LDEHost"
	if err := checkLen(op, n, rows, cols, extDegree); err != nil {
		return err
	}
	if err := c.lock(method); err != nil {
		return err
	}
	defer c.unlock()
	if err := c.sameContext(method, op, output, "output"); err != nil {
		return err
	}
	co := opts.c()
	rand, err := opts.setRandomizers(op, &co, field, cols, extDegree)
	if err != nil {
		return err
	}
	defer C.free(rand)
	return c.callContext(ctx, op, func() C.gp_status {
		return C.gp_lde_batch_host(c.h, C.gp_field(field), C.uint32_t(extDegree), p, C.uint64_t(rows),
			C.uint64_t(cols), &co, output.h)
	})
}

// NTTOptions are the options of NTT. The zero value means the defaults.
type NTTOptions struct {
	Direction Direction
	// Shift is the coset shift s (forward evaluates on s*H, inverse
	// interpolates from s*H); 0 means 1.
	Shift       uint64
	InputOrder  Order
	OutputOrder Order
	// Root is the root of unity H is drawn from: 0 means the library's;
	// an element of order 2^two-adicity (winterfell's Goldilocks
	// TWO_ADIC_ROOT_OF_UNITY, 7277203076849721926, for its row order)
	// takes natural orders only (gp_ntt_options.root).
	Root uint64
}

// NTT transforms every column of buf in place. The row count must be a power
// of two not above the field's two-adicity. opts may be nil for the defaults
// (forward, natural order, no shift).
func (c *Context) NTT(buf *Buffer, opts *NTTOptions) error {
	return c.NTTContext(context.Background(), buf, opts)
}

// NTTContext is NTT, stopped when ctx is done (see LDEContext). A cancelled
// transform leaves buf's contents unspecified.
func (c *Context) NTTContext(ctx context.Context, buf *Buffer, opts *NTTOptions) error {
	const op, method = "gp_ntt_batch", "Context.NTT"
	if err := c.lock(method); err != nil {
		return err
	}
	defer c.unlock()
	if err := c.sameContext(method, op, buf, "buf"); err != nil {
		return err
	}
	var co C.gp_ntt_options
	C.gp_ntt_options_init(&co)
	if opts != nil {
		co.direction = C.gp_ntt_direction(opts.Direction)
		co.shift = C.uint64_t(opts.Shift)
		co.input_order = C.gp_order(opts.InputOrder)
		co.output_order = C.gp_order(opts.OutputOrder)
		co.root = C.uint64_t(opts.Root)
	}
	return c.callContext(ctx, op, func() C.gp_status { return C.gp_ntt_batch(c.h, buf.h, &co) })
}

// PermuteBatch applies perm in place to the states stored back to back in
// states: a []uint64 for Goldilocks permutations and Keccak-f[1600] lanes, a
// []uint32 for BabyBear and KoalaBear, whose length is a multiple of the
// permutation's width. The generic PermuteBatch takes a typed slice. The
// hashes (Blake3, Sha3_256, Blake3_192) are refused (ErrUnsupported)
// whatever states holds, as the library does.
func (c *Context) PermuteBatch(perm Permutation, states interface{}) error {
	if perm.isHash() {
		return c.refuseHash(perm)
	}
	esz, err := permElementSize(perm)
	if err != nil {
		return err
	}
	p, n, err := hostSlice("gp_permute_batch", states, esz)
	if err != nil {
		return err
	}
	return c.permuteBatch(perm, p, n)
}

// permElementSize returns the bytes of one state element of perm.
func permElementSize(perm Permutation) (int, error) {
	_, field, err := perm.Info()
	if err != nil {
		return 0, err
	}
	if field == 0 {
		return 8, nil // Keccak lanes
	}
	return field.ElementSize(), nil
}

// refuseHash passes perm, a hash, to gp_permute_batch with no states, for the
// library's answer (ErrUnsupported) before any check of the states.
func (c *Context) refuseHash(perm Permutation) error {
	return c.permuteBatch(perm, unsafe.Pointer(&emptyHost[0]), 0)
}

func (c *Context) permuteBatch(perm Permutation, p unsafe.Pointer, n int) error {
	const op = "gp_permute_batch"
	width, _, err := perm.Info()
	if err != nil {
		return err
	}
	if width == 0 || n%width != 0 {
		return argError(op, ErrShapeMismatch, "states has %d elements, not a multiple of the width %d", n, width)
	}
	if err := c.lock("Context.PermuteBatch"); err != nil {
		return err
	}
	defer c.unlock()
	return c.call(op, func() C.gp_status {
		return C.gp_permute_batch(c.h, C.gp_permutation(perm), p, C.uint64_t(n/width))
	})
}
