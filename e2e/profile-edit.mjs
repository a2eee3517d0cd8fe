// Where the page's main thread spends one edit's CPU, by function: a V8 CPU profile of EDITS (10)
// edits of PRESET (its value in the presets menu), each a key typed into a comment after the
// loop (REPLACE=1: the whole text replaced in one input event), up to its exploration painted, summed by function (self time) and listed, the heaviest first.
// Wasm functions are named only in a build whose wasm keeps its name section: serve a copy of
// dist/ with the page's wasm replaced by target/wasm-bindgen/release/stagecraft-app_bg.wasm
// (the same module before wasm-opt). Run:
//   STAGECRAFT_URL=… node e2e/profile-edit.mjs "RFC (a): async copy" [PANE]
import { commentEdits, openPreset } from './fresh.mjs';

const [preset = 'RFC (a): async copy', pane = 'program'] = process.argv.slice(2);
const edits = Number(process.env.EDITS || 10);
const top = Number(process.env.TOP || 40);
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const { browser, page, base } = await openPreset(preset, pane);
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
const edit = await commentEdits(page, base);
for (let k = 0; k < edits; k++) {
  await edit(k);
  await page.waitForTimeout(300);
}
const { profile } = await cdp.send('Profiler.stop');
await browser.close();
const byId = new Map(profile.nodes.map(n => [n.id, n]));
const dt = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
}
const self = new Map();
// Inclusive time: a function counted once per sample however deep it recurs.
const incl = new Map();
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
for (const [id, us] of dt) {
  const n = byId.get(id);
  const name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'anonymous'})`;
  self.set(name, (self.get(name) ?? 0) + us);
  const seen = new Set();
  for (let p = id; p !== undefined; p = parent.get(p)) {
    const f = byId.get(p).callFrame.functionName || '(anonymous)';
    if (!seen.has(f)) { seen.add(f); incl.set(f, (incl.get(f) ?? 0) + us); }
  }
}
const ms = us => (us / 1000 / edits).toFixed(2).padStart(7);
const idle = self.get('(idle)') ?? 0, program = self.get('(program)') ?? 0, gc = self.get('(garbage collector)') ?? 0;
const total = [...self.values()].reduce((a, b) => a + b, 0) - idle;
console.log(`${preset}: ${edits} edits; per edit: busy ${ms(total)} ms (program ${ms(program)}, gc ${ms(gc)})`);
console.log('self ms/edit   function');
for (const [f, us] of [...self].filter(([f]) => f !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${f.slice(0, 140)}`);
console.log('\ninclusive ms/edit   function');
for (const [f, us] of [...incl].filter(([f]) => !/^\((idle|root|program)\)$/.test(f)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${f.slice(0, 140)}`);

// Entry points: each sample's outermost function of the app (an event handler, an effect, a
// timer's closure), so that a cost is seen where it begins; native work (style, layout, paint)
// is "(program)".
const entry = new Map();
for (const [id, us] of dt) {
  const stack = [];
  for (let p = id; p !== undefined; p = parent.get(p)) stack.push(byId.get(p).callFrame.functionName || '(anonymous)');
  stack.reverse();
  const app = stack.find(f => /stagecraft_app|stagecraft::/.test(f));
  const name = app ?? stack.at(-1);
  if (name === '(idle)') continue;
  entry.set(name, (entry.get(name) ?? 0) + us);
}
console.log('\nby entry ms/edit   outermost app function (else the leaf)');
for (const [f, us] of [...entry].sort((a, b) => b[1] - a[1]).slice(0, top)) { const g = f.replace(/\[[0-9a-f]{16}\]/g, ""); console.log(`${ms(us)}  ${g.length > 160 ? g.slice(0, 60) + " … " + g.slice(-110) : g}`); }

// UNDER=regex: inclusive times of the functions called under the first frame matching it.
if (process.env.UNDER) {
  const under = new RegExp(process.env.UNDER);
  const inner = new Map();
  for (const [id, us] of dt) {
    const stack = [];
    for (let p = id; p !== undefined; p = parent.get(p)) stack.push(byId.get(p).callFrame.functionName || '(anonymous)');
    stack.reverse();
    const at = stack.findIndex(f => under.test(f));
    if (at < 0) continue;
    for (const f of new Set(stack.slice(at))) inner.set(f, (inner.get(f) ?? 0) + us);
  }
  console.log(`\nunder ${process.env.UNDER}: inclusive ms/edit`);
  for (const [f, us] of [...inner].sort((a, b) => b[1] - a[1]).slice(0, top)) { const g = f.replace(/\[[0-9a-f]{16}\]/g, ''); console.log(`${ms(us)}  ${g.length > 160 ? g.slice(0, 60) + ' … ' + g.slice(-110) : g}`); }
}
