// The built files, without a browser: the page's WebAssembly holds none of the core's engine (the
// transform, interpreter, verifier, machine checker, emitters, TVM reproduction); the worker's
// does. Each engine part is known by a message only its code writes. The page keeps the core's
// types, their reading from the worker's answers, the editor's lexer, the lessons, the timeline's
// and the iteration space's pictures; the step-through's replay and picture, the Search pane's
// markup (its front, previews and the pinned schedule's comparison), the Pipelined program pane's
// token, TVM and check views and the Code pane's kernels with their machine-level report are drawn
// by the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const DIST = new URL('../dist/', import.meta.url).pathname;
const files = readdirSync(DIST);
const only = re => {
  const found = files.filter(f => re.test(f));
  assert.equal(found.length, 1, `one file matches ${re}: ${found.join(', ')}`);
  return readFileSync(DIST + found[0]);
};
const page = only(/^stagecraft-app-[0-9a-f]+_bg\.wasm$/);
const worker = only(/^stagecraft-worker-[0-9a-f]+_bg\.wasm$/);

const ENGINE = {
  'the transform (a wait\'s reason)': ', counting the empty groups a symbolic extent commits',
  'the interpreter': 'this global buffer is indexed with different numbers of dimensions',
  'the verifier': '; one of them does not run, or has nothing to complete, at some N',
  'the machine-level checker': 'more registers than the executor holds',
  'the PTX emitter': 'mul.wide.s32 %rdz, %rz0, 4;',
  'the AMDGPU emitter': 'division is emitted as a multiplication by v_rcp_f32 (1 ulp)',
  'the TVM reproduction': 'The body of the software pipeline should be SeqStmt',
  'the step-through (its replay and picture)': 'Before the first step: every slot is empty and no group is in flight.',
  'the Search pane (its progress, front, preview and comparison)': 'Every schedule listed was judged equivalent and race-free by the interpreter.',
  'the comparison of a pinned schedule (both timelines on one axis)': '<svg class="compare-timelines"',
  'the token view': 'a wait is the <code>async_done</code> of the newest token it needs',
  'the TVM view': ' makes no program of this loop (above: why)',
  'the races\' fixes (TVM and check views)': 'should have covered them; no lower count alone removes its races',
  'the Code pane\'s machine-level report': ', which implements the pipelined program\'s ',
  'the Code pane\'s TVMScript export': 'The loop and its annotations as a PrimFunc: paste it into TVM 0.27',
  'the Pipelined program pane\'s own view': 'Counts set by you: not the derived program.',
};

for (const [part, text] of Object.entries(ENGINE)) {
  test(`${part} is in the worker's wasm, not the page's`, () => {
    const bytes = Buffer.from(text);
    assert.ok(worker.includes(bytes), `the worker lacks "${text}": is the probe still written by ${part}?`);
    assert.ok(!page.includes(bytes), `the page's wasm holds ${part} ("${text}")`);
  });
}

test('the page names its worker by the worker\'s content, and that worker is built', () => {
  const html = readFileSync(DIST + 'index.html', 'utf8');
  const m = html.match(/<meta name="stagecraft-worker" content="\.\/(stagecraft-worker-([0-9a-f]{16})_loader\.js)">/);
  assert.ok(m, 'index.html names the worker\'s loader');
  assert.ok(files.includes(m[1]), `${m[1]} is in dist/`);
  const loader = readFileSync(DIST + m[1], 'utf8');
  assert.match(loader, new RegExp(`stagecraft-worker-${m[2]}\\.js`));
  assert.ok(!files.includes('stagecraft-worker.js') && !files.includes('stagecraft-worker_bg.wasm'),
    'no unversioned worker is left to be cached');
});

test('the page has its Content-Security-Policy and no inline script or handler', () => {
  const html = readFileSync(DIST + 'index.html', 'utf8');
  const policy = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/);
  assert.ok(policy, 'index.html has the policy');
  assert.match(policy[1], /(^|;)\s*script-src 'self' 'wasm-unsafe-eval'\s*(;|$)/);
  assert.ok(html.indexOf(policy[0]) < html.indexOf('<script'), 'the policy comes before every script');
  for (const m of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
    assert.match(m[1], /\ssrc="/, `an inline script: ${m[0].slice(0, 200)}`);
    assert.equal(m[2].trim(), '');
  }
  assert.doesNotMatch(html, /<[^>]*\son[a-z]+\s*=/, 'no inline event handler');
  const start = html.match(/<script type="module" src="\/?\.?\/?(start-[0-9a-f]{16}\.js)"/);
  assert.ok(start && files.includes(start[1]), 'Trunk\'s start module is a file');
});
