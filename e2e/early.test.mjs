// The editor before the page's WebAssembly runs (index.html's #early, views/editor.rs's
// `take_over_early`): the default example, editable at once; what is typed into it is the text the
// app explores, with the caret and focus where they were; a link, saved work or a seen
// introduction are not shown over. The page's wasm is held back by the test until it says.
// Run by scripts/e2e.sh against the release build; alone: `cd e2e && STAGECRAFT_URL=… node --test early.test.mjs`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { url, launchFresh, savedState, store } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const DEFAULT = readFileSync(new URL('../examples/rfc_a_async_copy.py', import.meta.url), 'utf8');
let ctx;
before(async () => { ctx = await launchFresh(); });
after(async () => { await ctx?.close(); });

/** A page of `ctx` whose own wasm waits until `release()`; `errors` collects its script errors. */
async function heldPage({ size = { width: 1500, height: 900 }, clear = true, introSeen = false } = {}) {
  const page = await ctx.newPage();
  await page.setViewportSize(size);
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  if (clear) {
    await page.goto(url + 'no-app-here.txt');
    await page.evaluate(seen => {
      localStorage.clear();
      sessionStorage.clear();
      if (seen) localStorage.setItem('stagecraft.intro.seen', '1');
    }, introSeen);
  }
  let release;
  const gate = new Promise(r => { release = r; });
  await page.route(/stagecraft-app-[0-9a-f]+_bg\.wasm$/, async route => { await gate; await route.continue(); });
  return { page, errors, release: () => release() };
}

const explored = page => page.waitForSelector('body[data-explored]', { state: 'attached', timeout: 30000 });

test('the default example is editable before the page\'s wasm runs, and what is typed is kept', async () => {
  const { page, errors, release } = await heldPage();
  await page.goto(url);
  const early = page.locator('#early #source');
  await early.waitFor({ state: 'visible' });
  assert.equal(await early.inputValue(), DEFAULT);
  assert.ok(await page.locator('#early .intro').isVisible(), 'a first visit is welcomed, as the app does');
  await page.screenshot({ path: `${SHOTS}early-1500x900.png` });
  await early.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# typed early');
  await page.keyboard.press('Home');
  release();
  await explored(page);
  assert.equal(await page.locator('#early').count(), 0, 'the app took the early editor over');
  assert.equal(await page.inputValue('#source'), `${DEFAULT}# typed early`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'source', 'the focus moved to the app\'s editor');
  const caret = await page.evaluate(() => [document.activeElement.selectionStart, document.activeElement.selectionEnd]);
  assert.deepEqual(caret, [DEFAULT.length, DEFAULT.length], 'the caret stayed where it was');
  // Typing goes on in the app's editor, and the text explored is the one typed.
  await page.keyboard.type('# and on');
  await page.waitForFunction(() => /# and on/.test(document.querySelector('.editor pre').textContent), null, { timeout: 30000 });
  assert.equal(await page.inputValue('#source'), `${DEFAULT}# and on# typed early`);
  await page.screenshot({ path: `${SHOTS}early-taken-over-1500x900.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('untouched, the early editor gives way to the app\'s with the same text and nothing saved', async () => {
  const { page, errors, release } = await heldPage({ size: { width: 900, height: 700 } });
  await page.goto(url);
  await page.locator('#early #source').waitFor({ state: 'visible' });
  await page.screenshot({ path: `${SHOTS}early-900x700.png` });
  release();
  await explored(page);
  assert.equal(await page.inputValue('#source'), DEFAULT);
  assert.equal(await page.evaluate(() => Object.keys(localStorage).filter(k => k.startsWith('stagecraft.document.')).length), 0,
    'the default example, untouched, is no document');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link, saved work and a seen welcome are not shown over by the early editor', async () => {
  const state = await savedState('for i in range(4):\n    B[i] = A[i] + 1\n');
  // A link.
  {
    const { page, release } = await heldPage();
    await page.goto(`${url}#${state}`);
    await page.waitForLoadState('domcontentloaded');
    assert.equal(await page.locator('#early').isVisible(), false, 'a link hides the early editor');
    release();
    await explored(page);
    assert.match(await page.inputValue('#source'), /B\[i\] = A\[i\] \+ 1/);
    await page.close();
  }
  // Saved work.
  {
    const { page, release } = await heldPage({ clear: false });
    await store(page, state);
    await page.goto(url);
    await page.waitForLoadState('domcontentloaded');
    assert.equal(await page.locator('#early').isVisible(), false, 'saved work hides the early editor');
    release();
    await explored(page);
    assert.match(await page.inputValue('#source'), /B\[i\] = A\[i\] \+ 1/);
    await page.close();
  }
  // A welcome seen.
  {
    const { page, release } = await heldPage({ introSeen: true });
    await page.goto(url);
    await page.locator('#early #source').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#early .intro').isVisible(), false, 'a seen welcome is not shown again');
    release();
    await explored(page);
    await page.close();
  }
});
