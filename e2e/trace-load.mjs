// What the main thread's tasks contain while a fresh page loads: a Chromium trace of opening URL in a fresh browser, then, for every task of the
// renderer's main thread over MIN_MS (20 by default), its start and length from navigation (ms) and
// the events within it that took longest (compiling or instantiating WebAssembly, script, style,
// layout, paint), with the app's performance marks that fall in it. Serve a release build
// (scripts/build-web.sh, `scripts/serve-dist.py 8791`) and run:
//   RUNS=3 node e2e/trace-load.mjs [LOOP]
// With PASTE=LOOP2 the page is loaded first and the trace is of pasting LOOP2 (times from the paste).
// With LOOP (a file, or a generated loop such as `heavy-159-64-64`) the page opens with that text saved in its storage,
// else with the default example. TRACE_OUT=file.json keeps the last run's trace.
// CSS='rules' adds a style sheet to the page first (to see what a rule causes: a rule forced off).
// STACKS=1 records the script stack of each forced style or layout in the trace (with TRACE_OUT=file.json).
// With ACT='step;step;…' the page is loaded, every step but the last done, and the last traced
// (times from it); a step is `preset:REGEX` (the example whose name matches), `click:SELECTOR`
// or `select:SELECTOR=VALUE`, e.g. ACT='preset:CUTLASS;click:#tab-timeline'.
import { chromium } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import { url, loopText, executablePath, args, viewport, savedState, store, explored, paste, TASK_EVENT } from './fresh.mjs';

const runs = Number(process.env.RUNS || 3);
const minMs = Number(process.env.MIN_MS || 20);
const file = process.argv[2];
// LIGHT=1: only the tasks themselves (wall and CPU time), so that tracing hardly slows the page.
const categories = process.env.LIGHT === '1' ? ['toplevel', 'blink.user_timing'] : [
  'devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel',
  'blink.user_timing', 'v8', 'v8.wasm', 'disabled-by-default-v8.compile', 'v8.execute', 'loading',
  // STACKS=1: script stacks on forced styles and layouts (TRACE_OUT keeps them): who forced one.
  ...(process.env.STACKS === '1' ? ['disabled-by-default-devtools.timeline.stack'] : [])];

const pasted = process.env.PASTE ? loopText(process.env.PASTE) : undefined;
const steps = process.env.ACT ? process.env.ACT.split(';') : undefined;
/** Does one ACT step on `page`. */
async function act(page, step) {
  const [kind, ...rest] = step.split(':');
  const arg = rest.join(':');
  if (kind === 'preset') {
    const value = await page.$$eval('#presets option', (os, re) =>
      os.find(o => o.value && new RegExp(re).test(o.textContent))?.value, arg);
    await page.selectOption('#presets', value);
  } else if (kind === 'click') {
    await page.click(arg);
  } else if (kind === 'select') {
    const [selector, value] = arg.split('=');
    await page.selectOption(selector, value);
  } else throw new Error(`ACT: no step ${step}`);
  await page.waitForTimeout(1000);
}
const state = file ? await savedState(loopText(file)) : null;
let shared;
for (let r = 0; r < runs; r++) {
  // SHARED_BROWSER=1: one browser for every run, left running, as fresh.mjs does.
  const browser = shared ?? await chromium.launch({ executablePath, args });
  if (process.env.SHARED_BROWSER === '1') shared = browser;
  const page = await browser.newPage({ viewport });
  // CSS=rules: a style sheet added to the page (an experiment: what a rule costs or causes).
  if (process.env.CSS) {
    await page.addInitScript(css => addEventListener('DOMContentLoaded', () => {
      const style = document.createElement('style');
      style.textContent = css;
      document.head.append(style);
    }), process.env.CSS);
  }
  // The state is written before tracing begins: only the app's own load is traced.
  if (state) await store(page, state);
  if (pasted !== undefined || steps) {
    await page.goto(url);
    await explored(page);
    await page.waitForTimeout(1500);
    for (const step of steps?.slice(0, -1) ?? []) await act(page, step);
  }
  await browser.startTracing(page, { categories });
  if (pasted === undefined && !steps) {
    await page.goto(url);
    await explored(page);
  } else {
    await page.evaluate(() => performance.mark('stagecraft:pasting'));
    if (steps) await act(page, steps.at(-1)); else await paste(page, pasted);
  }
  await page.waitForTimeout(1500);
  const trace = JSON.parse((await browser.stopTracing()).toString());
  if (process.env.TRACE_OUT) writeFileSync(process.env.TRACE_OUT, JSON.stringify(trace));
  if (shared) await page.context().close(); else await browser.close();
  report(trace.traceEvents, r);
}
await shared?.close();

/** Prints the long tasks of the app's renderer main thread, with what is in them: the events of
 * at least a millisecond, three levels deep, and the app's performance marks. */
function report(events, r) {
  // From navigation, or (PASTE) from the paste.
  const nav = events.find(e => pasted === undefined && !steps
    ? e.name === 'navigationStart' && e.args?.data?.isLoadingMainFrame && e.args.data.documentLoaderURL?.startsWith(url)
    : e.name === 'stagecraft:pasting');
  const main = events.find(e => e.name === 'thread_name' && e.args.name === 'CrRendererMain'
    && e.pid === nav?.pid);
  if (!nav || !main) { console.log(`#${r}: no navigation (or paste) or main thread found`); return; }
  const t0 = nav.ts;
  const ms = ts => ((ts - t0) / 1000).toFixed(0);
  const onMain = events.filter(e => e.pid === main.pid && e.tid === main.tid && e.ts >= t0)
    .sort((a, b) => a.ts - b.ts);
  const tasks = onMain.filter(e => e.ph === 'X' && e.name === TASK_EVENT && e.dur / 1000 >= minMs);
  // An event's length, and its thread's CPU time in it (tdur) where the trace has it: far less CPU
  // than length means the thread waited for a core (the browser's other processes), not that the
  // page had that much to do.
  const took = e => `${(e.dur / 1000).toFixed(1)}${e.tdur === undefined ? '' : ` (cpu ${(e.tdur / 1000).toFixed(1)})`}`;
  const marks = onMain.filter(e => e.cat.includes('blink.user_timing') && e.name.startsWith('stagecraft:')
    && e.ph !== 'X' && e.ph !== 'e');
  const lines = [];
  for (const t of tasks) {
    lines.push(`  task ${ms(t.ts)}+${took(t)}`);
    const stack = [t];
    for (const e of onMain) {
      if (e === t || e.ph !== 'X' || e.ts < t.ts || e.ts + e.dur > t.ts + t.dur || e.dur < 1000) continue;
      while (stack.length > 1 && stack.at(-1).ts + stack.at(-1).dur < e.ts + e.dur) stack.pop();
      if (stack.length <= Number(process.env.DEPTH || 3)) lines.push(`${'  '.repeat(stack.length + 1)}${e.name} ${ms(e.ts)}+${took(e)}`);
      stack.push(e);
    }
    const m = marks.filter(e => e.ts >= t.ts && e.ts <= t.ts + t.dur).map(e => `${e.name.slice(11)}@${ms(e.ts)}`);
    if (m.length) lines.push(`    marks ${m.join(' ')}`);
  }
  const dom = marks.find(e => e.name === 'stagecraft:dom');
  console.log(`#${r}: first DOM ${dom ? ms(dom.ts) : '-'} ms; tasks over ${minMs} ms:\n${lines.join('\n')}`);
}
