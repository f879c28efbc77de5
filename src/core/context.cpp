// SPDX-License-Identifier: MIT OR Apache-2.0
// Lifetimes of the objects a context owns: buffers and trees.
#include <atomic>
#include <cstdlib>
#include <memory>

#include "core/core.h"
#include "core/fri.h"
#include "core/registry.h"

namespace gp {

namespace {

// A buffer's description, its shape checked and its size computed; no
// memory yet. A buffer of the library's own memory may have no columns (a
// matrix of width 0: its rows are empty sponge inputs); borrowed memory may
// not.
std::unique_ptr<Buffer> describe(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols,
                                 bool allow_empty) {
    if (rows == 0) fail(GP_ERR_INVALID_ARGUMENT, "rows = 0 (a buffer needs at least one row)");
    if (cols == 0 && !allow_empty) fail(GP_ERR_INVALID_ARGUMENT, "cols = 0 (borrowed memory needs a column)");
    const uint64_t elems = checked_mul(checked_mul(rows, cols, "rows * cols"), ext, "rows * cols * ext");
    static std::atomic<uint64_t> serials{0};
    auto b = std::make_unique<Buffer>();
    b->serial = ++serials;
    b->ctx = c;
    b->field = &f;
    b->ext = ext;
    b->rows = rows;
    b->cols = cols;
    b->bytes = checked_mul(elems, f.elem_size, "element count * element size");
    return b;
}

// Registers a buffer whose memory is set with its context and the handle
// registry; on failure nothing is registered (the caller frees the memory).
Buffer *adopt(std::unique_ptr<Buffer> b) {
    Context *c = b->ctx;
    c->buffers.insert(b.get());
    try {
        register_handle(b.get(), HandleKind::Buffer, c);
    } catch (...) {
        c->buffers.erase(b.get());
        throw;
    }
    c->buffer_bytes += b->bytes;
    return b.release();
}

}  // namespace

Buffer *new_buffer(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, bool spread) {
    std::unique_ptr<Buffer> b = describe(c, f, ext, rows, cols, true);
    if (b->bytes == 0) return adopt(std::move(b));  // no columns: no memory
    c->backend->alloc_storage(*b, spread);
    Buffer storage = *b;
    try {
        return adopt(std::move(b));
    } catch (...) {
        c->backend->free_storage(storage);
        throw;
    }
}

Buffer *wrap_buffer(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, void *data,
                    std::function<void()> release) {
    std::unique_ptr<Buffer> b = describe(c, f, ext, rows, cols, false);
    if (reinterpret_cast<uintptr_t>(data) % f.elem_size)
        fail(GP_ERR_INVALID_ARGUMENT, "data = ", data, " is not aligned to the ", f.elem_size, "-byte elements of ",
             f.name);
    c->backend->check_foreign(data, b->bytes, "data");
    b->data = data;
    b->owned = false;
    c->backend->check_buffer_values(*b, "data");
    Buffer *out = adopt(std::move(b));
    out->release = std::move(release);  // from here on the buffer hands the memory back
    return out;
}

// Frees a buffer's memory (or hands borrowed memory back) and the buffer.
static void dispose(Context &c, Buffer *b) {
    if (b->owned && b->bytes) c.backend->free_storage(*b);
    if (b->release) b->release();
    delete b;
}

Buffer *buffer_from_host(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols,
                         gp_layout layout, const void *data, const char *arg) {
    Buffer *b = new_buffer(c, f, ext, rows, cols);
    if (b->bytes == 0) return b;  // no columns
    try {
        c->backend->upload(*b, data, layout, arg);
    } catch (...) {
        release_buffer(b);
        throw;
    }
    return b;
}

void release_buffer(Buffer *b) {
    Context *c = b->ctx;
    if (!c->buffers.erase(b)) return;  // not a live buffer of its context
    unregister_handle(b);
    c->buffer_bytes -= b->bytes;
    dispose(*c, b);
}

void adopt_tree(MerkleTree *t) {
    Context *c = t->ctx;
    c->trees.insert(t);
    try {
        register_handle(t, HandleKind::Tree, c);
    } catch (...) {
        c->trees.erase(t);
        throw;
    }
}

void release_tree(MerkleTree *t) {
    Context *c = t->ctx;
    if (!c->trees.erase(t)) return;
    unregister_handle(t);
    c->backend->free_buffer(t->nodes);
    delete t;
}

size_t release_all(Context &c) {
    size_t n = c.fris.size();
    const std::set<FriState *> fris = c.fris;
    for (FriState *f : fris) delete f;  // releases its own layers and trees
    n += c.buffers.size() + c.trees.size();
    for (MerkleTree *t : c.trees) {
        unregister_handle(t);
        c.backend->free_buffer(t->nodes);
        delete t;
    }
    c.trees.clear();
    for (Buffer *b : c.buffers) {
        unregister_handle(b);
        dispose(c, b);
    }
    c.buffers.clear();
    c.buffer_bytes = 0;
    for (auto &h : c.host_allocs) c.backend->transfer_free(h.first);
    n += c.host_allocs.size();
    c.host_allocs.clear();
    return n;
}

void *Backend::transfer_alloc(uint64_t bytes) {
    const uint64_t n = (bytes + 4095) & ~4095ull;
    void *p = n >= bytes ? std::aligned_alloc(4096, n) : nullptr;
    if (!p) fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of host memory");
    return p;
}

void Backend::transfer_free(void *p) { std::free(p); }

void words_out(const FieldDesc &f, const std::vector<uint64_t> &w, void *out) {
    for (size_t i = 0; i < w.size(); ++i) {
        if (f.elem_size == 8) static_cast<uint64_t *>(out)[i] = w[i];
        else static_cast<uint32_t *>(out)[i] = (uint32_t)w[i];
    }
}

std::vector<uint64_t> words_in(const FieldDesc &f, const void *in, uint64_t count) {
    std::vector<uint64_t> w(count);
    for (uint64_t i = 0; i < count; ++i)
        w[i] = f.elem_size == 8 ? static_cast<const uint64_t *>(in)[i] : static_cast<const uint32_t *>(in)[i];
    return w;
}

}  // namespace gp
