// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// ---------------------------------------------------------------------------
// CommitHost against the two-call path: LDEHost of every matrix, then
// MerkleCommit of the LDEs.

type commitCase struct {
	field  gp.Field
	specs  []hostMat // shapes only: rows, cols, ext
	lde    gp.LDEOptions
	merkle gp.MerkleOptions
}

var commitCases = []commitCase{
	{gp.Goldilocks, []hostMat{{rows: 64, cols: 12, ext: 1}, {rows: 16, cols: 3, ext: 2}},
		gp.LDEOptions{Blowup: 4, OutputOrder: gp.BitReversed}, gp.MerkleOptions{CapHeight: 1}},
	{gp.KoalaBear, []hostMat{{rows: 32, cols: 9, ext: 1}, {rows: 8, cols: 3, ext: 4}},
		gp.LDEOptions{Blowup: 2, InputLayout: gp.RowMajor}, gp.MerkleOptions{}},
}

// randomTraces returns random traces of the case's shapes, values below p.
func randomTraces(rng *rand.Rand, c commitCase, p uint64) []interface{} {
	traces := make([]interface{}, len(c.specs))
	for i, s := range c.specs {
		traces[i] = hostData(c.field, randomValues(rng, p, s.rows*s.cols*int(s.ext)))
	}
	return traces
}

// checkOpenings opens every index of tree, compares each opening with
// want, and verifies the one at position len/part.
func checkOpenings(t *testing.T, what string, tree *gp.MerkleTree, indices []uint64, want []gp.MerkleOpening,
	part int) {
	t.Helper()
	got, err := tree.Open(indices...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for j, o := range got {
		w := want[j]
		if o.Index != w.Index || !reflect.DeepEqual(o.Rows, w.Rows) || !bytes.Equal(o.Path, w.Path) {
			t.Fatalf("%s: opening %d differs", what, j)
		}
	}
	if err := tree.Verify(got[len(got)/part]); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// commitRef is what the two-call path gives: the LDE of every matrix
// (column-major), the root, the cap and the openings of every index.
type commitRef struct {
	lde       [][]uint64
	root, cap []byte
	openings  []gp.MerkleOpening
	dims      []gp.MatrixDims
}

func commitReference(t *testing.T, ctx *gp.Context, c commitCase, traces []interface{}) commitRef {
	t.Helper()
	var ref commitRef
	var ldes []*gp.Buffer
	for i, s := range c.specs {
		lde := newBuffer(t, ctx, c.field, s.ext, uint64(s.rows*c.blowup()), uint64(s.cols))
		if err := ctx.LDEHost(c.field, s.ext, traces[i], uint64(s.rows), uint64(s.cols), lde, &c.lde); err != nil {
			t.Fatal(err)
		}
		ldes = append(ldes, lde)
		ref.lde = append(ref.lde, download(t, lde, gp.ColMajor))
	}
	tree, err := ctx.MerkleCommit(&c.merkle, ldes...)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	ref.root, _ = tree.Root()
	ref.cap, _ = tree.Cap()
	ref.dims = tree.Dims()
	if ref.openings, err = tree.Open(allIndices(ref.dims)...); err != nil {
		t.Fatal(err)
	}
	return ref
}

// blowup is the case's blowup factor (0 means 2).
func (c commitCase) blowup() int {
	if c.lde.Blowup == 0 {
		return 2
	}
	return int(c.lde.Blowup)
}

func allIndices(dims []gp.MatrixDims) []uint64 {
	var h uint64
	for _, d := range dims {
		if d.Rows > h {
			h = d.Rows
		}
	}
	out := make([]uint64, h)
	for i := range out {
		out[i] = uint64(i)
	}
	return out
}

// commitMatrices describes the traces, with a zeroed destination of the
// field's element type per matrix for KeepHost.
func commitMatrices(c commitCase, traces []interface{}, keep gp.Keep) []gp.CommitMatrix {
	mats := make([]gp.CommitMatrix, len(traces))
	for i, s := range c.specs {
		mats[i] = gp.CommitMatrix{Data: traces[i], Rows: uint64(s.rows), Cols: uint64(s.cols), ExtDegree: s.ext}
		if keep == gp.KeepHost {
			mats[i].LDEHost = hostData(c.field, make([]uint64, s.rows*c.blowup()*s.cols*int(s.ext)))
		}
	}
	return mats
}

var minimumRE = regexp.MustCompile(`below the minimum (\d+) bytes`)

// leastBudget returns the minimum that the error of a budget of 1 byte names.
func leastBudget(t *testing.T, ctx *gp.Context, field gp.Field, opts gp.CommitOptions, mats []gp.CommitMatrix) uint64 {
	t.Helper()
	opts.DeviceBudget = 1
	_, _, err := ctx.CommitHost(field, &opts, mats...)
	expectError(t, err, gp.ErrInvalidArgument, "gp_commit_host")
	m := minimumRE.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no minimum in %q", err)
	}
	v, _ := strconv.ParseUint(m[1], 10, 64)
	return v
}

// commitSteps runs CommitHost and counts its "commit" progress reports.
func commitSteps(t *testing.T, ctx *gp.Context, field gp.Field, opts *gp.CommitOptions, mats []gp.CommitMatrix) ([]*gp.Buffer, *gp.MerkleTree, int) {
	t.Helper()
	steps := 0
	if err := ctx.SetProgress(func(stage string, done, total uint64) {
		if stage == "commit" {
			steps++
		}
	}); err != nil {
		t.Fatal(err)
	}
	lde, tree, err := ctx.CommitHost(field, opts, mats...)
	ctx.SetProgress(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tree.Close()
		for _, b := range lde {
			b.Close()
		}
	})
	return lde, tree, steps
}

func elementsU64(v interface{}) []uint64 {
	switch s := v.(type) {
	case []uint64:
		return s
	case []uint32:
		out := make([]uint64, len(s))
		for i, x := range s {
			out[i] = uint64(x)
		}
		return out
	}
	return nil
}

func TestCommitHostMatchesTwoCalls(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(7700))
	for _, c := range commitCases {
		p := fieldOf(t, c.field).p
		traces := randomTraces(rng, c, p)
		ref := commitReference(t, ctx, c, traces)
		indices := allIndices(ref.dims)
		for _, keep := range []gp.Keep{gp.KeepDevice, gp.KeepHost, gp.KeepNone} {
			opts := gp.CommitOptions{LDE: &c.lde, Merkle: &c.merkle, Keep: keep}
			least := leastBudget(t, ctx, c.field, opts, commitMatrices(c, traces, keep))
			var steps []int
			for _, budget := range []uint64{0, least} {
				what := fmt.Sprintf("%v %v budget %d", c.field, keep, budget)
				opts.DeviceBudget = budget
				mats := commitMatrices(c, traces, keep)
				lde, tree, n := commitSteps(t, ctx, c.field, &opts, mats)
				steps = append(steps, n)
				root, _ := tree.Root()
				capb, _ := tree.Cap()
				if !bytes.Equal(root, ref.root) || !bytes.Equal(capb, ref.cap) {
					t.Fatalf("%s: root %x cap %x, want %x %x", what, root, capb, ref.root, ref.cap)
				}
				if !reflect.DeepEqual(tree.Dims(), ref.dims) || tree.Field() != c.field {
					t.Fatalf("%s: dims %v field %v, want %v", what, tree.Dims(), tree.Field(), ref.dims)
				}
				checkOpenings(t, what, tree, indices, ref.openings, 3)
				switch keep {
				case gp.KeepDevice:
					if len(lde) != len(c.specs) {
						t.Fatalf("%s: %d LDE buffers", what, len(lde))
					}
					for i, b := range lde {
						if !equalU64(download(t, b, gp.ColMajor), ref.lde[i]) {
							t.Fatalf("%s: LDE %d differs", what, i)
						}
					}
				case gp.KeepHost:
					for i, m := range mats {
						if lde != nil || !equalU64(elementsU64(m.LDEHost), ref.lde[i]) {
							t.Fatalf("%s: host LDE %d differs", what, i)
						}
					}
				default:
					if lde != nil {
						t.Fatalf("%s: %d LDE buffers", what, len(lde))
					}
				}
			}
			// The least budget streams the columns in more batches.
			if steps[1] <= steps[0] {
				t.Fatalf("%v %v: %d progress steps with the least budget, %d without", c.field, keep, steps[1], steps[0])
			}
		}
	}
}

func TestCommitHostHoldsHostMemory(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(7800))
	c := commitCase{gp.Goldilocks, []hostMat{{rows: 32, cols: 3, ext: 1}, {rows: 8, cols: 2, ext: 1}},
		gp.LDEOptions{}, gp.MerkleOptions{}}
	traces := []interface{}{randomValues(rng, 0xffffffff00000001, 96), randomValues(rng, 0xffffffff00000001, 16)}
	ref := commitReference(t, ctx, c, traces)

	// The tree's openings read its own copies of the traces (KeepNone) and
	// of the LDE (KeepHost): the caller's slices may be collected.
	commit := func(keep gp.Keep) *gp.MerkleTree {
		var copies []interface{}
		for _, tr := range traces {
			copies = append(copies, append([]uint64(nil), tr.([]uint64)...))
		}
		_, tree, err := ctx.CommitHost(gp.Goldilocks, &gp.CommitOptions{Keep: keep}, commitMatrices(c, copies, keep)...)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	for _, keep := range []gp.Keep{gp.KeepHost, gp.KeepNone} {
		tree := commit(keep)
		for i := 0; i < 3; i++ {
			runtime.GC()
			garbage := make([][]uint64, 64)
			for j := range garbage {
				garbage[j] = make([]uint64, 1024)
				for k := range garbage[j] {
					garbage[j][k] = ^uint64(0)
				}
			}
			runtime.KeepAlive(garbage)
		}
		got, err := tree.Open(0, 17, 63)
		if err != nil {
			t.Fatal(err)
		}
		for j, o := range got {
			if !reflect.DeepEqual(o.Rows, ref.openings[o.Index].Rows) {
				t.Fatalf("%v: opening %d differs", keep, j)
			}
		}
		tree.Close()
		if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
			t.Fatalf("%v: open after close: %v", keep, err)
		}
	}

	// KeepDevice: the tree reads the kept buffers, as MerkleCommit trees
	// read their matrices.
	lde, tree, err := ctx.CommitHost(gp.Goldilocks, nil, commitMatrices(c, traces, gp.KeepDevice)...)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	lde[1].Close()
	if root, err := tree.Root(); err != nil || !bytes.Equal(root, ref.root) {
		t.Fatalf("root %x %v", root, err)
	}
	if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("open after a kept buffer was closed: %v", err)
	}
	lde[0].Close()
}

func TestCommitHostCopiesHostSlices(t *testing.T) {
	rng := rand.New(rand.NewSource(7850))
	for _, c := range commitCases {
		ctx := newContext(t)
		p := fieldOf(t, c.field).p
		traces := randomTraces(rng, c, p)
		ref := commitReference(t, ctx, c, traces)
		indices := allIndices(ref.dims)
		for _, keep := range []gp.Keep{gp.KeepHost, gp.KeepNone} {
			what := fmt.Sprintf("%v %v", c.field, keep)
			// The caller's slices: copies of the traces, and destinations
			// two elements longer than the LDE, whose tail stays as it was.
			mats := commitMatrices(c, traces, keep)
			for i, tr := range traces {
				mats[i].Data = hostData(c.field, append([]uint64(nil), elementsU64(tr)...))
				if keep == gp.KeepHost {
					mats[i].LDEHost = hostData(c.field, append(make([]uint64, len(ref.lde[i])), 5, 6))
				}
			}
			_, tree, err := ctx.CommitHost(c.field, &gp.CommitOptions{LDE: &c.lde, Merkle: &c.merkle, Keep: keep}, mats...)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if keep == gp.KeepHost {
				for i, m := range mats {
					got := elementsU64(m.LDEHost)
					if !equalU64(got[:len(ref.lde[i])], ref.lde[i]) || !equalU64(got[len(ref.lde[i]):], []uint64{5, 6}) {
						t.Fatalf("%s: host LDE %d differs", what, i)
					}
				}
			}
			// Overwrite every slice the caller passed: the openings still
			// match the commitment.
			for _, m := range mats {
				for _, v := range []interface{}{m.Data, m.LDEHost} {
					switch s := v.(type) {
					case []uint64:
						for j := range s {
							s[j] = 1
						}
					case []uint32:
						for j := range s {
							s[j] = 1
						}
					}
				}
			}
			runtime.GC()
			checkOpenings(t, what, tree, indices, ref.openings, 2)
			if root, err := tree.Root(); err != nil || !bytes.Equal(root, ref.root) {
				t.Fatalf("%s: root %x %v", what, root, err)
			}
			tree.Close()
			tree.Close() // frees nothing twice
			if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
				t.Fatalf("%s: open after close: %v", what, err)
			}
			if _, err := tree.Root(); !errors.Is(err, gp.ErrClosed) {
				t.Fatalf("%s: root after close: %v", what, err)
			}
		}

		// A tree outliving its context: the context released the library's
		// tree; Close still frees the tree's copies, once.
		for _, keep := range []gp.Keep{gp.KeepHost, gp.KeepNone} {
			ctx2 := newContext(t)
			_, tree, err := ctx2.CommitHost(c.field, &gp.CommitOptions{LDE: &c.lde, Merkle: &c.merkle, Keep: keep},
				commitMatrices(c, traces, keep)...)
			if err != nil {
				t.Fatal(err)
			}
			ctx2.Close()
			if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
				t.Fatalf("%v %v: open after the context closed: %v", c.field, keep, err)
			}
			tree.Close()
			tree.Close()
			if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
				t.Fatalf("%v %v: open after close: %v", c.field, keep, err)
			}
		}
	}
}

func TestCommitHostErrors(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(7900))
	c := commitCase{gp.Goldilocks, []hostMat{{rows: 16, cols: 2, ext: 1}, {rows: 8, cols: 3, ext: 1}},
		gp.LDEOptions{}, gp.MerkleOptions{}}
	traces := []interface{}{randomValues(rng, 0xffffffff00000001, 32), randomValues(rng, 0xffffffff00000001, 24)}
	host := &gp.CommitOptions{Keep: gp.KeepHost}

	// A destination one element short of the LDE.
	mats := commitMatrices(c, traces, gp.KeepHost)
	mats[1].LDEHost = make([]uint64, 8*2*3-1)
	_, _, err := ctx.CommitHost(gp.Goldilocks, host, mats...)
	expectError(t, err, gp.ErrInvalidArgument, "gp_commit_host", "matrices[1].lde_host",
		fmt.Sprintf("lde_host_bytes = %d is smaller than the LDE (%d bytes)", (8*2*3-1)*8, 8*2*3*8))
	mats[1].LDEHost = []uint64{}
	_, _, err = ctx.CommitHost(gp.Goldilocks, host, mats...)
	expectError(t, err, gp.ErrInvalidArgument, "matrices[1].lde_host_bytes = 0 is smaller")

	// A destination without KeepHost; none with it.
	_, _, err = ctx.CommitHost(gp.Goldilocks, nil, commitMatrices(c, traces, gp.KeepHost)...)
	expectError(t, err, gp.ErrInvalidArgument, "lde_host")
	_, _, err = ctx.CommitHost(gp.Goldilocks, host, commitMatrices(c, traces, gp.KeepDevice)...)
	expectError(t, err, gp.ErrNullPointer, "lde_host")

	plain := commitMatrices(c, traces, gp.KeepDevice)
	for _, tc := range []struct {
		opts     gp.CommitOptions
		st       gp.Status
		fragment string
	}{
		{gp.CommitOptions{DeviceBudget: 1}, gp.ErrInvalidArgument, "below the minimum"},
		{gp.CommitOptions{LDE: &gp.LDEOptions{Blowup: 3}}, gp.ErrInvalidArgument, "blowup = 3"},
		{gp.CommitOptions{LDE: &gp.LDEOptions{N: 16}}, gp.ErrUnsupported, "n = 16"},
		{gp.CommitOptions{Merkle: &gp.MerkleOptions{CapHeight: 9}}, gp.ErrInvalidArgument, "cap_height"},
		{gp.CommitOptions{Keep: 7}, gp.ErrInvalidArgument, "keep = 7"},
	} {
		_, _, err := ctx.CommitHost(gp.Goldilocks, &tc.opts, plain...)
		expectError(t, err, tc.st, tc.fragment)
	}
	_, _, err = ctx.CommitHost(gp.Goldilocks, nil)
	expectError(t, err, gp.ErrInvalidArgument, "no matrices")
	_, _, err = ctx.CommitHost(gp.Goldilocks, nil, gp.CommitMatrix{Data: traces[0], Rows: 16, Cols: 3})
	expectError(t, err, gp.ErrShapeMismatch, "matrices[0].Data")
	_, _, err = ctx.CommitHost(gp.KoalaBear, nil, gp.CommitMatrix{Data: traces[0], Rows: 16, Cols: 2})
	expectError(t, err, gp.ErrFieldMismatch)
	_, _, err = ctx.CommitHost(gp.KoalaBear, nil, gp.CommitMatrix{Data: []uint32{0x7f000001, 1, 2, 3}, Rows: 4, Cols: 1})
	expectError(t, err, gp.ErrNonCanonical)

	// The failed calls left the context usable.
	lde, tree, err := ctx.CommitHost(gp.Goldilocks, nil, plain...)
	if err != nil {
		t.Fatal(err)
	}
	if root, err := tree.Root(); err != nil || len(root) != 32 || len(lde) != 2 {
		t.Fatalf("root %x %v, %d buffers", root, err, len(lde))
	}
	tree.Close()
	for _, b := range lde {
		b.Close()
	}
	ctx.Close()
	if _, _, err := ctx.CommitHost(gp.Goldilocks, nil, plain...); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed context: %v", err)
	}
}

func TestCommitHostLDEInto(t *testing.T) {
	// CommitOptions.LDEInto: the LDE goes into the caller's buffers, with
	// the root of the call that allocates them; the buffers may be filled
	// again once the tree is closed.
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(7950))
	c := commitCases[0]
	p := fieldOf(t, c.field).p
	into := make([]*gp.Buffer, len(c.specs))
	for i, s := range c.specs {
		into[i] = newBuffer(t, ctx, c.field, s.ext, uint64(s.rows*c.blowup()), uint64(s.cols))
	}
	for round := 0; round < 2; round++ {
		traces := randomTraces(rng, c, p)
		ref := commitReference(t, ctx, c, traces)
		opts := gp.CommitOptions{LDE: &c.lde, Merkle: &c.merkle, LDEInto: into}
		lde, tree, err := ctx.CommitHost(c.field, &opts, commitMatrices(c, traces, gp.KeepDevice)...)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		root, _ := tree.Root()
		if !bytes.Equal(root, ref.root) {
			t.Fatalf("round %d: root %x, want %x", round, root, ref.root)
		}
		if !reflect.DeepEqual(lde, into) {
			t.Fatalf("round %d: CommitHost returned %v, not the LDEInto buffers", round, lde)
		}
		for i, b := range into {
			if !equalU64(download(t, b, gp.ColMajor), ref.lde[i]) {
				t.Fatalf("round %d: LDE %d differs", round, i)
			}
		}
		checkOpenings(t, fmt.Sprintf("round %d", round), tree, allIndices(ref.dims), ref.openings, 2)
		tree.Close()
	}

	traces := randomTraces(rng, c, p)
	mats := commitMatrices(c, traces, gp.KeepDevice)
	commit := func(opts gp.CommitOptions) error {
		_, tree, err := ctx.CommitHost(c.field, &opts, mats...)
		if err == nil {
			tree.Close()
		}
		return err
	}
	expectError(t, commit(gp.CommitOptions{LDE: &c.lde, LDEInto: into[:1]}), gp.ErrInvalidArgument, "LDEInto")
	expectError(t, commit(gp.CommitOptions{LDE: &c.lde, LDEInto: []*gp.Buffer{into[0], nil}}), gp.ErrNullPointer, "LDEInto[1]")
	expectError(t, commit(gp.CommitOptions{LDE: &c.lde, LDEInto: []*gp.Buffer{into[1], into[0]}}), gp.ErrFieldMismatch, "lde_into[0]")
	expectError(t, commit(gp.CommitOptions{LDE: &c.lde, Keep: gp.KeepNone, LDEInto: into}), gp.ErrInvalidArgument, "lde_into")
	other := newContext(t)
	stranger := newBuffer(t, other, c.field, 1, uint64(c.specs[0].rows*c.blowup()), uint64(c.specs[0].cols))
	expectError(t, commit(gp.CommitOptions{LDE: &c.lde, LDEInto: []*gp.Buffer{stranger, into[1]}}), gp.ErrContextMismatch)
	closed := newBuffer(t, ctx, c.field, 1, uint64(c.specs[0].rows*c.blowup()), uint64(c.specs[0].cols))
	closed.Close()
	if err := commit(gp.CommitOptions{LDE: &c.lde, LDEInto: []*gp.Buffer{closed, into[1]}}); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("a closed LDEInto buffer: %v", err)
	}
}
