// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	gp "gpuprover.dev/gpuprover"
)

// longCalls are the calls that report progress, on a small input each: run
// makes one on ctx (with goctx for the *Context variants) and returns its
// error. Each sets up its inputs first, outside the measured call.
type longCall struct {
	name     string
	progress bool // whether the library reports its progress (and cancels it)
	run      func(goctx context.Context) error
}

func longCalls(t *testing.T, ctx *gp.Context) []longCall {
	t.Helper()
	const n, cols = 64, 4
	trace := make([]uint64, n*cols)
	for i := range trace {
		trace[i] = uint64(i*i + 1)
	}
	in, err := ctx.BufferFromHost(gp.Goldilocks, 1, n, cols, gp.ColMajor, trace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 2*n, cols)
	col := newBuffer(t, ctx, gp.Goldilocks, 1, 2*n, 1)
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace[:n], n, 1, col, nil); err != nil {
		t.Fatal(err)
	}
	quotient := newBuffer(t, ctx, gp.Goldilocks, 1, n, 1)
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace[:n/2], n/2, 1, quotient, nil); err != nil {
		t.Fatal(err)
	}
	deep := newBuffer(t, ctx, gp.Goldilocks, 3, 2*n, 1)
	points := []uint64{11, 12, 13}
	values := make([]uint64, 3)
	beta := func(layer uint32, _ []byte, b []uint64) error { b[0] = uint64(layer) + 5; return nil }
	return []longCall{
		{"LDE", true, func(g context.Context) error { return ctx.LDEContext(g, in, out, nil) }},
		{"LDEHost", true, func(g context.Context) error {
			return ctx.LDEHostContext(g, gp.Goldilocks, 1, trace, n, cols, out, nil)
		}},
		{"NTT", true, func(g context.Context) error { return ctx.NTTContext(g, out, nil) }},
		{"MerkleCommit", true, func(g context.Context) error {
			tree, err := ctx.MerkleCommitContext(g, nil, out)
			if err == nil {
				tree.Close()
			}
			return err
		}},
		{"FRICommit", true, func(g context.Context) error {
			f, err := gp.FRICommit(g, ctx, col, &gp.FRIOptions{FinalSize: 4}, beta)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"EvaluateOOD", true, func(g context.Context) error {
			_, err := ctx.EvaluateOODContext(g, nil, points, col)
			return err
		}},
		{"DeepComposition", false, func(g context.Context) error {
			return ctx.DeepCompositionContext(g, nil, points, values, []uint64{1, 2, 3}, deep, col)
		}},
		{"ConstraintCommit", true, func(g context.Context) error {
			seg, tree, err := ctx.ConstraintCommitContext(g, quotient, nil)
			if err == nil {
				tree.Close()
				seg.Close()
			}
			return err
		}},
	}
}

// TestCancelFromProgress cancels every long call from its first progress
// report, deterministically, then runs it again to completion.
func TestCancelFromProgress(t *testing.T) {
	ctx := cpuContext(t)
	calls := longCalls(t, ctx)
	for _, lc := range calls {
		reports := 0
		var stages []string
		if err := ctx.SetProgress(func(stage string, done, total uint64) {
			reports++
			stages = append(stages, stage)
			if done > total {
				t.Errorf("%s: progress %d of %d", lc.name, done, total)
			}
			if reports == 1 {
				if err := ctx.Cancel(); err != nil {
					t.Errorf("%s: Cancel: %v", lc.name, err)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		err := lc.run(context.Background())
		if !lc.progress {
			if err != nil || reports != 0 {
				t.Fatalf("%s: %v, %d progress reports", lc.name, err, reports)
			}
			continue
		}
		if reports == 0 {
			t.Fatalf("%s reported no progress", lc.name)
		}
		expectError(t, err, gp.ErrCancelled, "cancel")
		if errors.Is(err, context.Canceled) {
			t.Errorf("%s: Cancel() gave a context error: %v", lc.name, err)
		}
		// Every handle stays usable: the same call completes.
		reports = 0
		if err := ctx.SetProgress(func(stage string, done, total uint64) { reports++ }); err != nil {
			t.Fatal(err)
		}
		if err := lc.run(context.Background()); err != nil {
			t.Fatalf("%s after a cancelled call: %v", lc.name, err)
		}
		if reports == 0 {
			t.Errorf("%s: no progress on the second run", lc.name)
		}
		t.Logf("%s: stages %v", lc.name, stages)
	}
	if err := ctx.SetProgress(nil); err != nil {
		t.Fatal(err)
	}
	// A cancel on an idle context does not affect the next call.
	if err := ctx.Cancel(); err != nil {
		t.Fatal(err)
	}
	for _, lc := range calls {
		if err := lc.run(context.Background()); err != nil {
			t.Fatalf("%s after an idle Cancel: %v", lc.name, err)
		}
	}
}

// TestCancelContextFromGoroutine cancels a context.Context from another
// goroutine while the call runs; the call's progress func waits (bounded)
// until that happened.
func TestCancelContextFromGoroutine(t *testing.T) {
	ctx := cpuContext(t)
	const n, cols = 64, 32
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 4*n, cols)
	trace := make([]uint64, n*cols)
	goctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	var once sync.Once
	if err := ctx.SetProgress(func(string, uint64, uint64) {
		once.Do(func() {
			close(started)
			select {
			case <-goctx.Done():
				// Give the watcher a moment to reach the library; it keeps
				// cancelling until the call returns.
				time.Sleep(20 * time.Millisecond)
			case <-time.After(10 * time.Second):
				t.Error("the context was not cancelled within 10 s")
			}
		})
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		select {
		case <-started:
			cancel()
		case <-time.After(10 * time.Second):
		}
	}()
	err := ctx.LDEHostContext(goctx, gp.Goldilocks, 1, trace, n, cols, out, &gp.LDEOptions{Blowup: 4})
	if !errors.Is(err, gp.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("LDEHostContext cancelled from a goroutine: %v", err)
	}
	if !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Error() = %q does not name the cause", err.Error())
	}
	// The context is usable afterwards.
	if err := ctx.SetProgress(nil); err != nil {
		t.Fatal(err)
	}
	if err := ctx.LDEHostContext(context.Background(), gp.Goldilocks, 1, trace, n, cols, out, &gp.LDEOptions{Blowup: 4}); err != nil {
		t.Fatal(err)
	}
}

// TestContextDoneBeforeCall: a context.Context that is done already stops
// the call before it reaches the library.
func TestContextDoneBeforeCall(t *testing.T) {
	ctx := cpuContext(t)
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 8, 1)
	if err := ctx.ResetCounters(); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		goctx context.Context
		cause error
	}{{cancelled, context.Canceled}, {expired, context.DeadlineExceeded}} {
		err := ctx.LDEHostContext(c.goctx, gp.Goldilocks, 1, make([]uint64, 4), 4, 1, out, nil)
		if !errors.Is(err, gp.ErrCancelled) || !errors.Is(err, c.cause) {
			t.Fatalf("done context: %v", err)
		}
		var gerr *gp.Error
		if !errors.As(err, &gerr) || gerr.Err != c.cause || gerr.Op != "gp_lde_batch_host" {
			t.Fatalf("done context: %#v", err)
		}
	}
	stats, err := ctx.CallStats()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stats {
		if s.Name == "gp_lde_batch_host" {
			t.Fatalf("a call with a done context reached the library: %+v", s)
		}
	}
	// A context that is never done costs nothing and completes.
	if err := ctx.LDEHostContext(context.Background(), gp.Goldilocks, 1, make([]uint64, 4), 4, 1, out, nil); err != nil {
		t.Fatal(err)
	}
	live, cancel3 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel3()
	if err := ctx.LDEHostContext(live, gp.Goldilocks, 1, make([]uint64, 4), 4, 1, out, nil); err != nil {
		t.Fatal(err)
	}
}

func TestProgressPanic(t *testing.T) {
	ctx := cpuContext(t)
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 32, 2)
	if err := ctx.SetProgress(func(string, uint64, uint64) { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the progress func's panic", r)
			}
		}()
		ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 32), 16, 2, out, nil)
		t.Fatal("LDEHost did not panic")
	}()
	// The context was unlocked by the panic and is usable.
	if err := ctx.SetProgress(nil); err != nil {
		t.Fatal(err)
	}
	if err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 32), 16, 2, out, nil); err != nil {
		t.Fatal(err)
	}
}

func TestLogAndCounters(t *testing.T) {
	ctx := cpuContext(t)
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 32, 2)
	var lines []string
	nested := true
	if err := ctx.SetLog(func(line string) {
		lines = append(lines, line)
		if !nested { // the func may use the context: its lines follow
			nested = true
			if _, err := ctx.Counters(); err != nil {
				t.Error(err)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := ctx.ResetCounters(); err != nil {
		t.Fatal(err)
	}
	lines, nested = nil, false
	for i := 0; i < 2; i++ {
		if err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 32), 16, 2, out, nil); err != nil {
			t.Fatal(err)
		}
	}
	bad := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 32), 16, 2, out, &gp.LDEOptions{Blowup: 3})
	expectError(t, bad, gp.ErrInvalidArgument, "blowup = 3")

	var lde []string
	for _, l := range lines {
		if strings.HasPrefix(l, "gp_lde_batch_host ") {
			lde = append(lde, l)
		}
	}
	if len(lde) != 3 || !strings.Contains(lde[0], "GP_OK") || !strings.HasSuffix(lde[0], " ms") ||
		!strings.Contains(lde[2], "GP_ERR_INVALID_ARGUMENT") || !strings.Contains(lde[2], "blowup = 3") {
		t.Fatalf("log lines %q", lines)
	}
	if !nested || !containsPrefix(lines, "gp_context_counters GP_OK") {
		t.Fatalf("the log func's own call was not logged: %q", lines)
	}

	cnt, err := ctx.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if cnt.Calls < 3 || cnt.FailedCalls != 1 || cnt.CallTime <= 0 {
		t.Fatalf("counters %+v", cnt)
	}
	stats, err := ctx.CallStats()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for i, s := range stats {
		if i > 0 && stats[i-1].Name >= s.Name {
			t.Errorf("call stats not sorted by name: %q before %q", stats[i-1].Name, s.Name)
		}
		if s.Name == "gp_lde_batch_host" {
			found = true
			if s.Calls != 3 || s.FailedCalls != 1 || s.CallTime <= 0 {
				t.Errorf("gp_lde_batch_host stats %+v", s)
			}
		}
	}
	if !found {
		t.Fatalf("no gp_lde_batch_host in %+v", stats)
	}
	if err := ctx.ResetCounters(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.SetLog(nil); err != nil {
		t.Fatal(err)
	}
	lines = nil
	if err := ctx.LDEHost(gp.Goldilocks, 1, make([]uint64, 32), 16, 2, out, nil); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 0 {
		t.Fatalf("lines after SetLog(nil): %q", lines)
	}
	cnt, _ = ctx.Counters()
	if cnt.FailedCalls != 0 || cnt.Calls > 4 {
		t.Fatalf("counters after reset %+v", cnt)
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// TestClosedErrors: errors on closed objects name the method and what was
// closed, and match ErrClosed.
func TestClosedErrors(t *testing.T) {
	ctx, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, CPUThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := newBuffer(t, ctx, gp.Goldilocks, 1, 8, 1)
	out, _ := ctx.NewBuffer(gp.Goldilocks, 1, 16, 1)
	tree, err := ctx.MerkleCommit(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	check := func(err error, want string) {
		t.Helper()
		var ce *gp.ClosedError
		if !errors.Is(err, gp.ErrClosed) || !errors.As(err, &ce) || err.Error() != want {
			t.Fatalf("got %v, want %q", err, want)
		}
	}
	_, err = out.Uint64s(gp.ColMajor)
	check(err, "gpuprover: Buffer.Uint64s on a closed Buffer")
	check(out.ToHost(gp.ColMajor, make([]uint64, 16)), "gpuprover: Buffer.ToHost on a closed Buffer")
	check(ctx.LDE(in, out, nil), "gpuprover: Context.LDE on a closed Buffer (output)")
	_, err = ctx.MerkleCommit(nil, in, out)
	check(err, "gpuprover: Context.MerkleCommit on a closed Buffer (matrices[1])")
	in2, _ := ctx.NewBuffer(gp.Goldilocks, 1, 8, 1)
	tree2, err := ctx.MerkleCommit(nil, in2)
	if err != nil {
		t.Fatal(err)
	}
	in2.Close()
	_, err = tree2.Open(0)
	check(err, "gpuprover: MerkleTree.Open on a MerkleTree whose matrix 0 was closed")

	ctx.Close()
	_, err = in.Uint64s(gp.ColMajor)
	check(err, "gpuprover: Buffer.Uint64s on a Buffer of a closed Context")
	_, err = tree.Root()
	check(err, "gpuprover: MerkleTree.Root on a MerkleTree of a closed Context")
	_, err = ctx.NewBuffer(gp.Goldilocks, 1, 4, 1)
	check(err, "gpuprover: Context.NewBuffer on a closed Context")
	check(ctx.Cancel(), "gpuprover: Context.Cancel on a closed Context")
	check(ctx.SetProgress(nil), "gpuprover: Context.SetProgress on a closed Context")
	_, err = ctx.Counters()
	check(err, "gpuprover: Context.Counters on a closed Context")
	err = ctx.LDEHostContext(context.Background(), gp.Goldilocks, 1, make([]uint64, 8), 8, 1, in, nil)
	check(err, "gpuprover: Context.LDEHost on a closed Context")
	// Closing what the context released does nothing.
	tree.Close()
	in.Close()
}

// TestSharedContextConcurrent: one context used by several goroutines at
// once, with Cancel calls from others (which may or may not stop a call).
func TestSharedContextConcurrent(t *testing.T) {
	ctx := cpuContext(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				ctx.Cancel()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			want := make([]uint64, 16)
			for i := range want {
				want[i] = uint64(g*100 + i)
			}
			for i := 0; i < 20; i++ {
				b, err := ctx.BufferFromHost(gp.Goldilocks, 1, 16, 1, gp.ColMajor, want)
				if err != nil {
					errs <- err
					return
				}
				out, err := ctx.NewBuffer(gp.Goldilocks, 1, 32, 1)
				if err != nil {
					errs <- err
					return
				}
				if err := ctx.LDE(b, out, nil); err != nil && !errors.Is(err, gp.ErrCancelled) {
					errs <- fmt.Errorf("goroutine %d: %w", g, err)
				}
				got, err := b.Uint64s(gp.ColMajor)
				if err != nil {
					errs <- err
				} else {
					for k := range want {
						if got[k] != want[k] {
							errs <- fmt.Errorf("goroutine %d: buffer changed", g)
							break
						}
					}
				}
				out.Close()
				b.Close()
			}
		}(g)
	}
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
