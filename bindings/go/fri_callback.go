// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

// The C side of FRICommit calls back into Go here. cgo allows only
// declarations in the preamble of a file with //export; the C wrappers that
// pass this function to gp_fri_commit are in fri.go.

/*
#include <stdint.h>
#include <gpuprover.h>
*/
import "C"

import (
	"errors"
	"runtime/cgo"
	"unsafe"
)

//export gpGoFRIChallenge
func gpGoFRIChallenge(user C.uintptr_t, layer C.uint32_t, capPtr unsafe.Pointer, capSize C.uint64_t,
	beta unsafe.Pointer, betaSize C.uint64_t) (status C.gp_status) {
	s := cgo.Handle(user).Value().(*friChallenge)
	// A panic must not unwind through the library's frames: keep it, stop
	// the commitment, and let FRICommit re-raise it.
	defer func() {
		if r := recover(); r != nil {
			s.panicked, s.panicVal = true, r
			status = C.GP_ERR_INTERNAL
		}
	}()
	esz := s.field.ElementSize()
	if beta == nil || int(betaSize) != s.ext*esz {
		s.err = argError("gp_fri_commit", ErrInternal, "the library asked for a %d-byte challenge; expected %d %d-byte values",
			int(betaSize), s.ext, esz)
		return C.GP_ERR_INTERNAL
	}
	var capb []byte
	if capPtr != nil && capSize > 0 {
		capb = C.GoBytes(capPtr, C.int(capSize))
	}
	bytes, err := s.fn(uint32(layer), capb, s.ext)
	if err != nil {
		s.err = err
		var st Status
		var gerr *Error
		switch {
		case errors.As(err, &gerr):
			st = gerr.Status
		case errors.As(err, &st):
		}
		if st == StatusOK {
			st = ErrInvalidArgument
		}
		return C.gp_status(st)
	}
	copy(unsafe.Slice((*byte)(beta), int(betaSize)), bytes)
	s.caps = append(s.caps, capb...)
	s.betas = append(s.betas, bytes...)
	return C.GP_OK
}
