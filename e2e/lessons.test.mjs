// Teaching mode (issue 24): counts moved by hand, lessons checked live, the introduction, and a
// screenshot of every lesson at two sizes. Run by scripts/e2e.sh against the release build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { url as BASE, launchFresh as launch, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
let ctx;

before(async () => { ctx = await launch(); });
after(async () => { await ctx?.close(); });

async function open(url = BASE, { clear = true, introSeen = true } = {}) {
  return openPage(ctx, { to: url, clear, introSeen });
}
const link = state => '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
const verdict = async page => {
  await page.click('#tab-verification');
  await page.waitForSelector('#verdict');
  return page.locator('#verdict').innerText();
};
const taskState = page => page.locator('#task .task-state').innerText();
async function openLesson(page, title) {
  await page.click('#lessons');
  await page.getByRole('button', { name: title }).click();
  await page.waitForSelector('#lesson-title');
}

test('the introduction opens the first time, is dismissed, and comes back from Lessons', async () => {
  const page = await open(BASE, { introSeen: false });
  await page.waitForSelector('#intro-title');
  await page.screenshot({ path: SHOTS + 'intro.png' });
  await page.click('#dismiss-intro');
  assert.equal(await page.locator('#intro-title').count(), 0);
  await page.reload();
  await page.waitForSelector('body[data-explored]', { state: 'attached' });
  assert.equal(await page.locator('#intro-title').count(), 0, 'dismissed once, not shown again');
  await page.click('#lessons');
  await page.click('#show-glossary');
  assert.match(await page.locator('.glossary').innerText(), /rolled \/ peeled/);
  await page.click('#close-glossary');
  await page.click('#lessons');
  await page.click('#show-intro');
  await page.waitForSelector('#intro-title');
  await page.close();
});

test('+ on a wait makes Verification show the race; Reset restores "equivalent"', async () => {
  const page = await open();
  const raise = page.getByRole('button', { name: /^Raise the count of the wait on queue 0 before `C\[i\] = B\[0\] \+ 1` \(body\)/ }).first();
  await raise.focus();
  await page.keyboard.press('Enter');
  // The pane is written again when the raised count's verification arrives: the line is read once
  // it is there, not at the moment between two writings.
  const raised = /async_wait_queue\(0, 2\):.*count 1 → 2, set by you/;
  await page.waitForFunction(re => new RegExp(re).test(document.querySelector('#program')?.innerText ?? ''), raised.source)
    .catch(() => {});
  assert.match(await page.locator('#program').innerText(), raised);
  await page.screenshot({ path: SHOTS + 'count-raised.png' });
  await page.waitForFunction(async () => true);
  const racy = await verdict(page);
  assert.match(racy, /^racy/);
  await page.screenshot({ path: SHOTS + 'count-raised-verification.png' });
  await page.click('#tab-program');
  await page.click('#reset-counts');
  await page.waitForFunction(() => !document.querySelector('#program').textContent.includes('set by you'));
  await page.waitForFunction(() => true);
  assert.match(await verdict(page), /^equivalent/);
  await page.close();
});

test("a lesson's task turns done when the schedule meets it and back when it stops", async () => {
  const page = await open();
  await openLesson(page, '2. Why a buffer gets versions');
  await page.waitForFunction(() => document.querySelector('#task .task-state')?.textContent === 'Not yet');
  assert.match(await page.locator('#task .task-why').innerText(), /B has 2 versions.*the task wants 3/);
  const source = await page.inputValue('#source');
  await page.fill('#source', source.replace('stage", [0, 1]', 'stage", [0, 2]'));
  await page.waitForFunction(() => document.querySelector('#task .task-state')?.textContent === 'Done');
  assert.match(await page.locator('#task .task-why').innerText(), /2 − 0 \+ 1 = 3 versions/);
  await page.fill('#source', source);
  await page.waitForFunction(() => document.querySelector('#task .task-state')?.textContent === 'Not yet');
  await page.click('#lessons');
  assert.match(await page.getByRole('button', { name: /Why a buffer gets versions/ }).innerText(), /✓/, 'done is remembered');
  await page.keyboard.press('Escape');
  await page.close();
});

test('a link restores the lesson, and the counts it started with', async () => {
  const page = await open();
  await openLesson(page, '4. Make a racy schedule race-free');
  assert.equal(await taskState(page).catch(() => ''), await taskState(page));
  await page.waitForFunction(() => document.querySelector('#task .task-state')?.textContent === 'Not yet');
  assert.match(await page.locator('#task .task-why').innerText(), /lets 2 groups stay in flight where the schedule allows 1/);
  await page.click('#copy-link');
  await page.waitForFunction(() => location.hash.startsWith('#v1/'));
  const url = await page.evaluate(() => location.href);
  await page.close();
  const other = await open(url);
  assert.equal(await other.locator('#lesson-title').innerText(), '4. Make a racy schedule race-free');
  assert.match(await other.locator('#program').innerText(), /count 1 → 2, set by you/);
  await other.click('#reset-counts');
  await other.waitForFunction(() => document.querySelector('#task .task-state')?.textContent === 'Done');
  await other.close();
  // A link written by hand names the lesson as the app writes it.
  const byHand = await open(BASE + link({ text: 'for i in range(4):\n    C[i] = A[i]\n', lesson: 'two-stages' }));
  assert.equal(await byHand.locator('#lesson-title').innerText(), '1. Two stages: prologue and epilogue');
  await byHand.close();
});

test('every lesson at 1500×900 and 900×700', async () => {
  const page = await open();
  await page.click('#lessons');
  const titles = await page.locator('.lessons button').allInnerTexts();
  await page.keyboard.press('Escape');
  assert.ok(titles.length >= 6, titles.join(', '));
  for (const [k, title] of titles.entries()) {
    await openLesson(page, title.replace(' ✓', ''));
    await page.waitForFunction(() => /Done|Not yet/.test(document.querySelector('#task .task-state')?.textContent ?? ''));
    for (const [w, h] of [[1500, 900], [900, 700]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.screenshot({ path: `${SHOTS}lesson-${k + 1}-${w}x${h}.png` });
    }
    await page.setViewportSize({ width: 1500, height: 900 });
  }
  await page.close();
});
