//! The allocator the native tools (command line, benchmarks, profiling examples) install. The
//! library never chooses one itself; the app (wasm32) keeps Rust's default.
//!
//! The transform builds many small trees, and glibc's malloc was a large part of its time
//! (docs/benchmarks.md). mimalloc's own `GlobalAlloc` goes through `mi_malloc_aligned` for every
//! layout; nearly all of ours need no more than the word alignment every mimalloc block has, and
//! the plain path is shorter.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// `#[global_allocator] static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;`
pub struct Mimalloc;

/// The alignment of every mimalloc block: its smallest size class is one word, and classes are
/// whole words. (Blocks of 16 bytes or more are often 16-aligned, but a 1-byte block grown to 3
/// bytes was not: the test below caught it.)
const PLAIN_ALIGN: usize = std::mem::size_of::<usize>();

/// Blocks of up to this many bytes come from mimalloc's small-object path, which skips the size
/// dispatch of `mi_malloc` and a call: nearly every block of the transform is small
/// (docs/benchmarks.md).
const SMALL: usize = libmimalloc_sys::MI_SMALL_SIZE_MAX;

// SAFETY: every call forwards to mimalloc with a layout whose alignment it honours: plain calls
// for alignments `mi_malloc` always meets (the small-object calls only for sizes they take), the
// aligned variants otherwise.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN && layout.size() <= SMALL {
            libmimalloc_sys::mi_malloc_small(layout.size()).cast()
        } else if layout.align() <= PLAIN_ALIGN {
            libmimalloc_sys::mi_malloc(layout.size()).cast()
        } else {
            libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN && layout.size() <= SMALL {
            libmimalloc_sys::mi_zalloc_small(layout.size()).cast()
        } else if layout.align() <= PLAIN_ALIGN {
            libmimalloc_sys::mi_zalloc(layout.size()).cast()
        } else {
            libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        libmimalloc_sys::mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            libmimalloc_sys::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            libmimalloc_sys::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align())
                .cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alignment_is_honoured() {
        for align in [1, 2, 8, 16, 32, 64, 4096] {
            for size in [1, 7, 24, 100, SMALL, SMALL + 1, 5000] {
                let layout = Layout::from_size_align(size, align).unwrap_or(Layout::new::<u8>());
                // SAFETY: a non-zero size; the pointer is freed with the same layout.
                unsafe {
                    let p = Mimalloc.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    let q = Mimalloc.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc size {size} align {align}");
                    Mimalloc.dealloc(
                        q,
                        Layout::from_size_align(size * 3, align).unwrap_or(layout),
                    );
                    let z = Mimalloc.alloc_zeroed(layout);
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    Mimalloc.dealloc(z, layout);
                }
            }
        }
    }
}
