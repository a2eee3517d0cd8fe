// The dialects users write (issue 25): a pasted TVMScript PrimFunc, the token view, TVM 0.27's own
// program beside Stagecraft's, and the TVMScript export. Run by scripts/e2e.sh against the release
// build; alone: `cd e2e && STAGECRAFT_URL=… node --test dialects.test.mjs`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { url as BASE, launchFresh as launch, paste, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
const repo = p => readFileSync(new URL(`../${p}`, import.meta.url), 'utf8');
let ctx;
const errors = [];

before(async () => { ctx = await launch(); });
after(async () => { await ctx?.close(); });

async function open(size = { width: 1500, height: 900 }, hash = '') {
  return openPage(ctx, { to: BASE + hash, size, errors, introSeen: true });
}
const explored = page => page.evaluate(() => Number(document.body.dataset.explored ?? 0));
/** Pastes `text` and waits for its exploration. */
async function pasteAndExplore(page, text) {
  const n = await explored(page);
  await paste(page, text);
  await page.waitForFunction(k => Number(document.body.dataset.explored ?? 0) > k, n, { timeout: 30000 });
}
async function loadPreset(page, name) {
  const n = await explored(page);
  await page.selectOption('#presets', name);
  await page.waitForFunction(k => Number(document.body.dataset.explored ?? 0) > k, n, { timeout: 30000 });
}
const waitLines = page => page.$$eval('#program .line.wait', ls => ls.map(l => l.textContent.replace(/[−+]|count .*$/g, '').trim()));

test('a pasted TVMScript PrimFunc is read as TVMScript and gets the same waits as its Stagecraft twin', async () => {
  const page = await open();
  await pasteAndExplore(page, repo('tests/tvmscript/simple_compute_async.py'));
  assert.equal(await page.locator('#dialect').innerText(), 'read as TVMScript');
  const fromTvmScript = await waitLines(page);
  await pasteAndExplore(page, repo('tests/tvmscript/twins/simple_compute_async.py'));
  assert.equal(await page.locator('#dialect').innerText(), 'read as Stagecraft');
  const fromTwin = await waitLines(page);
  assert.ok(fromTwin.length > 0, 'the twin has waits');
  assert.deepEqual(fromTvmScript, fromTwin);
  await page.close();
});

test('the TVM 0.27 view on RFC (c) shows TVM\'s count 5, its race at its line, beside Stagecraft\'s verdict', async () => {
  const page = await open();
  await loadPreset(page, 'RFC (c): interleaved producers');
  await page.click('button[data-view="tvm-0.27"]');
  await page.waitForSelector('#tvm-program');
  assert.equal(await page.getAttribute('button[data-view="tvm-0.27"]', 'aria-pressed'), 'true');
  assert.match(await page.locator('#tvm-verdict').innerText(), /racy/);
  assert.match(await page.locator('#tvm-program').innerText(), /async_wait_queue\(0, 5\)/);
  const racy = await page.locator('#tvm-program .line.racy').count();
  assert.ok(racy > 0, 'the racing lines are marked');
  const first = await page.locator('.tvm-races li').first().innerText();
  assert.match(first, /^line \d+: reads data whose asynchronous write is still in flight/);
  // Stagecraft's own program for the same schedule, printed beside TVM's, is equivalent.
  await page.waitForFunction(() => /^Stagecraft's program: equivalent/.test(document.querySelector('#ours-verdict')?.textContent ?? ''), null, { timeout: 30000 });
  assert.match(await page.locator('#ours-program').innerText(), /async_wait_queue\(0, \d\)/);
  const [tvmBox, oursBox] = await Promise.all(['.side-by-side > .column:first-child', '.side-by-side > .column:last-child'].map(s => page.locator(s).boundingBox()));
  assert.ok(Math.abs(tvmBox.y - oursBox.y) < 2 && oursBox.x >= tvmBox.x + tvmBox.width, `the two programs side by side at 1500 px: ${JSON.stringify([tvmBox, oursBox])}`);
  await page.screenshot({ path: SHOTS + 'tvm-view-rfc-c-1500.png' });
  await page.setViewportSize({ width: 900, height: 700 });
  await page.screenshot({ path: SHOTS + 'tvm-view-rfc-c-900.png' });
  await page.close();
});

test('TVM\'s own test input with a thread-binding loop, pasted: the TVM view shows TVM\'s pipelined program, its verdict and how the threads are run (issue 44)', async () => {
  const page = await open();
  // test_async_producer_interleaving of TVM 0.27's own tests, as scripts/tvm-suite.py writes it:
  // the pipelined loop inside `for tx in T.thread_binding(…, thread="threadIdx.x")`.
  const text = repo('tests/tvm_suite/async_producer_interleaving.py');
  assert.match(text, /T\.thread_binding\(.*threadIdx\.x/);
  await pasteAndExplore(page, text);
  assert.equal(await page.locator('#dialect').innerText(), 'read as TVMScript');
  await page.click('#tab-program');
  await page.click('button[data-view="tvm-0.27"]');
  await page.waitForSelector('#tvm-program');
  // What the real TVM 0.27 makes of it (tests/tvm_suite/verdicts.txt): a program with waits
  // that races on in-flight data; Stagecraft's own is equivalent.
  await page.waitForFunction(() => /racy/.test(document.querySelector('#tvm-verdict')?.innerText ?? ''), null, { timeout: 30000 });
  assert.match(await page.locator('#tvm-program').innerText(), /async_wait_queue\(/);
  assert.ok(await page.locator('#tvm-program .line.racy').count() > 0, 'the racing lines are marked');
  assert.match(await page.locator('#pane-program').innerText(), /line \d+ of your loop: tx binds threadIdx\.x: its iterations are threads that run at once/);
  await page.waitForFunction(() => /^Stagecraft's program: equivalent/.test(document.querySelector('#ours-verdict')?.textContent ?? ''), null, { timeout: 30000 });
  await page.screenshot({ path: SHOTS + 'tvm-view-thread-binding-1500.png' });
  await page.close();
});

test('TVM\'s refusal is shown with TVM\'s own message at the line of the loop', async () => {
  const page = await open();
  await pasteAndExplore(page, 'for i in range(4):\n    B[i] = A[i]\n    C[i] = B[i]\nsch.annotate(i, "software_pipeline_stage", [0, 1])\nsch.annotate(i, "software_pipeline_order", [0, 0])\n');
  await page.click('button[data-view="tvm-0.27"]');
  await page.waitForSelector('#tvm-refusal');
  assert.match(await page.locator('#tvm-refusal').innerText(), /^line 5 of your loop: TVM 0.27 refuses this schedule: .*same order/);
  await page.close();
});

test('the tokens view on RFC (b): each wait an async_done with its count beside it; a link reopens the view', async () => {
  const page = await open();
  await loadPreset(page, 'RFC (b): two async stages');
  await page.click('button[data-view="tokens"]');
  await page.waitForSelector('#token-program');
  const text = await page.locator('#token-program').innerText();
  assert.match(text, /with async_start\(0\) as q0\[i\]:/);
  assert.match(text, /with async_done\(q0\[i - 1\]\):\s+# wait\(0, 1\): 1 = tokens of queue 0 committed after q0\[i - 1\]/);
  assert.equal(await page.locator('#token-program .line.done').count(), (text.match(/async_done\(/g) ?? []).length);
  await page.screenshot({ path: SHOTS + 'tokens-view-rfc-b-1500.png' });
  // The URL's hash follows the document: opened in a new page, it shows the same view.
  await page.waitForFunction(() => location.hash.length > 10);
  await page.waitForTimeout(600);
  const hash = await page.evaluate(() => location.hash);
  const again = await open({ width: 1500, height: 900 }, hash);
  await again.waitForSelector('#token-program');
  assert.equal(await again.getAttribute('button[data-view="tokens"]', 'aria-pressed'), 'true');
  await again.click('button[data-view="stagecraft"]');
  await again.waitForSelector('#program');
  await again.close();
  await page.close();
});

test('the loop exports as a TVMScript PrimFunc from the Code pane', async () => {
  const page = await open();
  await page.click('#tab-code');
  await page.selectOption('#target', 'tvmscript');
  await page.waitForFunction(() => /@T\.prim_func/.test(document.querySelector('#code')?.textContent ?? ''));
  // textContent: a chunk of lines is content-visibility: auto, and innerText skips it until the
  // browser has laid it out once.
  const code = await page.locator('#code pre.code').textContent();
  assert.match(code, /"software_pipeline_async_stages": \[0\]/);
  // A text with an error has no export, and says why.
  await pasteAndExplore(page, 'for i in range(4):\n    C[i] = A[i] +\n');
  await page.waitForSelector('#code .unavailable');
  assert.match(await page.locator('#code .unavailable').innerText(), /no TVMScript form: fix line 2 first/);
  await page.close();
});

test('check a pipelined program: TVM\'s output for RFC (c) races and names the count that would be right; fixed, it is equivalent', async () => {
  const page = await open();
  await loadPreset(page, 'RFC (c): interleaved producers');
  await page.click('button[data-view="tvm-0.27"]');
  await page.waitForSelector('#tvm-program');
  const tvm = await page.locator('#tvm-program').innerText();
  await page.click('button[data-view="check"]');
  await page.waitForSelector('#pipelined');
  assert.match(await page.locator('#check-verdict').innerText(), /Paste a pipelined program/);
  await page.fill('#pipelined', tvm);
  await page.waitForFunction(() => /racy/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  // Each race is at its line of the pasted text: a line that accesses the buffer it names.
  const races = await page.locator('#pane-program .tvm-races li').allTextContents();
  assert.ok(races.length > 0);
  for (const r of races) {
    const line = Number(r.match(/^line (\d+):/)[1]);
    const buffer = r.match(/(A_sh|B_sh)\[/)[1];
    assert.ok(tvm.split('\n')[line - 1].includes(buffer + '['), `race at line ${line}: ${r}`);
  }
  assert.match(await page.locator('#pane-program').innerText(), /async_wait_queue\(0, 5\): should have covered them: its count 2 lower leaves no race on it/);
  await page.screenshot({ path: SHOTS + 'check-tvm-rfc-c-1500.png' });
  // A count no hardware runs is shown at its line with its fix; a count lower than needed, as a
  // loose wait.
  await page.fill('#pipelined', tvm.replace('async_wait_queue(0, 5)', 'async_wait_queue(0, -1)'));
  await page.waitForFunction(() => /^invalid/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  const waitLine = tvm.split('\n').findIndex(l => l.includes('async_wait_queue(0, 5)')) + 1;
  assert.match(await page.locator('#pane-program .run-problems li.error').first().innerText(),
    new RegExp(`^line ${waitLine}: this wait's count is -1 .*\\nFix: a wait count is the number of groups`));
  await page.fill('#pipelined', tvm.replace('async_wait_queue(0, 5)', 'async_wait_queue(0, 2)'));
  await page.waitForFunction(() => /^safe but loose/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  assert.match(await page.locator('#pane-program .loose-waits li').first().innerText(),
    new RegExp(`^line ${waitLine}: with async_wait_queue\\(0, 2\\): waits for more than the program needs: a count 1 higher still leaves no race$`));
  await page.screenshot({ path: SHOTS + 'check-loose-rfc-c-1500.png' });
  await page.fill('#pipelined', tvm.replace('async_wait_queue(0, 5)', 'async_wait_queue(0, 3)'));
  await page.waitForFunction(() => /^equivalent/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  // Stagecraft's own program checks as equivalent too; the link carries the program checked.
  await page.getByRole('button', { name: "Start from Stagecraft's program" }).click();
  await page.waitForFunction(() => /^equivalent/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  await page.waitForTimeout(600);
  const again = await open({ width: 900, height: 700 }, await page.evaluate(() => location.hash));
  await again.waitForSelector('#check-verdict');
  assert.match(await again.inputValue('#pipelined'), /async_commit_queue/);
  await again.waitForFunction(() => /^equivalent/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  await again.screenshot({ path: SHOTS + 'check-ours-rfc-c-900.png' });
  await again.close();
  await page.close();
});

test('check a threaded program: the CDNA4 preset without its barriers races between two waves, at the read, with the barrier that would have covered it', async () => {
  const variant = repo('tests/pipelined/cdna4_wave_local_waits.py');
  const page = await open();
  await loadPreset(page, 'CDNA4 interleaved (seed 002)');
  await page.click('button[data-view="check"]');
  await page.waitForSelector('#pipelined');
  await page.fill('#pipelined', variant);
  await page.waitForFunction(() => /^racy: .* between waves/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  assert.match(await page.locator('#pane-program').innerText(), /Run across its 8 waves \(512 threads\)/);
  const races = await page.locator('#pane-program .thread-races li').allTextContents();
  assert.ok(races.length > 0);
  const lines = variant.split('\n');
  const reads = races.filter(r => / reads /.test(r.split(':')[1] ?? ''));
  assert.ok(reads.length > 0 && reads.length < races.length, `reads and refills: ${races.join('\n')}`);
  for (const r of races) {
    // Both waves, the element (its slot when the tile has two versions) and the iteration, at a
    // line that accesses the tile; the barrier's place: after the wait that landed the copy (or
    // after the other wave's read), before this access.
    const [, line, me, verb, buffer, slot, them] = r.match(/^line (\d+): wave (\d) (reads|writes) (A_sh|B_sh)\[[\d, ]+\]( \(slot \d\))?(?: at iteration \d+)?(?:, written by| while) wave (\d)/) ?? [];
    assert.ok(line && me !== them, `two waves named: ${r}`);
    assert.equal(!!slot, buffer === 'A_sh', `A_sh has two versions, B_sh one: ${r}`);
    assert.ok(lines[line - 1].includes(buffer + '['), `race at line ${line}: ${r}`);
    const [, at, before] = r.match(/Fix: a barrier\(\) after the (?:wait|read) on line (\d+) and before this (?:read|write) on line (\d+)/) ?? [];
    assert.ok(at && before === line, r);
    assert.ok(lines[at - 1].includes(verb === 'reads' ? 'async_wait_queue(0, ' : buffer + '['), r);
  }
  await page.screenshot({ path: SHOTS + 'check-cdna4-waves-1500.png' });
  // The derived program, with its barriers, is equivalent across the waves.
  await page.getByRole('button', { name: "Start from Stagecraft's program" }).click();
  await page.waitForFunction(() => /^equivalent: same outputs, no race across its 8 waves \(512 threads\)/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  await page.close();
  const small = await open({ width: 900, height: 700 });
  await loadPreset(small, 'CDNA4 interleaved (seed 002)');
  await small.click('button[data-view="check"]');
  await small.waitForSelector('#pipelined');
  await small.fill('#pipelined', variant);
  await small.waitForFunction(() => /^racy: .* between waves/.test(document.querySelector('#check-verdict')?.textContent ?? ''));
  await small.locator('#pane-program .thread-races li').first().scrollIntoViewIfNeeded();
  await small.screenshot({ path: SHOTS + 'check-cdna4-waves-900.png' });
  await small.close();
});

test('a pasted TileLang kernel: the grid rewrites its T.Pipelined arguments, its async stages and costs are read-only', async () => {
  const page = await open();
  await pasteAndExplore(page, repo('tests/tilelang/gemm_stages3.py'));
  assert.equal(await page.locator('#dialect').innerText(), 'read as TileLang');
  assert.ok(await page.locator('#async-0').isChecked(), 'the copies\' stage is asynchronous');
  assert.ok(await page.locator('#async-0').isDisabled(), 'TileLang derives it: not toggled');
  const n = await explored(page);
  const gemm = page.locator('.grid [data-unit="2"] input[type=number]');
  await gemm.fill('1');
  await page.waitForFunction(k => Number(document.body.dataset.explored ?? 0) > k, n, { timeout: 30000 });
  const text = await page.inputValue('#source');
  assert.ok(text.includes('T.Pipelined(T.ceildiv(K, block_K), order=[0, 1, 2], stage=[0, 0, 1])'), text);
  assert.ok(!text.includes('sch.annotate'), 'no loop-language lines in a kernel');
  assert.equal(await page.locator('#dialect').innerText(), 'read as TileLang');
  assert.equal(await page.locator('#problems .error').count(), 0, 'the kernel still reads');
  await page.click('#tab-timeline');
  await page.locator('details.costs summary').click();
  assert.ok(await page.locator('#costs input').first().isDisabled(), 'the costs are the defaults, read-only');
  await page.screenshot({ path: SHOTS + 'tilelang-grid-1500x900.png' });
  await page.close();
});

test('no script errors on any page', () => {
  assert.deepEqual(errors, []);
});
