//! A counting global allocator for the soak tests: the bytes live in the test process.
//! eagle-jni is the crate allowed `unsafe`; the `GlobalAlloc` trait requires an unsafe
//! impl, and every call forwards unchanged to `System`. So every soak lives in its tests,
//! the driver side's (eagle-client) and the daemons' alike.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

struct Counting;
static LIVE: AtomicI64 = AtomicI64::new(0);

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as i64, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as i64, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated and not freed, by every thread of the process.
pub fn live() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// Asserts that what is live at each checkpoint after the first (taken after warm-up) is
/// at most `slack` bytes above it: memory bounded, not byte-exact.
pub fn assert_flat(what: &str, live_at: &[i64], slack: i64) {
    eprintln!("{what}: live bytes at the checkpoints: {live_at:?}");
    assert!(live_at.iter().all(|&b| b <= live_at[0] + slack), "{what}: memory grows after warm-up: {live_at:?}");
}
