// Where the time of one edit goes, frame by frame (docs/benchmarks.md, edit → painted): a Chromium
// trace of EDITS (5) edits of PRESET (its value in the presets menu), each a key typed into a
// comment after the loop (REPLACE=1: the whole text replaced in one input event), and for each, from its `stagecraft:edit` mark: the page's main-thread tasks
// (what ran in them: input, timers, animation frames, messages), the worker's, the frames drawn
// (BeginMainThreadFrame, Paint) and the page's marks, up to `stagecraft:painted`. Serve a release
// build and run (INVALIDATIONS=1 adds what invalidated style and layout; MORE=categories adds
// trace categories):
//   node e2e/trace-frames.mjs "RFC (a): async copy" [PANE]
import { commentEdits, openPreset } from './fresh.mjs';

const [preset = 'RFC (a): async copy', pane = 'program'] = process.argv.slice(2);
const edits = Number(process.env.EDITS || 5);
const { browser, page, base } = await openPreset(preset, pane);
await browser.startTracing(page, {
  categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame',
    'toplevel', 'blink.user_timing', ...(process.env.INVALIDATIONS ? ['disabled-by-default-devtools.timeline.invalidationTracking'] : []), ...(process.env.MORE ? process.env.MORE.split(',') : []), 'v8.execute', 'benchmark', 'cc'],
});
const edit = await commentEdits(page, base, 'data-ran');
for (let k = 0; k < edits; k++) {
  await edit(k);
  await page.waitForTimeout(200);
}
const raw = (await browser.stopTracing()).toString();
await browser.close();
if (process.env.TRACE_OUT) (await import('node:fs')).writeFileSync(process.env.TRACE_OUT, raw);
const events = JSON.parse(raw).traceEvents;
const mark = events.find(e => e.name === 'stagecraft:edit');
const pid = mark.pid;
const threads = Object.fromEntries(events.filter(e => e.name === 'thread_name' && e.pid === pid).map(e => [e.tid, e.args.name]));
const mainTid = Object.keys(threads).find(t => threads[t] === 'CrRendererMain');
const workerTid = Object.keys(threads).find(t => /DedicatedWorker/.test(threads[t]));
const of = tid => events.filter(e => e.pid === pid && String(e.tid) === String(tid)).sort((a, b) => a.ts - b.ts);
const main = of(mainTid), worker = of(workerTid);
const marks = main.filter(e => e.name.startsWith('stagecraft:') && (e.ph === 'R' || e.ph === 'I' || e.ph === 'n' || e.ph === 'b' || e.ph === 'e'));
const edits_ = marks.filter(e => e.name === 'stagecraft:edit' && e.ph !== 'e');
const interesting = new Set(['EventDispatch', 'TimerFire', 'FireAnimationFrame', 'FunctionCall', 'ParseHTML', 'UpdateLayoutTree',
  'Layout', 'Paint', 'PrePaint', 'Layerize', 'UpdateLayer', 'Commit', 'HitTest', 'v8.callFunction', 'RunMicrotasks']);
for (const [k, t] of edits_.entries()) {
  const t0 = t.ts, end = Math.min(edits_[k + 1]?.ts ?? Infinity, t0 + 120e3);
  const at = e => ((e.ts - t0) / 1000).toFixed(1).padStart(6);
  const rows = [];
  for (const e of main) {
    if (e.ts < t0 - 2000 || e.ts > end) continue;
    if (e.name === 'ThreadControllerImpl::RunTask' && e.ph === 'X' && e.dur > 100) {
      const inside = main.filter(x => x.ph === 'X' && x.ts >= e.ts && x.ts + x.dur <= e.ts + e.dur && interesting.has(x.name) && x.dur > 50)
        .map(x => `${x.name}${x.args?.data?.type ? ':' + x.args.data.type : ''}${x.args?.data?.functionName ? ':' + x.args.data.functionName : ''} ${(x.dur / 1000).toFixed(1)}`);
      rows.push([e.ts, `main  ${at(e)} task ${(e.dur / 1000).toFixed(1)} ms: ${[...new Set(inside)].slice(0, 8).join(', ')}`]);
    }
    if (e.name === 'BeginMainThreadFrame' || e.name === 'BeginFrame') rows.push([e.ts, `main  ${at(e)} ${e.name}`]);
    if (e.name.startsWith('stagecraft:') && e.ph !== 'e') rows.push([e.ts, `main  ${at(e)} mark ${e.name.slice(11)}`]);
  }
  for (const e of worker) {
    if (e.ts < t0 || e.ts > end) continue;
    if (e.name === 'ThreadControllerImpl::RunTask' && e.ph === 'X' && e.dur > 50) {
      rows.push([e.ts, `worker${at(e)} task ${(e.dur / 1000).toFixed(1)} ms`]);
    }
  }
  // Frames drawn by the compositor (any thread of the renderer).
  for (const e of events) {
    if (e.pid !== pid || e.ts < t0 || e.ts > end) continue;
    if (e.name === 'DrawFrame' || e.name === 'Graphics.Pipeline' && e.args?.step === 'SubmitCompositorFrame') rows.push([e.ts, `cc    ${at(e)} ${e.name}`]);
  }
  rows.sort((a, b) => a[0] - b[0]);
  console.log(`edit ${k}:`);
  for (const [, r] of rows) console.log('  ' + r);
  const painted = main.find(e => e.name === 'stagecraft:painted' && e.ts > t0 && e.ts < end);
  if (painted) console.log(`  => painted at ${((painted.ts - t0) / 1000).toFixed(1)} ms`);
}
