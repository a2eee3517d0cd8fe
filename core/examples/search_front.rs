//! Prints the front of a search of FILE, pruned or (with `brute`) by brute force: a debugging aid
//! for the pruning (core/tests/search.rs compares the two).
#[global_allocator]
static ALLOCATOR: stagecraft::native_alloc::Mimalloc = stagecraft::native_alloc::Mimalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return eprintln!("usage: search_front FILE [brute]");
    };
    let source = std::fs::read_to_string(path).unwrap_or_default();
    let options = stagecraft::search::SearchOptions {
        brute_force: args.get(1).is_some_and(|a| a == "brute"),
        ..Default::default()
    };
    match stagecraft::search::Search::new(&source, &options) {
        Ok(mut s) => {
            s.run();
            print!("{}", stagecraft::search_text::table(&s.report()));
        }
        Err(e) => eprintln!("{e}"),
    }
}
