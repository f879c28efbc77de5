// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"reflect"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// unreachable is a unix socket path no server can listen on.
const unreachable = "/nonexistent/dir/gp.sock"

func TestRemoteBackendWithoutAServer(t *testing.T) {
	for _, o := range []gp.ContextOptions{
		{Backend: gp.BackendRemote, Endpoint: unreachable},
		{Backend: gp.BackendRemote, Endpoint: unreachable, Priority: gp.PriorityHigh, ForceCPU: true},
	} {
		o := o
		ctx, err := gp.NewContext(&o)
		if ctx != nil {
			ctx.Close()
		}
		expectError(t, err, gp.ErrRemote)
		var gerr *gp.Error
		if !errors.As(err, &gerr) || gerr.Message == "" || gerr.Op != "gp_context_create" {
			t.Fatalf("NewContext(%+v): %#v", o, err)
		}
	}
	if int(gp.ErrRemote) != 17 || gp.ErrRemote.String() != "GP_ERR_REMOTE" {
		t.Fatalf("ErrRemote = %d %q", int(gp.ErrRemote), gp.ErrRemote)
	}
	if int(gp.BackendRemote) != 3 || gp.BackendRemote.String() != "remote" {
		t.Fatalf("BackendRemote = %d %q", int(gp.BackendRemote), gp.BackendRemote)
	}
	if gp.PriorityNormal != 0 || gp.PriorityLow != 1 || gp.PriorityHigh != 2 {
		t.Fatalf("priorities %d %d %d", gp.PriorityNormal, gp.PriorityLow, gp.PriorityHigh)
	}
}

func TestAutoFallsBackInProcess(t *testing.T) {
	ctx, err := gp.NewContext(&gp.ContextOptions{Endpoint: unreachable, Priority: gp.PriorityLow})
	if err != nil {
		t.Fatalf("NewContext(AUTO, unreachable endpoint): %v", err)
	}
	defer ctx.Close()
	if b := ctx.Backend(); b != gp.BackendCPU && b != gp.BackendCUDA {
		t.Fatalf("AUTO with an unreachable server runs on %v", b)
	}
	if why := ctx.RemoteFallback(); why == "" {
		t.Fatal("RemoteFallback() is empty for an unreachable server")
	} else {
		t.Logf("fallback: %s", why)
	}
	// It works in process, with the results of the CPU backend.
	rng := rand.New(rand.NewSource(60))
	trace := randomValues(rng, fieldOf(t, gp.Goldilocks).p, 32*2)
	lde, root, _ := ldeAndCommit(t, ctx, trace, 32, 2)
	lde1, root1, _ := ldeAndCommit(t, cpuContext(t), trace, 32, 2)
	if !reflect.DeepEqual(lde, lde1) || !bytes.Equal(root, root1) {
		t.Fatal("the fallback context differs from the CPU backend")
	}
	ctx.Close()
	if ctx.RemoteFallback() != "" {
		t.Fatal("RemoteFallback() of a closed context is not empty")
	}

	// A token file that cannot be read: in process as well, saying why.
	withToken, err := gp.NewContext(&gp.ContextOptions{Endpoint: unreachable, TokenFile: "/nonexistent/dir/token", ForceCPU: true})
	if err != nil {
		t.Fatalf("NewContext(AUTO, unreachable endpoint, token file): %v", err)
	}
	defer withToken.Close()
	if withToken.RemoteFallback() == "" {
		t.Fatal("RemoteFallback() is empty with an unreadable token file")
	}

	// No server configured: nothing to explain.
	if cpuContext(t).CPUFallback() != "" {
		t.Fatal("CPUFallback() of a context that asked for the CPU is not empty")
	}
	// AUTO on the CPU says why; on a GPU it has nothing to say.
	auto, err := gp.NewContext(&gp.ContextOptions{Endpoint: unreachable})
	if err != nil {
		t.Fatal(err)
	}
	defer auto.Close()
	if (auto.Backend() == gp.BackendCPU) != (auto.CPUFallback() != "") {
		t.Fatalf("AUTO context on %v with CPUFallback() = %q", auto.Backend(), auto.CPUFallback())
	}
	if cpuContext(t).RemoteFallback() != "" {
		t.Fatal("RemoteFallback() of a CPU context is not empty")
	}
	if _, set := os.LookupEnv("GPUPROVER_SERVER"); !set {
		auto := newContext(t)
		if b := auto.Backend(); b != gp.BackendCPU && b != gp.BackendCUDA {
			t.Fatalf("AUTO without a server runs on %v", b)
		}
		if why := auto.RemoteFallback(); why != "" {
			t.Fatalf("RemoteFallback() without a server = %q", why)
		}
	}
}

func TestRemoteOptionsRefused(t *testing.T) {
	// A priority that is not a gp_priority.
	_, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, Priority: gp.Priority(9)})
	expectError(t, err, gp.ErrInvalidArgument, "priority")
	if gp.Priority(9).String() != "Priority(9)" {
		t.Fatalf("Priority(9).String() = %q", gp.Priority(9))
	}
	// Strings with a NUL byte cannot cross to C.
	_, err = gp.NewContext(&gp.ContextOptions{Backend: gp.BackendRemote, Endpoint: "/tmp/a\x00b"})
	expectError(t, err, gp.ErrInvalidArgument, "Endpoint")
	_, err = gp.NewContext(&gp.ContextOptions{Endpoint: unreachable, TokenFile: "/tmp/a\x00b"})
	expectError(t, err, gp.ErrInvalidArgument, "TokenFile")
}

// TestRemoteMatchesCPU runs with GPUPROVER_TEST_SERVER set to the address of
// a running gpuprover-server (gpuprover-server --unix /tmp/gpu-prover.sock;
// GPUPROVER_TEST_SERVER=/tmp/gpu-prover.sock go test ./...).
func TestRemoteMatchesCPU(t *testing.T) {
	endpoint := os.Getenv("GPUPROVER_TEST_SERVER")
	if endpoint == "" {
		t.Skip("GPUPROVER_TEST_SERVER is not set")
	}
	remote, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendRemote, Endpoint: endpoint})
	if err != nil {
		t.Fatalf("NewContext(remote %s): %v", endpoint, err)
	}
	defer remote.Close()
	if remote.Backend() != gp.BackendRemote || remote.RemoteFallback() != "" {
		t.Fatalf("remote context: backend %v, fallback %q", remote.Backend(), remote.RemoteFallback())
	}
	cpu := cpuContext(t)
	rng := rand.New(rand.NewSource(61))
	p := fieldOf(t, gp.Goldilocks).p
	for _, shape := range [][2]uint64{{64, 7}, {256, 3}} {
		rows, cols := shape[0], shape[1]
		trace := randomValues(rng, p, int(rows*cols))
		ldeR, rootR, openR := ldeAndCommit(t, remote, trace, rows, cols)
		ldeC, rootC, openC := ldeAndCommit(t, cpu, trace, rows, cols)
		if !reflect.DeepEqual(ldeR, ldeC) {
			t.Errorf("%d x %d: the LDE differs on the server", rows, cols)
		}
		if !bytes.Equal(rootR, rootC) {
			t.Errorf("%d x %d: root %x on the server, %x on the CPU", rows, cols, rootR, rootC)
		}
		if !reflect.DeepEqual(openR, openC) {
			t.Errorf("%d x %d: the openings differ on the server", rows, cols)
		}
	}
}
