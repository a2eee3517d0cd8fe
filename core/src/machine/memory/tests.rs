//! Memory with operations in flight: when copies land, which accesses race.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

fn mem() -> Memory {
    Memory::new(
        vec![
            Space::new(SpaceKind::Global { param: 0 }, vec![7; 8], true),
            Space::new(SpaceKind::Shared { name: None }, vec![0; 8], false),
        ],
        1,
    )
}

fn cell(space: u16, word: u32) -> Cell {
    Cell { space, word }
}

fn copy(line: u32, domain: u32, order: Order, from: u32, to: u32, v: u32) -> Issue {
    Issue {
        line,
        wave: 0,
        domain,
        order,
        reads: vec![cell(0, from)],
        writes: vec![cell(1, to)],
        values: vec![v],
    }
}

const ACTOR: Actor = Actor { line: 99, wave: 0 };

#[test]
fn a_copy_lands_only_when_it_completes_and_an_early_read_races() {
    let mut m = mem();
    let mut out = Vec::new();
    let id = m.issue(copy(3, 0, Order::Unordered, 0, 0, 7), &mut out);
    assert!(out.is_empty());
    assert_eq!(m.read(cell(1, 0), ACTOR, &mut out), Some(0));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, RaceKind::ReadAfterWrite);
    assert_eq!(out[0].other_line, 3);
    out.clear();
    m.complete(id);
    assert_eq!(m.read(cell(1, 0), ACTOR, &mut out), Some(7));
    assert!(out.is_empty());
}

#[test]
fn overwriting_a_source_still_being_read_races() {
    let mut m = mem();
    let mut out = Vec::new();
    m.issue(copy(3, 0, Order::Unordered, 2, 0, 7), &mut out);
    m.write(cell(0, 2), 1, ACTOR, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, RaceKind::WriteAfterRead);
}

/// Two copies in flight writing one word race, in one domain as in two: nothing says which lands
/// last (two `cp.async` of one group, two LDS DMAs before a `vmcnt` wait). A copy reading what an
/// older one writes may read first.
#[test]
fn copies_in_flight_on_one_word_race_whatever_their_domain() {
    let mut m = mem();
    let mut out = Vec::new();
    m.issue(copy(1, 0, Order::Unordered, 0, 0, 7), &mut out);
    m.issue(copy(2, 0, Order::Unordered, 1, 0, 8), &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].kind, RaceKind::WriteAfterWrite);
    assert_eq!(out[0].other_line, 1);
    out.clear();
    m.issue(
        Issue {
            line: 3,
            wave: 0,
            domain: 0,
            order: Order::Unordered,
            reads: vec![cell(1, 0)],
            writes: vec![cell(0, 5)],
            values: vec![0],
        },
        &mut out,
    );
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|c| c.kind == RaceKind::ReadAfterWrite));
    // Another domain races on the writes and on the read.
    out.clear();
    m.issue(copy(4, 1, Order::Unordered, 3, 0, 7), &mut out);
    let kinds: Vec<RaceKind> = out.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [
            RaceKind::WriteAfterWrite,
            RaceKind::WriteAfterWrite,
            RaceKind::WriteAfterRead
        ]
    );
}

#[test]
fn in_order_operations_are_performed_at_issue() {
    let mut m = mem();
    let mut out = Vec::new();
    let w = m.issue(
        Issue {
            line: 1,
            wave: 0,
            domain: 5,
            order: Order::InOrder,
            reads: vec![],
            writes: vec![cell(1, 4)],
            values: vec![9],
        },
        &mut out,
    );
    assert_eq!(m.peek(cell(1, 4)), Some(9));
    m.issue(
        Issue {
            line: 2,
            wave: 0,
            domain: 5,
            order: Order::InOrder,
            reads: vec![cell(1, 4)],
            writes: vec![],
            values: vec![],
        },
        &mut out,
    );
    assert!(out.is_empty());
    // A synchronous access sees the write in flight.
    m.read(cell(1, 4), ACTOR, &mut out);
    assert_eq!(out.len(), 1);
    m.complete(w);
    m.complete(w);
    assert_eq!(m.peek(cell(1, 4)), Some(9));
}

#[test]
fn two_waves_in_one_barrier_interval_race_on_a_shared_word() {
    let mut m = Memory::new(
        vec![Space::new(
            SpaceKind::Shared { name: None },
            vec![0; 4],
            false,
        )],
        2,
    );
    let mut out = Vec::new();
    m.write(cell(0, 1), 5, Actor { line: 1, wave: 0 }, &mut out);
    m.read(cell(0, 1), Actor { line: 2, wave: 1 }, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, RaceKind::ReadAfterWrite);
    assert!(!out[0].in_flight);
    out.clear();
    m.barrier();
    m.read(cell(0, 1), Actor { line: 3, wave: 0 }, &mut out);
    assert!(out.is_empty());
}
