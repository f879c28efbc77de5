// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"reflect"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

const goldilocksP = 0xffffffff00000001

// naiveFold is one arity-2 fold of a Goldilocks layer (base field): the
// positions of a group hold f(x) and f(-x); the folded value is
// (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x), or twice that unhalved.
func naiveFold(t *testing.T, layer []uint64, beta, shiftK uint64, bitReversed, halve bool) []uint64 {
	m := modp{goldilocksP}
	n := uint64(len(layer))
	w := root(t, gp.Goldilocks, n)
	half := n / 2
	out := make([]uint64, half)
	for g := uint64(0); g < half; g++ {
		var a, b, e uint64
		if bitReversed {
			a, b, e = layer[2*g], layer[2*g+1], bitrev(g, log2(n)-1)
		} else {
			a, b, e = layer[g], layer[g+half], g
		}
		x := m.mul(shiftK, m.pow(w, e))
		v := m.add(m.add(a, b), m.mul(beta, m.mul(m.add(a, m.p-b), m.inv(x))))
		if halve {
			v = m.mul(v, m.inv(2))
		}
		out[g] = v
	}
	return out
}

// layerMatrix is a layer as its tree commits it: row g is the group folded
// into position g of the next layer.
func layerMatrix(layer []uint64, bitReversed bool) []uint64 {
	if bitReversed {
		return layer
	}
	half := len(layer) / 2
	out := make([]uint64, 0, len(layer))
	for g := 0; g < half; g++ {
		out = append(out, layer[g], layer[g+half])
	}
	return out
}

func deriveBeta(capb []byte, layer uint32, c int, p uint64) uint64 {
	h := uint64(0xcbf29ce484222325)
	var extra [8]byte
	binary.LittleEndian.PutUint32(extra[:4], layer)
	binary.LittleEndian.PutUint32(extra[4:], uint32(c))
	for _, b := range append(append([]byte(nil), capb...), extra[:]...) {
		h ^= uint64(b)
		h *= 0x100000001b3
	}
	return h % p
}

func TestFRIStepwiseMatchesNaiveFold(t *testing.T) {
	ctx := newContext(t)
	const n = 64
	rng := rand.New(rand.NewSource(8000))
	m := modp{goldilocksP}
	for _, bitReversed := range []bool{true, false} {
		for _, c := range []struct {
			shift uint64
			fold  gp.FRIFold
		}{{1, gp.FoldHalved}, {7, gp.FoldUnhalved}} {
			codeword := randomValues(rng, goldilocksP, n)
			opts := &gp.FRIOptions{FinalSize: 4, NaturalOrder: !bitReversed, Shift: c.shift, Fold: c.fold,
				Merkle: gp.MerkleOptions{CapHeight: 1}}
			buf, err := ctx.BufferFromHost(gp.Goldilocks, 1, n, 1, gp.ColMajor, codeword)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ctx.FRIBegin(buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			buf.Close() // the codeword is copied
			if f.LayerCount() != 4 || f.CapSize() != 64 || len(f.Caps()) != 64 || f.RemainderSize() != 32 {
				t.Fatalf("layers %d cap %d caps %d remainder %d", f.LayerCount(), f.CapSize(), len(f.Caps()), f.RemainderSize())
			}
			layer, shiftK := codeword, c.shift
			for k := uint32(0); k < 4; k++ {
				mat := layerMatrix(layer, bitReversed)
				mb, err := ctx.BufferFromHost(gp.Goldilocks, 1, uint64(len(layer)/2), 2, gp.RowMajor, mat)
				if err != nil {
					t.Fatal(err)
				}
				tree, err := ctx.MerkleCommit(&opts.Merkle, mb)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := tree.Cap()
				if !bytes.Equal(f.Cap(k), want) {
					t.Fatalf("bitrev %v shift %d: cap of layer %d differs", bitReversed, c.shift, k)
				}
				tree.Close()
				mb.Close()
				beta := rng.Uint64() % goldilocksP
				if err := f.Fold([]uint64{beta}); err != nil {
					t.Fatal(err)
				}
				if f.Folded() != k+1 {
					t.Fatalf("folded %d", f.Folded())
				}
				layer = naiveFold(t, layer, beta, shiftK, bitReversed, c.fold == gp.FoldHalved)
				shiftK = m.mul(shiftK, shiftK)
			}
			if len(f.Caps()) != 4*64 {
				t.Fatalf("caps of %d bytes", len(f.Caps()))
			}
			rem, err := f.Remainder()
			if err != nil {
				t.Fatal(err)
			}
			if !equalU64(rem.([]uint64), layer) {
				t.Fatalf("remainder %v, want %v", rem, layer)
			}
			f.Close()
		}
	}
}

func TestFRIConstantCodewords(t *testing.T) {
	ctx := newContext(t)
	cases := []struct {
		field      gp.Field
		ext, arity uint32
		n, final   uint64
		fold       gp.FRIFold
	}{
		{gp.BabyBear, 4, 4, 256, 4, gp.FoldHalved},
		{gp.Goldilocks, 3, 8, 512, 1, gp.FoldHalved},
		{gp.KoalaBear, 4, 2, 32, 2, gp.FoldUnhalved},
	}
	rng := rand.New(rand.NewSource(8100))
	for _, cs := range cases {
		m := fieldOf(t, cs.field)
		c := make([]uint64, cs.ext)
		for i := range c {
			c[i] = (1000 + 17*uint64(i)) % m.p
		}
		var data []uint64
		for i := uint64(0); i < cs.n; i++ {
			data = append(data, c...)
		}
		f, err := ctx.FRIBeginHost(cs.field, cs.ext, hostData(cs.field, data), &gp.FRIOptions{Arity: cs.arity, FinalSize: cs.final, Fold: cs.fold})
		if err != nil {
			t.Fatal(err)
		}
		for f.Folded() < f.LayerCount() {
			if err := f.Fold(hostData(cs.field, randomValues(rng, m.p, int(cs.ext)))); err != nil {
				t.Fatal(err)
			}
		}
		rem, err := f.Remainder()
		if err != nil {
			t.Fatal(err)
		}
		factor := uint64(1)
		if cs.fold == gp.FoldUnhalved {
			factor = m.pow(uint64(cs.arity), uint64(f.LayerCount()))
		}
		var want []uint64
		for i := uint64(0); i < cs.final; i++ {
			for _, x := range c {
				want = append(want, m.mul(x, factor))
			}
		}
		if !reflect.DeepEqual(rem, hostData(cs.field, want)) {
			t.Fatalf("%v: remainder %v, want %v", cs.field, rem, want)
		}
		f.Close()
	}
}

func TestFRICommitFuncEqualsStepwise(t *testing.T) {
	ctx := newContext(t)
	cases := []struct {
		field      gp.Field
		ext, arity uint32
		natural    bool
		n, final   uint64
		capHeight  uint32
		kind       gp.MerkleKind
	}{
		{gp.Goldilocks, 2, 2, false, 128, 1, 0, gp.FieldSponge},
		{gp.KoalaBear, 4, 4, true, 256, 4, 1, gp.FieldSponge},
		{gp.Goldilocks, 1, 8, false, 512, 8, 2, gp.KeccakPlonky3},
	}
	for _, cs := range cases {
		m := fieldOf(t, cs.field)
		opts := &gp.FRIOptions{Arity: cs.arity, FinalSize: cs.final, NaturalOrder: cs.natural,
			Merkle: gp.MerkleOptions{Kind: cs.kind, CapHeight: cs.capHeight}}
		values := randomValues(rand.New(rand.NewSource(int64(8300+cs.n))), m.p, int(cs.n)*int(cs.ext))
		buf, err := ctx.BufferFromHost(cs.field, cs.ext, cs.n, 1, gp.RowMajor, hostData(cs.field, values))
		if err != nil {
			t.Fatal(err)
		}
		var layers []uint32
		var caps [][]byte
		committed, err := ctx.FRICommit(buf, opts, func(layer uint32, capb []byte, beta interface{}) error {
			layers = append(layers, layer)
			caps = append(caps, capb)
			switch b := beta.(type) {
			case []uint64:
				for c := range b {
					b[c] = deriveBeta(capb, layer, c, m.p)
				}
			case []uint32:
				for c := range b {
					b[c] = uint32(deriveBeta(capb, layer, c, m.p))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(layers) != int(committed.LayerCount()) || committed.Folded() != committed.LayerCount() {
			t.Fatalf("%d callbacks for %d layers", len(layers), committed.LayerCount())
		}

		stepped, err := ctx.FRIBegin(buf, opts)
		if err != nil {
			t.Fatal(err)
		}
		for k := uint32(0); k < stepped.LayerCount(); k++ {
			capb := stepped.Cap(k)
			if layers[k] != k || !bytes.Equal(caps[k], capb) {
				t.Fatalf("layer %d: callback saw another cap", k)
			}
			beta := make([]uint64, cs.ext)
			for c := range beta {
				beta[c] = deriveBeta(capb, k, c, m.p)
			}
			if err := stepped.Fold(hostData(cs.field, beta)); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(committed.Caps(), stepped.Caps()) || !reflect.DeepEqual(committed.Betas(), stepped.Betas()) {
			t.Fatal("caps or betas differ")
		}
		r1, _ := committed.Remainder()
		r2, _ := stepped.Remainder()
		if !reflect.DeepEqual(r1, r2) {
			t.Fatal("remainders differ")
		}
		indices := []uint64{0, cs.n - 1, 37 % cs.n, 5}
		o1, err := committed.Open(indices...)
		if err != nil {
			t.Fatal(err)
		}
		o2, _ := stepped.Open(indices...)
		if !reflect.DeepEqual(o1, o2) {
			t.Fatal("openings differ")
		}
		for i, idx := range indices {
			if len(o1[i]) != committed.OpeningSize() {
				t.Fatalf("opening of %d bytes", len(o1[i]))
			}
			if err := committed.Verify(idx, o1[i]); err != nil {
				t.Fatal(err)
			}
			if err := gp.FRIVerify(opts, cs.field, cs.ext, cs.n, committed.Caps(), committed.Betas(), r1, idx, o1[i]); err != nil {
				t.Fatal(err)
			}
		}
		committed.Close()
		stepped.Close()
		buf.Close()
	}
}

func TestFRIFlippedOpeningsFail(t *testing.T) {
	ctx := newContext(t)
	const n = 256
	codeword := randomValues(rand.New(rand.NewSource(8400)), goldilocksP, 2*n)
	opts := &gp.FRIOptions{Arity: 4, FinalSize: 4, Merkle: gp.MerkleOptions{CapHeight: 1}}
	f, err := ctx.FRIBeginHost(gp.Goldilocks, 2, codeword, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewSource(8401))
	for f.Folded() < f.LayerCount() {
		if err := f.Fold(randomValues(rng, goldilocksP, 2)); err != nil {
			t.Fatal(err)
		}
	}
	rem, _ := f.Remainder()
	betas := f.Betas().([]uint64)
	const index = 147
	openings, err := f.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	o := openings[0]
	verify := func(caps []byte, betas, rem []uint64, index uint64, o []byte) error {
		return gp.FRIVerify(opts, gp.Goldilocks, 2, n, caps, betas, rem, index, o)
	}
	if err := verify(f.Caps(), betas, rem.([]uint64), index, o); err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{0, 14, 16, 64, len(o) / 2, len(o) - 1} {
		bad := append([]byte(nil), o...)
		bad[b] ^= 1
		expectError(t, verify(f.Caps(), betas, rem.([]uint64), index, bad), gp.ErrVerifyFailed, "gp_fri_verify")
	}
	// Index 147 is in group 36 of 64, under the second cap digest.
	caps := f.Caps()
	caps[35] ^= 0x10
	expectError(t, verify(caps, betas, rem.([]uint64), index, o), gp.ErrVerifyFailed)
	b2 := append([]uint64(nil), betas...)
	b2[1] = (b2[1] + 1) % goldilocksP
	expectError(t, verify(f.Caps(), b2, rem.([]uint64), index, o), gp.ErrVerifyFailed)
	r2 := append([]uint64(nil), rem.([]uint64)...)
	for i := range r2 {
		r2[i] = (r2[i] + 1) % goldilocksP
	}
	expectError(t, verify(f.Caps(), betas, r2, index, o), gp.ErrVerifyFailed)
	// 146 shares every group with 147; 151 is in another one.
	if err := verify(f.Caps(), betas, rem.([]uint64), index^1, o); err != nil {
		t.Fatal(err)
	}
	expectError(t, verify(f.Caps(), betas, rem.([]uint64), index^4, o), gp.ErrVerifyFailed)
	// Malformed sizes are not verification failures.
	expectError(t, verify(f.Caps(), betas, rem.([]uint64), index, o[1:]), gp.ErrShapeMismatch)
	expectError(t, verify(f.Caps()[1:], betas, rem.([]uint64), index, o), gp.ErrShapeMismatch)
	expectError(t, verify(f.Caps(), betas[1:], rem.([]uint64), index, o), gp.ErrShapeMismatch)
	expectError(t, verify(f.Caps(), betas, rem.([]uint64), n, o), gp.ErrInvalidArgument)
	if err := f.Verify(index, o); err != nil {
		t.Fatal(err)
	}
}

type customError struct{}

func (customError) Error() string { return "transcript closed" }

func TestFRICommitFuncErrorsAndPanics(t *testing.T) {
	ctx := newContext(t)
	const n = 64
	buf, err := ctx.BufferFromHost(gp.Goldilocks, 1, n, 1, gp.ColMajor, randomValues(rand.New(rand.NewSource(8500)), goldilocksP, n))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	// The function's own error is returned as it is.
	for _, stopAt := range []uint32{0, 3} {
		calls := 0
		_, err := ctx.FRICommit(buf, nil, func(layer uint32, _ []byte, beta interface{}) error {
			calls++
			if layer == stopAt {
				return customError{}
			}
			beta.([]uint64)[0] = 5
			return nil
		})
		if !errors.As(err, new(customError)) || calls != int(stopAt)+1 {
			t.Fatalf("stop at %d: %v after %d calls", stopAt, err, calls)
		}
	}
	_, err = ctx.FRICommit(buf, nil, func(uint32, []byte, interface{}) error { return gp.ErrUnsupported })
	if !errors.Is(err, gp.ErrUnsupported) {
		t.Fatalf("status error: %v", err)
	}
	// A non-canonical challenge is the library's error.
	_, err = ctx.FRICommit(buf, nil, func(_ uint32, _ []byte, beta interface{}) error {
		beta.([]uint64)[0] = goldilocksP
		return nil
	})
	expectError(t, err, gp.ErrNonCanonical)
	_, err = ctx.FRICommit(buf, nil, nil)
	expectError(t, err, gp.ErrNullPointer)

	// A panic is re-raised after the library returned; the context still works.
	calls := 0
	func() {
		defer func() {
			if r := recover(); r != "challenge failed" {
				t.Fatalf("recovered %v", r)
			}
		}()
		ctx.FRICommit(buf, nil, func(layer uint32, _ []byte, beta interface{}) error {
			calls++
			if layer == 2 {
				panic("challenge failed")
			}
			beta.([]uint64)[0] = 1
			return nil
		})
		t.Fatal("no panic")
	}()
	if calls != 3 {
		t.Fatalf("%d calls", calls)
	}
	f, err := ctx.FRICommit(buf, nil, func(_ uint32, _ []byte, beta interface{}) error {
		beta.([]uint64)[0] = 3
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestFRIErrors(t *testing.T) {
	ctx := newContext(t)
	const n = 64
	codeword := randomValues(rand.New(rand.NewSource(8700)), goldilocksP, n)
	begin := func(o *gp.FRIOptions) error {
		f, err := ctx.FRIBeginHost(gp.Goldilocks, 1, codeword, o)
		if err == nil {
			f.Close()
		}
		return err
	}
	expectError(t, begin(&gp.FRIOptions{Arity: 3}), gp.ErrInvalidArgument, "arity")
	expectError(t, begin(&gp.FRIOptions{FinalSize: 64}), gp.ErrInvalidArgument, "final_size")
	expectError(t, begin(&gp.FRIOptions{FinalSize: 3}), gp.ErrInvalidArgument)
	expectError(t, begin(&gp.FRIOptions{Arity: 8, FinalSize: 2}), gp.ErrInvalidArgument)
	expectError(t, begin(&gp.FRIOptions{Shift: goldilocksP}), gp.ErrInvalidArgument, "shift")
	expectError(t, begin(&gp.FRIOptions{Merkle: gp.MerkleOptions{CapHeight: 1}}), gp.ErrInvalidArgument, "CapHeight")
	expectError(t, begin(&gp.FRIOptions{Merkle: gp.MerkleOptions{Kind: gp.Miden, Perm: gp.Poseidon2Goldilocks8}}), gp.ErrInvalidArgument)
	_, err := ctx.FRIBeginHost(gp.Goldilocks, 1, codeword[:48], nil)
	expectError(t, err, gp.ErrInvalidArgument)
	_, err = ctx.FRIBeginHost(gp.BabyBear, 1, codeword, nil)
	expectError(t, err, gp.ErrFieldMismatch)
	_, err = ctx.FRIBeginHost(gp.Goldilocks, 2, codeword[:63], nil)
	expectError(t, err, gp.ErrShapeMismatch)
	two := newBuffer(t, ctx, gp.Goldilocks, 1, 32, 2)
	_, err = ctx.FRIBegin(two, nil)
	expectError(t, err, gp.ErrShapeMismatch)

	f, err := ctx.FRIBeginHost(gp.Goldilocks, 1, codeword, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Remainder()
	expectError(t, err, gp.ErrInvalidArgument)
	_, err = f.Open(0)
	expectError(t, err, gp.ErrInvalidArgument)
	expectError(t, f.Fold([]uint64{1, 2}), gp.ErrShapeMismatch)
	expectError(t, f.Fold([]uint32{1}), gp.ErrFieldMismatch)
	expectError(t, f.Fold([]uint64{goldilocksP}), gp.ErrNonCanonical)
	for f.Folded() < f.LayerCount() {
		if err := f.Fold([]uint64{9}); err != nil {
			t.Fatal(err)
		}
	}
	expectError(t, f.Fold([]uint64{9}), gp.ErrInvalidArgument, "folded")
	_, err = f.Open(n)
	expectError(t, err, gp.ErrInvalidArgument)
	o, err := f.Open(n - 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(n-1, o[0]); err != nil {
		t.Fatal(err)
	}

	// Closing: a closed FRI reports ErrClosed; closing the context closes it.
	f.Close()
	f.Close()
	if _, err := f.Remainder(); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed FRI: %v", err)
	}
	ctx2, _ := gp.NewContext(nil)
	g, err := ctx2.FRIBeginHost(gp.Goldilocks, 1, codeword, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Fold([]uint64{1}); err != nil {
		t.Fatal(err)
	}
	ctx2.Close()
	if err := g.Fold([]uint64{1}); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("FRI of a closed context: %v", err)
	}
	g.Close()
}
