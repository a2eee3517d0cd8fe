//! The schedule search against a brute force without its pruning, the interpreter and the
//! lower bound: on the examples of at most 6 statements and on random loops (docs/search.md).
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use stagecraft::annotation_text::Annotations;
use stagecraft::explore::{explore, Options};
use stagecraft::random_loop::{random_loop, Flavor};
use stagecraft::schedule_space::Space;
use stagecraft::search::{Search, SearchOptions, SearchReport, StopReason};
use stagecraft::verify::Verdict;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn options(brute_force: bool, max_stages: i64) -> SearchOptions {
    SearchOptions {
        brute_force,
        max_stages,
        ..SearchOptions::default()
    }
}

fn searched(text: &str, brute_force: bool, max_stages: i64) -> (Search, SearchReport) {
    let mut s = Search::new(text, &options(brute_force, max_stages)).unwrap();
    let stop = s.run();
    assert_eq!(stop, StopReason::Exhausted, "{text}");
    let r = s.report();
    (s, r)
}

/// The front as (cycles, bytes): equal for two exact fronts, whichever schedule each kept of
/// schedules equal in both.
fn values(r: &SearchReport) -> Vec<(u64, u64)> {
    r.front
        .iter()
        .map(|s| (s.total_cycles, s.smem_bytes))
        .collect()
}

fn assignments(text: &str) -> usize {
    explore(text, &Options::default()).statements.len()
}

/// The examples a brute force can search: at most 6 statements.
fn small_examples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if assignments(&text) <= 6 {
            out.push((path.display().to_string(), text));
        }
    }
    out.sort();
    out
}

/// Every schedule a search reports: judged equivalent by the interpreter, and its `--apply`
/// text explores to its cycles and bytes.
fn check_reported(name: &str, s: &Search, r: &SearchReport) {
    for (k, scored) in r.front.iter().enumerate() {
        assert_eq!(scored.verdict, Some(Verdict::Equivalent), "{name} #{k}");
        let text = s.apply(k).unwrap();
        let ex = explore(&text, &Options::default());
        assert!(ex.ok, "{name} #{k}: {:?}", ex.diagnostics);
        let t = ex.timeline.unwrap();
        assert_eq!(t.metrics.total_cycles, scored.total_cycles, "{name} #{k}");
        assert_eq!(
            ex.verification.unwrap().verdict,
            Verdict::Equivalent,
            "{name} #{k}"
        );
        let info = ex.pipeline.unwrap();
        let stages: Vec<i64> = info.units.iter().map(|u| u.stage).collect();
        assert_eq!(stages, scored.annotations.stages, "{name} #{k}");
        assert_eq!(info.async_stages, scored.annotations.async_stages);
    }
}

/// No schedule of the space takes fewer cycles than the bound's floor for its trip count and,
/// when `steady` (loops long enough to reach their steady state), none runs its steady state
/// below the bound.
fn check_bound(name: &str, s: &Search, r: &SearchReport, space: &Space, steady: bool) -> usize {
    let flat = Annotations {
        stages: vec![0; r.units.len()],
        orders: (0..r.units.len() as i64).collect(),
        async_stages: Vec::new(),
    };
    let lp = stagecraft::explore::scheduled_loop(&s.text_with(&flat), &Options::default());
    let floor = lp.unwrap().extent.map_or(0, |e| r.bound.cycles_floor(e));
    let mut cursor = space.start();
    let mut checked = 0;
    while let Some(a) = space.next(&mut cursor, false) {
        let Some(scored) = s.score(&a) else { continue };
        assert!(
            scored.total_cycles >= floor,
            "{name}: {} takes {} cycles, below the floor {floor} of {:?}",
            a.describe(),
            scored.total_cycles,
            r.bound
        );
        if let (true, Some(ii)) = (steady, scored.steady_cycles_per_iteration) {
            assert!(
                ii >= r.bound.ii * (1.0 - 1e-9),
                "{name}: {} runs {ii} cycles per iteration, below the bound {:?}",
                a.describe(),
                r.bound
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn examples_search_finds_the_brute_force_front() {
    let examples = small_examples();
    assert!(examples.len() >= 6, "{examples:?}");
    for (name, text) in &examples {
        let (s, pruned) = searched(text, false, 4);
        let (_, brute) = searched(text, true, 4);
        assert_eq!(values(&pruned), values(&brute), "{name}");
        assert!(pruned.tried <= brute.tried, "{name}");
        assert_eq!(pruned.refused_by_interpreter, 0, "{name}");
        check_reported(name, &s, &pruned);
    }
}

#[test]
fn random_loops_search_finds_the_brute_force_front() {
    let mut searched_loops = 0;
    let mut seed = 0;
    while searched_loops < 200 {
        seed += 1;
        assert!(seed < 5000, "too few searchable random loops");
        let flavor = if seed % 3 == 0 {
            Flavor::Copies
        } else {
            Flavor::Irregular
        };
        let l = random_loop(seed, flavor);
        if l.statements.len() > 3 {
            continue;
        }
        let text = l.text();
        let Ok(mut s) = Search::new(&text, &options(false, 4)) else {
            continue;
        };
        assert_eq!(s.run(), StopReason::Exhausted);
        let pruned = s.report();
        let (_, brute) = searched(&text, true, 4);
        let name = format!("random loop {seed} ({flavor:?})");
        assert_eq!(values(&pruned), values(&brute), "{name}\n{text}");
        check_reported(&name, &s, &pruned);
        searched_loops += 1;
    }
}

#[test]
fn the_bound_holds_for_every_schedule() {
    let mut checked = 0;
    for (name, text) in small_examples() {
        // Every schedule of the space is costed: stages below 4 for the small loops, below 2
        // for those of 5 units (120 orders each).
        let (s, r) = searched(&text, false, 4);
        let units = r.units.len();
        let stages = if units <= 3 { 4 } else { 2 };
        checked += check_bound(&name, &s, &r, &Space::everything(units, stages), true);
    }
    // Random loops with irregular indices (`%`, `//`, clamps, conditions, an element written
    // twice): at their own short extent only the floor holds; made long enough to reach their
    // steady state, the bound holds for every schedule's steady state too.
    let mut steady_loops = 0;
    for seed in 1..=220 {
        for flavor in [Flavor::Irregular, Flavor::SameElement] {
            let mut l = random_loop(seed, flavor);
            if l.statements.len() > 3 {
                continue;
            }
            let own = l.extent;
            for (extent, steady) in [(own, false), (Some(96), true)] {
                l.extent = extent;
                let Ok(s) = Search::new(&l.text(), &options(false, 4)) else {
                    continue;
                };
                let r = s.report();
                let name = format!("random loop {seed} ({flavor:?}) at extent {extent:?}");
                let space = Space::everything(r.units.len(), 4);
                checked += check_bound(&name, &s, &r, &space, steady);
                steady_loops += usize::from(steady);
            }
        }
    }
    assert!(steady_loops >= 200, "{steady_loops}");
    assert!(checked > 1000, "{checked}");
}

#[test]
fn brute_force_leaves_out_only_what_the_transform_refuses() {
    for (name, text) in small_examples() {
        let s = Search::new(&text, &options(true, 3)).unwrap();
        let units = s.report().units.len();
        if units > 3 {
            continue;
        }
        let lp = stagecraft::explore::scheduled_loop(&text, &Options::default()).unwrap();
        let kept = Space::brute_force(units, 3, stagecraft::search::forward_dependences(&lp));
        let mut listed = std::collections::HashSet::new();
        let mut c = kept.start();
        while let Some(a) = kept.next(&mut c, false) {
            listed.insert(a);
        }
        let all = Space::everything(units, 3);
        let mut c = all.start();
        let mut refused = 0;
        while let Some(a) = all.next(&mut c, false) {
            if !listed.contains(&a) {
                assert!(s.score(&a).is_none(), "{name}: {}", a.describe());
                refused += 1;
            }
        }
        assert!(refused > 0 || units == 1, "{name}");
    }
}

/// The bound's recurrences run only through dependences that hold at every iteration: a copy
/// into `S[i % 2]` read as `S[0]` feeds the reader at even iterations only, and the odd ones
/// between run free of it, so it bounds nothing; written as `S[0]`, it feeds every iteration.
#[test]
fn a_dependence_met_at_some_iterations_only_is_no_recurrence() {
    let bound = |index: &str| {
        let text = format!(
            "S = alloc([2])\nfor i in range(64):\n    S[{index}] = A[i] + 1\n    C[i] = S[0] + 1\n\
             sch.annotate(i, \"software_pipeline_stage\", [0, 1])\n\
             sch.annotate(i, \"software_pipeline_order\", [0, 1])\n\
             sch.annotate(i, \"software_pipeline_async_stages\", [0])\n"
        );
        Search::new(&text, &options(false, 4))
            .unwrap()
            .report()
            .bound
    };
    let feeds = |b: &stagecraft::schedule_bound::Bound| {
        b.edges
            .iter()
            .any(|e| e.from == 0 && e.to == 1 && e.buffer == "S")
    };
    let every = bound("0");
    assert!(feeds(&every), "{every:?}");
    assert!(every.recurrence > every.compute, "{every:?}");
    let some = bound("i % 2");
    assert!(!feeds(&some), "{some:?}");
    assert!(some.recurrence < every.recurrence, "{some:?}");
}

#[test]
fn a_refused_schedule_is_searched_from_the_loop_unpipelined() {
    // The consumer in an earlier stage than its producer: the transform refuses it.
    let text = std::fs::read_to_string(root().join("examples/rfc_a_async_copy.py"))
        .unwrap()
        .replace(
            "[0, 1])\nsch.annotate(i, \"software_pipeline_order\"",
            "[1, 0])\nsch.annotate(i, \"software_pipeline_order\"",
        );
    assert!(!explore(&text, &Options::default()).ok);
    let (_, r) = searched(&text, false, 4);
    assert!(r.own.is_none());
    let good = std::fs::read_to_string(root().join("examples/rfc_a_async_copy.py")).unwrap();
    let (_, expected) = searched(&good, false, 4);
    assert_eq!(values(&r), values(&expected));
}

#[test]
fn apply_writes_the_annotations_in_place_of_the_loops() {
    let text = std::fs::read_to_string(root().join("examples/rfc_c_interleaved.py")).unwrap();
    let (s, r) = searched(&text, false, 4);
    let applied = s.apply(0).unwrap();
    let a: &Annotations = &r.front[0].annotations;
    assert!(applied.contains(&a.lines("i")), "{applied}");
    // Everything but the annotation lines is as written.
    let strip = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("sch.annotate"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(strip(&applied), strip(&text));
    assert_eq!(applied.matches("software_pipeline_stage").count(), 1);
}

#[test]
fn the_progress_counts_the_stage_vectors_the_walk_can_try() {
    // A chain of three units over two stages: only [0,0,0], [0,0,1] and [0,1,1] start at 0 and
    // keep each dependence forward, of the eight vectors.
    let space = Space::new(3, 2, vec![(0, 1), (1, 2)]);
    let mut cursor = space.start();
    let mut seen = Vec::new();
    while let Some(a) = space.next(&mut cursor, false) {
        let p = space.progress(&cursor);
        if seen.last().map(|(s, _)| s) != Some(&a.stages) {
            seen.push((a.stages.clone(), p));
        }
    }
    assert_eq!(
        seen,
        vec![
            (vec![0, 0, 0], (0, 3)),
            (vec![0, 0, 1], (1, 3)),
            (vec![0, 1, 1], (2, 3)),
        ]
    );
    assert_eq!(space.progress(&cursor), (3, 3));
}

/// An example the search can read (the loop language), read once as the search reads it.
struct Readable {
    path: std::path::PathBuf,
    template: stagecraft::annotation_text::Template,
    read: stagecraft::explore::ReadLoop,
    var: String,
    model: stagecraft::cost::CostModel,
}

fn transform_only() -> Options {
    Options {
        verify: false,
        both_forms: false,
        targets: Vec::new(),
        ..Options::default()
    }
}

/// Every `every`-th schedule of each readable example's space (stages 0–3), until `visit` has
/// counted `cap` of an example's (it returns whether it counted one; `None` ends the example).
/// The number of examples visited.
fn each_sampled_schedule(
    every: u64,
    cap: usize,
    mut visit: impl FnMut(&Readable, &Annotations) -> Option<bool>,
) -> usize {
    let opts = transform_only();
    let mut examples = 0;
    for e in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let ex = explore(&text, &opts);
        let (Some(info), Some(model)) = (&ex.pipeline, &ex.cost) else {
            continue;
        };
        let Ok(template) = stagecraft::annotation_text::Template::new(&text, &info.loop_var) else {
            continue;
        };
        examples += 1;
        let example = Readable {
            path,
            template,
            read: stagecraft::explore::ReadLoop::read(&text, &opts).unwrap(),
            var: info.loop_var.clone(),
            model: model.clone(),
        };
        let space = Space::everything(info.units.len(), 4);
        let mut cursor = space.start();
        let (mut k, mut counted) = (0u64, 0);
        while let Some(a) = space.next(&mut cursor, false) {
            k += 1;
            if k % every != 1 {
                continue;
            }
            match visit(&example, &a) {
                None => break,
                Some(c) => counted += usize::from(c),
            }
            if counted >= cap {
                break;
            }
        }
    }
    examples
}

/// The search transforms each schedule from the text read once, with the loop's annotations
/// replaced (`ReadLoop`), not from the text `--apply` would write: on every example the search
/// can read, the two give the same rolled program and wait sites for every schedule of a
/// sample of its space (or both refuse it).
#[test]
fn a_schedule_transformed_from_the_text_read_once_is_the_schedule_written_out() {
    use stagecraft::explore::{rolled, rolled_with};
    let opts = transform_only();
    let mut compared = 0;
    // Every 7th schedule of the walk, up to 300 the transform accepts.
    let examples = each_sampled_schedule(7, 300, |e, a| {
        let written = rolled(&e.template.with(a), &opts);
        let replaced = rolled_with(&e.read, &e.var, a, &opts).map(|u| u.placed());
        let at = e.path.display();
        match (written, replaced) {
            (Ok(w), Ok(r)) => {
                assert_eq!(
                    stagecraft::tir::print(&w.program).text,
                    stagecraft::tir::print(&r.program).text,
                    "{at} with {a:?}"
                );
                assert_eq!(w.wait_sites, r.wait_sites, "{at} with {a:?}");
                assert_eq!(w.shift_changes_waits_from, r.shift_changes_waits_from);
                compared += 1;
                Some(true)
            }
            (Err(_), Err(_)) => Some(false),
            (w, r) => panic!(
                "{at} with {a:?}: written out {}, replaced {}",
                if w.is_ok() { "accepted" } else { "refused" },
                if r.is_ok() { "accepted" } else { "refused" }
            ),
        }
    });
    assert!(
        examples >= 10 && compared >= 1000,
        "{examples} examples, {compared} schedules"
    );
}

/// The search costs a schedule without its barriers first and drops it when that is already too
/// slow: sound only if barriers never take cycles away. On every example run by several
/// threads, for a sample of its schedules, the program with its barriers takes at least the
/// cycles of the one without.
#[test]
fn barriers_only_add_cycles() {
    use stagecraft::explore::rolled_with;
    use stagecraft::timeline::cycles;
    let opts = transform_only();
    let (mut compared, mut slower) = (0, 0);
    each_sampled_schedule(5, 300, |e, a| {
        let Ok(unplaced) = rolled_with(&e.read, &e.var, a, &opts) else {
            return Some(false);
        };
        if !unplaced.has_threads() {
            return None;
        }
        let params = Default::default();
        let without = cycles(unplaced.without_barriers(), &e.model, &params).total;
        let with = cycles(&unplaced.placed().program, &e.model, &params).total;
        assert!(
            with >= without,
            "{} with {a:?}: {with} < {without}",
            e.path.display()
        );
        slower += usize::from(with > without);
        compared += 1;
        Some(true)
    });
    assert!(
        compared >= 500 && slower * 2 >= compared,
        "{compared} schedules, {slower} slower"
    );
}
