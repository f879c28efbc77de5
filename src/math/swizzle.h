// Shared-memory slots of the NTT kernels' tiles (kernels/ntt.cuh), written
// once for the kernels and for the host test of their bank behaviour
// (tests/test_swizzle.cpp).
//
// Tiles are XOR-swizzled: element i lives at slot i ^ ((i >> 3) & 31), a
// bijection on every power-of-two tile. Every access pattern of the
// radix-8 steps (contiguous, stride 8, stride 8C plus column) then takes the
// minimum number of wavefronts for 4- and 8-byte elements (one-in-eight
// padding took 1.5-1.9 times the minimum, which the profiler confirmed as
// 44% excess wavefronts). 4-byte elements take i ^ ((i >> 3) & 28) instead
// (kSwz16), which leaves every aligned group of four elements in one aligned
// 16-byte word, in order: tile copies and the lowest group of stages of a
// one-column tile move 16 bytes an access, and two neighbouring columns
// share an 8-byte word (bit 0 is left alone). The radix-8 steps keep the
// minimum but the stride-8 one of a one-column tile's lowest group, which
// the 16-byte words serve instead (docs/PERF.md version 28).
#pragma once

#include <cstdint>

#include "math/field.h"  // GP_HD

namespace gp {
namespace kern {

template <class T>
constexpr bool kSwz16 = sizeof(T) == 4;

template <class T>
GP_HD uint32_t swz(uint32_t i) {
    return i ^ ((i >> 3) & (kSwz16<T> ? 28u : 31u));
}

}  // namespace kern
}  // namespace gp
