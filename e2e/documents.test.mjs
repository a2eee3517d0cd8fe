// Browser tests of saved work (issue 23, defects 1–4): documents instead of one save slot, links
// opened as new documents, a tab per document, the URL following the document shown, the storage
// format of earlier versions migrating, and copying with honest feedback.
// Run by scripts/e2e.sh against the release build served on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { url as BASE, launchFresh } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const errors = [];
let browsers = [];

after(async () => { for (const b of browsers) await b.close().catch(() => {}); });

/** A browser profile of its own: its storage is shared by the pages opened in it, as tabs are. */
async function profile() {
  const ctx = await launchFresh();
  browsers.push(ctx);
  return ctx;
}

/** Opens the explorer at `url` in a new tab of `ctx`. */
async function open(ctx, url = BASE) {
  const page = await ctx.newPage();
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('body[data-explored]', { timeout: 30000, state: 'attached' });
  return page;
}

/** A link to `text`, written as v1 links are (deflated JSON, base64url). */
const link = (text, pane = 'program') => BASE + '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(
  { text, form: 'rolled', pane, params: {}, zoom: 10, target: 'tir' }))).toString('base64url');

const loop = title => `# ${title}\nB = alloc([1])\nfor i in range(8):\n    B[0] = A[i] + 1\n    C[i] = B[0] + 1\n`;

/** Types `text` over the editor's, then waits past the save delay. */
async function type(page, text) {
  await page.fill('#source', text);
  await page.waitForTimeout(800);
}

/** The names in the Documents menu, newest first (the menu is opened and closed again). */
async function documents(page) {
  await page.click('#documents');
  await page.waitForSelector('#documents-menu .document');
  const names = await page.locator('#documents-menu .document .name').allInnerTexts();
  await page.keyboard.press('Escape');
  return names;
}

/** Opens the document named `name` from the Documents menu. */
async function openDocument(page, name) {
  await page.click('#documents');
  await page.locator('#documents-menu .document', { hasText: name }).locator('.open').click();
  await page.waitForFunction(n => document.querySelector('#source').value.includes(n), name);
}

test('1: a link opened over saved work opens as a new document and leaves that work intact', async () => {
  const ctx = await profile();
  const mine = loop('my own work');
  const page = await open(ctx);
  await type(page, mine);
  await page.close();
  const theirs = loop("a colleague's schedule");
  const linked = await open(ctx, link(theirs));
  assert.equal(await linked.inputValue('#source'), theirs);
  assert.match(await linked.locator('.banner').innerText(), /Opened from a link — your own work is in Documents/);
  // Editing what the link showed is work of its own, in a document of its own.
  const edited = theirs.replace('range(8)', 'range(12)');
  await type(linked, edited);
  const names = await documents(linked);
  assert.deepEqual(names.slice(0, 2), ["a colleague's schedule", 'my own work']);
  await linked.screenshot({ path: SHOTS + 'documents-link.png' });
  await openDocument(linked, 'my own work');
  assert.equal(await linked.inputValue('#source'), mine, 'the work saved before the link is intact');
  await linked.close();
  // A new tab without a link shows the newest document, the edited link.
  const fresh = await open(ctx);
  assert.equal(await fresh.inputValue('#source'), edited);
  await fresh.close();
});

test('2: copy link → edit → reload shows the edited state; the URL follows every edit', async () => {
  const ctx = await profile();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE).origin });
  const page = await open(ctx);
  await type(page, loop('first version'));
  await page.click('#copy-link');
  await page.waitForFunction(() => location.hash.startsWith('#v1/'));
  const copied = await page.evaluate(() => location.hash);
  const newer = loop('second version');
  await type(page, newer);
  assert.notEqual(await page.evaluate(() => location.hash), copied, 'the hash follows the edit (history.replaceState)');
  const entries = await page.evaluate(() => history.length);
  await page.reload();
  await page.waitForSelector('body[data-explored]', { state: 'attached' });
  assert.equal(await page.inputValue('#source'), newer, 'the reload shows the newest state');
  await type(page, newer + '# one more line\n');
  await page.reload();
  await page.waitForSelector('body[data-explored]', { state: 'attached' });
  assert.equal(await page.inputValue('#source'), newer + '# one more line\n');
  assert.equal(await page.evaluate(() => history.length), entries, 'edits add no history entries');
  // The link copied before the edits still opens what it showed, as a document of its own.
  const old = await open(ctx, BASE + copied);
  assert.equal(await old.inputValue('#source'), loop('first version'));
  await old.close();
  await page.close();
});

test('3: two tabs edit two documents and neither loses anything; each sees the other in Documents', async () => {
  const ctx = await profile();
  const a = await open(ctx);
  await type(a, loop('tab A'));
  const b = await open(ctx);
  await type(b, loop('tab B'));
  await type(a, loop('tab A') + '# more of A\n');
  await type(b, loop('tab B') + '# more of B\n');
  // Each tab sees the other's document without a reload (storage events).
  assert.deepEqual((await documents(a)).slice(0, 2).sort(), ['tab A', 'tab B']);
  for (const [page, text] of [[a, loop('tab A') + '# more of A\n'], [b, loop('tab B') + '# more of B\n']]) {
    await page.reload();
    await page.waitForSelector('body[data-explored]', { state: 'attached' });
    assert.equal(await page.inputValue('#source'), text, 'a reload shows this tab\'s own document');
  }
  // Both tabs on one document: an edit in one shows in the other; edits made in both at once are
  // both kept (the later one as a copy), never written over.
  await openDocument(b, 'tab A');
  await type(a, loop('tab A') + '# A, edited again\n');
  await b.waitForFunction(() => document.querySelector('#source').value.includes('# A, edited again'));
  await a.fill('#source', loop('tab A') + '# from A at once\n');
  await b.fill('#source', loop('tab A') + '# from B at once\n');
  await a.waitForTimeout(1200);
  const count = (await documents(a)).length;
  const texts = [];
  for (let k = 0; k < count; k++) {
    await a.click('#documents');
    await a.locator('#documents-menu .document .open').nth(k).click();
    await a.waitForTimeout(100);
    texts.push(await a.inputValue('#source'));
  }
  assert.ok(texts.some(t => t.includes('# from A at once')), 'A\'s edit is kept');
  assert.ok(texts.some(t => t.includes('# from B at once')), 'B\'s edit is kept');
  assert.equal(count, 3, 'tab B, tab A and the copy of tab A that one of the simultaneous edits made');
  await b.screenshot({ path: SHOTS + 'documents-two-tabs.png' });
  await a.close();
  await b.close();
});

test('1: the Documents menu names and times each document; deleting one is undoable', async () => {
  const ctx = await profile();
  const page = await open(ctx);
  await type(page, loop('to be deleted'));
  await page.click('#documents');
  await page.click('#documents-new');
  await type(page, loop('kept'));
  await page.click('#documents');
  const item = page.locator('#documents-menu .document', { hasText: 'to be deleted' });
  assert.match(await item.locator('.time').innerText(), /^(just now|\d+ \w+ ago)$/);
  await page.screenshot({ path: SHOTS + 'documents-menu.png' });
  await item.locator('.delete').click();
  await page.waitForFunction(() => !/to be deleted/.test(document.querySelector('#documents-menu .documents')?.innerText ?? ''));
  await page.click('#documents-undo');
  await page.waitForFunction(() => /to be deleted/.test(document.querySelector('#documents-menu')?.innerText ?? ''));
  await page.keyboard.press('Escape');
  await page.reload();
  assert.ok((await documents(page)).includes('to be deleted'), 'the undone delete is saved');
  await page.close();
});

test('the state saved by earlier versions migrates into Documents', async () => {
  const ctx = await profile();
  const page = await ctx.newPage();
  await page.goto(BASE + 'no-app-here.txt');
  const text = loop('saved before documents');
  // What Stagecraft saved until issue 23: one `v1/…` state under one key.
  const state = '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(
    { text, form: 'peeled', pane: 'timeline', params: {}, zoom: 10, target: 'tir' }))).toString('base64url');
  await page.evaluate(s => localStorage.setItem('stagecraft.v2.state', s.slice(1)), state);
  await page.goto(BASE);
  await page.waitForSelector('body[data-explored]', { state: 'attached' });
  assert.equal(await page.inputValue('#source'), text);
  assert.ok(await page.isChecked('#peeled'));
  assert.deepEqual(await documents(page), ['saved before documents']);
  await page.close();
  // Only the text, as the first versions saved it.
  const older = await (await profile()).newPage();
  await older.goto(BASE + 'no-app-here.txt');
  await older.evaluate(t => localStorage.setItem('stagecraft.v1.text', t), loop('text only'));
  await older.goto(BASE);
  await older.waitForSelector('body[data-explored]', { state: 'attached' });
  assert.equal(await older.inputValue('#source'), loop('text only'));
  assert.deepEqual(await documents(older), ['text only']);
  await older.close();
});

test('4: copying says so only once the clipboard has it, says why when it has not, and offers the text to copy by hand', async () => {
  const ctx = await profile();
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE).origin });
  const page = await open(ctx);
  // A slow clipboard: no feedback before the write has resolved.
  await page.evaluate(() => {
    const real = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = t => new Promise(r => setTimeout(r, 600)).then(() => real(t));
  });
  await page.click('#copy-link');
  await page.waitForTimeout(200);
  assert.doesNotMatch(await page.locator('header').innerText(), /copied/i, 'no feedback before the write resolved');
  await page.waitForFunction(() => /Link copied/.test(document.querySelector('header').innerText));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.evaluate(() => location.href));
  // The Code pane's Copy gives feedback too, and copies the code shown.
  await page.click('#tab-code');
  await page.waitForFunction(() => /async_commit_queue/.test(document.querySelector('#code pre')?.innerText ?? ''));
  await page.click('#code .copy');
  await page.waitForFunction(() => /Copied/.test(document.querySelector('#code .controls').innerText));
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /async_commit_queue/);
  await page.close();

  // The browser refuses the write: an error, and the text to copy by hand.
  const denied = await ctx.newPage();
  await denied.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { configurable: true, get: () => ({
      writeText: () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError')) }) });
  });
  await denied.goto(BASE);
  await denied.waitForSelector('body[data-explored]', { state: 'attached' });
  await denied.click('#copy-link');
  await denied.waitForSelector('.copy-status.error');
  assert.match(await denied.locator('.copy-status.error').innerText(), /not copied/i);
  assert.doesNotMatch(await denied.locator('header').innerText(), /Link copied/);
  await denied.screenshot({ path: SHOTS + 'copy-denied.png' });
  await denied.close();

  // No navigator.clipboard at all (plain http on another host): a selected field and "press Ctrl+C".
  const none = await ctx.newPage();
  const pageErrors = [];
  none.on('pageerror', e => pageErrors.push(String(e)));
  await none.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { configurable: true, get: () => undefined });
  });
  await none.goto(BASE);
  await none.waitForSelector('body[data-explored]', { state: 'attached' });
  await none.click('#copy-link');
  await none.waitForSelector('.copy-manual textarea');
  assert.match(await none.locator('.copy-manual').innerText(), /Ctrl\+C/);
  const selected = await none.evaluate(() => {
    const field = document.activeElement;
    return field?.matches('.copy-manual textarea') && field.selectionStart === 0 && field.selectionEnd === field.value.length ? field.value : null;
  });
  assert.equal(selected, await none.evaluate(() => location.href), 'the link, selected in a focused field');
  await none.screenshot({ path: SHOTS + 'copy-manual.png' });
  await none.keyboard.press('Escape');
  await none.waitForSelector('.copy-manual', { state: 'detached' });
  await none.click('#tab-code');
  await none.click('#code .copy');
  await none.waitForSelector('#code .copy-manual textarea');
  assert.match(await none.inputValue('#code .copy-manual textarea'), /async_commit_queue/);
  assert.deepEqual(pageErrors, [], 'no TypeError');
  await none.close();
});

test('no script errors on any page', () => {
  assert.deepEqual(errors, []);
});
