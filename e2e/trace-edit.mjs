// What the main thread does for one edit of a preset (docs/benchmarks.md, edit → painted): a
// Chromium trace of typing a trailing comment into PRESET (its value in the presets menu), then,
// for every task of the renderer's main thread over MIN_MS (4 by default), its start from the
// edit and length, and the events within it of at least 0.5 ms, DEPTH (4) levels deep. Serve a
// release build and run:
//   node e2e/trace-edit.mjs "CDNA4 interleaved (seed 002)" [PANE]
import { openPreset } from './fresh.mjs';

const [preset, pane = 'program'] = process.argv.slice(2);
const minMs = Number(process.env.MIN_MS || 4);
const depth = Number(process.env.DEPTH || 4);
const { browser, page, base } = await openPreset(preset, pane);
await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing', 'v8.execute'] });
for (let k = 0; k < 3; k++) {
  await page.evaluate(() => performance.mark('stagecraft:typing'));
  // One input event, as a keystroke makes (Playwright's fill makes many).
  await page.$eval('#source', (el, v) => {
    el.value = v;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
  }, `${base}\n# edit ${k}\n`);
  await page.waitForTimeout(400);
}
const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
await browser.close();
const main = events.find(e => e.name === 'thread_name' && e.args.name === 'CrRendererMain'
  && events.some(m => m.name === 'stagecraft:typing' && m.pid === e.pid));
const onMain = events.filter(e => e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts);
const typing = onMain.filter(e => e.name === 'stagecraft:typing');
for (const [k, t] of typing.entries()) {
  const end = typing[k + 1]?.ts ?? Infinity;
  console.log(`edit ${k}:`);
  for (const task of onMain.filter(e => e.ph === 'X' && e.name === 'RunTask' && e.ts >= t.ts && e.ts < end && e.dur >= minMs * 1000)) {
    console.log(`  task +${((task.ts - t.ts) / 1000).toFixed(1)} ${(task.dur / 1000).toFixed(1)} ms`);
    const stack = [task];
    for (const e of onMain) {
      if (e === task || e.ph !== 'X' || e.ts < task.ts || e.ts + e.dur > task.ts + task.dur || e.dur < 500) continue;
      while (stack.length > 1 && stack.at(-1).ts + stack.at(-1).dur < e.ts + e.dur) stack.pop();
      if (stack.length <= depth) console.log(`${'  '.repeat(stack.length + 1)}${e.name} ${(e.dur / 1000).toFixed(1)}`);
      stack.push(e);
    }
    const marks = onMain.filter(e => e.name.startsWith('stagecraft:') && e.ph !== 'X' && e.ts >= task.ts && e.ts <= task.ts + task.dur);
    if (marks.length) console.log(`    marks ${marks.map(m => m.name.slice(11)).join(' ')}`);
  }
}
