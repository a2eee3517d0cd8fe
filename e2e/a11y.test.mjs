// Keyboard, accessibility and layout (issue 23, defects 5–7): run by scripts/e2e.sh against the
// release build served on 127.0.0.1; alone: `cd e2e && STAGECRAFT_URL=… node --test a11y.test.mjs`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { url as BASE, launchFresh as launch, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PANES = ['program', 'verification', 'timeline', 'space', 'code', 'steps', 'search'];
let ctx;
const errors = [];

before(async () => { ctx = await launch(); });
after(async () => { await ctx?.close(); });

/** Opens the explorer with this browser's saved text cleared, at `size`. */
async function open(size = { width: 1500, height: 900 }) {
  return openPage(ctx, { size, errors });
}

const explored = page => page.evaluate(() => Number(document.body.dataset.explored ?? 0));
/** Runs `action` and waits until the app has published a new exploration after it. */
async function andExplored(page, action) {
  const n = await explored(page);
  await action();
  await page.waitForFunction(k => Number(document.body.dataset.explored ?? 0) > k, n, { timeout: 30000 });
}
async function loadPreset(page, name) {
  const before = await page.inputValue('#source');
  await page.selectOption('#presets', name);
  // A preset equal to the text shown is not explored again.
  await page.waitForFunction(b => document.querySelector('#source').value !== b, before, { timeout: 1000 }).catch(() => {});
  await page.waitForFunction(() => !document.querySelector('.editor.plain'), null, { timeout: 30000 });
  await page.waitForTimeout(100);
}
const presetNames = page => page.$$eval('#presets option', os => os.map(o => o.value).filter(Boolean));
/** What has the keyboard focus: its id, classes and tag. */
const focused = page => page.evaluate(() => {
  const e = document.activeElement;
  return { id: e?.id ?? '', cls: e?.getAttribute('class') ?? '', tag: e?.tagName.toLowerCase() ?? '',
    data: Object.assign({}, e?.dataset ?? {}) };
});
/** Presses Tab until `pred(focused)` holds (at most `max` times); returns the element's description. */
async function tabUntil(page, pred, max = 60, key = 'Tab') {
  for (let k = 0; k < max; k++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    if (f.id === 'source' && !pred(f)) {
      // Tab indents in the editor: Escape first leaves it, as code editors do.
      await page.keyboard.press('Escape');
      continue;
    }
    if (pred(f)) return f;
  }
  assert.fail(`no element reached by ${key} satisfies ${pred}`);
}
/** Whether the focused element (or, for the editor, its frame) draws a visible focus indicator. */
const focusVisible = page => page.evaluate(() => {
  const e = document.activeElement;
  const drawn = el => {
    if (!el) return false;
    const s = getComputedStyle(el);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
    return outline || (s.boxShadow && s.boxShadow !== 'none');
  };
  return drawn(e) || (e?.id === 'source' && drawn(e.closest('.editor')));
});

test('every element reached by Tab shows where the focus is', async () => {
  const page = await open();
  const missing = [];
  let reached = 0;
  await page.locator('body').focus();
  for (let k = 0; k < 40; k++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f.tag === 'body') break;
    reached++;
    if (!await focusVisible(page)) missing.push(`${f.tag}#${f.id}.${f.cls}`);
    if (f.id === 'source') await page.keyboard.press('Escape');
  }
  assert.ok(reached > 10, `${reached} elements reached`);
  assert.deepEqual(missing, [], 'focused without a visible focus indicator');
  await page.locator('#source').focus();
  await page.screenshot({ path: SHOTS + 'a11y-editor-focus.png' });
  await page.close();
});

test('the tabs are a WAI-ARIA tablist: roles, aria-selected, panels, arrow keys, Home and End', async () => {
  const page = await open();
  assert.equal(await page.locator('[role="tablist"]').count(), 1);
  const tabs = page.locator('[role="tablist"] [role="tab"]');
  assert.equal(await tabs.count(), PANES.length);
  const selected = () => page.$$eval('[role="tab"]', ts => ts.filter(t => t.getAttribute('aria-selected') === 'true').map(t => t.id));
  assert.deepEqual(await selected(), ['tab-program']);
  for (const pane of PANES) {
    const tab = page.locator(`#tab-${pane}`);
    const panel = await tab.getAttribute('aria-controls');
    assert.equal(panel, `pane-${pane}`);
    assert.equal(await page.locator(`#${panel}`).getAttribute('role'), 'tabpanel');
    assert.equal(await page.locator(`#${panel}`).getAttribute('aria-labelledby'), `tab-${pane}`);
  }
  // One tab stop: the selected tab.
  assert.deepEqual(await page.$$eval('[role="tab"]', ts => ts.map(t => t.tabIndex)), PANES.map((_, k) => (k === 0 ? 0 : -1)));
  await page.locator('#tab-program').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused(page)).id, 'tab-verification');
  assert.deepEqual(await selected(), ['tab-verification']);
  await page.waitForSelector('#pane-verification:not(.hidden)');
  await page.keyboard.press('End');
  assert.deepEqual(await selected(), ['tab-search']);
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await selected(), ['tab-program'], 'wraps around');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await selected(), ['tab-search']);
  await page.keyboard.press('Home');
  assert.deepEqual(await selected(), ['tab-program']);
  assert.equal((await focused(page)).id, 'tab-program');
  await page.waitForSelector('#pane-program:not(.hidden)');
  await page.close();
});

test('the editor: Tab indents, Shift+Tab dedents, Escape then Tab leaves; Enter keeps the indentation and indents after a colon', async () => {
  const page = await open();
  const source = page.locator('#source');
  await andExplored(page, () => source.fill('for i in range(4):'));
  await source.focus();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  assert.equal(await source.inputValue(), 'for i in range(4):\n    ', 'indented after a colon');
  await page.keyboard.type('B[i] = A[i]');
  await page.keyboard.press('Enter');
  assert.equal(await source.inputValue(), 'for i in range(4):\n    B[i] = A[i]\n    ', 'the indentation is kept');
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).id, 'source', 'Tab stays in the editor');
  assert.equal(await source.inputValue(), 'for i in range(4):\n    B[i] = A[i]\n        ');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await source.inputValue(), 'for i in range(4):\n    B[i] = A[i]\n    ');
  // Typing is one exploration per key (or fewer, coalesced): wait for the one of the last key.
  await page.keyboard.type('C[i] = B[i]');
  await page.waitForFunction(() => /C\[i\] = B\[i\]/.test(document.querySelector('#program')?.textContent ?? ''),
    null, { timeout: 30000 }).catch(() => {});
  assert.match(await page.locator('#program').textContent(), /C\[i\] = B\[i\]/, 'the edits are explored');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  assert.notEqual((await focused(page)).id, 'source', 'Escape then Tab leaves the editor');
  assert.equal(await source.inputValue(), 'for i in range(4):\n    B[i] = A[i]\n    C[i] = B[i]');
  await page.close();
});

test('a wait row is reached by Tab and selected by Enter or Space, as a click does', async () => {
  const page = await open();
  await page.click('#tab-verification');
  await page.waitForSelector('table.waits tr[data-wait]');
  const rows = await page.locator('table.waits tr[data-wait]').count();
  assert.ok(rows >= 2, `${rows} wait rows`);
  await page.locator('#tab-verification').focus();
  const first = await tabUntil(page, f => f.data.wait !== undefined, 20);
  assert.ok(await focusVisible(page), 'the row shows its focus');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#selection-detail');
  assert.equal(await page.locator(`#wait-row-${first.data.wait}`).getAttribute('aria-selected'), 'true');
  assert.equal((await focused(page)).data.wait, first.data.wait, 'the focus stays on the row');
  await page.keyboard.press('ArrowDown');
  const second = await focused(page);
  assert.notEqual(second.data.wait, first.data.wait, 'ArrowDown moves to the next row');
  await page.keyboard.press(' ');
  await page.waitForFunction(w => document.querySelector(`#wait-row-${w}`)?.getAttribute('aria-selected') === 'true', second.data.wait);
  assert.equal(await page.evaluate(() => document.scrollingElement.scrollTop), 0, 'Space does not scroll the page');
  await page.screenshot({ path: SHOTS + 'a11y-wait-by-keyboard.png' });
  await page.close();
});

test('a problem is reached by Tab, and Enter selects its place in the editor', async () => {
  const page = await open();
  const source = await page.inputValue('#source');
  await andExplored(page, () => page.fill('#source', source.replace('C[i] = B[0] + 1', 'C[i] = B[0] +')));
  await page.waitForSelector('#problems li.error');
  await page.locator('#source').focus();
  await page.keyboard.press('Escape');
  await tabUntil(page, f => f.tag === 'li' && /error/.test(f.cls), 20);
  assert.ok(await focusVisible(page), 'the problem shows its focus');
  await page.keyboard.press('Enter');
  const at = await page.evaluate(() => ({ id: document.activeElement.id, from: document.activeElement.selectionStart }));
  assert.equal(at.id, 'source');
  assert.ok(at.from > 0, 'the caret is at the problem');
  await page.close();
});

test('a wait line\'s "why N" is reached by keyboard and shown while focused', async () => {
  const page = await open();
  await page.locator('#tab-program').focus();
  const f = await tabUntil(page, f => /\bwait\b/.test(f.cls), 10);
  assert.ok(await focusVisible(page), 'the line shows its focus');
  const why = await page.locator(`#program .line.${f.cls.split(' ').find(c => /^w\d+$/.test(c))}`).getAttribute('data-why');
  assert.ok(why && why.length > 10, 'the line is explained');
  const shown = page.locator('#why');
  assert.ok(await shown.isVisible(), 'the explanation is shown');
  assert.equal((await shown.innerText()).trim(), why.trim());
  await page.screenshot({ path: SHOTS + 'a11y-why.png' });
  await page.keyboard.press('Shift+Tab');
  assert.ok(!await shown.isVisible(), 'and hidden when the focus moves on');
  await page.close();
});

test('timeline bars are reached by keyboard, moved through with the arrows, and say what they are', async () => {
  const page = await open();
  await page.click('#tab-timeline');
  await page.waitForSelector('#timeline svg rect.span');
  await page.locator('#tab-timeline').focus();
  const f = await tabUntil(page, f => f.tag === 'rect', 10);
  assert.ok(await focusVisible(page), 'the bar shows its focus');
  const said = () => page.locator('#bar-info').innerText();
  // Named by its statement's text: `B[0] = A[i] + 1, iteration 0 (prologue), …`.
  assert.match(await said(), /^\S.* = .*, iteration \d+ \(/);
  const firstSaid = await said();
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused(page)).tag, 'rect');
  assert.notEqual(await said(), firstSaid, 'the next bar');
  // A bar hovers its statement: the editor and the program light it up, as the pointer does.
  const st = await page.evaluate(() => document.activeElement.dataset.st);
  assert.match(await page.locator('#focus-style').textContent(), new RegExp(`\\.st${st}\\b`));
  await page.keyboard.press('End');
  await page.keyboard.press('Home');
  assert.equal(await said(), firstSaid);
  await page.screenshot({ path: SHOTS + 'a11y-bar-focus.png' });
  await page.close();
});

test('keyboard only: editor → grid → every tab → a wait row → the timeline', async () => {
  const page = await open();
  await page.locator('body').focus();
  await tabUntil(page, f => f.id === 'source', 30);
  await page.keyboard.press('Control+End');
  await andExplored(page, () => page.keyboard.type('\n# edited by keyboard'));
  await page.keyboard.press('Escape');
  // The consumer's stage: a number field's arrow keys change it, which is applied at once.
  const stage = await tabUntil(page, f => f.id === 'stage-1', 10);
  await andExplored(page, () => page.keyboard.press('ArrowUp'));
  const expected = stage.id === 'stage-0' ? '[1, 1]' : '[0, 2]';
  await page.waitForFunction(e => document.querySelector('#source').value.includes(`software_pipeline_stage", ${e}`), expected, { timeout: 3000 })
    .catch(async () => assert.fail(`${stage.id} up: ${(await page.inputValue('#source')).split('\n').filter(l => /stage/.test(l))}`));
  await tabUntil(page, f => f.id.startsWith('tab-'), 40);
  for (const pane of PANES.slice(1)) {
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector(`#pane-${pane}:not(.hidden)`);
  }
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#pane-verification:not(.hidden)');
  await page.waitForSelector('table.waits tr[data-wait]');
  await tabUntil(page, f => f.data.wait !== undefined, 20);
  // A wait whose detail offers the timeline (one that stalls).
  let found = false;
  for (let k = 0; k < 8 && !found; k++) {
    await page.keyboard.press('Enter');
    await page.waitForSelector('#selection-detail');
    found = await page.locator('#selection-detail button[data-goto="timeline"]').count() > 0;
    if (!found) await page.keyboard.press('ArrowDown');
  }
  assert.ok(found, 'some wait stalls');
  await tabUntil(page, f => f.data.goto === 'timeline', 10, 'Shift+Tab');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#pane-timeline:not(.hidden) #focus-marker');
  assert.equal(await page.locator('#tab-timeline').getAttribute('aria-selected'), 'true');
  await page.waitForFunction(() => document.activeElement?.closest('#pane-timeline'), null, { timeout: 2000 })
    .catch(() => assert.fail('the focus follows to the Timeline'));
  await page.close();
});

test('axe-core finds no serious or critical violation on any pane of any preset', async () => {
  const page = await open();
  // Evaluated rather than added as a script tag: the page's Content-Security-Policy refuses an
  // inline script, and rightly.
  await page.evaluate(readFileSync(AXE, 'utf8'));
  const found = [];
  let runs = 0;
  for (const preset of await presetNames(page)) {
    await loadPreset(page, preset);
    for (const pane of PANES) {
      await page.click(`#tab-${pane}`);
      await page.waitForSelector(`#pane-${pane}:not(.hidden)`);
      await page.waitForTimeout(100);
      const violations = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
          .map(v => `${v.impact} ${v.id}: ${v.nodes.length} × ${v.nodes[0]?.target.join(' ')}`);
      });
      runs++;
      for (const v of violations) found.push(`${preset} / ${pane}: ${v}`);
    }
  }
  console.log(`axe-core: ${runs} audits (every preset × every pane), ${found.length} serious or critical violations`);
  assert.deepEqual(found, []);
  await page.close();
});

/** Widths from 1920 down to 768 px: no horizontal overflow, every tab whole, stacked below 1000. */
test('no horizontal overflow from 1920 to 768 px wide; the panes stack below 1000 px', async () => {
  const page = await open();
  await loadPreset(page, 'CUTLASS-style multistage GEMM');
  const problems = [];
  for (const [width, height] of [[1920, 1080], [1500, 900], [1280, 800], [1000, 800], [999, 800], [900, 700], [768, 900]]) {
    await page.setViewportSize({ width, height });
    for (const pane of PANES) {
      await page.click(`#tab-${pane}`);
      await page.waitForTimeout(50);
      const m = await page.evaluate(() => {
        const r = s => document.querySelector(s).getBoundingClientRect();
        const tabs = [...document.querySelectorAll('.tab')].map(t => t.getBoundingClientRect());
        const nav = r('.tabs');
        return {
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          clipped: tabs.filter(t => t.right > nav.right + 0.5 || t.left < nav.left - 0.5 || t.right > innerWidth).length,
          left: r('.left').toJSON(), right: r('.right').toJSON(),
        };
      });
      const at = `${width}×${height} ${pane}`;
      if (m.overflow > 0) problems.push(`${at}: overflows by ${m.overflow} px`);
      if (m.clipped > 0) problems.push(`${at}: ${m.clipped} tab(s) clipped`);
      const stacked = m.right.top >= m.left.bottom - 1;
      if (width < 1000 && !stacked) problems.push(`${at}: the panes are not stacked below the editor`);
      if (width >= 1000 && stacked) problems.push(`${at}: stacked at ${width} px`);
      if (m.right.height < 300) problems.push(`${at}: the panes are ${m.right.height} px high`);
    }
    await page.click('#tab-program');
    await page.screenshot({ path: SHOTS + `a11y-${width}x${height}.png` });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('grid labels show the statement\'s own text: the CUTLASS preset\'s five rows are told apart', async () => {
  for (const size of [{ width: 1500, height: 900 }, { width: 900, height: 700 }]) {
    const page = await open(size);
    await loadPreset(page, 'CUTLASS-style multistage GEMM');
    const labels = await page.$$eval('#grid .grid-row:not(.head) .label', ls => ls.map(l => ({
      text: l.innerText.trim(), cut: l.scrollWidth > l.clientWidth + 1 || l.scrollHeight > l.clientHeight + 1,
    })));
    assert.equal(labels.length, 5);
    const expected = ['A_smem[m, kk] = A[m, 4 * k + kk]', 'B_smem[kk, n] = B[4 * k + kk, n]',
      'A_frag[m, kk] = A_smem[m, kk]', 'B_frag[kk, n] = B_smem[kk, n]', 'accum[m, n] = fma('];
    labels.forEach((l, k) => assert.ok(l.text.includes(expected[k]), `row ${k}: ${l.text}`));
    assert.ok(labels.every(l => !/range\(/.test(l.text)), 'no loop headers');
    assert.deepEqual(labels.filter(l => l.cut).map(l => l.text), [], `labels cut short at ${size.width} px`);
    await page.screenshot({ path: SHOTS + `a11y-grid-cutlass-${size.width}.png` });
    await page.close();
  }
});

test('an inner pipeline\'s rows are grouped under its loop as its prologue, body and epilogue', async () => {
  const page = await open();
  await loadPreset(page, 'RFC (e): nested GEMM');
  const rows = await page.$$eval('#grid .grid-row:not(.head)', rs => rs.map(r => r.innerText.replace(/\s+/g, ' ').trim()));
  const group = rows.findIndex(r => /inner loop/.test(r) && /for k1 in range\(4\)/.test(r));
  assert.ok(group >= 0, `a row names the inner loop: ${rows.join(' | ')}`);
  const parts = rows.slice(group + 1, group + 4);
  assert.match(parts[0] ?? '', /^prologue of the inner loop/);
  assert.match(parts[1] ?? '', /^body of the inner loop/);
  assert.match(parts[2] ?? '', /^epilogue of the inner loop/);
  assert.match(parts[0], /A_local\[x\] = A_shared\[x, k1\]/);
  assert.equal(await page.locator('#grid input.stage').count(), 5, 'the group row has no stage of its own');
  await page.screenshot({ path: SHOTS + 'a11y-grid-inner.png' });
  await page.close();
});

test('the stage field applies on input, as the editor does, and keeps the focus', async () => {
  const page = await open();
  const stage = page.locator('#grid input.stage').nth(1);
  await stage.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('"software_pipeline_stage", [0, 2]'), null, { timeout: 3000 });
  await page.waitForFunction(() => document.querySelector('#program').textContent.includes('async_wait_queue(0, 2)'));
  const f = await focused(page);
  assert.ok(f.cls.includes('stage'), 'the focus stays in the field');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('"software_pipeline_stage", [0, 3]'), null, { timeout: 3000 });
  await page.close();
});

/** A loop of 40 statements over 100 iterations: more than 2000 bars on the timeline. */
const manyBars = (() => {
  const n = 40;
  const body = Array.from({ length: n }, (_, k) => `    B${k}[i] = A${k}[i] + 1`);
  const stages = Array.from({ length: n }, (_, k) => k % 2).join(', ');
  const orders = Array.from({ length: n }, (_, k) => k).join(', ');
  return ['for i in range(100):', ...body, `sch.annotate(i, "software_pipeline_stage", [${stages}])`,
    `sch.annotate(i, "software_pipeline_order", [${orders}])`].join('\n') + '\n';
})();

test('banners belong to their pane: "at most 2000 bars" only on the Timeline', async () => {
  const page = await open();
  await andExplored(page, () => page.fill('#source', manyBars));
  await page.click('#tab-timeline');
  const bars = page.getByText(/at most 2000 bars/);
  await bars.first().waitFor({ state: 'visible', timeout: 20000 });
  assert.ok(await bars.first().evaluate(e => !!e.closest('#pane-timeline')), 'in the Timeline pane');
  await page.screenshot({ path: SHOTS + 'a11y-banner-timeline.png' });
  for (const pane of ['program', 'verification', 'space', 'code']) {
    await page.click(`#tab-${pane}`);
    await page.waitForTimeout(50);
    assert.equal(await page.getByText(/at most 2000 bars/).filter({ visible: true }).count(), 0, `not on ${pane}`);
  }
  await page.close();
});

test('no script errors on any page', () => {
  assert.deepEqual(errors, []);
});
