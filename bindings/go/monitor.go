// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

/*
#include <stdint.h>
#include <stdlib.h>
#include <gpuprover.h>

// Implemented in Go (monitor_callback.go).
extern void gpGoProgress(uintptr_t user, char *stage, uint64_t done, uint64_t total);
extern void gpGoLog(uintptr_t user, char *line);

static void gp_go_progress(void *user, const char *stage, uint64_t done, uint64_t total) {
    gpGoProgress((uintptr_t)user, (char *)stage, done, total);
}

static void gp_go_log(void *user, const char *line) { gpGoLog((uintptr_t)user, (char *)line); }

// The setters with the Go trampolines; `user` is a runtime/cgo.Handle.
static gp_status gp_go_set_progress(gp_context *ctx, uintptr_t user) {
    return gp_context_set_progress(ctx, user ? gp_go_progress : NULL, (void *)user);
}

static gp_status gp_go_set_log(gp_context *ctx, uintptr_t user) {
    return gp_context_set_log(ctx, user ? gp_go_log : NULL, (void *)user);
}
*/
import "C"

import (
	"context"
	"errors"
	"sync"
	"time"
	"unsafe"
)

// ---------------------------------------------------------------------------
// Cancellation

// Cancel asks the call in flight on the context (made by another goroutine)
// to stop (gp_context_cancel): it returns an error matching ErrCancelled at
// its next batch or layer boundary, having released what it allocated;
// every object stays usable. A call that starts after Cancel returns is not
// affected, and cancelling an idle context does nothing. Cancel does not
// wait for the call; it may also be called from a ProgressFunc.
//
// To stop a call when a context.Context is done, use the *Context variant
// of the method (LDEContext, MerkleCommitContext, ...).
func (c *Context) Cancel() error {
	c.hmu.Lock()
	defer c.hmu.Unlock()
	if c.h == nil {
		return &ClosedError{Op: "Context.Cancel", What: "a closed Context"}
	}
	return call("gp_context_cancel", func() C.gp_status { return C.gp_context_cancel(c.h) })
}

// callContext runs a long C call on c (c.mu held), cancelling it when ctx is
// done. The returned error of a call stopped so matches both ErrCancelled and
// ctx.Err(); a ctx done before the call starts gives that error without
// calling the library.
func (c *Context) callContext(ctx context.Context, op string, f func() C.gp_status) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return &Error{Op: op, Status: ErrCancelled, Message: op + ": not started: its context.Context is done", Err: err}
	}
	done := ctx.Done()
	if done == nil { // never done: context.Background() and the like
		return c.call(op, f)
	}
	h := c.h // stays alive: c.mu is held until the watcher has stopped
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-stop:
			return
		case <-done:
		}
		// The call may not have entered the library yet, and a cancel before
		// it does is lost: repeat until it returns. Nothing else can run on
		// the context meanwhile (c.mu), so no other call is cancelled.
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			C.gp_context_cancel(h)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() {
		close(stop)
		<-stopped
	}()
	err := c.call(op, f)
	var gerr *Error
	if errors.As(err, &gerr) && gerr.Status == ErrCancelled && gerr.Err == nil {
		gerr.Err = ctx.Err()
	}
	return err
}

// ---------------------------------------------------------------------------
// Progress and log callbacks

// ProgressFunc receives the progress of a long call: stage names the step
// ("lde", "ntt", "merkle", "fri", "ood", "constraint", ...), and done of
// total units of it are finished.
//
// It runs on the goroutine that made the call, inside the call, while the
// context is locked: it must not call methods of the same Context or of its
// objects (that would deadlock), except Cancel. A panic in it stops the call
// (as Cancel does) and is re-raised by the method that made the call.
type ProgressFunc func(stage string, done, total uint64)

// LogFunc receives one line per finished library call on the context: the
// entry point, its status, its wall time and, for a failed call, the
// message, e.g. "gp_lde_batch GP_OK 12.345 ms".
//
// The lines of a method's calls are handed over on the goroutine that made
// them when the method returns, outside the context's lock: the func may use
// the context (the lines of its own calls follow).
type LogFunc func(line string)

// monitor is the state the C callbacks reach through a cgo.Handle; it holds
// no reference to its Context, so that an unreachable Context is finalized.
type monitor struct {
	h *C.gp_context
	// progress is read and written with the Context's mu held (the callback
	// runs inside a call, on the calling goroutine).
	progress ProgressFunc
	panicked bool
	panicVal interface{}

	mu    sync.Mutex // guards log and lines
	log   LogFunc
	lines []string
}

// rethrow re-raises a panic of the progress callback (Context.mu held).
func (m *monitor) rethrow() {
	if m.panicked {
		v := m.panicVal
		m.panicked, m.panicVal = false, nil
		panic(v)
	}
}

// takeLog returns the pending log lines and the func to hand them to.
func (m *monitor) takeLog() ([]string, LogFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lines := m.lines
	m.lines = nil
	if m.log == nil {
		return nil, nil
	}
	return lines, m.log
}

// SetProgress sets (or, with nil, clears) the context's progress callback
// (gp_context_set_progress). The func is kept until it is replaced or the
// context is closed, and whatever it refers to with it.
func (c *Context) SetProgress(fn ProgressFunc) error {
	if err := c.lock("Context.SetProgress"); err != nil {
		return err
	}
	defer c.unlock()
	var user C.uintptr_t
	if fn != nil {
		user = C.uintptr_t(c.monHandle)
	}
	err := c.call("gp_context_set_progress", func() C.gp_status { return C.gp_go_set_progress(c.h, user) })
	if err == nil {
		c.mon.progress = fn
	}
	return err
}

// SetLog sets (or, with nil, clears) the context's log callback
// (gp_context_set_log); see LogFunc.
func (c *Context) SetLog(fn LogFunc) error {
	if err := c.lock("Context.SetLog"); err != nil {
		return err
	}
	defer c.unlock()
	c.mon.mu.Lock()
	old := c.mon.log
	c.mon.log = fn
	c.mon.mu.Unlock()
	var user C.uintptr_t
	if fn != nil {
		user = C.uintptr_t(c.monHandle)
	}
	err := c.call("gp_context_set_log", func() C.gp_status { return C.gp_go_set_log(c.h, user) })
	if err != nil {
		c.mon.mu.Lock()
		c.mon.log = old
		c.mon.mu.Unlock()
	}
	return err
}

// ---------------------------------------------------------------------------
// Counters

// Counters are a context's counters since it was created or
// ResetCounters (gp_counters).
type Counters struct {
	// Calls made on the context (every entry point given it or one of its
	// objects), and those that failed.
	Calls, FailedCalls uint64
	// CallTime is the wall time inside those calls.
	CallTime time.Duration
	// Bytes copied host to device and device to host (CUDA backend; 0 on
	// the CPU backend).
	BytesToDevice, BytesToHost uint64
	// DeviceTime is the device time of the calls' GPU work (0 on the CPU
	// backend).
	DeviceTime time.Duration
}

// Counters reads the context's counters (gp_context_counters).
func (c *Context) Counters() (Counters, error) {
	if err := c.lock("Context.Counters"); err != nil {
		return Counters{}, err
	}
	defer c.unlock()
	var s C.gp_counters
	s.struct_size = C.uint32_t(unsafe.Sizeof(s))
	if err := c.call("gp_context_counters", func() C.gp_status { return C.gp_context_counters(c.h, &s) }); err != nil {
		return Counters{}, err
	}
	return Counters{
		Calls:         uint64(s.calls),
		FailedCalls:   uint64(s.failed_calls),
		CallTime:      time.Duration(s.call_ns),
		BytesToDevice: uint64(s.bytes_to_device),
		BytesToHost:   uint64(s.bytes_to_host),
		DeviceTime:    time.Duration(s.device_ns),
	}, nil
}

// CallStat is the record of one library entry point on a context
// (gp_call_stats).
type CallStat struct {
	Name               string // e.g. "gp_lde_batch"
	Calls, FailedCalls uint64
	CallTime           time.Duration
}

// CallStats returns the context's statistics per entry point, sorted by name
// (gp_context_call_stats).
func (c *Context) CallStats() ([]CallStat, error) {
	if err := c.lock("Context.CallStats"); err != nil {
		return nil, err
	}
	defer c.unlock()
	const op = "gp_context_call_stats"
	stats := make([]C.gp_call_stats, 32)
	for {
		var count C.size_t
		err := c.call(op, func() C.gp_status {
			return C.gp_context_call_stats(c.h, &stats[0], C.size_t(len(stats)), &count)
		})
		if err != nil {
			return nil, err
		}
		if int(count) <= len(stats) {
			out := make([]CallStat, int(count))
			for i := range out {
				s := &stats[i]
				out[i] = CallStat{Name: C.GoString(s.name), Calls: uint64(s.calls),
					FailedCalls: uint64(s.failed_calls), CallTime: time.Duration(s.call_ns)}
			}
			return out, nil
		}
		stats = make([]C.gp_call_stats, int(count)+8) // more entries since the count was read
	}
}

// ResetCounters zeroes the counters and the per-entry statistics
// (gp_context_reset_counters).
func (c *Context) ResetCounters() error {
	if err := c.lock("Context.ResetCounters"); err != nil {
		return err
	}
	defer c.unlock()
	return c.call("gp_context_reset_counters", func() C.gp_status { return C.gp_context_reset_counters(c.h) })
}
