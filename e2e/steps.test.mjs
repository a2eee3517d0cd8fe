// The Step through pane on RFC (a): its first wait drawn from core's view, a link restoring the
// position, and the time of one step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { url as BASE, launchFresh as launch } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
let ctx;
before(async () => { ctx = await launch(); });
after(async () => { await ctx?.close(); });

const slots = page => page.locator('#machine g.slot').evaluateAll(gs => gs.map(g => ({
  buffer: g.dataset.buffer, slot: Number(g.dataset.slot), status: g.dataset.status, label: g.querySelector('text').textContent,
})));
const stack = page => page.locator('#machine g.queue').evaluateAll(qs => qs.map(q => ({
  heads: q.querySelector('text').textContent,
  groups: [...q.querySelectorAll('g.group text')].map(t => t.textContent),
})));

test('RFC (a) stepped to its first wait; a link restores the position', async () => {
  const errors = [];
  const page = await ctx.newPage();
  page.on('pageerror', e => errors.push(String(e)));
  await page.setViewportSize({ width: 1500, height: 900 });
  await page.goto(BASE + 'no-app-here.txt');
  await page.evaluate(() => localStorage.clear());
  await page.goto(BASE);
  await page.waitForSelector('body[data-explored]', { timeout: 30000, state: 'attached' });
  await page.selectOption('#presets', 'RFC (a): async copy');
  await page.click('#tab-steps');
  await page.getByRole('button', { name: 'Next wait' }).click();
  await page.waitForFunction(() => /^Wait on/.test(document.querySelector('#caption')?.textContent));
  const at = await page.locator('#position').textContent();
  const drawn = await slots(page);
  const queues = await stack(page);
  console.log('first wait at', at, JSON.stringify(drawn), JSON.stringify(queues),
    await page.locator('#caption').textContent());
  const ring = drawn.filter(s => s.buffer === drawn[0].buffer);
  assert.deepEqual(ring.slice(0, 2).map(s => [s.slot, s.label, s.status]),
    [[0, 'it 0', 'ready'], [1, 'it 1', 'in flight']]);
  assert.ok(queues.some(q => q.groups.length === 1 && /it 1/.test(q.groups[0])), 'the group of iteration 1 in flight');
  await page.screenshot({ path: SHOTS + 'steps-1500.png' });
  await page.setViewportSize({ width: 900, height: 700 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: SHOTS + 'steps-900.png' });

  // One step: the click to the next frame.
  const ms = await page.evaluate(() => new Promise(done => {
    const button = [...document.querySelectorAll('#steps button')].find(b => b.textContent === 'Step forward');
    const t0 = performance.now();
    button.click();
    requestAnimationFrame(() => done(performance.now() - t0));
  }));
  console.log(`one step (click → next frame): ${ms.toFixed(2)} ms`);
  const moved = await page.locator('#position').textContent();
  assert.notEqual(moved, at);

  // The hash follows the state as it is saved (debounced).
  await page.waitForTimeout(1500);
  const link = page.url();
  console.log('link', link.slice(0, 60) + '…');
  const again = await ctx.newPage();
  await again.goto(link);
  await again.waitForSelector('#machine', { timeout: 30000, state: 'attached' });
  assert.equal(await again.locator('#position').textContent(), moved);
  assert.deepEqual(errors, []);
  await again.close();
  await page.close();
});
