// SPDX-License-Identifier: MIT OR Apache-2.0
//! Cancellation, progress and log callbacks, per-context counters and the
//! caller's CUDA stream (`gp_context_cancel`, `gp_context_set_progress`,
//! `gp_context_set_log`, `gp_context_counters`, `gp_context_call_stats`,
//! `gp_context_reset_counters`, `gp_context_set_stream`).

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::CStr;
use std::fmt;
use std::mem::size_of;
use std::os::raw::{c_char, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::{check, sys, Context, ContextInner, Result};

/// The progress callback a context owns.
pub(crate) type ProgressFn = Box<dyn FnMut(&str, u64, u64) + Send>;
/// The log callback a context owns.
pub(crate) type LogFn = Box<dyn FnMut(&str) + Send>;

thread_local! {
    /// A panic of a callback, caught at the C boundary (unwinding through C
    /// is not allowed) and resumed by `check` when the call returns. The
    /// library calls the callbacks on the calling thread, so this is the
    /// thread that resumes it.
    static PENDING_PANIC: RefCell<Option<Box<dyn Any + Send + 'static>>> = RefCell::new(None);
}

fn store_panic(payload: Box<dyn Any + Send + 'static>) {
    let _ = PENDING_PANIC.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(payload);
        }
    });
}

/// Resumes the panic a callback raised on this thread, if any.
pub(crate) fn resume_pending_panic() {
    let payload = PENDING_PANIC
        .try_with(|slot| slot.borrow_mut().take())
        .ok()
        .flatten();
    if let Some(payload) = payload {
        panic::resume_unwind(payload);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A callback that panicked poisons its slot; the slot stays usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

unsafe fn stage_str<'a>(p: *const c_char) -> Cow<'a, str> {
    if p.is_null() {
        Cow::Borrowed("")
    } else {
        CStr::from_ptr(p).to_string_lossy()
    }
}

unsafe extern "C" fn progress_trampoline(
    user: *mut c_void,
    stage: *const c_char,
    done: u64,
    total: u64,
) {
    // SAFETY: `user` is the ContextInner (in its Arc) that registered this
    // trampoline; the library calls it during a call on that context, which
    // holds a reference to it, and it is unregistered before it is dropped.
    let inner = &*(user as *const ContextInner);
    let stage = stage_str(stage);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        if let Some(f) = lock(&inner.progress).as_mut() {
            f(&stage, done, total);
        }
    }));
    if let Err(payload) = result {
        // Stop the call at once; `check` resumes the panic when it returns.
        store_panic(payload);
        sys::gp_context_cancel(inner.raw_ptr());
    }
}

unsafe extern "C" fn log_trampoline(user: *mut c_void, line: *const c_char) {
    // SAFETY: as in `progress_trampoline`.
    let inner = &*(user as *const ContextInner);
    let line = stage_str(line);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        if let Some(f) = lock(&inner.log).as_mut() {
            f(&line);
        }
    }));
    if let Err(payload) = result {
        store_panic(payload);
    }
}

/// Per-context counters (`gp_counters`), since the context was created or
/// [`Context::reset_counters`] was called.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Calls made on the context (every entry point that takes it or one of
    /// its handles).
    pub calls: u64,
    /// Those of them that failed.
    pub failed_calls: u64,
    /// Wall time inside the calls, nanoseconds.
    pub call_ns: u64,
    /// Bytes copied host to device (CUDA backend; 0 on the CPU backend).
    pub bytes_to_device: u64,
    /// Bytes copied device to host (CUDA backend; 0 on the CPU backend).
    pub bytes_to_host: u64,
    /// Device time of the calls' GPU work, nanoseconds (0 on the CPU
    /// backend).
    pub device_ns: u64,
}

impl Counters {
    /// `call_ns` as a `Duration`.
    pub fn call_time(&self) -> Duration {
        Duration::from_nanos(self.call_ns)
    }

    /// `device_ns` as a `Duration`.
    pub fn device_time(&self) -> Duration {
        Duration::from_nanos(self.device_ns)
    }
}

/// The calls of one entry point on a context (`gp_call_stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallStats {
    /// The C entry point, e.g. `"gp_lde_batch"`.
    pub name: &'static str,
    /// Calls made.
    pub calls: u64,
    /// Those of them that failed.
    pub failed_calls: u64,
    /// Wall time inside them, nanoseconds.
    pub call_ns: u64,
}

impl CallStats {
    /// `call_ns` as a `Duration`.
    pub fn call_time(&self) -> Duration {
        Duration::from_nanos(self.call_ns)
    }
}

/// Cancels the calls of a context without keeping it alive
/// ([`Context::cancel_handle`]): for a progress callback (a callback that
/// held a [`Context`] clone would keep its own context alive forever) or a
/// watchdog thread. `Clone`, `Send` and `Sync`.
#[derive(Clone)]
pub struct CancelHandle {
    inner: Weak<ContextInner>,
}

impl fmt::Debug for CancelHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelHandle")
            .field("alive", &(self.inner.strong_count() > 0))
            .finish()
    }
}

impl CancelHandle {
    /// Cancels the call in flight on the context, as [`Context::cancel`]
    /// does. Returns `false` when the context no longer exists.
    pub fn cancel(&self) -> bool {
        match self.inner.upgrade() {
            Some(inner) => {
                // SAFETY: the context is alive (upgraded); the call is safe
                // from any thread at any time.
                unsafe { sys::gp_context_cancel(inner.raw_ptr()) };
                true
            }
            None => false,
        }
    }
}

impl Context {
    /// Asks the call in flight on this context to stop
    /// (`gp_context_cancel`): it returns an error with
    /// [`Status::Cancelled`](crate::Status::Cancelled) at its next batch or
    /// layer boundary, having released what it allocated; every object stays
    /// usable. A call that starts after `cancel` returns is not affected, and
    /// cancelling an idle context does nothing.
    ///
    /// Meant to be called from another thread while a call runs (a
    /// `Context` is `Sync`; clone it or share `&Context`), or from the
    /// progress callback through a [`CancelHandle`]. It does not wait for the
    /// call.
    pub fn cancel(&self) -> Result<()> {
        // SAFETY: the handle is valid; the header makes this call safe from
        // any thread while another call runs on the context.
        check(unsafe { sys::gp_context_cancel(self.as_raw()) })
    }

    /// A handle that cancels this context's calls ([`Context::cancel`])
    /// without keeping the context alive.
    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle {
            inner: Arc::downgrade(self.inner()),
        }
    }

    /// Sets the context's progress callback (`gp_context_set_progress`),
    /// replacing the previous one: `f(stage, done, total)` says that `done`
    /// of `total` units of step `stage` (`"lde"`, `"merkle"`, `"fri"`, ...)
    /// of a long call are finished. It is called on the thread that made the
    /// call, between batches and layers.
    ///
    /// The context owns the closure (every clone shares it) and drops it
    /// when it is replaced, cleared ([`Context::clear_progress`]) or the
    /// context is destroyed. The closure must not call the library on this
    /// context, except to cancel it through a [`CancelHandle`] (capture that,
    /// not a `Context` clone, which would keep the context alive). A panic in
    /// the closure cancels the call, which then resumes the panic.
    pub fn set_progress<F>(&self, f: F) -> Result<()>
    where
        F: FnMut(&str, u64, u64) + Send + 'static,
    {
        let old = lock(&self.inner().progress).replace(Box::new(f));
        drop(old); // outside the lock
                   // SAFETY: `user` is the context's shared state, which lives until
                   // the last clone is dropped; its Drop unregisters the trampoline.
        check(unsafe {
            sys::gp_context_set_progress(
                self.as_raw(),
                Some(progress_trampoline),
                Arc::as_ptr(self.inner()) as *mut c_void,
            )
        })
    }

    /// Removes the progress callback and drops it.
    pub fn clear_progress(&self) -> Result<()> {
        // SAFETY: the handle is valid; NULL clears the callback.
        let result =
            check(unsafe { sys::gp_context_set_progress(self.as_raw(), None, ptr::null_mut()) });
        let old = lock(&self.inner().progress).take();
        drop(old);
        result
    }

    /// Sets the context's log callback (`gp_context_set_log`), replacing the
    /// previous one: `f(line)` gets one line per finished call on the
    /// context, naming the entry point, its status, its wall time and, for a
    /// failed call, the message (`"gp_lde_batch GP_OK 12.345 ms"`). It is
    /// called on the calling thread after the call; calls finishing on
    /// several threads at once take turns.
    ///
    /// Ownership as for [`Context::set_progress`]. The closure must not call
    /// the library on this context. A panic in it is resumed when the call
    /// returns.
    pub fn set_log<F>(&self, f: F) -> Result<()>
    where
        F: FnMut(&str) + Send + 'static,
    {
        let old = lock(&self.inner().log).replace(Box::new(f));
        drop(old);
        // SAFETY: as in `set_progress`.
        check(unsafe {
            sys::gp_context_set_log(
                self.as_raw(),
                Some(log_trampoline),
                Arc::as_ptr(self.inner()) as *mut c_void,
            )
        })
    }

    /// Removes the log callback and drops it.
    pub fn clear_log(&self) -> Result<()> {
        // SAFETY: the handle is valid; NULL clears the callback.
        let result =
            check(unsafe { sys::gp_context_set_log(self.as_raw(), None, ptr::null_mut()) });
        let old = lock(&self.inner().log).take();
        drop(old);
        result
    }

    /// The context's counters (`gp_context_counters`).
    pub fn counters(&self) -> Result<Counters> {
        // SAFETY: plain data; struct_size is set before the call.
        let mut raw: sys::gp_counters = unsafe { std::mem::zeroed() };
        raw.struct_size = size_of::<sys::gp_counters>() as u32;
        check(unsafe { sys::gp_context_counters(self.as_raw(), &mut raw) })?;
        Ok(Counters {
            calls: raw.calls,
            failed_calls: raw.failed_calls,
            call_ns: raw.call_ns,
            bytes_to_device: raw.bytes_to_device,
            bytes_to_host: raw.bytes_to_host,
            device_ns: raw.device_ns,
        })
    }

    /// Calls, failures and wall time per entry point, sorted by name
    /// (`gp_context_call_stats`).
    pub fn call_stats(&self) -> Result<Vec<CallStats>> {
        let mut raw: Vec<sys::gp_call_stats> = Vec::new();
        loop {
            let mut count = 0usize;
            // SAFETY: `raw` is valid for `raw.len()` entries (NULL with
            // capacity 0 asks for the count).
            check(unsafe {
                sys::gp_context_call_stats(
                    self.as_raw(),
                    if raw.is_empty() {
                        ptr::null_mut()
                    } else {
                        raw.as_mut_ptr()
                    },
                    raw.len(),
                    &mut count,
                )
            })?;
            if count <= raw.len() {
                raw.truncate(count);
                break;
            }
            // More entry points than room (another thread may add some
            // between the calls): grow and ask again.
            // SAFETY: gp_call_stats is plain data (a pointer and integers).
            raw = vec![unsafe { std::mem::zeroed() }; count + 4];
        }
        Ok(raw
            .iter()
            .map(|s| CallStats {
                name: if s.name.is_null() {
                    ""
                } else {
                    // SAFETY: the header gives the names static storage.
                    unsafe { CStr::from_ptr(s.name) }.to_str().unwrap_or("")
                },
                calls: s.calls,
                failed_calls: s.failed_calls,
                call_ns: s.call_ns,
            })
            .collect())
    }

    /// Zeroes the counters and the per-entry statistics
    /// (`gp_context_reset_counters`).
    pub fn reset_counters(&self) -> Result<()> {
        // SAFETY: the handle is valid.
        check(unsafe { sys::gp_context_reset_counters(self.as_raw()) })
    }

    /// Orders the context's device work after the caller's CUDA stream
    /// (`gp_context_set_stream`): every later call waits for the work queued
    /// on `stream` before it, and returns after its own device work is done.
    /// NULL (the default) means no stream. [`Status::Unsupported`] on the
    /// CPU backend for a non-NULL stream.
    ///
    /// # Safety
    ///
    /// `stream` must be NULL or a `cudaStream_t` of the context's GPU that
    /// stays valid until it is replaced (set NULL before destroying it) or
    /// the context is destroyed.
    ///
    /// [`Status::Unsupported`]: crate::Status::Unsupported
    pub unsafe fn set_stream(&self, stream: *mut c_void) -> Result<()> {
        check(sys::gp_context_set_stream(self.as_raw(), stream))
    }
}

impl ContextInner {
    pub(crate) fn raw_ptr(&self) -> *mut sys::gp_context {
        self.raw.as_ptr()
    }
}
