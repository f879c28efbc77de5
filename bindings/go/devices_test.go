// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// cpuDevices returns a CPU context with n emulated devices (the length of
// Devices; the values are not used).
func cpuDevices(t *testing.T, n int) *gp.Context {
	t.Helper()
	ctx, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, Devices: make([]int32, n), CPUThreads: 3})
	if err != nil {
		t.Fatalf("NewContext(%d CPU devices): %v", n, err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

func TestDevicesEmulatedCPU(t *testing.T) {
	if gp.DevicesAll != -1 {
		t.Fatalf("DevicesAll = %d", gp.DevicesAll)
	}
	ctx := cpuDevices(t, 3)
	if ctx.Backend() != gp.BackendCPU || ctx.DeviceCount() != 3 {
		t.Fatalf("backend %v, %d devices; want cpu, 3", ctx.Backend(), ctx.DeviceCount())
	}
	devs, err := ctx.Devices()
	if err != nil || len(devs) != 3 {
		t.Fatalf("Devices() = %+v, %v", devs, err)
	}
	for i, d := range devs {
		if d.Ordinal != -1 || d.Name == "" || d.FreeBytes != 0 || d.TotalBytes != 0 {
			t.Errorf("device %d: %+v", i, d)
		}
		one, err := ctx.DeviceInfo(i)
		if err != nil || one != d {
			t.Errorf("DeviceInfo(%d) = %+v, %v; Devices()[%d] = %+v", i, one, err, i, d)
		}
	}
	t.Logf("%s: %+v", ctx.DeviceName(), devs)

	// A plain CPU context, one emulated device, and a list holding only
	// DevicesAll (of length 1) have one device.
	for _, devices := range [][]int32{nil, {0}, {gp.DevicesAll}} {
		c, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, Devices: devices})
		if err != nil {
			t.Fatalf("NewContext(CPU, %v): %v", devices, err)
		}
		devs, err := c.Devices()
		if c.DeviceCount() != 1 || err != nil || len(devs) != 1 || devs[0].Ordinal != -1 {
			t.Errorf("CPU context with Devices %v: %d devices, %+v, %v", devices, c.DeviceCount(), devs, err)
		}
		c.Close()
	}
}

func TestDeviceInfoOutOfRange(t *testing.T) {
	ctx := cpuDevices(t, 3)
	for _, i := range []int{3, 4, 1000, -1, 1 << 40} {
		_, err := ctx.DeviceInfo(i)
		expectError(t, err, gp.ErrInvalidArgument, "index")
	}
	if d, err := ctx.DeviceInfo(2); err != nil || d.Ordinal != -1 {
		t.Fatalf("DeviceInfo(2) after errors: %+v, %v", d, err)
	}

	// A closed context has no devices.
	ctx.Close()
	if n := ctx.DeviceCount(); n != 0 {
		t.Fatalf("closed context: DeviceCount() = %d", n)
	}
	if _, err := ctx.DeviceInfo(0); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed context: DeviceInfo: %v", err)
	}
	if _, err := ctx.Devices(); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("closed context: Devices: %v", err)
	}
}

func TestDeviceInfoSeesABuffer(t *testing.T) {
	ctx := cpuDevices(t, 3)
	sum := func() uint64 {
		devs, err := ctx.Devices()
		if err != nil {
			t.Fatal(err)
		}
		var s uint64
		for _, d := range devs {
			s += d.BufferBytes
		}
		return s
	}
	before := sum()
	newBuffer(t, ctx, gp.Goldilocks, 1, 1024, 6)
	if after := sum(); after <= before {
		t.Fatalf("buffer bytes over the devices: %d, then %d with a buffer", before, after)
	}
}

// ldeAndCommit computes a bit-reversed LDE with blowup 4, its Merkle root
// and a few openings (checked) on ctx.
func ldeAndCommit(t *testing.T, ctx *gp.Context, trace []uint64, rows, cols uint64) ([]uint64, []byte, []gp.MerkleOpening) {
	t.Helper()
	lde := newBuffer(t, ctx, gp.Goldilocks, 1, rows*4, cols)
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace, rows, cols, lde, &gp.LDEOptions{Blowup: 4, OutputOrder: gp.BitReversed}); err != nil {
		t.Fatalf("LDEHost: %v", err)
	}
	values := download(t, lde, gp.ColMajor)
	tree, err := ctx.MerkleCommit(nil, lde)
	if err != nil {
		t.Fatalf("MerkleCommit: %v", err)
	}
	defer tree.Close()
	root, err := tree.Root()
	if err != nil {
		t.Fatal(err)
	}
	openings, err := tree.Open(0, 5, rows*4-1)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		if err := tree.Verify(o); err != nil {
			t.Fatalf("Verify(%d): %v", o.Index, err)
		}
	}
	return values, root, openings
}

func TestDevicesSameResultsAsOne(t *testing.T) {
	one, three := cpuDevices(t, 1), cpuDevices(t, 3)
	if one.DeviceCount() != 1 || three.DeviceCount() != 3 {
		t.Fatalf("%d and %d devices", one.DeviceCount(), three.DeviceCount())
	}
	rng := rand.New(rand.NewSource(7))
	p := fieldOf(t, gp.Goldilocks).p
	// 7 columns: blocks of 3, 2, 2; 2 columns: the third device holds none.
	for _, shape := range [][2]uint64{{64, 7}, {32, 2}, {128, 3}} {
		rows, cols := shape[0], shape[1]
		trace := randomValues(rng, p, int(rows*cols))
		lde1, root1, open1 := ldeAndCommit(t, one, trace, rows, cols)
		lde3, root3, open3 := ldeAndCommit(t, three, trace, rows, cols)
		if !reflect.DeepEqual(lde1, lde3) {
			t.Errorf("%d x %d: the LDE differs on 3 devices", rows, cols)
		}
		if !bytes.Equal(root1, root3) {
			t.Errorf("%d x %d: root %x on 1 device, %x on 3", rows, cols, root1, root3)
		}
		if !reflect.DeepEqual(open1, open3) {
			t.Errorf("%d x %d: the openings differ on 3 devices", rows, cols)
		}
	}
}
