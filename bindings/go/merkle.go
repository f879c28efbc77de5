// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

/*
#include <stdlib.h>
#include <gpuprover.h>
*/
import "C"

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"
)

// ---------------------------------------------------------------------------
// Element slices <-> bytes

// elementsFromBytes decodes little-endian base elements of field: a []uint64
// for Goldilocks, a []uint32 for BabyBear and KoalaBear.
func elementsFromBytes(field Field, b []byte) interface{} {
	if field.ElementSize() == 4 {
		out := make([]uint32, len(b)/4)
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return out
	}
	out := make([]uint64, len(b)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

// elementsToBytes encodes a []uint64 or []uint32 little-endian.
func elementsToBytes(data interface{}) []byte {
	switch d := data.(type) {
	case []uint64:
		out := make([]byte, 8*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
		return out
	case []uint32:
		out := make([]byte, 4*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
		return out
	}
	return nil
}

// leBytes encodes n elements of esz bytes at p little-endian.
func leBytes(p unsafe.Pointer, n, esz int) []byte {
	if esz == 8 {
		return elementsToBytes(unsafe.Slice((*uint64)(p), n))
	}
	return elementsToBytes(unsafe.Slice((*uint32)(p), n))
}

// bytesPtr returns a pointer to b's first byte, or a dummy for an empty
// slice (the library checks sizes before it reads).
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return unsafe.Pointer(&emptyHost[0])
	}
	return unsafe.Pointer(&b[0])
}

// indexPtr returns a pointer to the first index, or a dummy for none.
func indexPtr(indices []uint64) *C.uint64_t {
	if len(indices) == 0 {
		return (*C.uint64_t)(unsafe.Pointer(&emptyHost[0]))
	}
	return (*C.uint64_t)(unsafe.Pointer(&indices[0]))
}

// ---------------------------------------------------------------------------
// Options

// MerkleKind is the hash profile of a Merkle tree (gp_merkle_kind); the
// header spells out the bytes each profile hashes. The zero value means
// FieldSponge.
type MerkleKind int

const (
	// FieldSponge: Plonky3's MerkleTreeMmcs over a field hash
	// (PaddingFreeSponge leaves, TruncatedPermutation nodes, shorter matrices
	// injected at their height).
	FieldSponge MerkleKind = C.GP_MERKLE_FIELD_SPONGE
	// Miden: miden-crypto / winterfell with RPO256 or RPX256 (v0.21 and
	// later); one height, Goldilocks.
	Miden MerkleKind = C.GP_MERKLE_MIDEN
	// MidenV0_11: Miden in miden-crypto's layout of v0.11 to v0.20.
	MidenV0_11 MerkleKind = C.GP_MERKLE_MIDEN_V0_11
	// MidenV0_10: MidenV0_11 with the padding of v0.10 and before.
	MidenV0_10 MerkleKind = C.GP_MERKLE_MIDEN_V0_10
	// KeccakPlonky3: Plonky3's MerkleTreeMmcs over Keccak-256 of the rows' bytes.
	KeccakPlonky3 MerkleKind = C.GP_MERKLE_KECCAK_PLONKY3
	// KeccakBE: lambdaworks / Lambda VM Keccak-256 tree over big-endian Goldilocks.
	KeccakBE MerkleKind = C.GP_MERKLE_KECCAK_BE
	// KeccakU64: Plonky3's MerkleTreeMmcs over the Keccak-f sponge on 64-bit
	// lanes (PaddingFreeSponge<KeccakF, 25, 17, 4>, Plonky3's fast Keccak
	// MMCS); 32-byte digests, any field, mixed heights.
	KeccakU64 MerkleKind = C.GP_MERKLE_KECCAK_U64
	// Triton: Triton VM / twenty-first Tip5 tree (hash_varlen leaves,
	// hash_pair nodes); 5-element Goldilocks digests, one height.
	Triton MerkleKind = C.GP_MERKLE_TRITON
	// TritonDigest: twenty-first's tree of digests, as Triton VM commits
	// each FRI round: leaf = the row's elements taken as the digest (at most
	// 5 Goldilocks elements, zero-filled; Digest::from of an XFieldElement),
	// node = Tip5 hash_pair; one height. With FRIOptions.Leaf = LeafElement
	// this is Triton's FRI round commitment.
	TritonDigest MerkleKind = C.GP_MERKLE_TRITON_DIGEST
	// MidenLMCS: Miden's lifted MMCS (miden-vm lifted-stark) over
	// Goldilocks: matrices of power-of-two heights given in ascending order
	// of height, lifted cyclically to the tallest (leaf i absorbs row
	// i mod h of every matrix of height h); Perm RPO256, RPX256,
	// Poseidon2Goldilocks12 (the default), KeccakF1600 or Blake3 (Miden's
	// default configuration: leaf = BLAKE3 chained over the rows' bytes,
	// node = BLAKE3(left || right)); 32-byte digests (4 Goldilocks elements,
	// 4 Keccak lanes, or a BLAKE3 hash).
	MidenLMCS MerkleKind = C.GP_MERKLE_MIDEN_LMCS
	// Winterfell: winter-crypto's MerkleTree<H> (winterfell 0.13) over
	// Goldilocks: leaf = H::hash_elements(row) (the row of all matrices
	// concatenated, extension elements flattened), node = H::merge; one
	// power-of-two height of at least 2. Perm selects H: Blake3
	// (Blake3_256, the default), Blake3_192 (24-byte digests), Sha3_256 or
	// Rp64_256 (4 Goldilocks elements); digests are winterfell's serialized
	// bytes.
	Winterfell MerkleKind = C.GP_MERKLE_WINTERFELL
)

func (k MerkleKind) String() string {
	switch k {
	case 0, FieldSponge:
		return "FieldSponge"
	case Miden:
		return "Miden"
	case MidenV0_11:
		return "MidenV0_11"
	case MidenV0_10:
		return "MidenV0_10"
	case KeccakPlonky3:
		return "KeccakPlonky3"
	case KeccakBE:
		return "KeccakBE"
	case KeccakU64:
		return "KeccakU64"
	case Triton:
		return "Triton"
	case TritonDigest:
		return "TritonDigest"
	case MidenLMCS:
		return "MidenLMCS"
	case Winterfell:
		return "Winterfell"
	}
	return fmt.Sprintf("MerkleKind(%d)", int(k))
}

// MerkleOptions is a Merkle profile (gp_merkle_options). A nil
// *MerkleOptions and the zero value mean Plonky3's Poseidon2 MerkleTreeMmcs
// for the matrices' field, with the root as the cap.
type MerkleOptions struct {
	// Kind: 0 means FieldSponge.
	Kind MerkleKind
	// Perm is the permutation of the sponge and (unless CompressPerm is set)
	// the compression; 0 means the kind's permutation for the matrices' field
	// (see PermutationFor).
	Perm Permutation
	// Digest (FieldSponge only): digest elements; 0 means 4 for Goldilocks,
	// 8 for BabyBear and KoalaBear.
	Digest uint32
	// Rate (FieldSponge only): the sponge rate; 0 means width - digest.
	Rate uint32
	// CapHeight: the cap is the layer 2^CapHeight nodes wide; 0 is the root.
	// At most log2 of the least matrix height.
	CapHeight uint32
	// CompressPerm (FieldSponge only): the permutation of the compression
	// when it differs from the sponge's, as in Plonky3's
	// PaddingFreeSponge<Perm24, 24, 16, 8> leaves with
	// TruncatedPermutation<Perm16, 2, 8, 16> nodes; 0 means Perm. Offered
	// pairs (sponge -> compression): Poseidon2 BabyBear 24 -> 16, KoalaBear
	// 24 -> 16, Goldilocks 12 or 16 -> 8; others give ErrUnsupported.
	CompressPerm Permutation
	// LeafRows: rows per leaf. 0 or 1 hashes row i as leaf i. 2 hashes rows
	// 2i and 2i + 1 as leaf i (the elements of row 2i of every matrix in
	// commit order, then those of row 2i + 1), as lambdaworks' STARK prover
	// commits its composition polynomial and FRI layers with KeccakBE. The
	// matrices must share one even height H: the tree has H / 2 leaves, an
	// opening of index i < H / 2 holds row 2i of every matrix followed by
	// row 2i + 1 of every matrix, MerkleHashRows returns H / 2 digests, and
	// MerkleVerify takes the same options with the matrices' own shapes.
	// Only MerkleCommit, MerkleHashRows and MerkleVerify accept 2; the FRI,
	// constraint and one-call commitments give ErrUnsupported.
	LeafRows uint32
}

// rowsPerLeaf returns the rows hashed into one leaf: 2 with LeafRows 2,
// else 1.
func (o *MerkleOptions) rowsPerLeaf() uint64 {
	if o != nil && o.LeafRows == 2 {
		return 2
	}
	return 1
}

func (o *MerkleOptions) kind() MerkleKind {
	if o == nil || o.Kind == 0 {
		return FieldSponge
	}
	return o.Kind
}

// PermutationFor returns the permutation used for matrices over field: Perm
// if set, else Poseidon2 (Goldilocks width 8, BabyBear and KoalaBear width
// 16) for FieldSponge, RPO256 for the Miden kinds, Poseidon2Goldilocks12
// for MidenLMCS, Keccak-f[1600] for the Keccak kinds, Tip5 for the Triton
// kinds and Blake3 for Winterfell.
func (o *MerkleOptions) PermutationFor(field Field) Permutation {
	if o != nil && o.Perm != 0 {
		return o.Perm
	}
	switch o.kind() {
	case Miden, MidenV0_11, MidenV0_10:
		return RPO256
	case KeccakPlonky3, KeccakBE, KeccakU64:
		return KeccakF1600
	case Triton, TritonDigest:
		return Tip5
	case MidenLMCS:
		return Poseidon2Goldilocks12
	case Winterfell:
		return Blake3
	}
	switch field {
	case BabyBear:
		return Poseidon2BabyBear16
	case KoalaBear:
		return Poseidon2KoalaBear16
	}
	return Poseidon2Goldilocks8
}

// resolved returns the options with Kind and Perm filled in for field.
func (o *MerkleOptions) resolved(field Field) MerkleOptions {
	var r MerkleOptions
	if o != nil {
		r = *o
	}
	r.Kind = o.kind()
	r.Perm = o.PermutationFor(field)
	return r
}

func (o *MerkleOptions) c(field Field) C.gp_merkle_options {
	var co C.gp_merkle_options
	C.gp_merkle_options_init(&co)
	r := o.resolved(field)
	co.kind = C.gp_merkle_kind(r.Kind)
	co.perm = C.gp_permutation(r.Perm)
	co.digest = C.uint32_t(r.Digest)
	co.rate = C.uint32_t(r.Rate)
	co.cap_height = C.uint32_t(r.CapHeight)
	co.compress_perm = C.gp_permutation(r.CompressPerm)
	co.leaf_rows = C.uint32_t(r.LeafRows)
	return co
}

// digestBytes returns the bytes of one digest for matrices over field.
func (o *MerkleOptions) digestBytes(field Field) (int, error) {
	switch o.kind() {
	case FieldSponge:
	case Triton, TritonDigest:
		return 5 * 8, nil // Tip5 digests: 5 Goldilocks elements
	case Winterfell:
		if o.PermutationFor(field) == Blake3_192 {
			return 24, nil
		}
		return 32, nil
	default:
		return 32, nil
	}
	_, pf, err := o.PermutationFor(field).Info()
	if err != nil {
		return 0, err
	}
	esz := 8
	if pf != 0 {
		esz = pf.ElementSize()
	}
	d := 8
	if o != nil && o.Digest != 0 {
		d = int(o.Digest)
	} else if esz == 8 {
		d = 4
	}
	return d * esz, nil
}

// MatrixDims is the shape of one committed matrix (gp_matrix_dims), for
// MerkleVerify.
type MatrixDims struct {
	Rows      uint64
	Cols      uint32 // columns, each of ExtDegree base elements
	ExtDegree uint32
}

// ---------------------------------------------------------------------------
// Trees

// MerkleTree is a committed tree (gp_merkle_tree): every layer up to the
// root, on the device for the CUDA backend. It belongs to its Context and
// refers to its matrices: Open fails with ErrClosed once one of them was
// closed. A tree of CommitHost with KeepHost or KeepNone holds the host
// copies its openings read (C memory, see CommitHost). Close releases it
// and frees those copies; a finalizer does so for trees not closed.
type MerkleTree struct {
	ctx        *Context
	h          *C.gp_merkle_tree // nil once closed
	field      Field
	opts       MerkleOptions
	mats       []*Buffer
	dims       []MatrixDims
	digestSize int
	capSize    int
	// host holds the C blocks (cAlloc) the library reads to open rows
	// (CommitHost with KeepHost or KeepNone); Close frees them once the
	// library's tree is gone.
	host []unsafe.Pointer
}

// MerkleOpening is one opened leaf: the opened row of every matrix in commit
// order (base elements: a []uint64 for Goldilocks, a []uint32 for BabyBear
// and KoalaBear; a matrix of height h is read at row Index >> log2(greatest
// height / h); with LeafRows 2, row 2 x Index of every matrix followed by
// row 2 x Index + 1 of every matrix), and the sibling digests from the leaf
// layer up to the layer below the cap, back to back.
type MerkleOpening struct {
	Index uint64
	Rows  interface{}
	Path  []byte
}

// matrices checks the handles and returns them as C pointers; c.mu is held.
func (c *Context) matrices(method, op string, bufs []*Buffer) ([]*C.gp_buffer, error) {
	if len(bufs) == 0 {
		return nil, argError(op, ErrInvalidArgument, "no matrices (a tree needs at least one)")
	}
	hs := make([]*C.gp_buffer, len(bufs))
	for i, b := range bufs {
		if err := c.sameContext(method, op, b, fmt.Sprintf("matrices[%d]", i)); err != nil {
			return nil, err
		}
		hs[i] = b.h
	}
	return hs, nil
}

// MerkleCommit commits matrices (buffers of this context over one field;
// heights powers of two, or for Plonky3's MMCS kinds any heights on the
// ladder ceil(M / 2^k) of the greatest M) as one tree (gp_merkle_commit). opts may be nil for
// Plonky3's Poseidon2 profile of the matrices' field. The matrices are hashed
// where they are, without a copy; they must stay open for Open.
func (c *Context) MerkleCommit(opts *MerkleOptions, matrices ...*Buffer) (*MerkleTree, error) {
	return c.MerkleCommitContext(context.Background(), opts, matrices...)
}

// MerkleCommitContext is MerkleCommit, stopped when ctx is done (see
// LDEContext).
func (c *Context) MerkleCommitContext(ctx context.Context, opts *MerkleOptions, matrices ...*Buffer) (*MerkleTree, error) {
	const op, method = "gp_merkle_commit", "Context.MerkleCommit"
	if err := c.lock(method); err != nil {
		return nil, err
	}
	defer c.unlock()
	hs, err := c.matrices(method, op, matrices)
	if err != nil {
		return nil, err
	}
	field := matrices[0].field
	co := opts.c(field)
	var h *C.gp_merkle_tree
	err = c.callContext(ctx, op, func() C.gp_status {
		return C.gp_merkle_commit(c.h, &hs[0], C.uint32_t(len(hs)), &co, &h)
	})
	if err != nil {
		return nil, err
	}
	t := &MerkleTree{
		ctx:        c,
		h:          h,
		field:      field,
		opts:       opts.resolved(field),
		mats:       append([]*Buffer(nil), matrices...),
		digestSize: int(C.gp_merkle_digest_size(h)),
		capSize:    int(C.gp_merkle_cap_size(h)),
	}
	for _, b := range matrices {
		t.dims = append(t.dims, MatrixDims{Rows: b.rows, Cols: uint32(b.cols), ExtDegree: b.ext})
	}
	runtime.SetFinalizer(t, (*MerkleTree).Close)
	return t, nil
}

// MerkleHashRows returns the leaf hash of every row of matrices (all of one
// height): digest i hashes row i of all matrices concatenated (rows 2i and
// 2i + 1 with LeafRows 2, one digest per pair of rows)
// (gp_merkle_hash_rows; CapHeight is ignored). The digests are back to back,
// laid out as Root lays out one.
func (c *Context) MerkleHashRows(opts *MerkleOptions, matrices ...*Buffer) ([]byte, error) {
	return c.MerkleHashRowsContext(context.Background(), opts, matrices...)
}

// MerkleHashRowsContext is MerkleHashRows, stopped when ctx is done (see
// LDEContext).
func (c *Context) MerkleHashRowsContext(ctx context.Context, opts *MerkleOptions, matrices ...*Buffer) ([]byte, error) {
	const op, method = "gp_merkle_hash_rows", "Context.MerkleHashRows"
	if err := c.lock(method); err != nil {
		return nil, err
	}
	defer c.unlock()
	hs, err := c.matrices(method, op, matrices)
	if err != nil {
		return nil, err
	}
	field := matrices[0].field
	db, err := opts.digestBytes(field)
	if err != nil {
		return nil, err
	}
	out := make([]byte, int(matrices[0].rows/opts.rowsPerLeaf())*db)
	co := opts.c(field)
	err = c.callContext(ctx, op, func() C.gp_status {
		return C.gp_merkle_hash_rows(c.h, &hs[0], C.uint32_t(len(hs)), &co, bytesPtr(out), C.uint64_t(len(out)))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Close destroys the tree and frees the host copies it holds (CommitHost).
// Closing a closed tree does nothing; closing a tree whose context was
// closed (which destroyed the tree) only frees those copies. It always
// returns nil.
func (t *MerkleTree) Close() error {
	c := t.ctx
	c.mu.Lock()
	defer c.unlock()
	if t.h != nil && c.h != nil {
		C.gp_merkle_tree_destroy(t.h)
	}
	t.h = nil
	// The library's tree is gone (here or with its context): nothing reads
	// the copies any more. c.mu makes this run once.
	freeBlocks(t.host)
	t.host = nil
	runtime.SetFinalizer(t, nil)
	return nil
}

// lock locks the tree's context for the method op; a *ClosedError if the
// tree or the context is closed. On success the caller must call
// t.ctx.unlock.
func (t *MerkleTree) lock(op string) error { return lockHandle(t.ctx, &t.h, op, "MerkleTree") }

// Context returns the context the tree belongs to.
func (t *MerkleTree) Context() *Context { return t.ctx }

// Field returns the field of the committed matrices.
func (t *MerkleTree) Field() Field { return t.field }

// Options returns the profile the tree was committed with (Kind and Perm
// filled in).
func (t *MerkleTree) Options() MerkleOptions { return t.opts }

// Dims returns the shapes of the committed matrices, in commit order.
func (t *MerkleTree) Dims() []MatrixDims { return append([]MatrixDims(nil), t.dims...) }

// DigestSize returns the bytes of one digest: digest elements x element size
// (8 for Goldilocks, 4 for BabyBear and KoalaBear), or 32 for Keccak.
func (t *MerkleTree) DigestSize() int { return t.digestSize }

// CapSize returns the bytes of the cap: 2^CapHeight digests.
func (t *MerkleTree) CapSize() int { return t.capSize }

// Root returns the root digest (gp_merkle_root): field digests element by
// element, canonical, little-endian; Keccak digests as the 32 hash bytes.
func (t *MerkleTree) Root() ([]byte, error) {
	return t.read("MerkleTree.Root", "gp_merkle_root", t.digestSize, func(p unsafe.Pointer, n C.uint64_t) C.gp_status {
		return C.gp_merkle_root(t.h, p, n)
	})
}

// Cap returns the cap, 2^CapHeight digests left to right (gp_merkle_cap):
// what openings verify against.
func (t *MerkleTree) Cap() ([]byte, error) {
	return t.read("MerkleTree.Cap", "gp_merkle_cap", t.capSize, func(p unsafe.Pointer, n C.uint64_t) C.gp_status {
		return C.gp_merkle_cap(t.h, p, n)
	})
}

// SP1Commitment returns SP1's commitment of the tree
// (gp_merkle_sp1_commitment): compress(root, sponge([log2 height, width])),
// what SP1 v6's verifier checks an opening's root against. Field-sponge
// trees of one height only (an *Error with StatusUnsupported otherwise).
func (t *MerkleTree) SP1Commitment() ([]byte, error) {
	return t.read("MerkleTree.SP1Commitment", "gp_merkle_sp1_commitment", t.digestSize, func(p unsafe.Pointer, n C.uint64_t) C.gp_status {
		return C.gp_merkle_sp1_commitment(t.h, p, n)
	})
}

// read locks the tree and returns the size bytes that fill (the library call
// op, given the output and its size) writes.
func (t *MerkleTree) read(method, op string, size int, fill func(unsafe.Pointer, C.uint64_t) C.gp_status) ([]byte, error) {
	if err := t.lock(method); err != nil {
		return nil, err
	}
	defer t.ctx.unlock()
	out := make([]byte, size)
	err := t.ctx.call(op, func() C.gp_status { return fill(bytesPtr(out), C.uint64_t(len(out))) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// OpeningSize returns the bytes per opened index of its rows and of its path
// (gp_merkle_opening_size).
func (t *MerkleTree) OpeningSize() (rowBytes, pathBytes int, err error) {
	if err := t.lock("MerkleTree.OpeningSize"); err != nil {
		return 0, 0, err
	}
	defer t.ctx.unlock()
	return t.openingSize()
}

func (t *MerkleTree) openingSize() (int, int, error) {
	var r, p C.uint64_t
	err := t.ctx.call("gp_merkle_opening_size", func() C.gp_status { return C.gp_merkle_opening_size(t.h, &r, &p) })
	return int(r), int(p), err
}

// Open opens the leaves at indices (rows of the tallest matrices, or leaves
// of two rows with LeafRows 2; gp_merkle_open). It fails with ErrClosed if a committed matrix was closed.
func (t *MerkleTree) Open(indices ...uint64) ([]MerkleOpening, error) {
	const op = "gp_merkle_open"
	if err := t.lock("MerkleTree.Open"); err != nil {
		return nil, err
	}
	defer t.ctx.unlock()
	for i, b := range t.mats {
		if b.h == nil { // the library would read freed matrices
			return nil, &ClosedError{Op: "MerkleTree.Open", What: fmt.Sprintf("a MerkleTree whose matrix %d was closed", i)}
		}
	}
	if len(indices) == 0 {
		return nil, nil
	}
	rb, pb, err := t.openingSize()
	if err != nil {
		return nil, err
	}
	n := len(indices)
	rows := make([]byte, n*rb)
	paths := make([]byte, n*pb)
	var rp, pp unsafe.Pointer
	if rb > 0 {
		rp = unsafe.Pointer(&rows[0])
	}
	if pb > 0 {
		pp = unsafe.Pointer(&paths[0])
	}
	err = t.ctx.call(op, func() C.gp_status {
		return C.gp_merkle_open(t.h, indexPtr(indices), C.uint64_t(n),
			rp, C.uint64_t(len(rows)), pp, C.uint64_t(len(paths)))
	})
	if err != nil {
		return nil, err
	}
	out := make([]MerkleOpening, n)
	for j := range out {
		out[j] = MerkleOpening{
			Index: indices[j],
			Rows:  elementsFromBytes(t.field, rows[j*rb:(j+1)*rb]),
			Path:  append([]byte(nil), paths[j*pb:(j+1)*pb]...),
		}
	}
	return out, nil
}

// Verify checks an opening against the tree's cap with MerkleVerify: nil
// when it is valid, an error matching ErrVerifyFailed when not.
func (t *MerkleTree) Verify(o MerkleOpening) error {
	capb, err := t.Cap()
	if err != nil {
		return err
	}
	return MerkleVerify(&t.opts, t.field, t.dims, capb, o.Index, o.Rows, o.Path)
}

// MerkleVerify checks one opening on the host, without a context
// (gp_merkle_verify): it recomputes the leaf from rows (the opened rows of
// matrices of shapes dims in commit order, over field: a []uint64 or
// []uint32, or nil when the opened row is empty, as for matrices of 0
// columns), walks path up to the cap and compares with the cap's digest.
// opts must be those of the commitment (nil: the default profile). With
// LeafRows 2, dims are the matrices' own shapes and rows holds two rows of
// each (see MerkleOpening).
//
// It returns nil for a valid opening and an *Error with ErrVerifyFailed for
// an invalid one; other statuses mean malformed arguments (sizes that do not
// fit the shapes, an index past the end, non-canonical row elements).
func MerkleVerify(opts *MerkleOptions, field Field, dims []MatrixDims, cap []byte, index uint64,
	rows interface{}, path []byte) error {
	const op = "gp_merkle_verify"
	rp, n, err := hostSliceOrNil(op, rows, field.ElementSize())
	if err != nil {
		return err
	}
	if len(dims) == 0 {
		return argError(op, ErrInvalidArgument, "no matrix shapes (a tree has at least one matrix)")
	}
	want := uint64(0)
	cd := make([]C.gp_matrix_dims, len(dims))
	for i, d := range dims {
		cd[i] = C.gp_matrix_dims{rows: C.uint64_t(d.Rows), cols: C.uint32_t(d.Cols), ext_degree: C.uint32_t(d.ExtDegree)}
		want += uint64(d.Cols) * uint64(d.ExtDegree)
	}
	want *= opts.rowsPerLeaf()
	if uint64(n) != want {
		return argError(op, ErrShapeMismatch, "rows has %d elements; the shapes give %d per opening", n, want)
	}
	co := opts.c(field)
	err = call(op, func() C.gp_status {
		return C.gp_merkle_verify(&co, C.gp_field(field), &cd[0], C.uint32_t(len(cd)),
			bytesPtr(cap), C.uint64_t(len(cap)), C.uint64_t(index),
			rp, C.uint64_t(n*field.ElementSize()), bytesPtr(path), C.uint64_t(len(path)))
	})
	runtime.KeepAlive(rows)
	runtime.KeepAlive(cap)
	runtime.KeepAlive(path)
	return err
}
