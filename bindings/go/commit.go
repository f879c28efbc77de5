// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

/*
#include <stdlib.h>
#include <gpuprover.h>
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"
)

// ---------------------------------------------------------------------------
// One-call commitment of host traces

// Keep says where CommitHost leaves the LDE it committed (gp_keep).
type Keep uint32

const (
	// KeepDevice (the zero value): one new Buffer per matrix, returned by
	// CommitHost; the tree's openings read them, as those of a MerkleCommit
	// tree read its matrices. The whole LDE must fit in device memory beside
	// the call's working set.
	KeepDevice Keep = C.GP_KEEP_DEVICE
	// KeepHost: matrix i's LDE is written to matrices[i].LDEHost,
	// column-major as Buffer.ToHost with ColMajor writes a buffer. The
	// library writes it to a host copy that the tree holds (see CommitHost)
	// and reads its openings' rows there; LDEHost receives the LDE from
	// that copy once the call succeeded.
	KeepHost Keep = C.GP_KEEP_HOST
	// KeepNone: only the tree is kept. Its openings run the LDE again over
	// the traces (a host copy of every matrices[i].Data that the tree holds,
	// see CommitHost), without hashing: each Open call costs one upload and
	// LDE of every committed column, however few the indices.
	KeepNone Keep = C.GP_KEEP_NONE
)

// CommitMatrix is one trace matrix of CommitHost (gp_commit_matrix).
type CommitMatrix struct {
	// Data holds Rows x Cols elements of degree ExtDegree in the options'
	// LDE.InputLayout: a []uint64 (Goldilocks) or []uint32 (BabyBear,
	// KoalaBear), or a slice of a type defined on one of them, of exactly
	// Rows*Cols*ExtDegree values. CommitHost copies it (see there): it may
	// change once the call returned, whatever the Keep.
	Data interface{}
	// Rows is a power of two; the LDE has Rows*Blowup rows. Matrices of
	// different heights are committed as MerkleCommit commits them.
	Rows uint64
	// Cols counts columns of ExtDegree base elements each.
	Cols uint64
	// ExtDegree is the extension degree; 0 means 1 (the base field).
	ExtDegree uint32
	// LDEHost (KeepHost only; nil otherwise) receives the matrix's LDE: a
	// slice of the field's element type of at least
	// Rows*Blowup*Cols*ExtDegree values; values past the LDE are left as
	// they are. The LDE is copied there once the call succeeded (see
	// CommitHost); the tree's openings read their own copy, so LDEHost may
	// change afterwards.
	LDEHost interface{}
}

// CommitOptions are the options of CommitHost (gp_commit_options). The zero
// value means the defaults.
type CommitOptions struct {
	// LDE is the LDE of every matrix, as LDEHost takes it; N must be 0 (each
	// matrix is extended over its own rows). nil means the defaults.
	LDE *LDEOptions
	// Merkle is the profile, as MerkleCommit takes it; nil means Plonky3's
	// Poseidon2 profile of the field.
	Merkle *MerkleOptions
	// Keep says where the LDE stays; the zero value is KeepDevice.
	Keep Keep
	// DeviceBudget is the device memory the call may use, in bytes: the
	// tree, the row sponge states, the batches in flight and, with
	// KeepDevice, the kept LDE. 0 means what the device has free (no limit
	// on the CPU backend). The columns are streamed in batches as large as
	// the budget allows; a budget below the least working set is an
	// ErrInvalidArgument whose message names that minimum.
	DeviceBudget uint64
	// LDEInto (KeepDevice only) is nil, or one open buffer of this context
	// per matrix, all distinct, that receive the LDE instead of new buffers
	// (gp_commit_options.lde_into): buffer i of the field and matrix i's
	// ExtDegree, with Rows*Blowup rows and Cols columns. CommitHost then
	// returns these buffers; they stay the caller's (who closes them), are
	// not counted in DeviceBudget, and the tree's openings read them as
	// those of a MerkleCommit tree read its matrices. A prover that commits
	// trace after trace of one shape saves the allocation of the LDE each
	// time.
	LDEInto []*Buffer
}

// CommitHost commits host traces in one call (gp_commit_host): the coset
// LDE of every matrix (opts.LDE), then one Merkle tree over all of them
// (opts.Merkle), with the same root and openings as LDEHost of every matrix
// followed by MerkleCommit of the LDEs. The columns are uploaded, extended
// and absorbed into the row hashes in batches, so the whole LDE is on the
// device only with KeepDevice. opts may be nil for the defaults.
//
// It returns the kept LDE buffers (one per matrix, in order, with
// KeepDevice: new ones, or opts.LDEInto's; nil otherwise), which the caller
// closes, and the tree. The
// tree's openings read what opts.Keep names: the buffers (Open fails with
// ErrClosed once one was closed), each matrix's LDE, or each matrix's
// trace.
//
// The library reads the traces and writes the LDE in C memory, not in the
// caller's slices (with KeepHost and KeepNone it keeps those addresses for
// the tree's openings, which Go slices cannot be lent for): CommitHost
// copies every Data there first and copies the LDE back into LDEHost once
// the call succeeded. Beside the caller's slices, that takes this host
// memory:
//
//   - KeepDevice: a copy of every Data, during the call only.
//   - KeepHost: a copy of every Data during the call, and a block as large
//     as every LDEHost, held by the tree until it is closed.
//   - KeepNone: a copy of every Data, held by the tree until it is closed.
//
// The tree frees what it holds in Close (or its finalizer), also after its
// Context was closed. The caller's slices are not referred to after the
// call returns: they may change, or be reused, while the tree is open.
func (c *Context) CommitHost(field Field, opts *CommitOptions, matrices ...CommitMatrix) ([]*Buffer, *MerkleTree, error) {
	return c.CommitHostContext(context.Background(), field, opts, matrices...)
}

// CommitHostContext is CommitHost, stopped when ctx is done (see
// LDEContext).
func (c *Context) CommitHostContext(ctx context.Context, field Field, opts *CommitOptions, matrices ...CommitMatrix) ([]*Buffer, *MerkleTree, error) {
	const op, method = "gp_commit_host", "Context.CommitHost"
	if len(matrices) == 0 {
		return nil, nil, argError(op, ErrInvalidArgument, "no matrices (a tree needs at least one)")
	}
	var o CommitOptions
	if opts != nil {
		o = *opts
	}
	n := len(matrices)
	if o.LDEInto != nil && len(o.LDEInto) != n {
		return nil, nil, argError(op, ErrInvalidArgument, "LDEInto has %d buffers for %d matrices (one per matrix)", len(o.LDEInto), n)
	}
	// The options struct is passed to C, so what it points to must be C
	// memory: one block, largest alignment first, of the matrix
	// descriptions, the LDE options, the Merkle options and (LDEInto) the
	// LDE buffers' handles.
	matBytes := uintptr(n) * unsafe.Sizeof(C.gp_commit_matrix{})
	ldeBytes := unsafe.Sizeof(C.gp_lde_options{})
	merkleBytes := unsafe.Sizeof(C.gp_merkle_options{})
	intoBytes := uintptr(0)
	if o.LDEInto != nil {
		intoBytes = uintptr(n) * unsafe.Sizeof((*C.gp_buffer)(nil))
	}
	mem := C.calloc(1, C.size_t(matBytes+ldeBytes+merkleBytes+intoBytes))
	if mem == nil {
		return nil, nil, argError(op, ErrHostOutOfMemory, "cannot allocate the descriptions of %d matrices", n)
	}
	defer C.free(mem)
	cm := (*C.gp_commit_matrix)(mem)
	clde := (*C.gp_lde_options)(unsafe.Add(mem, matBytes))
	cmerkle := (*C.gp_merkle_options)(unsafe.Add(mem, matBytes+ldeBytes))
	*clde = o.LDE.c()
	// The randomizers cover every matrix's columns in turn (each column of
	// degree ext counts ext base columns); they go to C memory like the
	// rest of the options.
	var randCols uint64
	for i, m := range matrices {
		ext := uint64(m.ExtDegree)
		if ext == 0 {
			ext = 1
		}
		c, ok := elementCount(1, m.Cols, uint32(ext))
		if !ok || randCols+c < randCols {
			return nil, nil, argError(op, ErrSizeOverflow, "matrices[%d]: the columns of the matrices overflow 64 bits", i)
		}
		randCols += c
	}
	rand, err := o.LDE.setRandomizers(op, clde, field, randCols, 1)
	if err != nil {
		return nil, nil, err
	}
	defer C.free(rand)
	*cmerkle = o.Merkle.c(field)
	var co C.gp_commit_options
	C.gp_commit_options_init(&co)
	co.lde = clde
	co.merkle = cmerkle
	co.keep = C.gp_keep(o.Keep)
	co.device_budget = C.uint64_t(o.DeviceBudget)

	// The traces and the LDE destinations go through C memory (see
	// CommitHost): the library keeps their addresses after the call with
	// KeepHost and KeepNone, and a Go pointer may neither be kept by C nor
	// stored in C memory (the descriptions). data[i] and ldeHost[i] are
	// matrix i's blocks; the tree takes those its openings read, and what
	// is left in data and ldeHost is freed on return.
	data := make([]unsafe.Pointer, n)
	ldeHost := make([]unsafe.Pointer, n)
	defer func() {
		freeBlocks(data)
		freeBlocks(ldeHost)
	}()
	esz := field.ElementSize()
	cms := unsafe.Slice(cm, n)
	dims := make([]MatrixDims, n)
	lens := make([]int, n) // elements of each LDEHost
	for i, m := range matrices {
		ext := m.ExtDegree
		if ext == 0 {
			ext = 1
		}
		p, k, err := hostSlice(op, m.Data, esz)
		if err != nil {
			return nil, nil, err
		}
		want, ok := elementCount(m.Rows, m.Cols, ext)
		if !ok {
			return nil, nil, argError(op, ErrSizeOverflow, "matrices[%d]: rows=%d x cols=%d x ext_degree=%d overflows 64 bits",
				i, m.Rows, m.Cols, ext)
		}
		if uint64(k) != want {
			return nil, nil, argError(op, ErrShapeMismatch,
				"matrices[%d].Data has %d elements; rows=%d x cols=%d x ext_degree=%d needs %d", i, k, m.Rows, m.Cols, ext, want)
		}
		if data[i] = cAlloc(k * esz); data[i] == nil {
			return nil, nil, argError(op, ErrHostOutOfMemory, "cannot allocate a copy of matrices[%d].Data (%d bytes)", i, k*esz)
		}
		copy(unsafe.Slice((*byte)(data[i]), k*esz), unsafe.Slice((*byte)(p), k*esz))
		cms[i].data = data[i]
		cms[i].rows = C.uint64_t(m.Rows)
		cms[i].cols = C.uint64_t(m.Cols)
		cms[i].ext_degree = C.uint32_t(ext)
		if m.LDEHost != nil {
			_, k, err := hostSlice(op, m.LDEHost, esz)
			if err != nil {
				return nil, nil, err
			}
			// A block of LDEHost's size, so that the library checks that
			// size as it checks a destination's. Without KeepHost the
			// library rejects any destination before using it: a one-byte
			// block stands for LDEHost there.
			size := k * esz
			if o.Keep != KeepHost {
				size = 1
			}
			if ldeHost[i] = cAlloc(size); ldeHost[i] == nil {
				return nil, nil, argError(op, ErrHostOutOfMemory, "cannot allocate the LDE of matrices[%d] (%d bytes)", i, size)
			}
			cms[i].lde_host = ldeHost[i]
			cms[i].lde_host_bytes = C.uint64_t(size)
			lens[i] = k
		}
		dims[i] = MatrixDims{Rows: m.Rows * uint64(clde.blowup), Cols: uint32(m.Cols), ExtDegree: ext}
	}
	runtime.KeepAlive(matrices)

	if err := c.lock(method); err != nil {
		return nil, nil, err
	}
	defer c.unlock()
	var lde []*C.gp_buffer
	var ldeOut **C.gp_buffer
	if o.LDEInto != nil {
		into := unsafe.Slice((**C.gp_buffer)(unsafe.Add(mem, matBytes+ldeBytes+merkleBytes)), n)
		for i, b := range o.LDEInto {
			if err := c.sameContext(method, op, b, fmt.Sprintf("LDEInto[%d]", i)); err != nil {
				return nil, nil, err
			}
			into[i] = b.h
		}
		co.lde_into = &into[0]
	} else if o.Keep == KeepDevice {
		lde = make([]*C.gp_buffer, n)
		ldeOut = &lde[0]
	}
	var h *C.gp_merkle_tree
	err = c.callContext(ctx, op, func() C.gp_status {
		return C.gp_commit_host(c.h, C.gp_field(field), cm, C.uint32_t(n), &co, ldeOut, &h)
	})
	if err != nil {
		return nil, nil, err
	}
	var held []unsafe.Pointer // the blocks the tree's openings read
	switch o.Keep {
	case KeepHost:
		held, ldeHost = ldeHost, nil
		// The LDE into the caller's destinations: the library checked that
		// each holds at least the LDE's elements.
		for i, m := range matrices {
			if held[i] == nil {
				continue
			}
			q, _, _ := hostSlice(op, m.LDEHost, esz)
			k := dims[i].Rows * uint64(dims[i].Cols) * uint64(dims[i].ExtDegree)
			if k > uint64(lens[i]) {
				k = uint64(lens[i])
			}
			b := int(k) * esz
			copy(unsafe.Slice((*byte)(q), b), unsafe.Slice((*byte)(held[i]), b))
		}
		runtime.KeepAlive(matrices)
	case KeepNone:
		held, data = data, nil
	}
	var bufs []*Buffer
	for _, b := range lde {
		bufs = append(bufs, c.newBuffer(b))
	}
	if o.LDEInto != nil {
		bufs = append([]*Buffer(nil), o.LDEInto...)
	}
	t := &MerkleTree{
		ctx:        c,
		h:          h,
		field:      field,
		opts:       o.Merkle.resolved(field),
		mats:       append([]*Buffer(nil), bufs...),
		dims:       dims,
		digestSize: int(C.gp_merkle_digest_size(h)),
		capSize:    int(C.gp_merkle_cap_size(h)),
		host:       held,
	}
	runtime.SetFinalizer(t, (*MerkleTree).Close)
	return bufs, t, nil
}

// cAlloc returns a C block of size bytes (at least one, so that it is never
// NULL for an empty slice: the library checks the shape), or nil when out
// of memory.
func cAlloc(size int) unsafe.Pointer {
	if size < 1 {
		size = 1
	}
	return C.malloc(C.size_t(size))
}

// freeBlocks frees the C blocks of cAlloc in blocks (nil entries are
// skipped) and clears them.
func freeBlocks(blocks []unsafe.Pointer) {
	for i, p := range blocks {
		if p != nil {
			C.free(p)
			blocks[i] = nil
		}
	}
}

// String returns the name of the keep mode, e.g. "KeepHost".
func (k Keep) String() string {
	switch k {
	case KeepDevice:
		return "KeepDevice"
	case KeepHost:
		return "KeepHost"
	case KeepNone:
		return "KeepNone"
	}
	return fmt.Sprintf("Keep(%d)", uint32(k))
}
