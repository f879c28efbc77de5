// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// ---------------------------------------------------------------------------
// A naive recursive MerkleTreeMmcs (Plonky3's PaddingFreeSponge and
// TruncatedPermutation) on top of PermuteBatch, one state at a time.

type refPerm struct {
	ctx   *gp.Context
	perm  gp.Permutation
	field gp.Field
	width int
}

func newRefPerm(t *testing.T, perm gp.Permutation) *refPerm {
	t.Helper()
	width, field, err := perm.Info()
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, CPUThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return &refPerm{ctx: ctx, perm: perm, field: field, width: width}
}

func (p *refPerm) permute(t *testing.T, state []uint64) {
	t.Helper()
	data := hostData(p.field, state)
	if err := p.ctx.PermuteBatch(p.perm, data); err != nil {
		t.Fatal(err)
	}
	if s, ok := data.([]uint32); ok {
		for i, v := range s {
			state[i] = uint64(v)
		}
	}
}

func (p *refPerm) sponge(t *testing.T, rate, digest int, in []uint64) []uint64 {
	state := make([]uint64, p.width)
	for pos := 0; pos < len(in); pos += rate {
		end := pos + rate
		if end > len(in) {
			end = len(in)
		}
		copy(state, in[pos:end]) // overwrite only the chunk
		p.permute(t, state)
	}
	return state[:digest]
}

func (p *refPerm) compress(t *testing.T, left, right []uint64) []uint64 {
	state := make([]uint64, p.width)
	copy(state, left)
	copy(state[len(left):], right)
	p.permute(t, state)
	return state[:len(left)]
}

// hostMat is a row-major matrix of flattened extension elements.
type hostMat struct {
	rows, cols int
	ext        uint32
	data       []uint64
}

func (m *hostMat) row(r int) []uint64 {
	w := m.cols * int(m.ext)
	return m.data[r*w : (r+1)*w]
}

func (m *hostMat) upload(t *testing.T, ctx *gp.Context, f gp.Field) *gp.Buffer {
	t.Helper()
	b, err := ctx.BufferFromHost(f, m.ext, uint64(m.rows), uint64(m.cols), gp.RowMajor, hostData(f, m.data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

type refTree struct {
	p            *refPerm
	mats         []*hostMat
	rate, digest int
	maxH         int
}

func (r *refTree) node(t *testing.T, k uint, i int) []uint64 {
	rowsOf := func(h, i int) []uint64 {
		var out []uint64
		for _, m := range r.mats {
			if m.rows == h {
				out = append(out, m.row(i)...)
			}
		}
		return out
	}
	if k == 0 {
		return r.p.sponge(t, r.rate, r.digest, rowsOf(r.maxH, i))
	}
	n := r.p.compress(t, r.node(t, k-1, 2*i), r.node(t, k-1, 2*i+1))
	if row := rowsOf(r.maxH>>k, i); row != nil {
		n = r.p.compress(t, n, r.p.sponge(t, r.rate, r.digest, row))
	}
	return n
}

func (r *refTree) cap(t *testing.T, capHeight uint) []uint64 {
	k := log2(uint64(r.maxH)) - capHeight
	var out []uint64
	for i := 0; i < 1<<capHeight; i++ {
		out = append(out, r.node(t, k, i)...)
	}
	return out
}

// words decodes a digest or cap of field elements.
func words(f gp.Field, b []byte) []uint64 {
	if f.ElementSize() == 8 {
		out := make([]uint64, len(b)/8)
		for i := range out {
			out[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		return out
	}
	out := make([]uint64, len(b)/4)
	for i := range out {
		out[i] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Tests

func TestMerkleRootsMatchNaiveMMCS(t *testing.T) {
	ctx := newContext(t)
	type spec struct {
		rows, cols int
		ext        uint32
	}
	cases := []struct {
		field        gp.Field
		perm         gp.Permutation
		rate, digest int
		specs        []spec
	}{
		{gp.Goldilocks, gp.Poseidon2Goldilocks8, 4, 4, []spec{{16, 3, 1}}},
		{gp.Goldilocks, gp.Poseidon2Goldilocks8, 4, 4, []spec{{8, 2, 1}, {16, 5, 1}, {4, 1, 2}, {16, 1, 3}}},
		{gp.KoalaBear, gp.Poseidon2KoalaBear16, 8, 8, []spec{{32, 9, 1}, {8, 3, 4}}},
		{gp.BabyBear, gp.Poseidon2BabyBear16, 8, 8, []spec{{8, 8, 1}}},
	}
	rng := rand.New(rand.NewSource(7000))
	for _, cs := range cases {
		m := fieldOf(t, cs.field)
		var mats []*hostMat
		var bufs []*gp.Buffer
		least, maxH := cs.specs[0].rows, 0
		for _, s := range cs.specs {
			hm := &hostMat{rows: s.rows, cols: s.cols, ext: s.ext, data: randomValues(rng, m.p, s.rows*s.cols*int(s.ext))}
			mats = append(mats, hm)
			bufs = append(bufs, hm.upload(t, ctx, cs.field))
			if s.rows < least {
				least = s.rows
			}
			if s.rows > maxH {
				maxH = s.rows
			}
		}
		ref := &refTree{p: newRefPerm(t, cs.perm), mats: mats, rate: cs.rate, digest: cs.digest, maxH: maxH}
		for capHeight := uint32(0); 1<<capHeight <= least; capHeight++ {
			tree, err := ctx.MerkleCommit(&gp.MerkleOptions{CapHeight: capHeight}, bufs...)
			if err != nil {
				t.Fatal(err)
			}
			if tree.Options().Perm != cs.perm || tree.Options().Kind != gp.FieldSponge {
				t.Fatalf("resolved options %+v", tree.Options())
			}
			if tree.DigestSize() != cs.digest*cs.field.ElementSize() || tree.CapSize() != tree.DigestSize()<<capHeight {
				t.Fatalf("digest %d cap %d", tree.DigestSize(), tree.CapSize())
			}
			capb, err := tree.Cap()
			if err != nil {
				t.Fatal(err)
			}
			if want := ref.cap(t, uint(capHeight)); !equalU64(words(cs.field, capb), want) {
				t.Fatalf("%v %v cap height %d: cap %x, want %x", cs.field, cs.specs, capHeight, words(cs.field, capb), want)
			}
			root, err := tree.Root()
			if err != nil {
				t.Fatal(err)
			}
			if !equalU64(words(cs.field, root), ref.cap(t, 0)) {
				t.Fatalf("%v %v: root differs", cs.field, cs.specs)
			}
			tree.Close()
		}
	}
}

func TestMerkleOpenAndVerify(t *testing.T) {
	ctx := newContext(t)
	const rows, cols, blowup = 32, 4, 4
	rng := rand.New(rand.NewSource(7100))
	trace := randomValues(rng, 0xffffffff00000001, rows*cols)
	lde := newBuffer(t, ctx, gp.Goldilocks, 1, rows*blowup, cols)
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace, rows, cols, lde, &gp.LDEOptions{Blowup: blowup, OutputOrder: gp.BitReversed}); err != nil {
		t.Fatal(err)
	}
	values := download(t, lde, gp.RowMajor)

	tree, err := ctx.MerkleCommit(nil, lde)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	root, _ := tree.Root()
	capb, _ := tree.Cap()
	if len(root) != 32 || !bytes.Equal(root, capb) {
		t.Fatalf("root %x cap %x", root, capb)
	}
	rb, pb, err := tree.OpeningSize()
	if err != nil || rb != cols*8 || pb != 7*32 {
		t.Fatalf("opening size %d %d %v", rb, pb, err)
	}
	openings, err := tree.Open(0, 1, 77, rows*blowup-1)
	if err != nil {
		t.Fatal(err)
	}
	dims := []gp.MatrixDims{{Rows: rows * blowup, Cols: cols, ExtDegree: 1}}
	for _, o := range openings {
		got := o.Rows.([]uint64)
		if !equalU64(got, values[o.Index*cols:(o.Index+1)*cols]) {
			t.Fatalf("row %d: %v", o.Index, got)
		}
		if err := tree.Verify(o); err != nil {
			t.Fatal(err)
		}
		if err := gp.MerkleVerify(nil, gp.Goldilocks, dims, root, o.Index, o.Rows, o.Path); err != nil {
			t.Fatal(err)
		}
	}

	// A flipped byte of the path, a changed row value, another index or
	// another root fails with ErrVerifyFailed.
	o := openings[2]
	for _, i := range []int{0, 31, 100, pb - 1} {
		path := append([]byte(nil), o.Path...)
		path[i] ^= 1
		err := gp.MerkleVerify(nil, gp.Goldilocks, dims, root, o.Index, o.Rows, path)
		expectError(t, err, gp.ErrVerifyFailed, "gp_merkle_verify")
	}
	rowsBad := append([]uint64(nil), o.Rows.([]uint64)...)
	rowsBad[1] = (rowsBad[1] + 1) % 0xffffffff00000001
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, root, o.Index, rowsBad, o.Path), gp.ErrVerifyFailed)
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, root, o.Index^1, o.Rows, o.Path), gp.ErrVerifyFailed)
	rootBad := append([]byte(nil), root...)
	rootBad[5] ^= 0x80
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, rootBad, o.Index, o.Rows, o.Path), gp.ErrVerifyFailed)
	if err := gp.MerkleVerify(nil, gp.Goldilocks, dims, root, o.Index, o.Rows, o.Path); err != nil {
		t.Fatal(err)
	}
}

func TestMerkleMixedHeightsAndHashRows(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(7200))
	const p = 0x7f000001
	a := &hostMat{rows: 64, cols: 3, ext: 1, data: randomValues(rng, p, 64*3)}
	b := &hostMat{rows: 16, cols: 2, ext: 4, data: randomValues(rng, p, 16*2*4)}
	ba, bb := a.upload(t, ctx, gp.KoalaBear), b.upload(t, ctx, gp.KoalaBear)
	tree, err := ctx.MerkleCommit(&gp.MerkleOptions{CapHeight: 2}, ba, bb)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	rb, pb, _ := tree.OpeningSize()
	if tree.CapSize() != 4*32 || rb != (3+8)*4 || pb != 4*32 {
		t.Fatalf("cap %d rows %d path %d", tree.CapSize(), rb, pb)
	}
	openings, err := tree.Open(0, 13, 63)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		want := append(append([]uint64(nil), a.row(int(o.Index))...), b.row(int(o.Index>>2))...)
		got := o.Rows.([]uint32)
		for i := range want {
			if uint64(got[i]) != want[i] {
				t.Fatalf("index %d: rows %v, want %v", o.Index, got, want)
			}
		}
		if err := tree.Verify(o); err != nil {
			t.Fatal(err)
		}
	}
	bad := openings[1]
	r := append([]uint32(nil), bad.Rows.([]uint32)...)
	r[5] = (r[5] + 1) % p
	bad.Rows = r
	expectError(t, tree.Verify(bad), gp.ErrVerifyFailed)

	// Row hashes are the leaf sponge.
	c := &hostMat{rows: 8, cols: 5, ext: 1, data: randomValues(rng, 0x78000001, 40)}
	d := &hostMat{rows: 8, cols: 3, ext: 4, data: randomValues(rng, 0x78000001, 96)}
	digests, err := ctx.MerkleHashRows(nil, c.upload(t, ctx, gp.BabyBear), d.upload(t, ctx, gp.BabyBear))
	if err != nil || len(digests) != 8*32 {
		t.Fatalf("%d bytes, %v", len(digests), err)
	}
	ref := newRefPerm(t, gp.Poseidon2BabyBear16)
	for i := 0; i < 8; i++ {
		want := ref.sponge(t, 8, 8, append(append([]uint64(nil), c.row(i)...), d.row(i)...))
		if !equalU64(words(gp.BabyBear, digests[32*i:32*(i+1)]), want) {
			t.Fatalf("row %d digest differs", i)
		}
	}
}

func TestMerkleOtherProfiles(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(7400))
	cases := []struct {
		field gp.Field
		kind  gp.MerkleKind
		perm  gp.Permutation
	}{
		{gp.Goldilocks, gp.Miden, 0},
		{gp.Goldilocks, gp.MidenV0_11, gp.RPX256},
		{gp.Goldilocks, gp.MidenV0_10, 0},
		{gp.Goldilocks, gp.KeccakPlonky3, 0},
		{gp.BabyBear, gp.KeccakPlonky3, 0},
		{gp.Goldilocks, gp.KeccakBE, 0},
		{gp.Goldilocks, gp.FieldSponge, gp.Poseidon2Goldilocks12},
	}
	for _, cs := range cases {
		m := fieldOf(t, cs.field)
		hm := &hostMat{rows: 16, cols: 3, ext: 1, data: randomValues(rng, m.p, 48)}
		buf := hm.upload(t, ctx, cs.field)
		opts := &gp.MerkleOptions{Kind: cs.kind, Perm: cs.perm, CapHeight: 1}
		tree, err := ctx.MerkleCommit(opts, buf)
		if err != nil {
			t.Fatalf("%v: %v", cs.kind, err)
		}
		if tree.DigestSize() != 32 || tree.CapSize() != 64 {
			t.Fatalf("%v: digest %d cap %d", cs.kind, tree.DigestSize(), tree.CapSize())
		}
		leaves, err := ctx.MerkleHashRows(opts, buf)
		if err != nil || len(leaves) != 16*32 {
			t.Fatalf("%v: %d bytes, %v", cs.kind, len(leaves), err)
		}
		openings, err := tree.Open(0, 9, 15)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range openings {
			if len(o.Path) != 3*32 {
				t.Fatalf("path of %d bytes", len(o.Path))
			}
			if err := tree.Verify(o); err != nil {
				t.Fatalf("%v: %v", cs.kind, err)
			}
			o.Path = append([]byte(nil), o.Path...)
			o.Path[7] ^= 4
			expectError(t, tree.Verify(o), gp.ErrVerifyFailed)
		}
		tree.Close()
	}
}

func TestMerkleKeccakU64(t *testing.T) {
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(7450))
	const p = 0xffffffff00000001
	hm := &hostMat{rows: 16, cols: 3, ext: 1, data: randomValues(rng, p, 48)}
	buf := hm.upload(t, ctx, gp.Goldilocks)
	opts := &gp.MerkleOptions{Kind: gp.KeccakU64}
	if got := opts.PermutationFor(gp.Goldilocks); got != gp.KeccakF1600 {
		t.Fatalf("PermutationFor = %v", got)
	}
	if gp.KeccakU64.String() != "KeccakU64" {
		t.Fatalf("String = %q", gp.KeccakU64.String())
	}
	tree, err := ctx.MerkleCommit(opts, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	root, err := tree.Root()
	if err != nil || len(root) != 32 {
		t.Fatalf("root of %d bytes, %v", len(root), err)
	}
	p3, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.KeccakPlonky3}, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer p3.Close()
	p3root, err := p3.Root()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(root, p3root) {
		t.Fatal("the KeccakU64 root equals the KeccakPlonky3 root")
	}
	openings, err := tree.Open(0, 5, 15)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		if len(o.Path) != 4*32 {
			t.Fatalf("path of %d bytes", len(o.Path))
		}
		rows := o.Rows.([]uint64)
		for i, v := range hm.row(int(o.Index)) {
			if rows[i] != v {
				t.Fatalf("row %d: %v, want %v", o.Index, rows, hm.row(int(o.Index)))
			}
		}
		if err := tree.Verify(o); err != nil {
			t.Fatal(err)
		}
		topts := tree.Options()
		if err := gp.MerkleVerify(&topts, gp.Goldilocks, tree.Dims(), root, o.Index, o.Rows, o.Path); err != nil {
			t.Fatal(err)
		}
		o.Path = append([]byte(nil), o.Path...)
		o.Path[9] ^= 2
		expectError(t, tree.Verify(o), gp.ErrVerifyFailed)
	}
}

func TestMerkleCompressPerm(t *testing.T) {
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(7460))
	hm := &hostMat{rows: 16, cols: 20, ext: 1, data: randomValues(rng, 0x78000001, 320)}
	buf := hm.upload(t, ctx, gp.BabyBear)
	root := func(opts *gp.MerkleOptions) []byte {
		t.Helper()
		tree, err := ctx.MerkleCommit(opts, buf)
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		openings, err := tree.Open(0, 11)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range openings {
			if err := tree.Verify(o); err != nil {
				t.Fatal(err)
			}
		}
		r, err := tree.Root()
		if err != nil || len(r) != 32 {
			t.Fatalf("root of %d bytes, %v", len(r), err)
		}
		return r
	}
	same := gp.MerkleOptions{Perm: gp.Poseidon2BabyBear24, Rate: 16, Digest: 8}
	split := same
	split.CompressPerm = gp.Poseidon2BabyBear16
	if bytes.Equal(root(&split), root(&same)) {
		t.Fatal("the root with CompressPerm BabyBear 16 equals the one without")
	}
	// Sponge 16 with compression 24 is not an offered pair.
	_, err := ctx.MerkleCommit(&gp.MerkleOptions{Perm: gp.Poseidon2BabyBear16,
		CompressPerm: gp.Poseidon2BabyBear24, Rate: 8, Digest: 8}, buf)
	expectError(t, err, gp.ErrUnsupported)
}

func TestMerkleErrors(t *testing.T) {
	ctx := newContext(t)
	other := newContext(t)
	rng := rand.New(rand.NewSource(7500))
	const p = 0xffffffff00000001
	gl := (&hostMat{rows: 8, cols: 2, ext: 1, data: randomValues(rng, p, 16)}).upload(t, ctx, gp.Goldilocks)
	gl4 := (&hostMat{rows: 4, cols: 2, ext: 1, data: randomValues(rng, p, 8)}).upload(t, ctx, gp.Goldilocks)
	bb := (&hostMat{rows: 8, cols: 2, ext: 1, data: randomValues(rng, 0x78000001, 16)}).upload(t, ctx, gp.BabyBear)
	foreign := (&hostMat{rows: 8, cols: 2, ext: 1, data: randomValues(rng, p, 16)}).upload(t, other, gp.Goldilocks)
	odd := newBuffer(t, ctx, gp.Goldilocks, 1, 6, 2)

	_, err := ctx.MerkleCommit(nil)
	expectError(t, err, gp.ErrInvalidArgument)
	_, err = ctx.MerkleCommit(nil, gl, bb)
	expectError(t, err, gp.ErrFieldMismatch, "gp_merkle_commit")
	_, err = ctx.MerkleCommit(nil, foreign)
	expectError(t, err, gp.ErrContextMismatch)
	// Plonky3's MMCS kinds take any height; the Miden trees powers of two.
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.Miden}, odd)
	expectError(t, err, gp.ErrInvalidArgument, "power of two")
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{CapHeight: 4}, gl)
	expectError(t, err, gp.ErrInvalidArgument, "cap_height")
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{Perm: gp.Poseidon2BabyBear16}, gl)
	expectError(t, err, gp.ErrFieldMismatch)
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{Perm: gp.KeccakF1600}, gl)
	expectError(t, err, gp.ErrInvalidArgument)
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{Digest: 5}, gl)
	expectError(t, err, gp.ErrInvalidArgument)
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.KeccakBE}, bb)
	expectError(t, err, gp.ErrUnsupported)
	_, err = ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.Miden}, gl, gl4)
	expectError(t, err, gp.ErrShapeMismatch)
	_, err = ctx.MerkleHashRows(nil, gl, gl4)
	expectError(t, err, gp.ErrShapeMismatch)

	tree, err := ctx.MerkleCommit(nil, gl, gl4)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tree.Open(8)
	expectError(t, err, gp.ErrInvalidArgument, "indices[0] = 8")
	if o, err := tree.Open(); err != nil || o != nil {
		t.Fatalf("empty Open: %v %v", o, err)
	}

	openings, err := tree.Open(3)
	if err != nil {
		t.Fatal(err)
	}
	o := openings[0]
	capb, _ := tree.Cap()
	dims := tree.Dims()
	rows := o.Rows.([]uint64)
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, capb, 3, rows[1:], o.Path), gp.ErrShapeMismatch)
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, capb, 3, rows, o.Path[1:]), gp.ErrShapeMismatch)
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, capb[:31], 3, rows, o.Path), gp.ErrShapeMismatch)
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, capb, 8, rows, o.Path), gp.ErrInvalidArgument)
	nc := append([]uint64(nil), rows...)
	nc[0] = p
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, dims, capb, 3, nc, o.Path), gp.ErrNonCanonical)
	expectError(t, gp.MerkleVerify(nil, gp.Goldilocks, nil, capb, 3, rows, o.Path), gp.ErrInvalidArgument)
	expectError(t, gp.MerkleVerify(nil, gp.BabyBear, dims, capb, 3, rows, o.Path), gp.ErrFieldMismatch)
	if err := tree.Verify(o); err != nil {
		t.Fatal(err) // still works after the failures
	}
}

func TestMerkleCloseSemantics(t *testing.T) {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	data := make([]uint64, 16)
	m, _ := ctx.BufferFromHost(gp.Goldilocks, 1, 8, 2, gp.ColMajor, data)
	tree, err := ctx.MerkleCommit(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	// The tree's own layers stay readable without the matrix; openings,
	// which read the matrix, do not.
	m.Close()
	if _, err := tree.Root(); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("open after the matrix was closed: %v", err)
	}
	tree.Close()
	tree.Close()
	if _, err := tree.Root(); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed tree: %v", err)
	}

	// Closing the context closes its trees.
	m2, _ := ctx.BufferFromHost(gp.Goldilocks, 1, 8, 2, gp.ColMajor, data)
	tree2, err := ctx.MerkleCommit(nil, m2)
	if err != nil {
		t.Fatal(err)
	}
	ctx.Close()
	if _, err := tree2.Cap(); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("tree of a closed context: %v", err)
	}
	tree2.Close()
	if _, err := ctx.MerkleCommit(nil, m2); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed context: %v", err)
	}
}

func TestMerklePairLeaves(t *testing.T) {
	// LeafRows 2 (lambdaworks' composition and FRI layer trees): leaf i
	// hashes row 2i then row 2i + 1, the tree of the even rows committed
	// beside the odd rows.
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(7480))
	const p = 0xffffffff00000001
	hm := &hostMat{rows: 16, cols: 3, ext: 1, data: randomValues(rng, p, 48)}
	even := &hostMat{rows: 8, cols: 3, ext: 1}
	odd := &hostMat{rows: 8, cols: 3, ext: 1}
	for r := 0; r < hm.rows; r++ {
		if r%2 == 0 {
			even.data = append(even.data, hm.row(r)...)
		} else {
			odd.data = append(odd.data, hm.row(r)...)
		}
	}
	buf := hm.upload(t, ctx, gp.Goldilocks)
	evenBuf, oddBuf := even.upload(t, ctx, gp.Goldilocks), odd.upload(t, ctx, gp.Goldilocks)
	opts := &gp.MerkleOptions{Kind: gp.KeccakBE, LeafRows: 2}
	split := &gp.MerkleOptions{Kind: gp.KeccakBE}
	tree, err := ctx.MerkleCommit(opts, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	ref, err := ctx.MerkleCommit(split, evenBuf, oddBuf)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	root, _ := tree.Root()
	refRoot, _ := ref.Root()
	if !bytes.Equal(root, refRoot) {
		t.Fatalf("root %x, want %x (even rows beside odd rows)", root, refRoot)
	}
	if tree.Options().LeafRows != 2 {
		t.Fatalf("Options().LeafRows = %d", tree.Options().LeafRows)
	}
	openings, err := tree.Open(0, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		want := append(append([]uint64(nil), hm.row(2*int(o.Index))...), hm.row(2*int(o.Index)+1)...)
		if !equalU64(o.Rows.([]uint64), want) {
			t.Fatalf("opening %d: rows %v, want %v", o.Index, o.Rows, want)
		}
		if len(o.Path) != 3*32 {
			t.Fatalf("opening %d: path of %d bytes", o.Index, len(o.Path))
		}
		if err := tree.Verify(o); err != nil {
			t.Fatalf("opening %d: %v", o.Index, err)
		}
		capb, _ := tree.Cap()
		if err := gp.MerkleVerify(opts, gp.Goldilocks, tree.Dims(), capb, o.Index, o.Rows, o.Path); err != nil {
			t.Fatalf("opening %d: MerkleVerify: %v", o.Index, err)
		}
		// One row is not a leaf of two.
		rows := o.Rows.([]uint64)
		expectError(t, gp.MerkleVerify(opts, gp.Goldilocks, tree.Dims(), capb, o.Index, rows[:3], o.Path),
			gp.ErrShapeMismatch)
		tampered := append([]uint64(nil), rows...)
		tampered[4] = (tampered[4] + 1) % p
		expectError(t, gp.MerkleVerify(opts, gp.Goldilocks, tree.Dims(), capb, o.Index, tampered, o.Path),
			gp.ErrVerifyFailed)
	}
	leaves, err := ctx.MerkleHashRows(opts, buf)
	if err != nil || len(leaves) != 8*32 {
		t.Fatalf("MerkleHashRows: %d bytes, %v", len(leaves), err)
	}
	refLeaves, err := ctx.MerkleHashRows(split, evenBuf, oddBuf)
	if err != nil || !bytes.Equal(leaves, refLeaves) {
		t.Fatalf("MerkleHashRows differs from the split matrices' (%v)", err)
	}
}
