// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernels that move or check elements without arithmetic: batched
// transposes between host and column layouts, the canonical-form check of
// uploaded data, and strided row copies.
#pragma once

#include <cstdint>

namespace gp {
namespace kern {

// out[b][c][r] = in[b][r][c] for batch b, R rows, C columns.
template <class T>
__global__ void k_transpose(const T *__restrict__ in, T *__restrict__ out, uint64_t batch,
                            uint64_t R, uint64_t C) {
    __shared__ T tile[32][33];
    const uint64_t tr = (R + 31) / 32, tc = (C + 31) / 32, per = tr * tc;
    for (uint64_t blk = blockIdx.x; blk < per * batch; blk += gridDim.x) {
        uint64_t b = blk / per, rem = blk % per;
        uint64_t r0 = (rem / tc) * 32, c0 = (rem % tc) * 32;
        const T *ib = in + b * R * C;
        T *ob = out + b * R * C;
        for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
            uint64_t r = r0 + y, c = c0 + threadIdx.x;
            if (r < R && c < C) tile[y][threadIdx.x] = ib[r * C + c];
        }
        __syncthreads();
        for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
            uint64_t c = c0 + y, r = r0 + threadIdx.x;
            if (r < R && c < C) ob[c * R + r] = tile[threadIdx.x][y];
        }
        __syncthreads();
    }
}

// Records in *first_bad the smallest index i with data[i] >= p (left as is
// when all values are canonical).
template <class T>
__global__ void k_check_canonical(const T *__restrict__ data, uint64_t count, uint64_t p,
                                  uint64_t index_offset, unsigned long long *first_bad) {
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < count;
         g += (uint64_t)gridDim.x * blockDim.x)
        if ((uint64_t)data[g] >= p) atomicMin(first_bad, (unsigned long long)(g + index_offset));
}

template <class T>
__global__ void k_copy_rows(const T *from, uint64_t start, uint64_t stride, uint64_t count, T *to) {
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < count; k += (uint64_t)gridDim.x * blockDim.x)
        to[k] = from[start + k * stride];
}

// Row i of each of gridDim.y-strided base columns of `rows` elements = row
// (mult * i mod rows) of the same column of `from` (rows a power of two).
template <class T>
__global__ void k_gather_rows(const T *from, uint64_t mult, uint64_t rows, uint64_t cols, T *to) {
    const uint64_t mask = rows - 1;
    for (uint64_t c = blockIdx.y; c < cols; c += gridDim.y)
        for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < rows;
             i += (uint64_t)gridDim.x * blockDim.x)
            to[c * rows + i] = from[c * rows + ((mult * i) & mask)];
}

}  // namespace kern
}  // namespace gp
