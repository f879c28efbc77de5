/* Calls that pass an arbitrary int where the C API takes a gp_field, as a C
 * caller may (converting an int to an enum is defined in C; loading such a
 * value from an enum-typed object is not in C++). The C++ tests call these
 * so that the library, not the test, is what handles the value. */
#include <stddef.h>

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
