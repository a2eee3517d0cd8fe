//! Components. State lives in signals; every pane renders a part of the latest `Exploration`.

use crate::{annotations, highlight, presets, state};
use leptos::prelude::*;
use stagecraft::diagnostic::Severity;
use stagecraft::explore::{explore, Exploration, Options};
use stagecraft::pipelined::Form;
use stagecraft::verify::{Judgement, Verdict};
use std::sync::Arc;
use wasm_bindgen::JsCast;

const STORAGE_KEY: &str = "stagecraft.v1.text";

/// A panic in wasm would silently kill the page: show it in a banner instead.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        leptos::logging::error!("{info}");
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("panic"))
        {
            el.set_text_content(Some(&format!(
                "Stagecraft hit an internal error and stopped: {info}. Your text is saved in this browser; reload to continue."
            )));
            let _ = el.set_attribute("class", "banner error");
        }
    }));
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Where the first state comes from: the link, else this browser's saved text, else the default.
fn initial_state() -> (state::State, Option<String>) {
    let hash = location_hash();
    if hash.len() > 1 {
        match state::decode(&hash) {
            Ok(s) => return (s, None),
            Err(e) => {
                return (
                    state::State::default(),
                    Some(format!(
                        "{e}. Showing the default example; your saved work is untouched."
                    )),
                )
            }
        }
    }
    let mut s = state::State::default();
    if let Some(text) = storage().and_then(|st| st.get_item(STORAGE_KEY).ok().flatten()) {
        s.text = text;
    }
    (s, None)
}

fn options_for(s: &state::State) -> Options {
    Options {
        params: s.params.clone(),
        form: if s.form == "peeled" {
            Form::Peeled
        } else {
            Form::Rolled
        },
        ..Options::default()
    }
}

#[derive(Clone, Copy)]
struct Ctx {
    st: RwSignal<state::State>,
    /// The latest exploration, and the last one that produced a program.
    current: RwSignal<Option<Arc<Exploration>>>,
    good: RwSignal<Option<Arc<Exploration>>>,
    hovered: RwSignal<Option<u32>>,
    selected_race: RwSignal<Option<usize>>,
    undo: RwSignal<Vec<String>>,
    recompute_ms: RwSignal<f64>,
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

#[component]
pub fn App() -> impl IntoView {
    let (initial, banner) = initial_state();
    // A page opened from a link (good or damaged) must not overwrite this browser's saved work
    // until the user actually edits something.
    let from_link = location_hash().len() > 1;
    let initial_text = StoredValue::new(initial.text.clone());
    let ctx = Ctx {
        st: RwSignal::new(initial),
        current: RwSignal::new(None),
        good: RwSignal::new(None),
        hovered: RwSignal::new(None),
        selected_race: RwSignal::new(None),
        undo: RwSignal::new(Vec::new()),
        recompute_ms: RwSignal::new(0.0),
    };
    provide_context(ctx);
    let banner = RwSignal::new(banner);

    // Recompute at most once per animation frame, however fast the user types.
    let scheduled = StoredValue::new(false);
    Effect::new(move |_| {
        let s = ctx.st.get();
        if scheduled.get_value() {
            return;
        }
        scheduled.set_value(true);
        let _ = s;
        request_animation_frame(move || {
            scheduled.set_value(false);
            let s = ctx.st.get_untracked();
            let t0 = now_ms();
            let ex = Arc::new(explore(&s.text, &options_for(&s)));
            ctx.recompute_ms.set(now_ms() - t0);
            if ex.ok {
                ctx.good.set(Some(ex.clone()));
            }
            ctx.current.set(Some(ex));
            let edited = initial_text.with_value(|t| *t != s.text);
            if !from_link || edited {
                if let Some(st) = storage() {
                    let _ = st.set_item(STORAGE_KEY, &s.text);
                }
            }
        });
    });

    view! {
        <div id="panic" class="hidden"></div>
        {move || banner.get().map(|b| view! { <div class="banner warn">{b}<button on:click=move |_| banner.set(None)>"×"</button></div> })}
        <Header/>
        <main>
            <section class="left">
                <Editor/>
                <Grid/>
                <Problems/>
            </section>
            <section class="right">
                <Tabs/>
            </section>
        </main>
    }
}

/// Title, presets, form toggle, parameters and sharing.
#[component]
fn Header() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let copied = RwSignal::new(false);
    let copy_link = move |_| {
        let hash = state::encode(&ctx.st.get_untracked());
        if let Some(w) = web_sys::window() {
            let _ = w.history().and_then(|h| {
                h.replace_state_with_url(
                    &wasm_bindgen::JsValue::NULL,
                    "",
                    Some(&format!("#{hash}")),
                )
            });
            let url = w.location().href().unwrap_or_default();
            let _ = w.navigator().clipboard().write_text(&url);
        }
        copied.set(true);
        set_timeout(
            move || copied.set(false),
            std::time::Duration::from_millis(1500),
        );
    };
    let load = move |ev: leptos::ev::Event| {
        let name = event_target_value(&ev);
        if let Some((_, text)) = presets::PRESETS.iter().find(|(n, _)| *n == name) {
            let old = ctx.st.get_untracked().text;
            ctx.undo.update(|u| u.push(old));
            ctx.st.update(|s| s.text = text.to_string());
        }
    };
    let undo = move |_| {
        if let Some(prev) = ctx.undo.try_update(|u| u.pop()).flatten() {
            ctx.st.update(|s| s.text = prev);
        }
    };
    let params = move || {
        ctx.current
            .get()
            .map(|ex| {
                ex.programs
                    .as_ref()
                    .map(|p| p.params.clone())
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    };
    view! {
        <header>
            <h1>"Stagecraft"</h1>
            <span class="tagline">"software pipelines with asynchronous stages"</span>
            <select id="presets" on:change=load>
                <option value="">"Load an example…"</option>
                {presets::PRESETS.iter().map(|(n, _)| view! { <option value=*n>{*n}</option> }).collect_view()}
            </select>
            <button id="undo" on:click=undo disabled=move || ctx.undo.with(|u| u.is_empty())>"Undo load"</button>
            <label class="toggle">
                <input id="peeled" type="checkbox" prop:checked=move || ctx.st.with(|s| s.form == "peeled")
                    on:change=move |ev| { let on = event_target_checked(&ev); ctx.st.update(|s| s.form = if on { "peeled".into() } else { "rolled".into() }); }/>
                "peeled"
            </label>
            {move || params().into_iter().map(|(name, value)| {
                let n = name.clone();
                view! {
                    <label class="param">{name.clone()}" = "
                        <input type="number" min="1" max="4096" prop:value=value.to_string()
                            on:change=move |ev| { let v: i64 = event_target_value(&ev).parse().unwrap_or(16); ctx.st.update(|s| { s.params.insert(n.clone(), v.clamp(1, 4096)); }); }/>
                    </label>
                }
            }).collect_view()}
            <button id="copy-link" on:click=copy_link>{move || if copied.get() { "Link copied" } else { "Copy link" }}</button>
            <span class="timing" title="time of the last recomputation">{move || format!("{} ms", fixed(ctx.recompute_ms.get(), 1))}</span>
        </header>
    }
}

/// The source editor: a textarea over a highlighted copy of the same text.
#[component]
fn Editor() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let overlay = NodeRef::<leptos::html::Pre>::new();
    let html = move || {
        let text = ctx.st.with(|s| s.text.clone());
        match ctx.current.get() {
            Some(ex) => highlight::editor_html(
                &text,
                &ex.tokens,
                &ex.diagnostics,
                &ex.statements,
                ctx.hovered.get(),
            ),
            None => highlight::escape(&text),
        }
    };
    let sync_scroll = move |ev: leptos::ev::Event| {
        if let (Some(t), Some(pre)) = (
            ev.target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok()),
            overlay.get(),
        ) {
            pre.set_scroll_top(t.scroll_top());
            pre.set_scroll_left(t.scroll_left());
        }
    };
    view! {
        <div class="editor">
            <pre class="overlay" node_ref=overlay aria-hidden="true" inner_html=html></pre>
            <textarea id="source" spellcheck="false" autocomplete="off"
                prop:value=move || ctx.st.with(|s| s.text.clone())
                on:input=move |ev| { let v = event_target_value(&ev); ctx.st.update(|s| s.text = v); }
                on:scroll=sync_scroll></textarea>
        </div>
    }
}

/// One row per pipeline statement: its stage, its order, and per stage an async toggle.
#[component]
fn Grid() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let edit = move |f: GridEdit| {
        let Some(ex) = ctx.good.get_untracked() else {
            return;
        };
        let Some(p) = ex.pipeline.clone() else { return };
        let mut stages: Vec<i64> = p.units.iter().map(|u| u.stage).collect();
        let mut orders: Vec<i64> = p.units.iter().map(|u| u.order).collect();
        let mut asyncs = p.async_stages.clone();
        f(&mut stages, &mut orders, &mut asyncs);
        asyncs.sort_unstable();
        asyncs.dedup();
        let text = ctx.st.get_untracked().text;
        let new = annotations::rewrite(
            &text,
            &ex.annotations,
            &p.loop_var,
            &stages,
            &orders,
            &asyncs,
        );
        ctx.st.update(|s| s.text = new);
    };
    view! {
        <div class="grid">
            {move || ctx.current.get().and_then(|ex| ex.pipeline.clone()).map(|p| {
                let max_stage = p.units.iter().map(|u| u.stage).max().unwrap_or(0) + 1;
                let n = p.units.len();
                view! {
                    <table id="grid">
                        <tr><th>"statement"</th><th>"stage"</th><th>"order"</th></tr>
                        {p.units.iter().enumerate().map(|(k, u)| {
                            let stmt = u.stmts.first().copied();
                            view! {
                                <tr class=format!("s{}", stmt.unwrap_or(0) % 10)
                                    on:mouseenter=move |_| ctx.hovered.set(stmt) on:mouseleave=move |_| ctx.hovered.set(None)>
                                    <td class="label"><code>{u.label.clone()}</code></td>
                                    <td><input class="stage" type="number" min="0" max="64" prop:value=u.stage.to_string()
                                        on:change=move |ev| { let v: i64 = event_target_value(&ev).parse().unwrap_or(0); edit(Box::new(move |s, _, _| if let Some(x) = s.get_mut(k) { *x = v.clamp(0, 64) })); }/></td>
                                    <td class="order">{u.order}
                                        <button title="earlier in the step" on:click=move |_| edit(Box::new(move |_, o, _| move_order(o, k, -1)))>"↑"</button>
                                        <button title="later in the step" on:click=move |_| edit(Box::new(move |_, o, _| move_order(o, k, 1)))>"↓"</button></td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                    <div class="asyncs">"async stages: "
                        {(0..max_stage).map(|s| {
                            let on = p.async_stages.contains(&s);
                            view! { <label class="async-toggle"><input type="checkbox" id=format!("async-{s}") prop:checked=on
                                on:change=move |_| edit(Box::new(move |_, _, a| if on { a.retain(|x| *x != s) } else { a.push(s) }))/>{format!("stage {s}")}</label> }
                        }).collect_view()}
                    </div>
                    <p class="hint">{format!("{n} statements, stages 0–{}; editing the grid rewrites the sch.annotate lines", max_stage - 1)}</p>
                }
            })}
        </div>
    }
}

/// Changes (stages, orders, async stages) of the loop being edited.
type GridEdit = Box<dyn Fn(&mut Vec<i64>, &mut Vec<i64>, &mut Vec<i64>)>;

/// Swaps unit `k`'s order with the neighbour `dir` positions away in step order.
fn move_order(orders: &mut [i64], k: usize, dir: i64) {
    let Some(&mine) = orders.get(k) else { return };
    let mut sorted: Vec<i64> = orders.to_vec();
    sorted.sort_unstable();
    let Some(pos) = sorted.iter().position(|o| *o == mine) else {
        return;
    };
    let Some(&target) = sorted.get((pos as i64 + dir).max(0) as usize) else {
        return;
    };
    if let Some(j) = orders.iter().position(|o| *o == target) {
        orders.swap(k, j);
    }
}

/// Errors and warnings; clicking one puts the cursor there.
#[component]
fn Problems() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let jump = move |start: u32, end: u32| {
        if let Some(t) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("source"))
            .and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        {
            let text = ctx.st.with_untracked(|s| s.text.clone());
            // The textarea counts UTF-16 units.
            let to_utf16 = |b: u32| {
                text.get(..b as usize)
                    .map_or(0, |p| p.encode_utf16().count()) as u32
            };
            let _ = t.focus();
            let _ = t.set_selection_range(to_utf16(start), to_utf16(end));
        }
    };
    view! {
        <ul id="problems" class="problems">
            {move || ctx.current.get().map(|ex| {
                let text = ctx.st.with(|s| s.text.clone());
                ex.diagnostics.iter().map(|d| {
                    let (line, col) = stagecraft::diagnostic::line_col(&text, d.span.start as usize);
                    let (start, end) = (d.span.start, d.span.end);
                    let sev = match d.severity { Severity::Error => "error", Severity::Warning => "warning", Severity::Note => "note" };
                    view! {
                        <li class=sev on:click=move |_| jump(start, end)>
                            <span class="where">{format!("{line}:{col}")}</span>" "{d.message.clone()}
                            {d.hint.clone().map(|h| view! { <div class="hint">{h}</div> })}
                        </li>
                    }
                }).collect_view()
            })}
        </ul>
    }
}

/// The panes; each keeps its own scroll because only the visible one is shown, not rebuilt.
#[component]
fn Tabs() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let tab = move |id: &'static str, label: &'static str| {
        view! { <button class="tab" id=format!("tab-{id}") class:active=move || ctx.st.with(|s| s.pane == id)
        on:click=move |_| ctx.st.update(|s| s.pane = id.to_string())>{label}</button> }
    };
    let shown = move |id: &'static str| {
        move || {
            if ctx.st.with(|s| s.pane == id) {
                "pane"
            } else {
                "pane hidden"
            }
        }
    };
    let stale = move || ctx.current.get().is_some_and(|ex| !ex.ok);
    view! {
        <nav class="tabs">
            {tab("program", "Pipelined program")}{tab("verification", "Verification")}{tab("timeline", "Timeline")}
            {tab("space", "Iteration space")}{tab("code", "Code")}
            {move || stale().then(|| view! { <span class="stale">"showing the last good result; fix the problems on the left"</span> })}
        </nav>
        <div class="panes" class:dim=stale>
            <div class=shown("program")><ProgramPane/></div>
            <div class=shown("verification")><VerificationPane/></div>
            <div class=shown("timeline")><TimelinePane/></div>
            <div class=shown("space")><SpacePane/></div>
            <div class=shown("code")><CodePane/></div>
        </div>
    }
}

/// The printed program, sections set apart, waits explained on hover.
#[component]
fn ProgramPane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <pre id="program" class="program">
            {move || ctx.good.get().map(|ex| {
                let peeled = ctx.st.with(|s| s.form == "peeled");
                let printed = if peeled { ex.peeled.clone() } else { ex.rolled.clone() };
                let Some(printed) = printed else { return ().into_any() };
                let hovered = ctx.hovered.get();
                printed.text.lines().zip(printed.lines.iter()).map(|(line, info)| {
                    let mut class = String::from("line");
                    if let Some(s) = info.section { class.push_str(&format!(" sec-{}", s.name())); }
                    if let Some(id) = info.stmt {
                        class.push_str(&format!(" s{}", id % 10));
                        if hovered == Some(id) { class.push_str(" hl"); }
                    }
                    let title = info.wait.and_then(|w| ex.waits.iter().find(|x| x.id == w)).map(|w| {
                        let mut t = w.summary.clone();
                        for i in w.instances.iter().take(4) {
                            t.push('\n');
                            t.push_str(&i.arithmetic);
                            if !i.leaves.is_empty() {
                                t.push_str(&format!("\nleaves {} group(s) in flight", i.leaves.len()));
                            }
                        }
                        t
                    });
                    if title.is_some() { class.push_str(" wait"); }
                    let stmt = info.stmt;
                    view! { <div class=class title=title.unwrap_or_default()
                        on:mouseenter=move |_| if stmt.is_some() { ctx.hovered.set(stmt) }
                        on:mouseleave=move |_| ctx.hovered.set(None)>{line.to_string()}</div> }
                }).collect_view().into_any()
            })}
        </pre>
        <BufferTable/>
    }
}

/// Ring buffers and why each got its versions.
#[component]
fn BufferTable() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <table class="buffers">
            <tr><th>"buffer"</th><th>"scope"</th><th>"versions"</th><th>"why"</th></tr>
            {move || ctx.good.get().map(|ex| ex.buffers.iter().filter(|b| b.declared).map(|b| view! {
                <tr><td><code>{b.name.clone()}</code></td><td>{b.scope.name()}</td><td>{b.versions}</td><td>{b.reason.clone().unwrap_or_default()}</td></tr>
            }).collect_view())}
        </table>
    }
}

#[component]
fn VerificationPane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <div id="verification">
            {move || ctx.good.get().and_then(|ex| ex.verification.clone()).map(|v| {
                let class = match v.verdict {
                    Verdict::Equivalent => "verdict equivalent",
                    Verdict::SafeButLoose => "verdict safebutloose",
                    Verdict::Racy => "verdict racy",
                    Verdict::Different => "verdict different",
                    Verdict::NotRun => "verdict notrun",
                };
                view! {
                    <div class=class id="verdict">{v.summary.clone()}</div>
                    <h3>"Races"</h3>
                    <ul class="races">
                        {v.races.iter().enumerate().map(|(k, r)| {
                            let stmt = r.stmt;
                            view! { <li class:selected=move || ctx.selected_race.get() == Some(k)
                                on:click=move |_| { ctx.selected_race.set(Some(k)); ctx.hovered.set(Some(stmt)); }>{r.message.clone()}</li> }
                        }).collect_view()}
                        {v.races.is_empty().then(|| view! { <li class="none">"none"</li> })}
                    </ul>
                    <h3>"Waits"</h3>
                    <table class="waits">
                        <tr><th>"wait"</th><th>"queue"</th><th>"instances"</th><th>"judgement"</th></tr>
                        {v.waits.iter().map(|w| view! {
                            <tr><td>{w.id.map_or("—".to_string(), |i| format!("#{i}"))}</td><td>{w.queue}</td><td>{w.instances}</td>
                                <td>{judgement_text(w.judgement)}</td></tr>
                        }).collect_view()}
                    </table>
                    {(!v.differences.is_empty()).then(|| view! {
                        <h3>"Differences"</h3>
                        <ul>{v.differences.iter().map(|d| view! { <li>{format!("{}{}: loop {} — pipelined {}", d.buffer, index_text(&d.element), d.expected, d.got.map_or("nothing".to_string(), |g| g.to_string()))}</li> }).collect_view()}</ul>
                    })}
                }
            })}
        </div>
    }
}

fn judgement_text(j: Judgement) -> String {
    match j {
        Judgement::Tight => "tight".into(),
        Judgement::LooseBy { k } => format!("loose by {k}"),
        Judgement::Redundant => "redundant".into(),
        Judgement::Racy => "racy".into(),
        Judgement::NeverRan => "never ran".into(),
        Judgement::NotJudged => "not judged".into(),
    }
}

fn index_text(index: &[i64]) -> String {
    format!(
        "[{}]",
        index
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A Gantt chart: one row per lane, stalls in red, zoomable, exportable.
#[component]
fn TimelinePane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let svg_ref = NodeRef::<leptos::html::Div>::new();
    let export = move |_| {
        let Some(div) = svg_ref.get() else { return };
        let markup = div.inner_html();
        let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&markup));
        let bag = web_sys::BlobPropertyBag::new();
        bag.set_type("image/svg+xml");
        if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag) {
            if let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) {
                if let Some(a) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.create_element("a").ok())
                    .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
                {
                    a.set_href(&url);
                    a.set_download("stagecraft-timeline.svg");
                    a.click();
                }
                let _ = web_sys::Url::revoke_object_url(&url);
            }
        }
    };
    view! {
        <div id="timeline">
            <div class="controls">
                <label>"zoom "<input type="range" min="1" max="100" prop:value=move || ctx.st.with(|s| s.zoom.to_string())
                    on:input=move |ev| { let z: u32 = event_target_value(&ev).parse().unwrap_or(10); ctx.st.update(|s| s.zoom = z.clamp(1, 100)); }/></label>
                <button on:click=export>"Export SVG"</button>
            </div>
            {move || ctx.good.get().and_then(|ex| ex.timeline.clone()).map(|t| {
                let m = &t.metrics;
                view! {
                    <table class="metrics">
                        <tr><td>"total cycles"</td><td id="total-cycles">{m.total_cycles}</td><td>"unpipelined"</td><td>{m.unpipelined_cycles}</td><td>"speedup"</td><td>{format!("{}×", fixed(m.speedup, 2))}</td></tr>
                        <tr><td>"steady cycles / iteration"</td><td>{m.steady_cycles_per_iteration.map_or("—".into(), |v| fixed(v, 1))}</td>
                            <td>"stall cycles"</td><td>{m.stall_cycles}</td><td>"ring buffers"</td><td>{m.ring_bytes.iter().map(|(k, v)| format!("{k} {v} B")).collect::<Vec<_>>().join(", ")}</td></tr>
                    </table>
                }
            })}
            <CostEditor/>
            <div class="svgwrap" node_ref=svg_ref inner_html=move || {
                let zoom = ctx.st.with(|s| s.zoom);
                ctx.good.get().and_then(|ex| ex.timeline.clone()).map(|t| gantt_svg(&t, zoom)).unwrap_or_default()
            }></div>
        </div>
    }
}

/// Latency and issue cost per statement of the pipelined loop; editing writes the
/// `stagecraft_latency` / `stagecraft_issue` annotations into the text (the text stays the truth).
#[component]
fn CostEditor() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let set = move |key: &'static str, unit: usize, value: i64| {
        let Some(ex) = ctx.good.get_untracked() else {
            return;
        };
        let (Some(p), Some(cost)) = (ex.pipeline.clone(), ex.cost.clone()) else {
            return;
        };
        // Current values: overrides where present, −1 (default) elsewhere.
        let mut values: Vec<i64> = p
            .units
            .iter()
            .map(|u| {
                let annotated = ex
                    .annotations
                    .iter()
                    .any(|a| a.loop_var == p.loop_var && a.key == key);
                match u.stmts.first().and_then(|s| cost.overrides.get(s)) {
                    Some(c) if annotated => {
                        if key == "stagecraft_latency" {
                            c.latency as i64
                        } else {
                            c.issue as i64
                        }
                    }
                    _ => -1,
                }
            })
            .collect();
        if let Some(v) = values.get_mut(unit) {
            *v = value;
        }
        let text = ctx.st.get_untracked().text;
        let new = annotations::set_list(&text, &ex.annotations, &p.loop_var, key, &values);
        ctx.st.update(|s| s.text = new);
    };
    view! {
        <details class="costs"><summary>"Latencies (cycles; issue costs: the stagecraft_issue annotation)"</summary>
        <table id="costs">
            <tr><th>"statement"</th><th>"latency"</th></tr>
            {move || ctx.good.get().and_then(|ex| {
                let p = ex.pipeline.clone()?;
                Some(p.units.iter().zip(ex.unit_costs.iter()).enumerate().map(|(k, (u, c))| {
                    let lat = c.latency;
                    view! { <tr>
                        <td><code>{u.label.clone()}</code></td>
                        <td><input type="number" min="0" max="100000" prop:value=lat.to_string()
                            on:change=move |ev| set("stagecraft_latency", k, event_target_value(&ev).parse().unwrap_or(-1))/></td>
                    </tr> }
                }).collect_view())
            })}
        </table></details>
    }
}

/// `x` with `decimals` digits after the point, without the float formatting machinery (which alone
/// costs kilobytes of the bundle).
fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10i64.pow(decimals);
    let n = (x * scale as f64).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (whole, frac) = (n.abs() / scale, n.abs() % scale);
    if decimals == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac:0width$}", width = decimals as usize)
    }
}

/// The chart as SVG markup (also what "Export SVG" saves).
fn gantt_svg(t: &stagecraft::timeline::Timeline, zoom: u32) -> String {
    use stagecraft::timeline::Lane;
    let row = 28.0;
    let label_w = 90.0;
    let end = t
        .spans
        .iter()
        .map(|s| s.end)
        .chain(t.stalls.iter().map(|s| s.end))
        .max()
        .unwrap_or(0);
    // Zoom 10 fits the window into ~900 px; each step of the slider is 10% of that.
    let scale = 900.0 / (end.max(1) as f64) * f64::from(zoom) / 10.0;
    let width = label_w + end as f64 * scale + 20.0;
    let height = row * t.lanes.len() as f64 + 24.0;
    let lane_y = |l: &Lane| t.lanes.iter().position(|x| x == l).unwrap_or(0) as f64 * row;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"monospace\" font-size=\"11\">",
        fixed(width, 0),
        fixed(height, 0)
    );
    for l in &t.lanes {
        let name = match l {
            Lane::Compute => "compute".to_string(),
            Lane::Queue(q) => format!("queue {q}"),
        };
        s.push_str(&format!(
            "<text x=\"4\" y=\"{}\">{name}</text>",
            fixed(lane_y(l) + 18.0, 0)
        ));
    }
    for st in &t.stalls {
        s.push_str(&format!(
            "<rect class=\"stall\" x=\"{}\" y=\"2\" width=\"{}\" height=\"{}\" fill=\"#e5484d\" opacity=\"0.35\"><title>stall {} cycles: wait #{} on queue {} for group {}</title></rect>",
            fixed(label_w + st.start as f64 * scale, 1), fixed(((st.end - st.start) as f64 * scale).max(1.0), 1), fixed(row - 4.0, 0), st.end - st.start, st.wait.map_or("?".into(), |w| w.to_string()), st.queue, st.group
        ));
    }
    for sp in &t.spans {
        let hue = (sp.stmt % 10) * 36 + 200;
        s.push_str(&format!(
            "<rect class=\"span s{} st{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"hsl({hue},60%,60%)\" stroke=\"#333\" stroke-width=\"0.3\"><title>statement {} iteration {} ({}) step {}: {}–{}</title></rect>",
            sp.stmt % 10,
            sp.stmt,
            fixed(label_w + sp.start as f64 * scale, 1),
            fixed(lane_y(&sp.lane) + 4.0, 0),
            fixed(((sp.end - sp.start) as f64 * scale).max(1.0), 1),
            fixed(row - 8.0, 0),
            sp.stmt,
            sp.iteration.map_or("—".into(), |i| i.to_string()),
            sp.section.map_or("", |s| s.name()),
            sp.step,
            sp.start,
            sp.end
        ));
    }
    s.push_str(&format!(
        "<text x=\"{label_w}\" y=\"{}\" fill=\"#666\">steps {}–{} of {}{}</text>",
        fixed(height - 6.0, 0),
        t.window.0 + 1,
        t.window.1.min(t.metrics.steps),
        t.metrics.steps,
        if t.truncated { " (window)" } else { "" }
    ));
    s.push_str("</svg>");
    s
}

/// Stages × time: which iteration each statement runs at each step.
#[component]
fn SpacePane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    view! {
        <div id="space">
            {move || ctx.good.get().and_then(|ex| ex.iteration_space.clone()).map(|sp| {
                let header = sp.units.iter().map(|u| {
                    let label = format!("unit {} (stage {}{})", u.unit, u.stage, if u.is_async { ", async" } else { "" });
                    view! { <th>{label}</th> }
                }).collect_view();
                let stages: Vec<i64> = sp.units.iter().map(|u| u.stage).collect();
                let rows = sp.rows.iter().map(|r| {
                    let elided = sp.elided.filter(|(a, _)| *a == r.step).map(|(a, b)| {
                        let text = format!("… steps {a}–{} …", b - 1);
                        view! { <tr class="elided"><td colspan="99">{text}</td></tr> }
                    });
                    let cells = r.iterations.iter().zip(&stages).map(|(it, stage)| {
                        let class = if it.is_some() { format!("cell stage{}", stage % 8) } else { "cell idle".to_string() };
                        let text = it.map(|i| i.to_string()).unwrap_or_default();
                        view! { <td class=class>{text}</td> }
                    }).collect_view();
                    let class = format!("sec-{}", r.section.name());
                    let step = r.step;
                    view! { {elided}<tr class=class><td>{step}</td>{cells}</tr> }
                }).collect_view();
                view! { <table class="space"><tr><th>"step"</th>{header}</tr>{rows}</table> }
            })}
        </div>
    }
}

/// Machine code per target and the printed TIR, with copy.
#[component]
fn CodePane() -> impl IntoView {
    let ctx = expect_context::<Ctx>();
    let target = move || ctx.st.with(|s| s.target.clone());
    let code = move || {
        let ex = ctx.good.get()?;
        let t = target();
        if t == "tir" {
            let printed = if ctx.st.with(|s| s.form == "peeled") {
                ex.peeled.clone()
            } else {
                ex.rolled.clone()
            };
            return printed.map(|p| (p.text, Vec::new(), None));
        }
        ex.code
            .iter()
            .find(|c| c.target == t)
            .map(|c| (c.text.clone(), c.notes.clone(), c.error.clone()))
    };
    let copy = move |_| {
        if let (Some(w), Some((text, _, _))) = (web_sys::window(), code()) {
            let _ = w.navigator().clipboard().write_text(&text);
        }
    };
    const TARGETS: [(&str, &str); 5] = [
        ("tir", "TIR (Python)"),
        ("ptx", "PTX sm_80"),
        ("amdgpu", "AMDGPU gfx942"),
        ("amdgpu-gfx950", "AMDGPU gfx950"),
        ("amdgpu-ir", "AMDGPU LLVM IR"),
    ];
    view! {
        <div id="code">
            <div class="controls">
                <select id="target" on:change=move |ev| { let v = event_target_value(&ev); ctx.st.update(|s| s.target = v); }>
                    {TARGETS.iter().map(|(id, label)| view! { <option value=*id selected=move || target() == *id>{*label}</option> }).collect_view()}
                </select>
                <button on:click=copy>"Copy"</button>
            </div>
            {move || code().map(|(text, notes, error)| view! {
                {error.map(|e| view! { <div class="banner warn">{e}</div> })}
                <ul class="notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                <pre class="code">{text}</pre>
            })}
        </div>
    }
}
