//! The bytes of each answer the worker sends the page for a text (stdin), and the exploration's
//! largest top-level fields (the bytes of their JSON: where an answer's size goes): what the page
//! must decode on its own thread.
//!   cargo run --release -p stagecraft-core --example answer_sizes < loop.txt
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::indexing_slicing
)]

use stagecraft::emit::Target;
use stagecraft::explore::Options;
use stagecraft::protocol::{encode_response, Job, Request, Want};
use stagecraft::session::Session;
use std::io::Read;
use std::time::Instant;

fn clock() -> f64 {
    thread_local!(static T0: Instant = Instant::now());
    T0.with(|t| t.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let mut session = Session::new(clock);
    let options = Options {
        defer_runs: true,
        both_forms: false,
        targets: Vec::new(),
        ..Options::default()
    };
    session.receive(Request {
        id: 1,
        job: Job::Explore {
            text,
            options: Box::new(options),
            wants: vec![
                Want::Whys,
                Want::Verification,
                Want::Timeline,
                Want::Code {
                    target: Target::Ptx,
                },
            ],
        },
    });
    // Each answer as the worker sends it (`Session::work` applies `for_the_page`).
    while let Some(r) = session.work() {
        let t = Instant::now();
        let bytes = encode_response(&r);
        let encode = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let decoded = stagecraft::protocol::decode_response(&bytes);
        let decode = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(decoded.as_ref(), Ok(&r));
        let value = serde_json::to_value(&r).unwrap();
        let answer = &value["answer"];
        let kind = answer
            .as_object()
            .and_then(|o| o.keys().next().cloned())
            .unwrap_or_default();
        println!(
            "{kind:10} {:>10} bytes  (encoded in {encode:.1} ms, decoded in {decode:.1} ms)",
            bytes.len()
        );
        let inner = answer
            .get("explored")
            .map(|e| &e["exploration"])
            .or_else(|| answer.get("part").map(|p| &p["part"]));
        if let Some(serde_json::Value::Object(fields)) = inner {
            let mut sizes: Vec<_> = fields
                .iter()
                .map(|(k, v)| (serde_json::to_vec(v).unwrap().len(), k.clone()))
                .collect();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            for (n, k) in sizes.iter().take(8) {
                println!("    {k:24} {n:>10}");
            }
        }
    }
}
