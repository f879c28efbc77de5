// SPDX-License-Identifier: MIT OR Apache-2.0
/* Calls that pass an arbitrary int where the C API takes a gp_field (or a
 * gp_layout, a gp_status, a DLPack device type), as a C caller may
 * (converting an int to an enum is defined in C; loading such a value from
 * an enum-typed object is not in C++). The C++ tests call these so that the
 * library, not the test, is what handles the value. */
#include <stddef.h>

#include <dlpack/dlpack.h>

#include "gpuprover.h"

#include "enum_calls.h"

#define AS_FIELD(v) ((gp_field)(v))

gp_status call_field_info(int field) {
    uint64_t m, g;
    uint32_t a;
    return gp_field_info(AS_FIELD(field), &m, &g, &a);
}

gp_status call_two_adic_generator(int field) {
    uint64_t r;
    return gp_field_two_adic_generator(AS_FIELD(field), 3, &r);
}

uint32_t call_element_size(int field) { return gp_field_element_size(AS_FIELD(field)); }

gp_status call_buffer_create(gp_context *ctx, int field) {
    gp_buffer *b = NULL;
    gp_status st = gp_buffer_create(ctx, AS_FIELD(field), 1, 4, 1, &b);
    gp_buffer_destroy(b);
    return st;
}

gp_status call_buffer_from_host(gp_context *ctx, int field, int layout) {
    uint64_t data[4] = {1, 2, 3, 4};
    gp_buffer *b = NULL;
    gp_status st = gp_buffer_from_host(ctx, AS_FIELD(field), 1, 4, 1, (gp_layout)layout, data, &b);
    gp_buffer_destroy(b);
    return st;
}

gp_status call_buffer_to_host(const gp_buffer *buf, int layout) {
    uint64_t data[64];
    return gp_buffer_to_host(buf, (gp_layout)layout, data, sizeof data);
}

gp_status call_lde_batch_host(gp_context *ctx, int field, gp_buffer *out) {
    uint64_t data[4] = {1, 2, 3, 4};
    return gp_lde_batch_host(ctx, AS_FIELD(field), 1, data, 4, 1, NULL, out);
}

gp_status call_merkle_verify(int field) {
    gp_matrix_dims dims = {4, 1, 1};
    uint64_t cap[4] = {0}, rows[1] = {0}, path[8] = {0};
    return gp_merkle_verify(NULL, AS_FIELD(field), &dims, 1, cap, sizeof cap, 0, rows, sizeof rows, path,
                            sizeof path);
}

gp_status call_fri_begin_host(gp_context *ctx, int field) {
    uint64_t cw[8] = {0};
    gp_fri *f = NULL;
    gp_status st = gp_fri_begin_host(ctx, AS_FIELD(field), 1, cw, 8, NULL, NULL, 0, &f);
    gp_fri_destroy(f);
    return st;
}

gp_status call_fri_verify(int field) {
    uint64_t x[64] = {0};
    return gp_fri_verify(NULL, AS_FIELD(field), 1, 8, x, sizeof x, x, sizeof x, x, sizeof x, 0, x, sizeof x);
}

/* A FRI challenge callback that writes the challenge 0 and returns the int
 * that `user` points to, as a C callback may. */
static gp_status challenge_returning(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta,
                                     uint64_t beta_size) {
    size_t i;
    (void)layer;
    (void)cap;
    (void)cap_size;
    for (i = 0; i < beta_size; ++i) ((unsigned char *)beta)[i] = 0;
    return (gp_status)(*(const int *)user);
}

gp_status call_fri_commit_returning(gp_context *ctx, const gp_buffer *codeword, int status) {
    gp_fri *f = NULL;
    gp_status st = gp_fri_commit(ctx, codeword, NULL, challenge_returning, &status, &f);
    gp_fri_destroy(f);
    return st;
}

const char *call_status_name(int status) { return gp_status_name((gp_status)status); }

/* A DLPack tensor of 8 uint64 values whose device type is any int. */
static void count_deleter(struct DLManagedTensor *self) { ++*(int *)self->manager_ctx; }

gp_status call_buffer_from_dlpack_device(gp_context *ctx, int device_type, int *deleted) {
    static uint64_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t shape[1] = {8};
    DLManagedTensor t;
    gp_buffer *b = NULL;
    gp_status st;
    t.dl_tensor.data = data;
    t.dl_tensor.device.device_type = (DLDeviceType)device_type;
    t.dl_tensor.device.device_id = 0;
    t.dl_tensor.ndim = 1;
    t.dl_tensor.dtype.code = kDLUInt;
    t.dl_tensor.dtype.bits = 64;
    t.dl_tensor.dtype.lanes = 1;
    t.dl_tensor.shape = shape;
    t.dl_tensor.strides = NULL;
    t.dl_tensor.byte_offset = 0;
    t.manager_ctx = deleted;
    t.deleter = count_deleter;
    st = gp_buffer_from_dlpack(ctx, GP_FIELD_GOLDILOCKS, 1, &t, &b);
    gp_buffer_destroy(b); /* runs the deleter of an imported tensor */
    return st;
}
