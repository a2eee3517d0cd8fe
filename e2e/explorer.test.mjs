// Browser tests of the explorer: run by scripts/e2e.sh against the release build served on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { url as BASE, launchFresh as launch, workload, store, paste, hostileTexts, traceTasks, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
let ctx;
const errors = [];

// The browsers of the tests that launch one per case: closed here too, so that a case that fails
// half-way leaves no browser running (which kept node, and CI, waiting until its time ran out).
const ownBrowsers = [];
const launchOwn = async () => { const b = await launch(); ownBrowsers.push(b); return b; };
before(async () => { ctx = await launch(); });
after(async () => {
  await ctx?.close();
  for (const b of ownBrowsers) await b.close().catch(() => {});
});

/** Opens the explorer; unless `keep`, with this browser's saved text cleared first. */
async function open(url = BASE, keep = false) {
  return openPage(ctx, { to: url, errors, clear: !keep });
}
const programText = page => page.locator('#program').textContent();
const setSource = async (page, text) => { await page.fill('#source', text); await page.waitForTimeout(150); };

test('the default example is pipelined with its waits', async () => {
  const page = await open();
  const text = await programText(page);
  assert.match(text, /with async_wait_queue\(0, 1\):/);
  assert.match(text, /# prologue/);
  assert.match(await page.locator('.left').innerText(), /software_pipeline_stage/);
  // Marks count from the navigation's start: the first exploration's DOM is the first render.
  const firstRender = await page.evaluate(() => performance.getEntriesByName('stagecraft:dom')[0]?.startTime ?? NaN);
  console.log(`first render (navigation start → the default example's DOM written): ${firstRender.toFixed(0)} ms (budget 1000 ms)`);
  await page.screenshot({ path: SHOTS + 'program.png' });
  await page.close();
});

test('typing a stage change grows the prologue and changes the count', async () => {
  const page = await open();
  const source = await page.inputValue('#source');
  await setSource(page, source.replace('"software_pipeline_stage", [0, 1]', '"software_pipeline_stage", [0, 3]'));
  await page.waitForFunction(() => document.querySelector('#program').innerText.includes('async_wait_queue(0, 3)'));
  assert.match(await programText(page), /for i in range\(3\):/);
  await page.screenshot({ path: SHOTS + 'typing.png' });
  await page.close();
});

test('the grid rewrites the annotation in the text', async () => {
  const page = await open();
  await page.locator('#grid input.stage').nth(1).fill('2');
  await page.locator('#grid input.stage').nth(1).dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('[0, 2]'));
  await page.waitForFunction(() => document.querySelector('#program').textContent.includes('async_wait_queue(0, 2)'));
  await page.screenshot({ path: SHOTS + 'grid.png' });
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
  // Code a message quotes is set as code, without its backticks, a quoted backtick included.
  await setSource(page, source.replace('C[i] = B[0] + 1', 'C[i] = B[0] ` 1'));
  await page.waitForFunction(() => /unexpected character/.test(document.querySelector('#problems')?.textContent ?? ''));
  const quoted = await page.locator('#problems li.error').first().evaluate((li) => ({
    code: [...li.querySelectorAll('code')].map((c) => c.textContent),
    text: li.textContent,
  }));
  assert.deepEqual(quoted.code, ['`'], JSON.stringify(quoted));
  assert.ok(!quoted.text.includes('``'), quoted.text);
  await page.close();
});

test('the caret\'s line stays in view: after Enter at the bottom of the editor, and when a problem listed under it shrinks it', async () => {
  const page = await open();
  await paste(page, workload('synthetic', 32));
  await page.waitForTimeout(300);
  const caret = () => page.$eval('#source', a => {
    const style = getComputedStyle(a);
    const line = a.value.slice(0, a.selectionStart).split('\n').length - 1;
    const bottom = parseFloat(style.paddingTop) + (line + 1) * parseFloat(style.lineHeight);
    return { line, bottom, shown: a.scrollTop + a.clientHeight };
  });
  const inView = async what => {
    const at = await caret();
    assert.ok(at.bottom <= at.shown, `${what}: line ${at.line} ends at ${at.bottom} px, below the ${at.shown} px shown`);
  };
  // Enter is the page's (it indents): the browser does not scroll to the caret after it.
  const box = await page.locator('#source').boundingBox();
  await page.mouse.click(box.x + 100, box.y + box.height - 30);
  for (let k = 0; k < 3; k++) {
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(50);
    await inView(`Enter ${k + 1}`);
  }
  await page.keyboard.press('Control+Z');
  await page.keyboard.press('Control+End');
  // A comment, then its `#` deleted: the problem comes with the exploration after the last key,
  // and the list that grows under the editor shrinks it from below.
  await page.keyboard.type('\n#x = (', { delay: 10 });
  await page.waitForTimeout(300);
  await page.keyboard.press('Home');
  await page.keyboard.press('Delete');
  await page.waitForSelector('#problems li.error');
  await page.waitForTimeout(200);
  await inView('a problem listed');
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
  // The picture above the table: a cell for each iteration a unit computes, as the table's.
  assert.equal(await page.locator('svg.space-picture rect.cell').count(),
    await page.locator('table.space td.cell:not(.idle)').count());
  await page.screenshot({ path: SHOTS + 'space.png' });
  await page.click('#tab-code');
  // The code comes in chunks the browser renders once it knows they are on screen: the text is
  // rendered (innerText) from the frame after the pane is shown.
  await page.waitForFunction(() => /async_commit_queue/.test(document.querySelector('#code pre')?.innerText ?? ''));
  await page.close();
});

test('the Code pane executes the kernel it shows and says so, per target', async () => {
  const page = await open();
  await page.selectOption('#presets', 'CUTLASS-style multistage GEMM');
  await page.click('#tab-code');
  for (const target of ['amdgpu', 'amdgpu-ir']) {
    await page.selectOption('#target', target);
    await page.waitForFunction(() => /Machine-level check:/.test(document.querySelector('#code .machine:not(.pending)')?.textContent ?? ''), null, { timeout: 30000 });
    const verdict = await page.locator('#code .machine').textContent();
    assert.match(verdict, /executed: same outputs, 0 races \(\d+ values compared, \d+ (warp|wave)-instructions\)/, `${target}: ${verdict}`);
    assert.equal(await page.locator('#code .machine.ok').count(), 1, target);
  }
  await page.screenshot({ path: SHOTS + 'code-machine.png' });
  // The PTX targets have no executor in this build, or one: either way the pane says which.
  await page.selectOption('#target', 'ptx');
  await page.waitForFunction(() => /Machine-level check:/.test(document.querySelector('#code .machine:not(.pending)')?.textContent ?? ''), null, { timeout: 30000 });
  assert.match(await page.locator('#code .machine').textContent(), /executed|not executed/);
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
  assert.ok(await page.locator('details.costs[open]').count() === 1, 'the cost table stays open across the update');
  assert.equal(await page.locator('#costs input.annotated').count(), 1);
  await page.screenshot({ path: SHOTS + 'costs.png' });
  await page.close();
});

test('while the text has errors, the costs are read-only and an edit never splices old spans into the text', async () => {
  const page = await open();
  await page.click('#tab-timeline');
  await page.click('details.costs summary');
  const latency = page.locator('#costs input').first();
  await latency.fill('100');
  await latency.dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('"stagecraft_latency", [100, -1]'));
  // An error on the first line shifts every later byte: the last good exploration's annotation
  // spans no longer point at the annotations of this text.
  const broken = 'x = (\n' + await page.inputValue('#source');
  await setSource(page, broken);
  await page.waitForSelector('.problems li');
  // A change event straight from script, as if the input were still editable.
  await page.evaluate(() => {
    const input = document.querySelector('#costs input');
    input.value = '200';
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForTimeout(300);
  assert.equal(await page.inputValue('#source'), broken, 'the text is left as the user wrote it');
  assert.ok(await latency.isDisabled(), 'the cost table is read-only while the text has errors');
  await page.screenshot({ path: SHOTS + 'costs-readonly.png' });
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
  await other.waitForSelector('#timeline svg rect.span');
  await other.screenshot({ path: SHOTS + 'shared-link.png' });
  await other.close();
});

test('a frozen v1 link still opens', async () => {
  const link = readFileSync(new URL('../link/tests/frozen_v1_link.txt', import.meta.url), 'utf8').trim();
  const page = await open(BASE + link);
  assert.ok(await page.isChecked('#peeled'));
  assert.ok(await page.locator('#tab-timeline.active').count() === 1);
  await page.click('#tab-program');
  assert.match(await programText(page), /C\[15\] = B\[1, 0\] \+ 1/);
  await page.screenshot({ path: SHOTS + 'frozen-link.png' });
  await page.close();
});

test('a link naming a pane or a code target this build lacks opens, on the first pane or saying so', async () => {
  // Links of other versions of Stagecraft, written as v1 links are (deflated JSON, base64url).
  const link = state => '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');
  const text = 'for i in range(4):\n    C[i] = A[i]\n';
  const later = await open(BASE + link({ text, form: 'peeled', pane: 'roofline', params: {}, zoom: 10, target: 'tir' }));
  assert.equal(await later.inputValue('#source'), text);
  assert.ok(await later.isChecked('#peeled'));
  assert.deepEqual(await later.locator('.tab.active').allInnerTexts(), ['Pipelined program']);
  await later.close();
  const target = await open(BASE + link({ text, form: 'rolled', pane: 'code', params: {}, zoom: 10, target: 'ptx-sm91' }));
  await target.waitForFunction(() => /ptx-sm91 is not available in this build/.test(document.querySelector('#code').innerText));
  await target.close();
});

test('a corrupt link shows a banner and the default example, and keeps saved work', async () => {
  const page = await open();
  const mine = (await page.inputValue('#source')) + '\n# my own work\n';
  await setSource(page, mine);
  const documents = () => Object.fromEntries(Object.entries(localStorage).filter(([k]) => k.startsWith('stagecraft.document.')));
  await page.waitForFunction(() => Object.keys(localStorage).some(k => k.startsWith('stagecraft.document.')));
  await page.waitForTimeout(400);
  const before = await page.evaluate(documents);
  await page.close();
  const bad = await open(BASE + '#v1/not-a-valid-link!!', true);
  assert.match(await bad.locator('.banner.warn').textContent(), /damaged/);
  await bad.screenshot({ path: SHOTS + 'corrupt-link.png' });
  assert.match(await programText(bad), /async_wait_queue\(0, 1\)/, 'the default example');
  await bad.click('#tab-code');
  await bad.waitForTimeout(500);
  assert.deepEqual(await bad.evaluate(documents), before, 'looking around a link does not overwrite saved work');
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
  await page.screenshot({ path: SHOTS + 'preset-gemm.png' });
  await page.click('#undo');
  assert.equal(await page.inputValue('#source'), before);
  await page.close();
});

/** The number of explorations published so far (the app counts them in <body data-explored>). */
const explored = page => page.evaluate(() => Number(document.body.dataset.explored ?? 0));
/** Runs `action` and waits until the app has published a new exploration after it. */
async function andExplored(page, action) {
  const n = await explored(page);
  await action();
  await page.waitForFunction(k => Number(document.body.dataset.explored ?? 0) > k, n, { timeout: 30000 });
}
const background = (page, selector) => page.locator(selector).first().evaluate(e => getComputedStyle(e).backgroundColor);
const transparent = c => c === 'rgba(0, 0, 0, 0)' || c === 'transparent';

// Every schedule Stagecraft derives is race-free (core's random-schedule property test asserts it,
// and every golden case verifies equivalent), so no input reachable from the UI produces a race: the
// selection path is exercised through a wait of the Waits table, which marks the same places (its
// line in the program, its point on the timeline). Races themselves are covered natively
// (app/src/model/focus.rs tests, with TVM's racy RFC (c) program).
test('clicking a wait highlights its line in the program and marks the timeline', async () => {
  const page = await open();
  await page.click('#tab-verification');
  assert.match(await page.locator('ul.races').innerText(), /none/);
  const rows = page.locator('table.waits tr[data-wait]');
  assert.ok(await rows.count() >= 1);
  // The body's wait stalls on the default costs: find a wait whose detail offers the timeline.
  let index = null;
  for (let k = 0; k < await rows.count(); k++) {
    await rows.nth(k).click();
    await page.waitForSelector('#selection-detail');
    if (await page.locator('#selection-detail button[data-goto="timeline"]').count() > 0) {
      index = await rows.nth(k).getAttribute('data-wait');
      break;
    }
  }
  assert.notEqual(index, null, 'some wait stalls');
  assert.ok(!transparent(await background(page, `#wait-row-${index}`)), 'the row is marked selected');
  assert.match(await page.locator('#selection-detail').innerText(), /async_wait_queue\(0, \d\)/);
  await page.screenshot({ path: SHOTS + 'wait-selected.png' });
  await page.click('#selection-detail button[data-goto="program"]');
  await page.waitForSelector('#pane-program:not(.hidden)');
  const line = page.locator(`#program .line.w${index}`);
  assert.equal(await line.count(), 1, 'one printed line per wait node');
  // innerText is empty until the line's chunk is drawn, a frame after the pane is shown.
  await page.waitForFunction(sel => /async_wait_queue/.test(document.querySelector(sel)?.innerText ?? ''),
    `#program .line.w${index}`);
  assert.match(await line.innerText(), /async_wait_queue/);
  assert.equal(await line.evaluate(e => getComputedStyle(e).outlineStyle), 'solid');
  assert.ok(!transparent(await background(page, `#program .line.w${index}`)));
  assert.ok(await line.isVisible());
  await page.screenshot({ path: SHOTS + 'wait-in-program.png' });
  await page.click('#tab-verification');
  await page.click('#selection-detail button[data-goto="timeline"]');
  await page.waitForSelector('#timeline svg #focus-marker');
  const stall = page.locator(`#timeline svg rect.stall.wi${index}`).first();
  assert.equal(await stall.evaluate(e => getComputedStyle(e).stroke), 'rgb(139, 29, 29)', 'its stalls are outlined');
  await page.screenshot({ path: SHOTS + 'wait-on-timeline.png' });
  await page.close();
});

test('hovering a code line highlights its statement in the editor, and the other way round', async () => {
  const page = await open();
  await page.click('#tab-code');
  await page.selectOption('#target', 'ptx');
  await page.waitForSelector('#code pre.code .cl[data-st]');
  const line = page.locator('#code pre.code .cl[data-st]').first();
  const id = await line.getAttribute('data-st');
  const editorSpan = `.editor .st${id}`;
  assert.ok(transparent(await background(page, editorSpan)), 'nothing highlighted before the hover');
  const resting = await line.evaluate(e => getComputedStyle(e).backgroundColor);
  assert.ok(!transparent(resting), 'code lines are tinted by statement');
  await line.hover();
  await page.waitForFunction(s => getComputedStyle(document.querySelector(s)).backgroundColor !== 'rgba(0, 0, 0, 0)', editorSpan);
  assert.ok(!transparent(await background(page, `#grid .grid-row.st${id}`)), 'the grid row too');
  await page.screenshot({ path: SHOTS + 'code-hover.png' });
  // Hovering the statement's grid row highlights every code line of it.
  await page.mouse.move(5, 5);
  await page.locator(`#grid .grid-row[data-st="${id}"]`).hover();
  const lit = await page.locator(`#code .cl.st${id}`).evaluateAll(ls => ls.map(e => getComputedStyle(e).backgroundColor));
  assert.ok(lit.length >= 1 && lit.every(c => c !== resting), 'its code lines light up');
  await page.screenshot({ path: SHOTS + 'grid-hover-code.png' });
  await page.selectOption('#target', 'ptx-sm90');
  await page.waitForFunction(() => /not available in this build|\.target/.test(document.querySelector('#code').innerText));
  await page.screenshot({ path: SHOTS + 'code-sm90.png' });
  await page.close();
});

test('a reload restores the whole state; text saved by earlier versions migrates', async () => {
  const page = await open();
  const source = (await page.inputValue('#source')).replace('range(16)', 'range(10)');
  await setSource(page, source);
  await page.check('#peeled');
  await page.click('#tab-code');
  await page.selectOption('#target', 'amdgpu');
  await page.waitForTimeout(800);
  await page.reload();
  await page.waitForSelector('body[data-explored]');
  assert.equal(await page.inputValue('#source'), source);
  assert.ok(await page.isChecked('#peeled'));
  assert.ok(await page.locator('#tab-code.active').count() === 1);
  assert.equal(await page.inputValue('#target'), 'amdgpu');
  await page.waitForFunction(() => /s_waitcnt|vmcnt/.test(document.querySelector('#code pre.code')?.innerText ?? ''));
  await page.screenshot({ path: SHOTS + 'reload-restored.png' });
  // A browser that only has the old text key gets its text back.
  // (A new tab, without this one's memory of its document and its URL.)
  // Cleared from a page of the same origin that is not the app: the app, leaving, saves its
  // document, which would land after a clear made from inside it.
  await page.goto(BASE + 'no-app-here.txt');
  await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); localStorage.setItem('stagecraft.v1.text', 'for i in range(5):\n    C[i] = A[i]\n'); });
  await page.goto(BASE);
  await page.waitForSelector('body[data-explored]');
  assert.equal(await page.inputValue('#source'), 'for i in range(5):\n    C[i] = A[i]\n');
  await page.close();
});

test('each pane keeps its scroll across tab switches', async () => {
  const page = await open();
  await andExplored(page, () => page.selectOption('#presets', 'RFC (e): nested GEMM'));
  await andExplored(page, () => page.check('#peeled'));
  await page.waitForFunction(() => document.querySelector('#program').textContent.includes('inner loop prologue'));
  const scroll = (pane, top) => page.evaluate(([p, t]) => { const e = document.getElementById('pane-' + p); e.scrollTop = t; return e.scrollTop; }, [pane, top]);
  const scrollOf = pane => page.evaluate(p => document.getElementById('pane-' + p).scrollTop, pane);
  const programTop = await scroll('program', 600);
  assert.ok(programTop > 300, 'the program is long enough to scroll');
  await page.click('#tab-code');
  await page.selectOption('#target', 'ptx');
  await page.waitForSelector('#code pre.code .cl');
  const codeTop = await scroll('code', 1500);
  assert.ok(codeTop > 1000);
  await page.click('#tab-program');
  await page.waitForFunction(t => document.getElementById('pane-program').scrollTop === t, programTop);
  await page.screenshot({ path: SHOTS + 'scroll-program.png' });
  await page.click('#tab-code');
  await page.waitForFunction(t => document.getElementById('pane-code').scrollTop === t, codeTop);
  assert.equal(await scrollOf('code'), codeTop);
  await page.screenshot({ path: SHOTS + 'scroll-code.png' });
  await page.close();
});

test('edit → updated DOM, per preset (printed, not asserted; budget 16 ms)', async () => {
  const page = await open();
  const presets = await page.locator('#presets option').evaluateAll(os => os.map(o => o.value).filter(v => v));
  const rows = [];
  for (const name of presets) {
    // From another text, so that loading the preset is a change even when it is already shown.
    await andExplored(page, () => page.fill('#source', '# next preset\n'));
    await andExplored(page, () => page.selectOption('#presets', name));
    const base = await page.inputValue('#source');
    const samples = [];
    for (let k = 0; k < 5; k++) {
      await page.evaluate(() => performance.clearMeasures());
      // An edit that changes the text but not the program: a trailing comment.
      await andExplored(page, () => page.fill('#source', base + `\n# edit ${k}\n`));
      const m = await page.evaluate(() => {
        const last = n => performance.getEntriesByName(n).at(-1)?.duration ?? NaN;
        return { work: last('stagecraft:recompute-to-dom'), edit: last('stagecraft:edit-to-dom'),
          painted: last('stagecraft:edit-to-painted'),
          explore: Number(document.querySelector('.timing').textContent.replace(' ms', '')) };
      });
      samples.push(m);
    }
    const median = key => samples.map(s => s[key]).sort((a, b) => a - b)[2];
    rows.push({ preset: name, explore_ms: median('explore'), recompute_to_dom_ms: median('work'), edit_to_dom_ms: median('edit'),
      edit_to_painted_ms: median('painted') });
  }
  await page.screenshot({ path: SHOTS + 'timings-last-preset.png' });
  // edit → DOM ends when the panes' effects have written the DOM; edit → painted at the first task
  // after the browser has also styled, laid out and painted it.
  console.log('edit → DOM timings (median of 5; budget 16 ms):');
  console.table(rows.map(r => ({ ...r, explore_ms: r.explore_ms.toFixed(1), recompute_to_dom_ms: r.recompute_to_dom_ms.toFixed(1), edit_to_dom_ms: r.edit_to_dom_ms.toFixed(1),
    edit_to_painted_ms: r.edit_to_painted_ms.toFixed(1) })));
  await page.close();
});

test('typing across the overlay\'s chunks keeps it the text, coloured, line for line', async () => {
  const page = await open();
  // The CUTLASS preset: 34 lines, two chunks of the overlay; keys typed as a person types at the
  // end of line 30 (in the second chunk), then line breaks that move lines from one chunk into
  // the next, then deletions that move them back. Each edited chunk keeps its element.
  await andExplored(page, () => page.selectOption('#presets', 'CUTLASS-style multistage GEMM'));
  const overlay = () => page.evaluate(() => {
    const pre = document.querySelector('.editor pre');
    const chunks = [...pre.children];
    return {
      text: pre.textContent,
      chunks: chunks.length,
      lines: chunks.map(c => Number(getComputedStyle(c).getPropertyValue('--lines'))),
      uncoloured: chunks.filter(c => !c.hasAttribute('hidden') && !c.querySelector('[class^="tk-"]')).length,
    };
  });
  const typed = async (keys) => {
    for (const k of keys) {
      if (/^(Home|End|Arrow)/.test(k)) await page.keyboard.press(k);
      else await andExplored(page, () => page.keyboard.press(k));
    }
    const o = await overlay();
    const text = await page.inputValue('#source');
    assert.equal(o.text, text + ' ', `the overlay is the text after ${keys.join(' ')}`);
    const lines = text.split('\n').length;
    assert.equal(o.lines.reduce((a, b) => a + b, 0), lines, `the chunks' line counts add up to the text's (${o.lines})`);
    assert.equal(o.uncoloured, 0, 'every chunk shown is coloured');
    return o;
  };
  await page.locator('#source').focus();
  await page.evaluate(() => {
    const el = document.getElementById('source');
    const at = el.value.split('\n').slice(0, 30).join('\n').length;
    el.setSelectionRange(at, at);
  });
  const first = await typed(['Space', '#', 'Space', 'x']);
  assert.equal(first.chunks, 2);
  await typed(['Home', 'Enter', 'Enter', 'Enter', 'ArrowUp', 'Enter']);
  const back = await typed(['Backspace', 'Backspace', 'Backspace', 'Backspace']);
  assert.equal(back.chunks, 2);
  await page.close();
});

test('a long text: the overlay follows the textarea and is drawn wherever it is scrolled to, as are the grid rows', async () => {
  const page = await open();
  await andExplored(page, () => paste(page, workload('synthetic', 159)));
  // Scrolls a box, then reports, in the frame after, which of its chunks in view are not drawn.
  const scrolled = (box, chunks, top, left) => page.evaluate(([box, chunks, top, left]) => new Promise(done => {
    const el = document.querySelector(box);
    el.scrollTop = top;
    el.scrollLeft = left;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const view = (box === '#source' ? document.querySelector('.editor pre') : el).getBoundingClientRect();
      const undrawn = [...document.querySelectorAll(chunks)].filter(c => {
        const r = c.getBoundingClientRect();
        return r.bottom > view.top && r.top < view.bottom && c.hasAttribute('hidden');
      }).length;
      const pre = document.querySelector('.editor pre');
      done({ undrawn, ta: [el.scrollTop, el.scrollLeft, el.scrollHeight], pre: [pre.scrollTop, pre.scrollLeft, pre.scrollHeight] });
    }));
  }), [box, chunks, top, left]);
  for (const [top, left] of [[0, 0], [3000, 0], [1e6, 0], [0, 1e6], [1e6, 400]]) {
    const s = await scrolled('#source', '.editor pre > .chunk', top, left);
    assert.equal(s.undrawn, 0, `overlay drawn at ${top}, ${left}`);
    assert.deepEqual(s.pre, s.ta, `overlay scrolled with the textarea to ${top}, ${left}`);
  }
  await page.screenshot({ path: SHOTS + 'long-text-scrolled.png' });
  // Chunks hidden away from view keep their size: the grid is as tall wherever it is scrolled.
  const heights = new Set();
  for (const top of [1e6, 700, 0, 1400]) {
    const s = await scrolled('.grid', '.grid-chunk', top, 0);
    assert.equal(s.undrawn, 0, `grid drawn at ${top}`);
    heights.add(s.ta[2]);
  }
  assert.equal(heights.size, 1, `the grid's height changes as it is scrolled: ${[...heights]}`);
  await page.close();
});

test('long tasks when switching to, pasting and typing into large loops (printed, not asserted; budget 50 ms)', async () => {
  const page = await open();
  // One observer for the whole page; each phase takes what arrived since the last.
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask', buffered: false });
  });
  const settle = () => page.waitForTimeout(800);
  const take = async () => {
    const tasks = await page.evaluate(() => window.__longTasks.splice(0));
    return tasks.length ? `${tasks.length} (${Math.max(...tasks).toFixed(0)} ms)` : '0';
  };
  const rows = [];
  for (const [n, pane] of [[64, 'program'], [128, 'program'], [128, 'code'], [159, 'program'], [159, 'code']]) {
    await page.click(`#tab-${pane}`);
    await settle();
    const switching = await take();
    await andExplored(page, () => paste(page, workload('synthetic', n)));
    await settle();
    const pasting = await take();
    // Ten keystrokes at the end of a statement, as a person types.
    await page.locator('#source').focus();
    await page.keyboard.press('Control+End');
    for (let k = 0; k < 10; k++) await page.keyboard.type(k % 2 ? ' ' : '#', { delay: 30 });
    await settle();
    const typing = await take();
    rows.push({ statements: n, pane, 'tab switch': switching, paste: pasting, 'typing 10 characters': typing,
      explore_ms: await page.locator('.timing').textContent() });
  }
  await page.screenshot({ path: SHOTS + 'large-loop.png' });
  console.log('long tasks (> 50 ms: count, longest):');
  console.table(rows);
  await page.close();
});

test('after a heavy paste the verification and the timeline arrive and show that loop, never an earlier one as its own', async () => {
  const page = await open();
  // What each frame shows: the pane's content (the verdict, or the chart's step count) and
  // whether the pane is marked as still computing.
  await page.evaluate(() => {
    window.__frames = [];
    const sample = () => {
      const pane = document.querySelector('.pane:not(.hidden)')?.id;
      const content = pane === 'pane-verification'
        ? document.querySelector('#verdict')?.textContent ?? ''
        : document.querySelector('#timeline svg > text:last-of-type')?.textContent ?? '';
      const veiled = !!document.querySelector('.panes > .pending:not(.hidden)');
      const last = window.__frames.at(-1);
      if (!last || last.pane !== pane || last.content !== content || last.veiled !== veiled) {
        window.__frames.push({ pane, content, veiled });
      }
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
  const shown = async () => (await page.evaluate(() => window.__frames.at(-1))).content;
  // Pastes `text` and waits until its verification and timeline are published.
  const pasteAndRun = async text => {
    const ran = await page.evaluate(() => Number(document.body.dataset.ran ?? 0));
    await page.evaluate(() => { window.__frames.splice(0, window.__frames.length - 1); });
    await andExplored(page, () => paste(page, text));
    await page.waitForFunction(k => Number(document.body.dataset.ran ?? 0) > k, ran, { timeout: 30000 });
    await page.waitForTimeout(200);
    return page.evaluate(() => window.__frames.slice());
  };
  // While a result is pending, the pane shows the earlier one marked as such; once it has
  // arrived, the new one unmarked; nothing else.
  const onlyMarkedEarlier = (frames, earlier, now) => {
    for (const f of frames) {
      assert.ok(f.content === earlier || f.content === now, `a frame showed ${JSON.stringify(f)}`);
      if (f.veiled) assert.equal(f.content, earlier, `the new result was shown as pending: ${JSON.stringify(f)}`);
    }
    assert.deepEqual(frames.at(-1).content, now);
    assert.equal(frames.at(-1).veiled, false);
  };

  await page.click('#tab-verification');
  await page.waitForSelector('#verdict');
  const small = await shown();
  assert.match(small, /^equivalent/);
  let frames = await pasteAndRun(workload('heavy', 159, 16, 64));
  const verdict = await page.locator('#verdict').innerText();
  // 160 statements × 64 iterations, every wait listed (most not judged: the interpretation budget).
  assert.match(verdict, /^equivalent: same outputs, no race; \d+ of (\d+) waits judged tight.*\(10240 statement instances\)$/);
  const waits = Number(verdict.match(/of (\d+) waits/)[1]);
  assert.equal(await page.locator('table.waits tr[data-wait]').count(), waits);
  onlyMarkedEarlier(frames, small, verdict);
  assert.match(await page.locator('.timing').getAttribute('title'),
    /exploring [\d.]+ ms in the engine, then verifying [\d.]+ ms, then simulating the timeline [\d.]+ ms$/);
  await page.screenshot({ path: SHOTS + 'heavy-verification.png' });

  // Drawn when shown, from the timeline published meanwhile: 64 iterations after 16 stages.
  await page.click('#tab-timeline');
  await page.waitForSelector('#timeline svg');
  const chart = await shown();
  // At most 2 000 bars are drawn: 10 steps of this loop.
  assert.equal(chart, 'steps 1–10 of 80');
  assert.match(await page.locator('#timeline svg').innerHTML(), />queue 15</);
  assert.equal(await page.locator('.panes > .pending:not(.hidden)').count(), 0);

  // Beyond the interpreter's limit and the timeline's: the reason, not an empty clean run.
  frames = await pasteAndRun(workload('heavy', 159, 8, 5000));
  const long = await shown();
  // The simulation stops at its instance limit: the chart and the notice say where.
  const simulated = long.match(/^steps 1–\d+ of (\d+)$/)?.[1];
  assert.ok(simulated && Number(simulated) < 5008, long);
  onlyMarkedEarlier(frames, chart, long);
  assert.match(await page.locator('#pane-timeline .pane-notices').innerText(),
    new RegExp(`The timeline simulates the first ${simulated} steps only \\(Stagecraft simulates at most 50000 statement instances, or 200000 steps, per run\\); it draws steps 1–\\d+ \\(at most 2000 bars are drawn\\), and the metrics cover the ${simulated}\\.`));
  await page.screenshot({ path: SHOTS + 'heavy-timeline.png' });
  await page.click('#tab-verification');
  assert.match(await page.locator('#verdict').innerText(), /^not verified: the loop runs 800000 statement instances/);
  assert.equal(await page.locator('#verification h3').count(), 0, 'no lists of races and waits for a loop not run');

  // Another code target is a part of the same exploration, not another one: the verification
  // and the timeline shown stay.
  await page.click('#tab-code');
  const explorations = await page.evaluate(() => Number(document.body.dataset.explored));
  await page.selectOption('#target', 'ptx');
  await page.waitForFunction(() => /\.entry|\.version/.test(document.querySelector('#code pre')?.textContent ?? ''), null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => Number(document.body.dataset.explored)), explorations);
  await page.click('#tab-verification');
  assert.match(await page.locator('#verdict').innerText(), /^not verified/);
  await page.close();
});

test('long tasks pasting a heavy loop into a fresh page (printed, not asserted; budget 50 ms)', async () => {
  // The first large exploration of a page, in the core's worker: the page's own tasks are its
  // drawing of the results. Each row is a browser of its own.
  const rows = [];
  for (const [n, stages, extent, pane] of [[159, 64, 64, 'program'], [159, 16, 64, 'program'], [159, 8, 5000, 'program'], [159, 64, 64, 'code']]) {
    const browser = await launchOwn();
    const page = await browser.newPage();
    page.on('pageerror', e => errors.push(String(e)));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(BASE);
    await page.waitForSelector('body[data-explored]', { timeout: 30000, state: 'attached' });
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
        .observe({ type: 'longtask', buffered: false });
    });
    await page.click(`#tab-${pane}`);
    // A person takes a moment before pasting; meanwhile the page is idle.
    await page.waitForTimeout(800);
    const take = async () => {
      const tasks = await page.evaluate(() => window.__longTasks.splice(0));
      return tasks.length ? `${tasks.length} (${Math.max(...tasks).toFixed(0)} ms)` : '0';
    };
    const before = await take();
    await andExplored(page, () => paste(page, workload('heavy', n, stages, extent)));
    await page.waitForTimeout(800);
    rows.push({ loop: `heavy_loop.py ${n} ${stages} ${extent}`, pane,
      'long tasks before': before, paste: await take(),
      'exploring, verifying, simulating': (await page.locator('.timing').getAttribute('title')).replace(/^[^:]*: /, '') });
    await browser.close();
  }
  console.log('long tasks pasting into a fresh page (> 50 ms: count, longest):');
  console.table(rows);
});

/** Installed before the app's script: long tasks from navigation on (start, duration), and when
 * the text is first drawn with what the header says then (the textarea's value is a property, so
 * it is looked at before each frame). */
const watchLoad = () => {
  window.__longTasks = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  const frame = () => {
    if (document.getElementById('source')?.value) {
      window.__drawn = [performance.now(), document.querySelector('.timing')?.textContent];
    } else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
};

test('a page opened with a heavy loop in it, or given one right after loading: the text is drawn at once, its results follow (long tasks printed, not asserted; budget 50 ms)', async () => {
  // The heavy loop is explored in the core's worker while the page draws its text: asserted, the
  // text is drawn before it is explored and no task after it takes a second; tasks over the
  // budget are printed with their CPU time (docs/benchmarks.md). The page's load (instantiating the
  // WebAssembly and the first render, before the text is drawn) is printed too. Each case is a
  // browser of its own.
  const text = workload('heavy', 159, 64, 64);
  // The state as the app saves it after an edit.
  const saver = await open();
  await saver.click('#tab-program');
  await saver.fill('#source', text);
  await saver.waitForFunction(() => location.hash.length > 1000);
  await saver.waitForTimeout(400);
  const saved = await saver.evaluate(() => location.hash.slice(1));
  await saver.close();
  const rows = [];
  // The last case is a browser without idle callbacks, as Safari is.
  for (const how of ['saved', 'link', 'pasted', 'link, no idle callbacks']) {
    const browser = await launchOwn();
    const page = await browser.newPage();
    page.on('pageerror', e => errors.push(String(e)));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    await page.addInitScript(watchLoad);
    if (how.endsWith('no idle callbacks')) {
      await page.addInitScript(() => {
        delete Window.prototype.requestIdleCallback;
        delete Window.prototype.cancelIdleCallback;
      });
    }
    if (how === 'saved') {
      await store(page, saved);
    }
    const trace = await traceTasks(page);
    await page.goto(how.startsWith('link') ? `${BASE}#${saved}` : BASE);
    await page.waitForFunction(() => window.__drawn, null, { timeout: 30000 });
    let since = (await page.evaluate(() => window.__drawn))[0];
    if (how === 'pasted') {
      since = await paste(page, text);
    } else {
      assert.equal(await page.inputValue('#source'), text, 'the text is drawn before it is explored');
    }
    // Results: the heavy loop's program, then its verification and timeline.
    await page.waitForFunction(() => /T158\[/.test(document.querySelector('#program')?.textContent ?? ''), null, { timeout: 30000 });
    await page.waitForFunction(() => Number(document.body.dataset.ran ?? 0) >= Number(document.body.dataset.explored ?? 1), null, { timeout: 30000 });
    await page.waitForTimeout(500);
    assert.match(await page.locator('.timing').textContent(), /^\d+\.\d ms$/);
    const { tasks, results } = await page.evaluate(() => ({
      tasks: window.__longTasks,
      results: performance.getEntriesByName('stagecraft:dom').at(-1)?.startTime,
    }));
    const after = tasks.filter(([start]) => start >= since).map(([, d]) => Math.round(d));
    const load = tasks.filter(([start]) => start < since).map(([, d]) => Math.round(d));
    // The same tasks as the trace saw them, each with the main thread's CPU time in it.
    const traced = await trace.stop();
    rows.push({ how, 'text drawn (ms)': Math.round((await page.evaluate(() => window.__drawn))[0]),
      'results written (ms)': Math.round(results), 'long tasks at load': JSON.stringify(load),
      'long tasks after': JSON.stringify(after),
      'traced: start+wall (CPU)': traced === null ? 'no trace' : traced.map(([s, w, c]) => `${s}+${w} (${c})`).join(' '),
      'exploring, verifying, simulating': (await page.locator('.timing').getAttribute('title')).replace(/^[^:]*: /, '') });
    await browser.close();
  }
  console.log('opening a page with heavy_loop.py 159 64 64 (ms from navigation):');
  console.table(rows);
  for (const row of rows) {
    const longest = Math.max(0, ...JSON.parse(row['long tasks after']));
    assert.ok(longest < 1000, `${row.how}: a task of ${longest} ms after the text was drawn or pasted`);
  }
});

test('long tasks of a walk through the explorer: every preset in every pane, every code target, the menus (printed, not asserted; budget 50 ms)', async () => {
  // What a person does first, which the tables above do not: each example loaded and looked at in
  // each pane, the CUTLASS example's code for each target, the Documents and Lessons menus. Found
  // on 2026-11-27: showing the timeline of a preset of 2 000 bars was one task of 93–103 ms (now
  // written in parts), and checking a kernel on the machine model is one task of 100–170 ms
  // (docs/limits.md).
  const page = await open();
  await page.waitForTimeout(2000);
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push(Math.round(e.duration)); })
      .observe({ type: 'longtask' });
  });
  const rows = [];
  let actions = 0;
  const act = async (action, f) => {
    await f();
    await page.waitForTimeout(700);
    actions += 1;
    const tasks = await page.evaluate(() => window.__longTasks.splice(0));
    if (tasks.length) rows.push({ action, 'long tasks (ms)': JSON.stringify(tasks) });
  };
  const presets = await page.$$eval('#presets option', os => os.filter(o => o.value).map(o => [o.value, o.textContent]));
  const tabs = await page.$$eval('[role=tab][id^=tab-]', ts => ts.map(t => t.id));
  assert.ok(presets.length >= 10 && tabs.length >= 5, `${presets.length} presets, ${tabs.length} tabs`);
  for (const [value, name] of presets) {
    await act(name, () => page.selectOption('#presets', value));
    for (const tab of tabs) await act(`${name}: ${tab.slice(4)}`, () => page.click(`#${tab}`));
  }
  const [cutlass] = presets.find(([, name]) => name.startsWith('CUTLASS'));
  await act('CUTLASS', () => page.selectOption('#presets', cutlass));
  await page.click('#tab-code');
  for (const target of await page.$$eval('#target option', os => os.map(o => o.value))) {
    await act(`CUTLASS: code, ${target}`, () => page.selectOption('#target', target));
  }
  for (const menu of ['Documents', 'Lessons']) {
    await act(`the ${menu} menu`, () => page.getByRole('button', { name: menu, exact: true }).click());
    await page.keyboard.press('Escape');
  }
  console.log(`a walk through the explorer: ${actions} actions, ${rows.length} with a task over 50 ms:`);
  console.table(rows);
  await page.close();
});

test('hostile texts at the limits draw without a task of a second; a paste beyond them is refused with a banner (long tasks printed, not asserted; budget 50 ms)', async () => {
  // Each text is pasted over the default example, in a page of its own (e2e/stress.mjs prints the
  // same for any pane). Asserted: no task of a second (one problem per stray character, each
  // underlined by a search through all of them, took seconds), at most 101 problems listed, and a
  // paste beyond the limits leaves the text as it was and says why. Tasks over the budget are
  // printed (timings are measured, not asserted: docs/benchmarks.md).
  const rows = [];
  for (const [name, text] of Object.entries(hostileTexts)) {
    const page = await open();
    await page.waitForTimeout(300);
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
        .observe({ type: 'longtask' });
    });
    const before = await page.inputValue('#source');
    const n = await explored(page);
    const at = await paste(page, text);
    if (name.startsWith('beyond')) {
      assert.equal(at, null, `${name}: the paste was not refused`);
      assert.match(await page.locator('.banner').textContent(), /^Not pasted: the text (has \d+ lines|is \d+ bytes); Stagecraft reads at most/);
      assert.equal(await page.inputValue('#source'), before);
      // Dropped from elsewhere, as a paste.
      const dropped = await page.$eval('#source', (el, v) => {
        const data = new DataTransfer();
        data.setData('text/plain', v);
        return !el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, text);
      assert.ok(dropped, `${name}: the drop was not refused`);
      assert.match(await page.locator('.banner').textContent(), /^Not dropped: /);
    } else {
      assert.notEqual(at, null, `${name}: the paste was refused`);
      await page.waitForFunction(k => Number(document.body.dataset.explored ?? 0) > k, n, { timeout: 30000 });
    }
    await page.waitForTimeout(800);
    const tasks = await page.evaluate(() => window.__longTasks);
    const problems = await page.locator('.problems li').count();
    assert.ok(problems <= 101, `${name}: ${problems} problems listed`);
    rows.push({ text: name, 'long tasks': tasks.length ? `${tasks.length} (${Math.max(...tasks).toFixed(0)} ms)` : '0', problems });
    assert.ok(tasks.every(d => d < 1000), `${name}: a task of ${Math.max(...tasks)} ms`);
    await page.close();
  }
  console.log('hostile texts (> 50 ms: count, longest):');
  console.table(rows);
});

test('no script errors on any page', () => {
  console.log(JSON.stringify(errors));
  assert.deepEqual(errors.filter(e => !/clipboard|Clipboard|Write permission/.test(e)), []);
});
