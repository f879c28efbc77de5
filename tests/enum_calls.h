// SPDX-License-Identifier: MIT OR Apache-2.0
/* See enum_calls.c. */
#ifndef GP_TEST_ENUM_CALLS_H
#define GP_TEST_ENUM_CALLS_H

#include "gpuprover.h"

#ifdef __cplusplus
extern "C" {
#endif

gp_status call_field_info(int field);
gp_status call_two_adic_generator(int field);
uint32_t call_element_size(int field);
gp_status call_buffer_create(gp_context *ctx, int field);
gp_status call_buffer_from_host(gp_context *ctx, int field, int layout);
gp_status call_buffer_to_host(const gp_buffer *buf, int layout);
gp_status call_lde_batch_host(gp_context *ctx, int field, gp_buffer *out);
gp_status call_merkle_verify(int field);
gp_status call_fri_begin_host(gp_context *ctx, int field);
gp_status call_fri_verify(int field);
/* gp_fri_commit of `codeword` whose challenge callback returns `status`. */
gp_status call_fri_commit_returning(gp_context *ctx, const gp_buffer *codeword, int status);
const char *call_status_name(int status);
/* gp_buffer_from_dlpack of an 8-element Goldilocks column on device type
 * `device_type`; the buffer, if made, is destroyed again. `*deleted` counts
 * the runs of the tensor's deleter. */
gp_status call_buffer_from_dlpack_device(gp_context *ctx, int device_type, int *deleted);

/* Test-only hook exported by the library (src/core/host_alloc.cpp): the
 * k-th host (kind 0) or device (kind 1) allocation from now on fails; 0
 * turns it off. Returns the allocations that were still to come before the
 * previous setting fired (0: it fired, or was off). */
uint64_t gp_testing_fail_allocation(int kind, uint64_t k);

#ifdef __cplusplus
}
#endif

#endif
