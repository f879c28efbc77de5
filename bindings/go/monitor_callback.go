// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

// The C side of the progress and log callbacks calls back into Go here. cgo
// allows only declarations in the preamble of a file with //export; the C
// wrappers that pass these functions to the library are in monitor.go.

/*
#include <stdint.h>
#include <gpuprover.h>
*/
import "C"

import "runtime/cgo"

//export gpGoProgress
func gpGoProgress(user C.uintptr_t, stage *C.char, done, total C.uint64_t) {
	m := cgo.Handle(user).Value().(*monitor)
	fn := m.progress
	if fn == nil || m.panicked {
		return
	}
	// A panic must not unwind through the library's frames: keep it, stop
	// the call, and let the method that made it re-raise it.
	defer func() {
		if r := recover(); r != nil {
			m.panicked, m.panicVal = true, r
			C.gp_context_cancel(m.h)
		}
	}()
	fn(C.GoString(stage), uint64(done), uint64(total))
}

//export gpGoLog
func gpGoLog(user C.uintptr_t, line *C.char) {
	m := cgo.Handle(user).Value().(*monitor)
	s := C.GoString(line)
	m.mu.Lock()
	if m.log != nil {
		m.lines = append(m.lines, s)
	}
	m.mu.Unlock()
}
