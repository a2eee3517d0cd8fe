//! Stagecraft's engine: an annotated loop goes in; the software-pipelined program, its commit groups
//! and waits, an interpretation that proves them, timelines and machine code come out.
//! See ARCHITECTURE.md for the code map; `explore` is the entry point the app uses.

pub mod affine;
pub mod always_meet;
pub mod annotation_text;
mod by_extent;
pub mod cost;
pub mod dependence;
pub mod diagnostic;
pub mod emit;
pub mod english;
pub mod explore;
pub mod gantt;
pub mod html;
pub mod instances;
pub mod interp;
pub mod ir;
pub mod lessons;
pub mod lexer;
pub mod limits;
pub mod lower;
pub mod lower_threads;
pub mod machine;
#[cfg(not(target_arch = "wasm32"))]
pub mod native_alloc;
pub mod pareto;
pub mod parser;
pub mod pipelined;
pub mod printer;
pub mod protocol;
pub mod random_loop;
pub mod schedule;
pub mod schedule_bound;
pub mod schedule_space;
pub mod search;
pub mod search_picture;
pub mod search_text;
pub mod session;
pub mod shape;
pub mod simplify;
pub mod space_picture;
pub mod steps;
pub mod sync;
pub mod syntax;
pub mod tilelang;
pub mod timeline;
pub mod tir;
pub mod tokens;
pub mod tvm;
pub mod tvmscript;
pub mod verification_text;
pub mod verify;
pub mod verify_extents;
pub mod versions;
pub mod wire;
pub mod workloads;
