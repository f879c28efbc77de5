// SPDX-License-Identifier: MIT OR Apache-2.0
//! Host memory the context transfers fastest (`gp_host_alloc`).

use std::fmt;
use std::mem::size_of;
use std::ptr::NonNull;

use crate::{check, sys, Context, Element, Error, Result, Status};

/// Host memory from [`Context::host_alloc`] (`gp_host_alloc`): page-locked
/// on the CUDA backend (uploads read it and downloads write it by DMA,
/// without the library's staging), shared with the server on a remote
/// context over a unix socket, ordinary memory otherwise. 4096-byte aligned
/// and zeroed when made; its context keeps it until it is dropped
/// (`gp_host_free`). Pass its slices wherever host data goes
/// ([`crate::Buffer::from_host`], [`crate::Buffer::to_host`],
/// [`Context::lde_host`], ...). Pinning is slow: allocate once and reuse.
pub struct HostMemory {
    ptr: NonNull<u8>,
    bytes: usize,
    ctx: Context,
}

// SAFETY: plain memory owned by this value; the context handle is Send + Sync.
unsafe impl Send for HostMemory {}
// SAFETY: shared access only reads the memory (`as_slice`).
unsafe impl Sync for HostMemory {}

impl fmt::Debug for HostMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostMemory")
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl Context {
    /// `bytes` (at least 1) bytes of host memory that this context
    /// transfers fastest; see [`HostMemory`].
    pub fn host_alloc(&self, bytes: usize) -> Result<HostMemory> {
        if bytes == 0 {
            return Err(Error::new(Status::InvalidArgument, "bytes = 0"));
        }
        let mut out = std::ptr::null_mut();
        // SAFETY: `out` is valid for a write; the context handle is valid.
        check(unsafe { sys::gp_host_alloc(self.as_raw(), bytes, &mut out) })?;
        let ptr = NonNull::new(out.cast::<u8>())
            .ok_or_else(|| Error::new(Status::Internal, "gp_host_alloc returned GP_OK and NULL"))?;
        // SAFETY: the library returned `bytes` writable bytes at `ptr`;
        // zeroing makes every typed view initialized.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, bytes) };
        Ok(HostMemory {
            ptr,
            bytes,
            ctx: self.clone(),
        })
    }
}

impl HostMemory {
    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether it holds no bytes (never: at least one is allocated).
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The context it belongs to.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Its bytes as `len() / size_of::<T>()` elements.
    pub fn as_slice<T: Element>(&self) -> &[T] {
        // SAFETY: the memory is 4096-byte aligned, initialized (zeroed when
        // made, then written only through these views) and any bit
        // pattern is a valid u64 or u32; it lives as long as `self`.
        unsafe {
            std::slice::from_raw_parts(self.ptr.as_ptr().cast::<T>(), self.bytes / size_of::<T>())
        }
    }

    /// Its bytes as `len() / size_of::<T>()` mutable elements.
    pub fn as_mut_slice<T: Element>(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; `&mut self` makes the view exclusive.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.as_ptr().cast::<T>(),
                self.bytes / size_of::<T>(),
            )
        }
    }
}

impl Drop for HostMemory {
    fn drop(&mut self) {
        // SAFETY: the pointer came from gp_host_alloc on this context, which
        // is alive (held); it is freed once.
        let _ = unsafe { sys::gp_host_free(self.ctx.as_raw(), self.ptr.as_ptr().cast()) };
    }
}
