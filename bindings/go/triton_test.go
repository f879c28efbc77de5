// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// Triton VM conventions: Goldilocks' cubic extension X^3 = X - 1
// (ExtTriton) in FRI folds and OOD evaluation, FRI layers of one value per
// leaf (LeafElement) under the TritonDigest tree, the tree itself, and
// Triton's quotient segments. Folds and OOD values are checked against the
// cubic arithmetic of both extensions, written here.

const tritonShift = 7

type cubic [3]uint64

// cMul multiplies two cubics: X^3 = X + 1 (ExtPlonky3) or X^3 = X - 1
// (ExtTriton).
func cMul(a, b cubic, ext gp.Extension) cubic {
	m := modp{goldilocksP}
	var c [5]uint64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c[i+j] = m.add(c[i+j], m.mul(a[i], b[j]))
		}
	}
	if ext == gp.ExtTriton {
		return cubic{m.sub(c[0], c[3]), m.sub(m.add(c[1], c[3]), c[4]), m.add(c[2], c[4])}
	}
	return cubic{m.add(c[0], c[3]), m.add(m.add(c[1], c[3]), c[4]), m.add(c[2], c[4])}
}

func cHorner(coeffs []uint64, z cubic, ext gp.Extension) cubic {
	m := modp{goldilocksP}
	var acc cubic
	for i := len(coeffs) - 1; i >= 0; i-- {
		acc = cMul(acc, z, ext)
		acc[0] = m.add(acc[0], coeffs[i])
	}
	return acc
}

func randomCubic(rng *rand.Rand) cubic {
	v := randomValues(rng, goldilocksP, 3)
	return cubic{v[0], v[1], v[2]}
}

func flatten(v []cubic) []uint64 {
	out := make([]uint64, 0, 3*len(v))
	for _, c := range v {
		out = append(out, c[:]...)
	}
	return out
}

// naiveTritonFold is one halved arity-2 fold of a natural-order cubic layer
// on shift * <w>: (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x).
func naiveTritonFold(t *testing.T, layer []cubic, beta cubic, shift uint64, ext gp.Extension) []cubic {
	m := modp{goldilocksP}
	n := uint64(len(layer))
	w := root(t, gp.Goldilocks, n)
	half := n / 2
	inv2 := m.inv(2)
	out := make([]cubic, half)
	for i := uint64(0); i < half; i++ {
		x := m.mul(shift, m.pow(w, i))
		s := m.mul(inv2, m.inv(x))
		a, b := layer[i], layer[i+half]
		var even, odd cubic
		for k := 0; k < 3; k++ {
			even[k] = m.mul(m.add(a[k], b[k]), inv2)
			odd[k] = m.mul(m.sub(a[k], b[k]), s)
		}
		bo := cMul(beta, odd, ext)
		for k := 0; k < 3; k++ {
			out[i][k] = m.add(even[k], bo[k])
		}
	}
	return out
}

func tritonFRIOptions(final uint64, ext gp.Extension) *gp.FRIOptions {
	return &gp.FRIOptions{Arity: 2, FinalSize: final, NaturalOrder: true, Shift: tritonShift, Extension: ext,
		Leaf: gp.LeafElement, Merkle: gp.MerkleOptions{Kind: gp.TritonDigest, Perm: gp.Tip5}}
}

func TestTritonConstants(t *testing.T) {
	if gp.ExtPlonky3 != 0 || gp.ExtTriton != 1 || gp.LeafGroup != 0 || gp.LeafElement != 1 ||
		gp.TritonDigest != 9 || gp.SplitTriton != 2 {
		t.Fatal("constants differ from gpuprover.h")
	}
	if gp.TritonDigest.String() != "TritonDigest" || gp.ExtTriton.String() != "Triton" {
		t.Fatalf("String = %q, %q", gp.TritonDigest.String(), gp.ExtTriton.String())
	}
	if p := (&gp.MerkleOptions{Kind: gp.TritonDigest}).PermutationFor(gp.Goldilocks); p != gp.Tip5 {
		t.Fatalf("PermutationFor = %v", p)
	}
}

func TestTritonFRICommitOpenVerify(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(9100))
	const n, final = 64, 4
	opts := tritonFRIOptions(final, gp.ExtTriton)
	codeword := make([]cubic, n)
	for i := range codeword {
		codeword[i] = randomCubic(rng)
	}
	flat := flatten(codeword)
	betas := make([]cubic, 4)
	for i := range betas {
		betas[i] = randomCubic(rng)
	}
	fri, err := ctx.FRIBeginHost(gp.Goldilocks, 3, flat, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer fri.Close()
	if fri.LayerCount() != 4 || fri.CapSize() != 40 {
		t.Fatalf("%d layers, caps of %d bytes", fri.LayerCount(), fri.CapSize())
	}
	// Layer 0: leaf i is codeword value i as a digest.
	cw, err := ctx.BufferFromHost(gp.Goldilocks, 3, n, 1, gp.RowMajor, flat)
	if err != nil {
		t.Fatal(err)
	}
	defer cw.Close()
	tree, err := ctx.MerkleCommit(&opts.Merkle, cw)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if r, _ := tree.Root(); !bytes.Equal(r, fri.Cap(0)) {
		t.Fatal("layer 0 cap is not the TritonDigest root of the codeword")
	}
	layer, shift := codeword, uint64(tritonShift)
	m := modp{goldilocksP}
	for _, beta := range betas {
		if err := fri.Fold(beta[:]); err != nil {
			t.Fatal(err)
		}
		layer = naiveTritonFold(t, layer, beta, shift, gp.ExtTriton)
		shift = m.mul(shift, shift)
	}
	rem, err := fri.Remainder()
	if err != nil {
		t.Fatal(err)
	}
	if !equalU64(rem.([]uint64), flatten(layer)) {
		t.Fatal("remainder differs from the naive Triton fold")
	}
	// Per layer: two cubic values, then one path per member.
	want := 0
	for k := 0; k < 4; k++ {
		want += 2*24 + 2*(6-k)*40
	}
	if fri.OpeningSize() != want {
		t.Fatalf("OpeningSize = %d, want %d", fri.OpeningSize(), want)
	}
	indices := []uint64{0, n - 1, 21, 42}
	openings, err := fri.Open(indices...)
	if err != nil {
		t.Fatal(err)
	}
	for i, idx := range indices {
		o := openings[i]
		if len(o) != want {
			t.Fatalf("opening of %d bytes", len(o))
		}
		if err := fri.Verify(idx, o); err != nil {
			t.Fatal(err)
		}
		if err := gp.FRIVerify(opts, gp.Goldilocks, 3, n, fri.Caps(), fri.Betas(), rem, idx, o); err != nil {
			t.Fatal(err)
		}
		for _, at := range []int{0, 48 + 5, len(o) - 1} { // a value, a path, the last path
			bad := append([]byte(nil), o...)
			bad[at] ^= 1
			if err := fri.Verify(idx, bad); !errors.Is(err, gp.ErrVerifyFailed) {
				t.Fatalf("index %d, byte %d flipped: %v", idx, at, err)
			}
		}
	}
	// The same codeword and challenge under Plonky3's cubic: another layer
	// 1, so another cap.
	other, err := ctx.FRIBeginHost(gp.Goldilocks, 3, flat, tritonFRIOptions(final, gp.ExtPlonky3))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if !bytes.Equal(other.Cap(0), fri.Cap(0)) {
		t.Fatal("layer 0 caps differ")
	}
	if err := other.Fold(betas[0][:]); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other.Cap(1), fri.Cap(1)) {
		t.Fatal("the Plonky3 extension gives Triton's layer 1 cap")
	}
	// Triton's extension is cubic.
	if _, err := ctx.FRIBeginHost(gp.Goldilocks, 2, flat[:2*n], opts); !errors.Is(err, gp.ErrUnsupported) {
		t.Fatalf("quadratic codeword: %v", err)
	}
}

func TestTritonDigestTree(t *testing.T) {
	ctx := newContext(t)
	rng := rand.New(rand.NewSource(9200))
	const rows = 16
	values := make([]cubic, rows)
	for i := range values {
		values[i] = randomCubic(rng)
	}
	buf, err := ctx.BufferFromHost(gp.Goldilocks, 3, rows, 1, gp.RowMajor, flatten(values))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	opts := &gp.MerkleOptions{Kind: gp.TritonDigest}
	tree, err := ctx.MerkleCommit(opts, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	hashed, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.Triton}, buf)
	if err != nil {
		t.Fatal(err)
	}
	defer hashed.Close()
	if tree.DigestSize() != 40 || hashed.DigestSize() != 40 {
		t.Fatalf("digests of %d and %d bytes", tree.DigestSize(), hashed.DigestSize())
	}
	root, _ := tree.Root()
	hroot, _ := hashed.Root()
	if bytes.Equal(root, hroot) {
		t.Fatal("the TritonDigest root equals the Triton root")
	}
	// Leaves are the rows themselves, zero-filled to five elements.
	leaves, err := ctx.MerkleHashRows(opts, buf)
	if err != nil || len(leaves) != rows*40 {
		t.Fatalf("%d leaf bytes, %v", len(leaves), err)
	}
	for _, r := range []int{0, 7, 15} {
		want := append(append([]uint64(nil), values[r][:]...), 0, 0)
		if got := words(gp.Goldilocks, leaves[r*40:(r+1)*40]); !equalU64(got, want) {
			t.Fatalf("leaf %d = %v, want %v", r, got, want)
		}
	}
	openings, err := tree.Open(0, 9, 15)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		if !equalU64(o.Rows.([]uint64), values[o.Index][:]) || len(o.Path) != 4*40 {
			t.Fatalf("opening %d: %v, path of %d bytes", o.Index, o.Rows, len(o.Path))
		}
		if err := tree.Verify(o); err != nil {
			t.Fatal(err)
		}
		o.Path = append([]byte(nil), o.Path...)
		o.Path[3] ^= 1
		expectError(t, tree.Verify(o), gp.ErrVerifyFailed)
	}
	// Six elements do not fit a digest.
	wide := newBuffer(t, ctx, gp.Goldilocks, 3, 8, 2)
	if _, err := ctx.MerkleCommit(opts, wide); !errors.Is(err, gp.ErrShapeMismatch) {
		t.Fatalf("two cubic columns: %v", err)
	}
}

func TestTritonOODExtensions(t *testing.T) {
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(9300))
	coeffs, lde := ldeColumns(t, ctx, rng, 16, 2, 4, gp.Natural)
	z := randomCubic(rng)
	got := map[gp.Extension][]uint64{}
	for _, ext := range []gp.Extension{gp.ExtTriton, gp.ExtPlonky3} {
		v, err := ctx.EvaluateOOD(&gp.OODOptions{Extension: ext}, z[:], lde)
		if err != nil {
			t.Fatal(err)
		}
		values := v.([]uint64)
		if len(values) != 2*3 {
			t.Fatalf("%d values", len(values))
		}
		for c := range coeffs {
			want := cHorner(coeffs[c], z, ext)
			if !equalU64(values[3*c:3*c+3], want[:]) {
				t.Fatalf("%v, column %d: %v, want %v", ext, c, values[3*c:3*c+3], want)
			}
		}
		got[ext] = values
	}
	if equalU64(got[gp.ExtTriton], got[gp.ExtPlonky3]) {
		t.Fatal("Triton and Plonky3 cubics give the same values")
	}
	// Triton's extension is cubic.
	_, err := ctx.EvaluateOOD(&gp.OODOptions{ChallengeDegree: 2, Extension: gp.ExtTriton}, []uint64{3, 4}, lde)
	if !errors.Is(err, gp.ErrUnsupported) {
		t.Fatalf("quadratic Triton points: %v", err)
	}
}

func TestTritonQuotientSegments(t *testing.T) {
	// h(x) = sum_i x^i h_i(x^D): segment i holds coefficients i, i + D, ...
	// of h, extended on Triton's FRI domain (shift 7, natural order).
	ctx := newContext(t)
	m := modp{goldilocksP}
	rng := rand.New(rand.NewSource(9400))
	const n, d, blowup = 8, 4, 2
	h := randomValues(rng, goldilocksP, n*d)
	w := root(t, gp.Goldilocks, n*d)
	ev := make([]uint64, n*d)
	for r := range ev {
		ev[r] = m.eval(h, m.mul(tritonShift, m.pow(w, uint64(r))))
	}
	buf, err := ctx.BufferFromHost(gp.Goldilocks, 1, n*d, 1, gp.ColMajor, ev)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	opts := &gp.ConstraintOptions{Split: gp.SplitTriton, Segments: d, Blowup: blowup, Shift: tritonShift,
		NaturalOrder: true, Merkle: gp.MerkleOptions{Kind: gp.Triton}}
	seg, tree, err := ctx.ConstraintCommit(buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	defer tree.Close()
	wl := root(t, gp.Goldilocks, n*blowup)
	got := download(t, seg, gp.ColMajor)
	for i := 0; i < d; i++ {
		var hi []uint64
		for k := i; k < n*d; k += d {
			hi = append(hi, h[k])
		}
		for r := 0; r < n*blowup; r++ {
			if want := m.eval(hi, m.mul(tritonShift, m.pow(wl, uint64(r)))); got[i*n*blowup+r] != want {
				t.Fatalf("segment %d row %d: %d, want %d", i, r, got[i*n*blowup+r], want)
			}
		}
	}
	other, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.Triton}, seg)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	r1, _ := tree.Root()
	r2, _ := other.Root()
	if !bytes.Equal(r1, r2) {
		t.Fatal("the quotient tree is not the Triton tree of the segments")
	}
	wopts := *opts
	wopts.Split = gp.SplitWinterfell
	seg2, tree2, err := ctx.ConstraintCommit(buf, &wopts)
	if err != nil {
		t.Fatal(err)
	}
	defer seg2.Close()
	defer tree2.Close()
	if r3, _ := tree2.Root(); bytes.Equal(r1, r3) {
		t.Fatal("the Triton and winterfell splits give the same root")
	}
}
