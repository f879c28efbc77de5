// SPDX-License-Identifier: MIT OR Apache-2.0

// Package gpuprover is the Go binding of gpuprover, a C library that computes
// the data-parallel parts of a STARK commitment (batched coset low-degree
// extensions, NTTs, hash permutations, Merkle trees and the FRI commit phase)
// on a CUDA GPU or on the CPU, with bit-identical results on both backends.
//
// The package links the installed C library through cgo and pkg-config
// ("#cgo pkg-config: gpuprover"), so PKG_CONFIG_PATH must name the directory
// holding gpuprover.pc, and the dynamic loader must find libgpuprover.so at
// run time (LD_LIBRARY_PATH, or CGO_LDFLAGS="-Wl,-rpath,<libdir>" at build
// time).
//
// # Usage
//
//	ctx, err := gpuprover.NewContext(nil) // GPU if usable, else the CPU
//	if err != nil { ... }
//	defer ctx.Close()
//
//	out, err := ctx.NewBuffer(gpuprover.Goldilocks, 1, rows*4, cols)
//	if err != nil { ... }
//	defer out.Close()
//
//	opts := &gpuprover.LDEOptions{Blowup: 4, OutputOrder: gpuprover.BitReversed}
//	if err := ctx.LDEHost(gpuprover.Goldilocks, 1, trace, rows, cols, out, opts); err != nil { ... }
//	values, err := out.Uint64s(gpuprover.ColMajor)
//
//	tree, err := ctx.MerkleCommit(nil, out) // Plonky3's Poseidon2 MMCS for the field
//	if err != nil { ... }
//	defer tree.Close()
//	root, err := tree.Root()
//	openings, err := tree.Open(0, 5)
//	err = tree.Verify(openings[0]) // errors.Is(err, gpuprover.ErrVerifyFailed) when invalid
//
// CommitHost does the LDE and the commitment of host traces in one call,
// streaming the columns through the device in batches (CommitOptions.Keep
// says whether the LDE stays on the device, in host memory or nowhere).
// FRI commitments (FRIBegin, Fold, Remainder, Open, Verify, or FRICommit with
// a ChallengeFunc) and the host verifiers MerkleVerify and FRIVerify follow
// the same pattern.
//
// # Data
//
// Field elements cross the API in canonical form: Goldilocks elements (and
// Keccak lanes) as uint64, BabyBear and KoalaBear elements as uint32.
// Extension-field elements are their base-field coefficients, lowest degree
// first. Host slices passed in must hold exactly rows*cols*extDegree base
// elements; values >= p are rejected with ErrNonCanonical.
//
// Go methods cannot have type parameters, so the methods take host data as
// an interface{} holding a []uint64 or []uint32 (or a slice of a type defined
// on one of them). Each has a generic twin over []T, T an Element
// (~uint64 | ~uint32): a package-level function of the same name whose first
// arguments are a context.Context (for the long calls) and the receiver,
// e.g. BufferFromHost, ToHost, Elements, LDEHost, PermuteBatch, FRIBeginHost,
// Fold, FRICommit (with a typed challenge func), Betas, Remainder,
// OpeningRows, EvaluateOOD and DeepComposition.
//
// # Remote backend
//
// A context can run its work on a gpuprover-server process: BackendRemote
// with ContextOptions.Endpoint (a unix socket path, "unix:/path",
// "HOST:PORT", or several separated by commas), or BackendAuto with the
// GPUPROVER_SERVER environment variable (or Endpoint) set, which falls back
// in process when the server cannot be reached; Context.RemoteFallback then
// says why. ContextOptions.Priority, ForceCPU and TokenFile set the jobs'
// priority in the server's queue, ask for its CPU workers, and name the
// token file for TCP. A remote context that cannot reach its server fails
// with ErrRemote.
//
//	ctx, err := gpuprover.NewContext(&gpuprover.ContextOptions{
//		Backend:  gpuprover.BackendRemote,
//		Endpoint: "/tmp/gpu-prover.sock",
//		Priority: gpuprover.PriorityHigh,
//	})
//
// # Cancellation, progress, counters
//
// The long calls (LDE, LDEHost, NTT, MerkleCommit, MerkleHashRows,
// CommitHost, FRIBegin, FRIBeginHost, FRI.Fold, FRICommit, EvaluateOOD,
// DeepComposition, ConstraintCommit) have a variant taking a context.Context, named with a
// Context suffix (LDEContext, ...): when the context.Context is done, the
// call stops at its next batch or layer boundary and returns an error that
// matches both ErrCancelled and ctx.Err() (errors.Is). Context.Cancel stops
// the call in flight from any goroutine. SetProgress installs a ProgressFunc
// that the library calls between batches and layers; SetLog a LogFunc that
// gets one line per call; Counters and CallStats report the calls made.
//
// # Resources and errors
//
// Contexts, buffers, trees and FRI commitments own library memory (device
// memory on the CUDA backend). Close releases it; a finalizer releases what
// was not closed, but only when the garbage collector runs, which it does not
// do because device memory runs short. Every object keeps its Context
// reachable. Closing a context also releases the FRIs, trees and buffers it
// created that are still open.
//
// Every failing library call returns an *Error carrying the library's status
// and its message (gp_last_error). Errors can be matched by status:
//
//	if errors.Is(err, gpuprover.ErrNonCanonical) { ... }
//	var gerr *gpuprover.Error
//	if errors.As(err, &gerr) { log.Print(gerr.Status, gerr.Message) }
//
// Methods of a closed object return a *ClosedError naming the method and the
// object ("gpuprover: Buffer.ToHost on a closed Buffer"), which matches
// ErrClosed.
//
// A Context may be used from several goroutines: calls on one context are
// serialized. Use one context per goroutine for parallelism.
package gpuprover
