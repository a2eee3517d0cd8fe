// Browser tests of the explorer: run by scripts/e2e.sh against the release build served on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BASE = process.env.STAGECRAFT_URL ?? 'http://127.0.0.1:8765/';
const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
let ctx;
const errors = [];

before(async () => {
  ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'stagecraft-')), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1500, height: 900 },
  });
});
after(async () => { await ctx?.close(); });

/** Opens the explorer; unless `keep`, with this browser's saved text cleared first. */
async function open(url = BASE, keep = false) {
  const page = await ctx.newPage();
  if (!keep) {
    // A page of the same origin that is not the app (a 404), so nothing writes the storage back.
    await page.goto(BASE + 'no-app-here.txt');
    await page.evaluate(() => localStorage.clear());
  }
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('#program .line', { timeout: 30000, state: 'attached' });
  return page;
}
const programText = page => page.locator('#program').textContent();
const setSource = async (page, text) => { await page.fill('#source', text); await page.waitForTimeout(150); };

test('the default example is pipelined with its waits', async () => {
  const page = await open();
  const text = await programText(page);
  assert.match(text, /with async_wait_queue\(0, 1\):/);
  assert.match(text, /# prologue/);
  assert.match(await page.locator('.left').innerText(), /software_pipeline_stage/);
  await page.screenshot({ path: SHOTS + 'program.png' });
  await page.close();
});

test('typing a stage change grows the prologue and changes the count', async () => {
  const page = await open();
  const source = await page.inputValue('#source');
  await setSource(page, source.replace('"software_pipeline_stage", [0, 1]', '"software_pipeline_stage", [0, 3]'));
  await page.waitForFunction(() => document.querySelector('#program').innerText.includes('async_wait_queue(0, 3)'));
  assert.match(await programText(page), /for i in range\(3\):/);
  await page.close();
});

test('the grid rewrites the annotation in the text', async () => {
  const page = await open();
  await page.locator('#grid input.stage').nth(1).fill('2');
  await page.locator('#grid input.stage').nth(1).dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('[0, 2]'));
  await page.waitForFunction(() => document.querySelector('#program').textContent.includes('async_wait_queue(0, 2)'));
  await page.close();
});

test('errors keep the last good result and are listed with their place', async () => {
  const page = await open();
  const source = await page.inputValue('#source');
  await setSource(page, source.replace('C[i] = B[0] + 1', 'C[i] = B[0] +'));
  await page.waitForSelector('#problems li.error');
  assert.match(await page.locator('#problems').textContent(), /expected an expression/);
  assert.match(await programText(page), /async_wait_queue\(0, 1\)/, 'the last good program stays');
  assert.ok(await page.locator('.panes.dim').count() === 1);
  await page.screenshot({ path: SHOTS + 'error.png' });
  await page.close();
});

test('verification says equivalent and lists tight waits; TVM-like schedules race', async () => {
  const page = await open();
  await page.click('#tab-verification');
  assert.match(await page.locator('#verdict').innerText(), /equivalent/);
  await page.screenshot({ path: SHOTS + 'verification.png' });
  await page.close();
});

test('timeline, iteration space and code panes render', async () => {
  const page = await open();
  await page.click('#tab-timeline');
  await page.waitForSelector('#timeline svg rect.span');
  assert.ok(Number(await page.locator('#total-cycles').innerText()) > 0);
  await page.screenshot({ path: SHOTS + 'timeline.png' });
  await page.click('#tab-space');
  assert.ok(await page.locator('table.space td.cell').count() > 10);
  await page.screenshot({ path: SHOTS + 'space.png' });
  await page.click('#tab-code');
  assert.match(await page.locator('#code pre').innerText(), /async_commit_queue/);
  await page.close();
});

test('latencies edited in the timeline pane become annotations and change the cycles', async () => {
  const page = await open();
  await page.click('#tab-timeline');
  const before = Number(await page.locator('#total-cycles').textContent());
  await page.click('details.costs summary');
  const latency = page.locator('#costs input').first();
  await latency.fill('100');
  await latency.dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('"stagecraft_latency", [100, -1]'));
  await page.waitForFunction(b => Number(document.querySelector('#total-cycles').textContent) < b, before);
  await page.close();
});

test('a shared link restores text, form and pane exactly', async () => {
  const page = await open();
  const source = (await page.inputValue('#source')).replace('range(16)', 'range(12)');
  await setSource(page, source);
  await page.check('#peeled');
  await page.click('#tab-timeline');
  await page.click('#copy-link');
  await page.waitForFunction(() => location.hash.startsWith('#v1/'));
  const url = await page.evaluate(() => location.href);
  await page.close();
  const other = await open(url);
  assert.equal(await other.inputValue('#source'), source);
  assert.ok(await other.isChecked('#peeled'));
  assert.ok(await other.locator('#tab-timeline.active').count() === 1);
  await other.close();
});

test('a frozen v1 link still opens', async () => {
  const link = readFileSync(new URL('../app/tests/frozen_v1_link.txt', import.meta.url), 'utf8').trim();
  const page = await open(BASE + link);
  assert.ok(await page.isChecked('#peeled'));
  assert.match(await programText(page), /C\[15\] = B\[1, 0\] \+ 1/);
  await page.close();
});

test('a corrupt link shows a banner and the default example, and keeps saved work', async () => {
  const page = await open();
  const mine = (await page.inputValue('#source')) + '\n# my own work\n';
  await setSource(page, mine);
  await page.waitForTimeout(300);
  await page.close();
  const bad = await open(BASE + '#v1/not-a-valid-link!!', true);
  assert.match(await bad.locator('.banner.warn').textContent(), /damaged/);
  assert.match(await programText(bad), /async_wait_queue\(0, 1\)/, 'the default example');
  const saved = await bad.evaluate(() => localStorage.getItem('stagecraft.v1.text'));
  assert.equal(saved, mine);
  await bad.close();
  const back = await open(BASE, true);
  assert.equal(await back.inputValue('#source'), mine, 'opening without a link restores the saved text');
  await back.close();
});

test('presets load and undo', async () => {
  const page = await open();
  const before = await page.inputValue('#source');
  await page.selectOption('#presets', 'RFC (e): nested GEMM');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('k1'));
  await page.waitForFunction(() => document.querySelector('#program').textContent.includes('inner loop prologue'));
  await page.click('#undo');
  assert.equal(await page.inputValue('#source'), before);
  await page.close();
});

test('no script errors on any page', () => {
  console.log(JSON.stringify(errors));
  // The 404 is the deliberate non-app page used to clear storage; its message can arrive late.
  assert.deepEqual(errors.filter(e => !/clipboard|Clipboard|Write permission|status of 404/.test(e)), []);
});
