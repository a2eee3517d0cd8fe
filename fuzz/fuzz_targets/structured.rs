//! Valid annotated loops built from an `arbitrary` description, so the fuzzer reaches the deep code:
//! when a schedule is accepted, the pipelined program must parse back, never wait for a negative
//! count, and compute what the loop computes without a race. A statement may be guarded on the
//! iteration (`if i == c:`, `if i < c:`, `if i >= c:`, c anywhere from 0 to past the last
//! iteration), which the transform decides where each copy of it runs.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use stagecraft::verify::Verdict;

#[derive(Arbitrary, Debug)]
struct Stmt {
    global: bool,
    reads: Vec<u8>,
    input_shift: u8,
    inner: bool,
    stage: u8,
}

#[derive(Arbitrary, Debug)]
struct Loop {
    stmts: Vec<Stmt>,
    orders: Vec<u8>,
    asyncs: Vec<u8>,
    extent: u8,
    symbolic: bool,
    ring: bool,
    /// By statement, its guard (`guard`). Last, so that it takes the bytes the other fields leave:
    /// an input written before it existed describes the same loop, its leftover bytes (if any)
    /// now guards.
    guards: Vec<u8>,
}

/// The guard byte `b` of a statement as the line that guards it, if any: the form from its low
/// two bits, the bound from the rest, up to two past the last iteration (`last`).
fn guard(b: u8, last: u32) -> Option<String> {
    let c = u32::from(b / 4) % (last + 3);
    match b % 4 {
        1 => Some(format!("if i == {c}:")),
        2 => Some(format!("if i < {c}:")),
        3 => Some(format!("if i >= {c}:")),
        _ => None,
    }
}

fn render(l: &Loop) -> Option<String> {
    let n = l.stmts.len().clamp(1, 8);
    let stmts = l.stmts.get(..n)?;
    let mut s = String::new();
    for k in 0..n {
        if !stmts[k].global {
            s.push_str(&format!("T{k} = alloc([{}])\n", if l.ring { 4 } else { 1 }));
        }
    }
    let extent_value = 1 + u32::from(l.extent % 24);
    let extent = if l.symbolic { "N".to_string() } else { extent_value.to_string() };
    // Under a symbolic extent, bounds up to 12: guards that start or stop a statement at small N.
    let last = if l.symbolic { 10 } else { extent_value - 1 };
    s.push_str(&format!("for i in range({extent}):\n"));
    for (k, st) in stmts.iter().enumerate() {
        let target = if st.global { format!("O{k}[i]") } else { format!("T{k}[{}]", if l.ring { "1" } else { "0" }) };
        let mut terms: Vec<String> = st
            .reads
            .iter()
            .take(2)
            .filter(|r| (**r as usize) < k.max(1) && k > 0)
            .map(|r| {
                let r = *r as usize % k.max(1);
                if stmts[r].global { format!("O{r}[i]") } else { format!("T{r}[{}]", if l.ring { "1" } else { "0" }) }
            })
            .collect();
        terms.push(format!("A[i + {}]", st.input_shift % 3));
        let value = terms.join(" + ");
        if st.inner {
            s.push_str(&format!("    for k in range(2):\n        {target} = {value} + k\n"));
        } else if let Some(line) = l.guards.get(k).and_then(|&b| guard(b, last)) {
            s.push_str(&format!("    {line}\n        {target} = {value} * 2\n"));
        } else {
            s.push_str(&format!("    {target} = {value} * 2\n"));
        }
    }
    let stages: Vec<String> = stmts.iter().map(|st| (st.stage % 5).to_string()).collect();
    let mut orders: Vec<usize> = (0..n).collect();
    for (i, o) in l.orders.iter().enumerate().take(n) {
        orders.swap(i, *o as usize % n);
    }
    let orders: Vec<String> = orders.iter().map(|o| o.to_string()).collect();
    let asyncs: Vec<String> = l.asyncs.iter().take(3).map(|a| (a % 5).to_string()).collect();
    s.push_str(&format!("sch.annotate(i, \"software_pipeline_stage\", [{}])\n", stages.join(", ")));
    s.push_str(&format!("sch.annotate(i, \"software_pipeline_order\", [{}])\n", orders.join(", ")));
    s.push_str(&format!("sch.annotate(i, \"software_pipeline_async_stages\", [{}])\n", asyncs.join(", ")));
    Some(s)
}

fuzz_target!(|l: Loop| {
    let Some(text) = render(&l) else { return };
    let ex = stagecraft::explore::explore(&text, &Default::default());
    if !ex.ok {
        return;
    }
    for printed in [ex.rolled.as_ref(), ex.peeled.as_ref()].into_iter().flatten() {
        let parsed = stagecraft::parser::parse(&printed.text);
        assert!(parsed.diagnostics.is_empty(), "{text}\n{}", printed.text);
    }
    for w in &ex.waits {
        for i in &w.instances {
            assert!(i.count >= 0, "{text}");
        }
    }
    if let Some(v) = &ex.verification {
        assert!(
            matches!(v.verdict, Verdict::Equivalent | Verdict::SafeButLoose | Verdict::NotRun),
            "{text}\n{}\n{}\n{:?}",
            ex.rolled.as_ref().map_or("", |p| p.text.as_str()),
            v.summary,
            v.races.first()
        );
    }
});
