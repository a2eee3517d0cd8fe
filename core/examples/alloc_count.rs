//! Counts heap allocations per phase of `transform` on a file: where the allocator time goes.
//! `cargo run --release -p stagecraft-core --example alloc_count -- FILE`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let before = ALLOCS.load(Relaxed);
    let r = f();
    println!("{what:<28}{:>8}", ALLOCS.load(Relaxed) - before);
    r
}

fn main() {
    let text =
        std::fs::read_to_string(std::env::args().nth(1).unwrap_or_default()).unwrap_or_default();
    let options = stagecraft::explore::Options::default();
    println!(
        "size_of Expr {} Stmt {} Node {} IExpr {} VExpr {} Assign {}",
        std::mem::size_of::<stagecraft::syntax::Expr>(),
        std::mem::size_of::<stagecraft::syntax::Stmt>(),
        std::mem::size_of::<stagecraft::ir::Node>(),
        std::mem::size_of::<stagecraft::ir::IExpr>(),
        std::mem::size_of::<stagecraft::ir::VExpr>(),
        std::mem::size_of::<stagecraft::ir::Assign>()
    );
    let _ = count("lex", || stagecraft::lexer::lex(&text));
    let parsed = count("parse (with lex)", || stagecraft::parser::parse(&text));
    let _ = count("lower", || stagecraft::lower::lower(&parsed.file));
    let _ = count("transform (everything)", || {
        stagecraft::explore::transform(&text, &options)
    });
    let _ = count("explore (everything)", || {
        stagecraft::explore::explore(&text, &options)
    });
}
#[allow(dead_code)]
fn sizes() {}
