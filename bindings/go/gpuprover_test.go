// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand"
	"strings"
	"sync"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// ---------------------------------------------------------------------------
// Naive modular arithmetic: 128-bit products with math/bits.

type modp struct {
	p uint64
}

func (m modp) add(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 || s >= m.p {
		s -= m.p
	}
	return s
}

func (m modp) mul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	_, rem := bits.Div64(hi, lo, m.p) // hi < p since a, b < p
	return rem
}

func (m modp) pow(a, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = m.mul(r, a)
		}
		a = m.mul(a, a)
	}
	return r
}

func (m modp) inv(a uint64) uint64 { return m.pow(a, m.p-2) }

// eval returns sum_k coeffs[k] * x^k (Horner).
func (m modp) eval(coeffs []uint64, x uint64) uint64 {
	r := uint64(0)
	for k := len(coeffs) - 1; k >= 0; k-- {
		r = m.add(m.mul(r, x), coeffs[k])
	}
	return r
}

// interpolate returns the coefficients of the polynomial of degree < n with
// f(s*w^i) = v[i]: c_k = s^-k n^-1 sum_i v_i w^-ik, in O(n^2).
func (m modp) interpolate(v []uint64, s, w uint64) []uint64 {
	n := uint64(len(v))
	winv, sinv, ninv := m.inv(w), m.inv(s), m.inv(n)
	c := make([]uint64, n)
	for k := uint64(0); k < n; k++ {
		c[k] = m.mul(m.mul(m.eval(v, m.pow(winv, k)), ninv), m.pow(sinv, k))
	}
	return c
}

func bitrev(i uint64, logN uint) uint64 {
	if logN == 0 {
		return 0
	}
	return bits.Reverse64(i) >> (64 - logN)
}

func log2(n uint64) uint { return uint(bits.TrailingZeros64(n)) }

// ---------------------------------------------------------------------------
// Fixtures

var fields = []gp.Field{gp.Goldilocks, gp.BabyBear, gp.KoalaBear}

func newContext(t *testing.T) *gp.Context {
	t.Helper()
	ctx, err := gp.NewContext(nil)
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

func newBuffer(t *testing.T, ctx *gp.Context, f gp.Field, ext uint32, rows, cols uint64) *gp.Buffer {
	t.Helper()
	b, err := ctx.NewBuffer(f, ext, rows, cols)
	if err != nil {
		t.Fatalf("NewBuffer(%v, %d, %d, %d): %v", f, ext, rows, cols, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func fieldOf(t *testing.T, f gp.Field) modp {
	t.Helper()
	info, err := f.Info()
	if err != nil {
		t.Fatalf("%v.Info: %v", f, err)
	}
	return modp{info.Modulus}
}

// root returns the library's primitive n-th root of unity after checking
// that it has order exactly n.
func root(t *testing.T, f gp.Field, n uint64) uint64 {
	t.Helper()
	m := fieldOf(t, f)
	w, err := f.TwoAdicGenerator(uint32(log2(n)))
	if err != nil {
		t.Fatalf("%v.TwoAdicGenerator(%d): %v", f, log2(n), err)
	}
	if m.pow(w, n) != 1 || (n > 1 && m.pow(w, n/2) != m.p-1) {
		t.Fatalf("%v: %d is not a primitive %d-th root of unity", f, w, n)
	}
	return w
}

// hostData holds canonical field values as the Go type of the field.
func hostData(f gp.Field, vals []uint64) interface{} {
	if f.ElementSize() == 8 {
		return vals
	}
	out := make([]uint32, len(vals))
	for i, v := range vals {
		out[i] = uint32(v)
	}
	return out
}

func download(t *testing.T, b *gp.Buffer, layout gp.Layout) []uint64 {
	t.Helper()
	if b.Field().ElementSize() == 8 {
		v, err := b.Uint64s(layout)
		if err != nil {
			t.Fatalf("Uint64s: %v", err)
		}
		return v
	}
	v, err := b.Uint32s(layout)
	if err != nil {
		t.Fatalf("Uint32s: %v", err)
	}
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

func randomValues(rng *rand.Rand, p uint64, n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = rng.Uint64() % p
	}
	return v
}

// index of base value k of element (r, c) of a rows x cols matrix.
func index(layout gp.Layout, rows, cols, r, c uint64, ext uint32, k int) uint64 {
	if layout == gp.RowMajor {
		return (r*cols+c)*uint64(ext) + uint64(k)
	}
	return (c*rows+r)*uint64(ext) + uint64(k)
}

// ---------------------------------------------------------------------------
// Tests

func TestVersionAndContext(t *testing.T) {
	if gp.Version() == "" || gp.VersionNumber() == 0 {
		t.Fatalf("Version %q, VersionNumber %d", gp.Version(), gp.VersionNumber())
	}
	ctx := newContext(t)
	if b := ctx.Backend(); b != gp.BackendCPU && b != gp.BackendCUDA {
		t.Fatalf("Backend() = %v", b)
	}
	if ctx.DeviceName() == "" {
		t.Fatal("DeviceName() is empty")
	}
	t.Logf("backend %v, device %q, library %s", ctx.Backend(), ctx.DeviceName(), gp.Version())

	cpu, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, CPUThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	if cpu.Backend() != gp.BackendCPU {
		t.Fatalf("CPU context runs on %v", cpu.Backend())
	}

	// Without a usable GPU, the automatic backend is the CPU and asking for
	// CUDA fails with ErrNoDevice and a message saying why.
	if ctx.Backend() == gp.BackendCPU {
		_, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCUDA, Devices: []int32{0}})
		var gerr *gp.Error
		if !errors.Is(err, gp.ErrNoDevice) || !errors.As(err, &gerr) || gerr.Message == "" {
			t.Fatalf("NewContext(CUDA) without GPU: %v", err)
		}
	}
}

func TestFieldInfo(t *testing.T) {
	want := map[gp.Field]gp.FieldInfo{
		gp.Goldilocks: {0xffffffff00000001, 7, 32},
		gp.BabyBear:   {0x78000001, 31, 27},
		gp.KoalaBear:  {0x7f000001, 3, 24},
	}
	for f, w := range want {
		got, err := f.Info()
		if err != nil || got != w {
			t.Errorf("%v.Info() = %+v, %v; want %+v", f, got, err, w)
		}
		for logN := uint32(0); logN <= w.TwoAdicity; logN++ {
			root(t, f, 1<<logN)
		}
		if _, err := f.TwoAdicGenerator(w.TwoAdicity + 1); err == nil {
			t.Errorf("%v.TwoAdicGenerator(%d) succeeded", f, w.TwoAdicity+1)
		}
	}
	// Plonky3's Goldilocks two-adic generator.
	if w, _ := gp.Goldilocks.TwoAdicGenerator(32); w != 1753635133440165772 {
		t.Errorf("Goldilocks 2^32-th root = %d", w)
	}
}

// TestLDENaive checks LDEHost and LDE against a naive O(n^2) evaluation:
// random polynomials f_c of degree < n, input f_c(s*w_n^i), output
// f_c(g*w_nB^j) in natural or bit-reversed order.
func TestLDENaive(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ctx := newContext(t)
	type tc struct {
		field  gp.Field
		ext    uint32
		n      uint64
		cols   uint64
		blowup uint32
		opts   gp.LDEOptions
	}
	var cases []tc
	for _, f := range fields {
		gen, _ := f.Info()
		for _, blowup := range []uint32{1, 2, 4, 8} {
			cases = append(cases,
				tc{f, 1, 16, 3, blowup, gp.LDEOptions{Blowup: blowup}},
				tc{f, 1, 32, 2, blowup, gp.LDEOptions{Blowup: blowup, OutputOrder: gp.BitReversed}},
				tc{f, 1, 8, 2, blowup, gp.LDEOptions{Blowup: blowup, InputLayout: gp.RowMajor, Shift: 5, InputShift: gen.Generator}},
			)
		}
		cases = append(cases, tc{f, 1, 1, 1, 4, gp.LDEOptions{Blowup: 4}})
		cases = append(cases, tc{f, 1, 64, 1, 32, gp.LDEOptions{Blowup: 32, OutputOrder: gp.BitReversed}})
	}
	cases = append(cases,
		tc{gp.Goldilocks, 2, 16, 3, 4, gp.LDEOptions{Blowup: 4, OutputOrder: gp.BitReversed}},
		tc{gp.Goldilocks, 3, 8, 2, 2, gp.LDEOptions{Blowup: 2, InputLayout: gp.RowMajor}},
		tc{gp.BabyBear, 4, 16, 2, 4, gp.LDEOptions{Blowup: 4, InputLayout: gp.RowMajor, OutputOrder: gp.BitReversed}},
		tc{gp.KoalaBear, 4, 8, 3, 2, gp.LDEOptions{Blowup: 2}},
	)
	for _, c := range cases {
		name := fmt.Sprintf("%v^%d/n=%d/cols=%d/%+v", c.field, c.ext, c.n, c.cols, c.opts)
		t.Run(name, func(t *testing.T) {
			m := fieldOf(t, c.field)
			info, _ := c.field.Info()
			N := c.n * uint64(c.blowup)
			wn, wN := root(t, c.field, c.n), root(t, c.field, N)
			if m.pow(wN, uint64(c.blowup)) != wn {
				t.Fatalf("roots of orders %d and %d are inconsistent", N, c.n)
			}
			s := c.opts.InputShift
			if s == 0 {
				s = 1
			}
			g := c.opts.Shift
			if g == 0 {
				g = info.Generator
			}
			width := int(c.cols) * int(c.ext)
			input := make([]uint64, int(c.n)*width)
			want := make([]uint64, int(N)*width) // column-major output
			for col := uint64(0); col < c.cols; col++ {
				for k := 0; k < int(c.ext); k++ {
					coeffs := randomValues(rng, m.p, int(c.n))
					for i := uint64(0); i < c.n; i++ {
						x := m.mul(s, m.pow(wn, i))
						input[index(c.opts.InputLayout, c.n, c.cols, i, col, c.ext, k)] = m.eval(coeffs, x)
					}
					for j := uint64(0); j < N; j++ {
						e := j
						if c.opts.OutputOrder == gp.BitReversed {
							e = bitrev(j, log2(N))
						}
						x := m.mul(g, m.pow(wN, e))
						want[index(gp.ColMajor, N, c.cols, j, col, c.ext, k)] = m.eval(coeffs, x)
					}
				}
			}
			out := newBuffer(t, ctx, c.field, c.ext, N, c.cols)
			opts := c.opts
			if err := ctx.LDEHost(c.field, c.ext, hostData(c.field, input), c.n, c.cols, out, &opts); err != nil {
				t.Fatalf("LDEHost: %v", err)
			}
			got := download(t, out, gp.ColMajor)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("LDEHost output[%d] = %d, want %d", i, got[i], want[i])
				}
			}
			// The same from a device buffer, and downloaded row-major.
			in, err := ctx.BufferFromHost(c.field, c.ext, c.n, c.cols, c.opts.InputLayout, hostData(c.field, input))
			if err != nil {
				t.Fatalf("BufferFromHost: %v", err)
			}
			defer in.Close()
			out2 := newBuffer(t, ctx, c.field, c.ext, N, c.cols)
			if err := ctx.LDE(in, out2, &opts); err != nil {
				t.Fatalf("LDE: %v", err)
			}
			got = download(t, out2, gp.RowMajor)
			for j := uint64(0); j < N; j++ {
				for col := uint64(0); col < c.cols; col++ {
					for k := 0; k < int(c.ext); k++ {
						a := got[index(gp.RowMajor, N, c.cols, j, col, c.ext, k)]
						b := want[index(gp.ColMajor, N, c.cols, j, col, c.ext, k)]
						if a != b {
							t.Fatalf("LDE output (%d, %d)[%d] = %d, want %d", j, col, k, a, b)
						}
					}
				}
			}
		})
	}
}

// TestLDEVirtualPadding: an input with fewer rows than n is zero-padded.
func TestLDEVirtualPadding(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	ctx := newContext(t)
	for _, f := range fields {
		m := fieldOf(t, f)
		info, _ := f.Info()
		const n, rows, blowup = 16, 5, 2
		v := randomValues(rng, m.p, rows)
		padded := append(append([]uint64{}, v...), make([]uint64, n-rows)...)
		coeffs := m.interpolate(padded, 1, root(t, f, n))
		wN := root(t, f, n*blowup)
		out := newBuffer(t, ctx, f, 1, n*blowup, 1)
		if err := ctx.LDEHost(f, 1, hostData(f, v), rows, 1, out, &gp.LDEOptions{N: n, Blowup: blowup}); err != nil {
			t.Fatalf("%v: LDEHost: %v", f, err)
		}
		got := download(t, out, gp.ColMajor)
		for j := range got {
			if w := m.eval(coeffs, m.mul(info.Generator, m.pow(wN, uint64(j)))); got[j] != w {
				t.Fatalf("%v: output[%d] = %d, want %d", f, j, got[j], w)
			}
		}
	}
}

func TestNTTNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	ctx := newContext(t)
	for _, f := range fields {
		m := fieldOf(t, f)
		const n, cols = 32, 2
		w := root(t, f, n)
		for _, shift := range []uint64{0, 11} {
			for _, orders := range [][2]gp.Order{{gp.Natural, gp.Natural}, {gp.BitReversed, gp.Natural}, {gp.Natural, gp.BitReversed}} {
				coeffs := randomValues(rng, m.p, n*cols)
				in := make([]uint64, n*cols) // coefficients, in input order
				for c := 0; c < cols; c++ {
					for i := uint64(0); i < n; i++ {
						src := i
						if orders[0] == gp.BitReversed {
							src = bitrev(i, log2(n))
						}
						in[c*n+int(i)] = coeffs[c*n+int(src)]
					}
				}
				buf, err := ctx.BufferFromHost(f, 1, n, cols, gp.ColMajor, hostData(f, in))
				if err != nil {
					t.Fatal(err)
				}
				opts := &gp.NTTOptions{Shift: shift, InputOrder: orders[0], OutputOrder: orders[1]}
				if err := ctx.NTT(buf, opts); err != nil {
					t.Fatalf("%v NTT %+v: %v", f, opts, err)
				}
				got := download(t, buf, gp.ColMajor)
				s := shift
				if s == 0 {
					s = 1
				}
				for c := 0; c < cols; c++ {
					for i := uint64(0); i < n; i++ {
						e := i
						if orders[1] == gp.BitReversed {
							e = bitrev(i, log2(n))
						}
						want := m.eval(coeffs[c*n:(c+1)*n], m.mul(s, m.pow(w, e)))
						if got[c*n+int(i)] != want {
							t.Fatalf("%v NTT %+v: out[%d][%d] = %d, want %d", f, opts, c, i, got[c*n+int(i)], want)
						}
					}
				}
				buf.Close()
			}
		}
	}
}

// TestNTTWinterfellRoot: NTTOptions.Root with winterfell's Goldilocks root
// (math/src/field/f64/mod.rs of winterfell v0.13.1): evaluations at
// s * w^i with winterfell's w, and back.
func TestNTTWinterfellRoot(t *testing.T) {
	const wfRoot = 7277203076849721926
	rng := rand.New(rand.NewSource(5))
	ctx := newContext(t)
	m := fieldOf(t, gp.Goldilocks)
	const n = 16
	w := m.pow(wfRoot, (1<<32)/n)
	coeffs := randomValues(rng, m.p, n)
	buf, err := ctx.BufferFromHost(gp.Goldilocks, 1, n, 1, gp.ColMajor, hostData(gp.Goldilocks, coeffs))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	if err := ctx.NTT(buf, &gp.NTTOptions{Shift: 7, Root: wfRoot}); err != nil {
		t.Fatal(err)
	}
	got := download(t, buf, gp.ColMajor)
	for i := uint64(0); i < n; i++ {
		if want := m.eval(coeffs, m.mul(7, m.pow(w, i))); got[i] != want {
			t.Fatalf("out[%d] = %d, want %d", i, got[i], want)
		}
	}
	if err := ctx.NTT(buf, &gp.NTTOptions{Direction: gp.Inverse, Shift: 7, Root: wfRoot}); err != nil {
		t.Fatal(err)
	}
	got = download(t, buf, gp.ColMajor)
	for i := range coeffs {
		if got[i] != coeffs[i] {
			t.Fatalf("round trip [%d] = %d, want %d", i, got[i], coeffs[i])
		}
	}
	if err := ctx.NTT(buf, &gp.NTTOptions{Root: 5}); !errors.Is(err, gp.ErrInvalidArgument) {
		t.Fatalf("root 5: %v, want ErrInvalidArgument", err)
	}
}

func TestNTTRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	ctx := newContext(t)
	for _, f := range fields {
		m := fieldOf(t, f)
		for logN := uint(0); logN <= 12; logN += 3 {
			n := uint64(1) << logN
			const cols = 3
			for _, shift := range []uint64{0, 7, 123456} {
				for _, order := range []gp.Order{gp.Natural, gp.BitReversed} {
					data := randomValues(rng, m.p, int(n)*cols)
					buf, err := ctx.BufferFromHost(f, 1, n, cols, gp.ColMajor, hostData(f, data))
					if err != nil {
						t.Fatal(err)
					}
					fwd := &gp.NTTOptions{Direction: gp.Forward, Shift: shift, OutputOrder: order}
					inv := &gp.NTTOptions{Direction: gp.Inverse, Shift: shift, InputOrder: order}
					if err := ctx.NTT(buf, fwd); err != nil {
						t.Fatal(err)
					}
					if err := ctx.NTT(buf, inv); err != nil {
						t.Fatal(err)
					}
					got := download(t, buf, gp.ColMajor)
					for i := range data {
						if got[i] != data[i] {
							t.Fatalf("%v n=%d shift=%d order=%d: round trip [%d] = %d, want %d", f, n, shift, order, i, got[i], data[i])
						}
					}
					buf.Close()
				}
			}
		}
	}
}

// Keccak-f[1600] of the all-zero state (the Keccak team's known answer).
var keccakZero = [25]uint64{
	0xF1258F7940E1DDE7, 0x84D5CCF933C0478A, 0xD598261EA65AA9EE, 0xBD1547306F80494D,
	0x8B284E056253D057, 0xFF97A42D7F8E6FD4, 0x90FEE5A0A44647C4, 0x8C5BDA0CD6192E76,
	0xAD30A6F71B19059C, 0x30935AB7D08FFC64, 0xEB5AA93F2317D635, 0xA9A6E6260D712103,
	0x81A57C16DBCF555F, 0x43B831CD0347C826, 0x01F22F1A11A5569F, 0x05E5635A21D9AE61,
	0x64BEFEF28CC970F2, 0x613670957BC46611, 0xB87C5A554FD00ECB, 0x8C3EE88A1CCF32C8,
	0x940C7922AE3A2614, 0x1841F924A2C509E4, 0x16F53526E70465C2, 0x75F644E97F30A13B,
	0xEAF1FF7B5CECA249,
}

func TestKeccakZeroState(t *testing.T) {
	ctx := newContext(t)
	width, field, err := gp.KeccakF1600.Info()
	if err != nil || width != 25 || field != 0 {
		t.Fatalf("KeccakF1600.Info() = %d, %v, %v", width, field, err)
	}
	states := make([]uint64, 3*25) // three zero states
	if err := ctx.PermuteBatch(gp.KeccakF1600, states); err != nil {
		t.Fatalf("PermuteBatch: %v", err)
	}
	if states[0] != 0xF1258F7940E1DDE7 {
		t.Fatalf("first lane = %#x, want 0xf1258f7940e1dde7", states[0])
	}
	for s := 0; s < 3; s++ {
		for i, want := range keccakZero {
			if got := states[s*25+i]; got != want {
				t.Fatalf("state %d lane %d = %#x, want %#x", s, i, got, want)
			}
		}
	}
}

func TestBlake3IsAHash(t *testing.T) {
	ctx := newContext(t)
	if gp.Blake3 != 19 {
		t.Fatalf("Blake3 = %d", int(gp.Blake3))
	}
	width, field, err := gp.Blake3.Info()
	if err != nil || width != 16 || field != 0 {
		t.Fatalf("Blake3.Info() = %d, %v, %v", width, field, err)
	}
	// Refused whatever the states, as gp_permute_batch does.
	for _, states := range []interface{}{make([]uint64, 16), make([]uint32, 16), make([]uint64, 5), []uint64{}} {
		expectError(t, ctx.PermuteBatch(gp.Blake3, states), gp.ErrUnsupported, "BLAKE3")
	}
	expectError(t, gp.PermuteBatch(ctx, gp.Blake3, make([]uint64, 16)), gp.ErrUnsupported, "BLAKE3")
	expectError(t, gp.PermuteBatch(ctx, gp.Blake3, make([]uint32, 3)), gp.ErrUnsupported, "BLAKE3")
}

func TestPermutationsBatch(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	ctx := newContext(t)
	perms := []gp.Permutation{
		gp.Poseidon2Goldilocks8, gp.Poseidon2Goldilocks12, gp.Poseidon2Goldilocks16, gp.Poseidon2GoldilocksHL8,
		gp.Poseidon2BabyBear16, gp.Poseidon2BabyBear24, gp.Poseidon2KoalaBear16, gp.Poseidon2KoalaBear24,
		gp.RPO256, gp.RPX256, gp.PoseidonGoldilocks12, gp.Tip5, gp.KeccakF1600,
	}
	for _, p := range perms {
		width, field, err := p.Info()
		if err != nil {
			t.Fatalf("%d.Info: %v", p, err)
		}
		mod := ^uint64(0)
		if field != 0 {
			mod = fieldOf(t, field).p
		}
		esz := 8
		if field != 0 {
			esz = field.ElementSize()
		}
		// A batch of 5 states equals 5 batches of one.
		vals := randomValues(rng, mod, 5*width)
		conv := func(v []uint64) interface{} {
			if esz == 8 {
				return v
			}
			return hostData(gp.BabyBear, v)
		}
		batch := conv(append([]uint64{}, vals...))
		if err := ctx.PermuteBatch(p, batch); err != nil {
			t.Fatalf("perm %d: %v", p, err)
		}
		for s := 0; s < 5; s++ {
			one := conv(append([]uint64{}, vals[s*width:(s+1)*width]...))
			if err := ctx.PermuteBatch(p, one); err != nil {
				t.Fatalf("perm %d: %v", p, err)
			}
			switch b := batch.(type) {
			case []uint64:
				o := one.([]uint64)
				for i := range o {
					if b[s*width+i] != o[i] {
						t.Fatalf("perm %d: batch state %d differs", p, s)
					}
				}
			case []uint32:
				o := one.([]uint32)
				for i := range o {
					if b[s*width+i] != o[i] {
						t.Fatalf("perm %d: batch state %d differs", p, s)
					}
				}
			}
		}
		// A partial state is refused.
		if err := ctx.PermuteBatch(p, conv(make([]uint64, width+1))); !errors.Is(err, gp.ErrShapeMismatch) {
			t.Fatalf("perm %d with width+1 elements: %v", p, err)
		}
	}
}

// expectError checks the status of err and that its message contains each of
// the fragments.
func expectError(t *testing.T, err error, st gp.Status, fragments ...string) {
	t.Helper()
	var gerr *gp.Error
	if !errors.As(err, &gerr) {
		t.Fatalf("got %v, want a *gpuprover.Error with %v", err, st)
	}
	if gerr.Status != st || !errors.Is(err, st) {
		t.Fatalf("got %v, want status %v", err, st)
	}
	for _, f := range fragments {
		if !strings.Contains(gerr.Message, f) {
			t.Fatalf("message %q does not contain %q", gerr.Message, f)
		}
	}
	if !strings.Contains(err.Error(), st.String()) {
		t.Fatalf("Error() = %q does not name %v", err.Error(), st)
	}
}

func TestErrorBadRows(t *testing.T) {
	ctx := newContext(t)
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 8, 2)
	err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 6), 3, 2, out, &gp.LDEOptions{Blowup: 2})
	expectError(t, err, gp.ErrInvalidArgument, "gp_lde_batch_host", "3", "power of two")

	b3 := newBuffer(t, ctx, gp.BabyBear, 1, 3, 2)
	expectError(t, ctx.NTT(b3, nil), gp.ErrInvalidArgument, "gp_ntt_batch", "rows = 3")

	_, err = ctx.NewBuffer(gp.Goldilocks, 1, 0, 2)
	expectError(t, err, gp.ErrInvalidArgument, "rows = 0")

	// Beyond the two-adicity: BabyBear has 2^27, so 2^26 rows with blowup 4 fail
	// (before anything is allocated).
	big := newBuffer(t, ctx, gp.BabyBear, 1, 1, 1)
	err = ctx.LDEHost(gp.BabyBear, 1, make([]uint32, 1), 1, 1, big, &gp.LDEOptions{N: 1 << 26, Blowup: 4})
	if err == nil {
		t.Fatal("LDE beyond the two-adicity succeeded")
	}

	// Bad options.
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 8), 4, 2, out, &gp.LDEOptions{Blowup: 3}),
		gp.ErrInvalidArgument, "blowup = 3")
	expectError(t, ctx.LDEHost(gp.Goldilocks, 4, make([]uint64, 32), 4, 2, out, nil),
		gp.ErrUnsupported, "ext_degree = 4")

	// The failed calls left everything usable.
	if err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 8), 4, 2, out, nil); err != nil {
		t.Fatalf("LDEHost after errors: %v", err)
	}
}

func TestErrorOutputShape(t *testing.T) {
	ctx := newContext(t)
	in := make([]uint64, 4*2)
	// n = 4, blowup 4: the output needs 16 rows and 2 columns.
	for _, shape := range [][2]uint64{{8, 2}, {32, 2}, {16, 1}, {16, 3}} {
		out := newBuffer(t, ctx, gp.Goldilocks, 1, shape[0], shape[1])
		err := ctx.LDEHost(gp.Goldilocks, 1, in, 4, 2, out, &gp.LDEOptions{Blowup: 4})
		expectError(t, err, gp.ErrShapeMismatch, "gp_lde_batch_host")
		inBuf, err := ctx.BufferFromHost(gp.Goldilocks, 1, 4, 2, gp.ColMajor, in)
		if err != nil {
			t.Fatal(err)
		}
		expectError(t, ctx.LDE(inBuf, out, &gp.LDEOptions{Blowup: 4}), gp.ErrShapeMismatch, "gp_lde_batch")
		inBuf.Close()
	}
	// Field and extension-degree mismatches.
	bb := newBuffer(t, ctx, gp.BabyBear, 1, 16, 2)
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, in, 4, 2, bb, &gp.LDEOptions{Blowup: 4}), gp.ErrFieldMismatch)
	ext2 := newBuffer(t, ctx, gp.Goldilocks, 2, 16, 2)
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, in, 4, 2, ext2, &gp.LDEOptions{Blowup: 4}), gp.ErrFieldMismatch)

	// Host slices of the wrong length or type are refused by the binding.
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 16, 2)
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 7), 4, 2, out, &gp.LDEOptions{Blowup: 4}),
		gp.ErrShapeMismatch, "7 elements")
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, make([]uint32, 8), 4, 2, out, &gp.LDEOptions{Blowup: 4}),
		gp.ErrFieldMismatch)
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, make([]int, 8), 4, 2, out, &gp.LDEOptions{Blowup: 4}),
		gp.ErrInvalidArgument, "[]int")
	expectError(t, out.ToHost(gp.ColMajor, make([]uint64, 31)), gp.ErrShapeMismatch)
	_, err := ctx.BufferFromHost(gp.Goldilocks, 1, 4, 2, gp.ColMajor, make([]uint64, 9))
	expectError(t, err, gp.ErrShapeMismatch)

	// A buffer of another context.
	other := newContext(t)
	foreign := newBuffer(t, other, gp.Goldilocks, 1, 16, 2)
	expectError(t, ctx.LDEHost(gp.Goldilocks, 1, in, 4, 2, foreign, &gp.LDEOptions{Blowup: 4}), gp.ErrContextMismatch)
}

func TestErrorNonCanonical(t *testing.T) {
	ctx := newContext(t)
	for _, f := range fields {
		m := fieldOf(t, f)
		vals := make([]uint64, 8)
		vals[5] = m.p // the first value that is not canonical
		out := newBuffer(t, ctx, f, 1, 8, 2)
		err := ctx.LDEHost(f, 1, hostData(f, vals), 4, 2, out, nil)
		expectError(t, err, gp.ErrNonCanonical, "[5]", fmt.Sprint(m.p))
		_, err = ctx.BufferFromHost(f, 1, 4, 2, gp.ColMajor, hostData(f, vals))
		expectError(t, err, gp.ErrNonCanonical, "[5]")
	}
	state := make([]uint64, 12)
	state[3] = ^uint64(0)
	expectError(t, ctx.PermuteBatch(gp.Poseidon2Goldilocks12, state), gp.ErrNonCanonical, "[3]")
	// Keccak lanes are raw 64-bit words: any value is fine.
	lanes := make([]uint64, 25)
	lanes[3] = ^uint64(0)
	if err := ctx.PermuteBatch(gp.KeccakF1600, lanes); err != nil {
		t.Fatal(err)
	}
}

// TestErrorMessagesPerThread: the library's message is thread-local; every
// goroutine must get the message of its own failure.
func TestErrorMessagesPerThread(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, CPUThreads: 1})
			if err != nil {
				errs <- err
				return
			}
			defer ctx.Close()
			out, err := ctx.NewBuffer(gp.Goldilocks, 1, 64, 1)
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 200; i++ {
				blowup := uint32(3 + 2*((g+i)%8)) // odd, never a power of two
				err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 16), 16, 1, out, &gp.LDEOptions{Blowup: blowup})
				var gerr *gp.Error
				if !errors.As(err, &gerr) || !strings.Contains(gerr.Message, fmt.Sprintf("blowup = %d ", blowup)) {
					errs <- fmt.Errorf("goroutine %d: blowup %d gave %v", g, blowup, err)
					return
				}
				if err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 16), 16, 1, out, &gp.LDEOptions{Blowup: 4}); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseAndReuse(t *testing.T) {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ctx.NewBuffer(gp.Goldilocks, 1, 64, 4)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]uint64, 16*4)
	for i := 0; i < 3; i++ {
		if err := ctx.LDEHost(gp.Goldilocks, 1, in, 16, 4, out, &gp.LDEOptions{Blowup: 4}); err != nil {
			t.Fatal(err)
		}
	}
	s1, err := ctx.MemoryStats()
	if err != nil {
		t.Fatal(err)
	}
	if err := ctx.LDEHost(gp.Goldilocks, 1, in, 16, 4, out, &gp.LDEOptions{Blowup: 4}); err != nil {
		t.Fatal(err)
	}
	s2, _ := ctx.MemoryStats()
	if s1.Allocations != s2.Allocations || s2.BufferBytes < out.SizeBytes() {
		t.Fatalf("memory stats %+v then %+v", s1, s2)
	}
	if err := ctx.Trim(); err != nil {
		t.Fatal(err)
	}

	// Closing twice is fine; a closed buffer reports ErrClosed.
	keep, _ := ctx.NewBuffer(gp.Goldilocks, 1, 4, 1)
	out.Close()
	out.Close()
	if _, err := out.Uint64s(gp.ColMajor); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed buffer: %v", err)
	}
	if err := ctx.LDEHost(gp.Goldilocks, 1, in, 16, 4, out, nil); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed output: %v", err)
	}
	// Closing the context releases its open buffers.
	ctx.Close()
	ctx.Close()
	if _, err := keep.Uint64s(gp.ColMajor); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("buffer of a closed context: %v", err)
	}
	keep.Close()
	if _, err := ctx.NewBuffer(gp.Goldilocks, 1, 4, 1); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed context: %v", err)
	}
	if ctx.Backend() != gp.BackendAuto || ctx.DeviceName() != "" {
		t.Fatal("closed context still reports a backend")
	}
}

func TestLDERandomized(t *testing.T) {
	// The randomized LDE (LDEOptions.Randomizers), as Triton VM extends its
	// tables: f_c(X) + (X^n - s^n) r_c(X). With the output coset equal to
	// the trace domain's (Shift = InputShift = 1), rows i x Blowup hold the
	// trace and the other rows differ from the plain LDE's.
	rng := rand.New(rand.NewSource(3))
	ctx := newContext(t)
	const f = gp.Goldilocks
	m := fieldOf(t, f)
	const n, cols, blowup, count = 16, 2, 8, 98
	for _, ext := range []uint32{1, 3} {
		trace := randomValues(rng, m.p, n*cols*int(ext))
		coeffs := randomValues(rng, m.p, count*cols*int(ext))
		opts := gp.LDEOptions{Blowup: blowup, Shift: 1}
		plain := newBuffer(t, ctx, f, ext, n*blowup, cols)
		if err := ctx.LDEHost(f, ext, trace, n, cols, plain, &opts); err != nil {
			t.Fatalf("ext %d: plain LDEHost: %v", ext, err)
		}
		ropts := opts
		ropts.Randomizers = coeffs
		got := newBuffer(t, ctx, f, ext, n*blowup, cols)
		if err := ctx.LDEHost(f, ext, trace, n, cols, got, &ropts); err != nil {
			t.Fatalf("ext %d: randomized LDEHost: %v", ext, err)
		}
		// The device input path and the typed LDEHost give the same.
		in, err := ctx.BufferFromHost(f, ext, n, cols, gp.ColMajor, trace)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		viaBuffer := newBuffer(t, ctx, f, ext, n*blowup, cols)
		if err := ctx.LDE(in, viaBuffer, &ropts); err != nil {
			t.Fatalf("ext %d: randomized LDE: %v", ext, err)
		}
		typed := newBuffer(t, ctx, f, ext, n*blowup, cols)
		if err := gp.LDEHost(context.Background(), ctx, f, ext, trace, n, cols, typed, &ropts); err != nil {
			t.Fatalf("ext %d: typed randomized LDEHost: %v", ext, err)
		}
		g, pl := download(t, got, gp.ColMajor), download(t, plain, gp.ColMajor)
		if !equalU64(download(t, viaBuffer, gp.ColMajor), g) || !equalU64(download(t, typed, gp.ColMajor), g) {
			t.Fatalf("ext %d: the input paths differ", ext)
		}
		for r := uint64(0); r < n*blowup; r++ {
			for c := uint64(0); c < cols; c++ {
				for k := 0; k < int(ext); k++ {
					i := index(gp.ColMajor, n*blowup, cols, r, c, ext, k)
					if r%blowup == 0 {
						if w := trace[index(gp.ColMajor, n, cols, r/blowup, c, ext, k)]; g[i] != w || pl[i] != w {
							t.Fatalf("ext %d: row %d col %d.%d = %d (plain %d), want the trace's %d", ext, r, c, k, g[i], pl[i], w)
						}
					} else if g[i] == pl[i] {
						t.Fatalf("ext %d: row %d col %d.%d = %d, as in the plain LDE", ext, r, c, k, g[i])
					}
				}
			}
		}
	}
}

func TestLDERandomizedErrors(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	ctx := newContext(t)
	const f = gp.BabyBear
	m := fieldOf(t, f)
	const n, cols = 8, 2
	trace := hostData(f, randomValues(rng, m.p, n*cols))
	out := newBuffer(t, ctx, f, 1, 2*n, cols)
	lde := func(randomizers interface{}) error {
		return ctx.LDEHost(f, 1, trace, n, cols, out, &gp.LDEOptions{Randomizers: randomizers})
	}
	// At most n x (blowup - 1) = 8 coefficients per column.
	if err := lde(hostData(f, randomValues(rng, m.p, 8*cols))); err != nil {
		t.Fatalf("8 coefficients: %v", err)
	}
	expectError(t, lde(hostData(f, randomValues(rng, m.p, 9*cols))), gp.ErrInvalidArgument, "randomizer_count")
	expectError(t, lde([]uint32{}), gp.ErrInvalidArgument)
	expectError(t, lde(hostData(f, randomValues(rng, m.p, 7))), gp.ErrShapeMismatch, "Randomizers")
	expectError(t, lde(make([]uint64, 2*cols)), gp.ErrFieldMismatch)
	nonCanonical := hostData(f, randomValues(rng, m.p, 2*cols)).([]uint32)
	nonCanonical[1] = uint32(m.p)
	expectError(t, lde(nonCanonical), gp.ErrNonCanonical, "randomizers[1]")

	// CommitHost randomizes inside its LDE when B*count <= max(n, nB/8):
	// the root is that of LDEHost with the same randomizers and
	// MerkleCommit; the randomizers span both matrices' columns.
	const blowup = 2
	other := hostData(f, randomValues(rng, m.p, n*1))
	rnd := randomValues(rng, m.p, 2*(cols+1))
	ldeOpts := func(r interface{}) *gp.LDEOptions { return &gp.LDEOptions{Blowup: blowup, Randomizers: r} }
	_, tree, err := ctx.CommitHost(f, &gp.CommitOptions{LDE: ldeOpts(hostData(f, rnd)), Keep: gp.KeepNone},
		gp.CommitMatrix{Data: trace, Rows: n, Cols: cols}, gp.CommitMatrix{Data: other, Rows: n, Cols: 1})
	if err != nil {
		t.Fatalf("CommitHost with randomizers: %v", err)
	}
	defer tree.Close()
	got, err := tree.Root()
	if err != nil {
		t.Fatal(err)
	}
	a := newBuffer(t, ctx, f, 1, blowup*n, cols)
	b := newBuffer(t, ctx, f, 1, blowup*n, 1)
	if err := ctx.LDEHost(f, 1, trace, n, cols, a, ldeOpts(hostData(f, rnd[:2*cols]))); err != nil {
		t.Fatal(err)
	}
	if err := ctx.LDEHost(f, 1, other, n, 1, b, ldeOpts(hostData(f, rnd[2*cols:]))); err != nil {
		t.Fatal(err)
	}
	ref, err := ctx.MerkleCommit(nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want, err := ref.Root()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("CommitHost with randomizers: root %x, LDEHost + MerkleCommit %x", got, want)
	}
	// Beyond the rule (B*count = 2*5 > max(n, nB/8) = 8): ErrUnsupported.
	_, _, err = ctx.CommitHost(f, &gp.CommitOptions{LDE: ldeOpts(hostData(f, randomValues(rng, m.p, 5*cols)))},
		gp.CommitMatrix{Data: trace, Rows: n, Cols: cols})
	expectError(t, err, gp.ErrUnsupported, "randomizer_count")
}
