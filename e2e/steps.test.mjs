// The Step through pane: RFC (a) stepped to its first wait, read from the DOM (slot labels and
// the stack of groups); RFC (c) with its body wait raised by two, played by "Next race" to its race
// (the slot both touch marked, the line that raced and the wait that should have covered it marked
// in the program, the statement in the editor, the step in the timeline and the iteration space);
// a link restoring the position; the time of one step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { url as BASE, launchFresh as launch, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
let ctx;
before(async () => { ctx = await launch(); });
after(async () => { await ctx?.close(); });

const slots = page => page.locator('#machine g.slot').evaluateAll(gs => gs.map(g => ({
  buffer: g.dataset.buffer, slot: Number(g.dataset.slot), status: g.dataset.status,
  label: g.querySelector('text').textContent, race: g.classList.contains('race'),
})));
const stack = page => page.locator('#machine g.queue').evaluateAll(qs => qs.map(q => ({
  heads: q.querySelector('text').textContent,
  groups: [...q.querySelectorAll('g.group text')].map(t => t.textContent),
})));
/** The position shown, once the trace has arrived. */
const position = page => page.waitForFunction(() => {
  const p = document.querySelector('#position')?.textContent ?? '';
  return /^\d+ \/ \d+$/.test(p) && p;
}).then(h => h.jsonValue());

async function open() {
  const errors = [];
  const page = await openPage(ctx, { size: { width: 1500, height: 900 }, errors, console: false });
  return { page, errors };
}

test('RFC (a) stepped to its first wait; a link restores the position', async () => {
  const { page, errors } = await open();
  await page.selectOption('#presets', 'RFC (a): async copy');
  await page.click('#tab-steps');
  await position(page);
  await page.getByRole('button', { name: 'Next wait' }).click();
  await page.waitForFunction(() => /^Wait on/.test(document.querySelector('#caption')?.textContent));
  const at = await position(page);
  const drawn = await slots(page);
  const queues = await stack(page);
  console.log('first wait at', at, JSON.stringify(drawn), JSON.stringify(queues),
    await page.locator('#caption').textContent());
  const ring = drawn.filter(s => s.buffer === drawn[0].buffer);
  assert.deepEqual(ring.slice(0, 2).map(s => [s.slot, s.label, s.status]),
    [[0, 'it 0', 'ready'], [1, 'it 1', 'in flight']]);
  assert.ok(queues.some(q => q.groups.length === 1 && /it 1/.test(q.groups[0])), 'the group of iteration 1 in flight');
  assert.match(queues[0].heads, /committed 2, completed 1/);
  assert.match(await page.locator('#caption').textContent(), /committed 2 − needed group 0 − 1 = 1/);
  // The wait's line, named under the picture and marked in the program.
  assert.match(await page.locator('#step-line').textContent(), /async_wait_queue\(0, 1\)/);
  await page.screenshot({ path: SHOTS + 'steps-1500.png' });
  // Narrow, the panes stack below the editor: scrolled to, as a person would.
  await page.setViewportSize({ width: 900, height: 700 });
  await page.locator('.right').scrollIntoViewIfNeeded();
  await page.waitForTimeout(200);
  await page.screenshot({ path: SHOTS + 'steps-900.png' });
  await page.setViewportSize({ width: 1500, height: 900 });

  // Keys: → steps forward, ← back, shift+→ to the next wait.
  await page.locator('#steps').focus();
  await page.keyboard.press('ArrowRight');
  const after = await position(page);
  assert.equal(Number(after.split(' / ')[0]), Number(at.split(' / ')[0]) + 1);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await position(page), at);

  // One step: the click to the next frame.
  const ms = await page.evaluate(() => new Promise(done => {
    const button = [...document.querySelectorAll('#steps button')].find(b => b.textContent === 'Step forward');
    const t0 = performance.now();
    button.click();
    requestAnimationFrame(() => done(performance.now() - t0));
  }));
  console.log(`one step (click → next frame): ${ms.toFixed(2)} ms`);
  const moved = await position(page);
  assert.notEqual(moved, at);

  // The hash follows the state as it is saved (debounced).
  await page.waitForTimeout(1500);
  const link = page.url();
  const again = await ctx.newPage();
  await again.goto(link);
  await again.waitForSelector('#machine', { timeout: 30000, state: 'attached' });
  assert.equal(await position(again), moved);
  assert.deepEqual(errors, []);
  await again.close();
  await page.close();
});

test('RFC (c) with its body wait raised by two: "Next race" stops at the race and every pane marks it', async () => {
  const { page, errors } = await open();
  await page.selectOption('#presets', 'RFC (c): interleaved producers');
  await page.waitForSelector('#program .line.sec-body button.count-step[data-delta="1"]');
  for (let k = 0; k < 2; k++) {
    const explored = await page.evaluate(() => Number(document.body.dataset.explored));
    await page.locator('#program .line.sec-body button.count-step[data-delta="1"]').first().click();
    await page.waitForFunction(n => Number(document.body.dataset.explored) > n, explored);
  }
  await page.click('#tab-steps');
  await position(page);
  await page.getByRole('button', { name: 'Next race' }).click();
  await page.waitForFunction(() => document.querySelector('#caption.race'));
  const caption = await page.locator('#caption').textContent();
  assert.match(caption, /RACE: it reads data whose asynchronous write is still in flight/);
  // The statement it quotes is set as code, not shown between backticks.
  assert.ok(!caption.includes('`'), caption);
  assert.match(await page.locator('#caption code').first().textContent(), /^C\[i\] = /);
  const line = Number(caption.match(/The wait on line (\d+) should have covered it/)[1]);
  const raced = (await slots(page)).filter(s => s.race);
  assert.equal(raced.length, 1, 'the slot both instances touch is marked');
  assert.equal(raced[0].status, 'in flight');
  // Play from the start stops at the same race.
  const stop = await position(page);
  await page.locator('#steps input[type=range]').fill('0');
  await page.getByRole('button', { name: 'Play' }).click();
  await page.waitForFunction(s => document.querySelector('#position')?.textContent === s, stop, { timeout: 20000 });
  await page.waitForTimeout(300);
  assert.equal(await position(page), stop, 'playing stops at the race');
  await page.screenshot({ path: SHOTS + 'steps-race-1500.png' });
  // The program marks the line that raced and, in red, the wait that should have covered it.
  await page.click('#tab-program');
  const marked = await page.evaluate(l => {
    const style = document.getElementById('focus-style').textContent;
    return { wait: style.includes(`data-l="${l - 1}"`), lines: [...style.matchAll(/data-l="(\d+)"/g)].length };
  }, line);
  assert.ok(marked.wait && marked.lines === 2, JSON.stringify(marked));
  assert.equal(await page.locator(`#program .line[data-l="${line - 1}"]`).evaluate(e => getComputedStyle(e).outlineStyle), 'solid');
  // The editor marks the statement; the timeline and the iteration space the step.
  assert.ok(await page.evaluate(() => /\.overlay \.st2\{/.test(document.getElementById('focus-style').textContent)));
  await page.click('#tab-timeline');
  await page.waitForSelector('#timeline svg .mark, #timeline svg [class*=mark]', { timeout: 10000 }).catch(() => {});
  assert.match(await page.locator('#timeline svg').innerHTML(), /▲ step \d+/);
  await page.click('#tab-space');
  assert.equal(await page.evaluate(() => {
    const rule = document.getElementById('focus-style').textContent.match(/tr\[data-step="(\d+)"\]/);
    return rule && document.querySelectorAll(`table.space tr[data-step="${rule[1]}"]`).length;
  }), 1);
  assert.deepEqual(errors, []);
  await page.close();
});
