// What a user types, pastes or opens is shown as text, never run (issue 43): every string field a
// user controls — the text's comments and the document name they make, strings quoted by error
// messages (a buffer's scope and dtype, an annotation key), a pasted program, a link's parameter
// names and the counts it moves by hand — carries markup that would run script if it were written
// as markup, and the page is searched for the elements it would make. And the page runs under its
// Content-Security-Policy: no inline script, scripts and workers from its own origin only, and
// whatever the policy refuses is reported (and fails every browser suite: the page says it in the
// console). Run by scripts/e2e.sh against the release build, served with the policy as a header.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { url as BASE, launchFresh as launch, openPage } from './fresh.mjs';

const SHOTS = new URL('./screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });
let ctx;
const errors = [];

before(async () => { ctx = await launch(); });
after(async () => { await ctx?.close(); });

async function open(url) {
  return openPage(ctx, { to: url, errors, introSeen: true });
}

const link = state => BASE + '#v1/' + deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url');

/** Markup that runs script when written as markup: an element with a handler (`img`), and one that
 * first closes an attribute value (`'">`). Each numbered, to tell which field let it through. */
const img = k => `<img src=x onerror="window.__ran=${k}">`;
const breakout = k => `'"><svg onload="window.__ran=${k}">`;
const plainImg = k => `<img src=x onerror=window.__ran=${k}>`;

/** A loop whose errors quote markup: a scope and a dtype no buffer has. Its first comment names
 * the document. */
const withErrors = `# ${img(1)} ${breakout(2)}
T = alloc([2], scope="${plainImg(3)}", dtype='"><svg onload=window.__ran=4>')
for i in range(8):
    T[i % 2] = A[i] + 1
    B[i] = T[i % 2] * 2
`;

/** A loop Stagecraft pipelines, with markup in its comments and an annotation key it does not
 * read (a note quoting it). */
const pipelined = `# ${img(5)} ${breakout(6)}
T = alloc([2])
for i in range(N):
    T[i % 2] = A[i] + 1  # ${img(7)}
    B[i] = T[i % 2] * 2
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
sch.annotate(i, "${plainImg(8)}", [0])
`;

/** A pasted program with markup in a comment and in a string it quotes. */
const pasted = `with async_wait_queue(0, 1):  # ${img(9)}
    B[0] = "${plainImg(10)}"
`;

/** What script the page would have run, and the elements markup would have made: none of either
 * may exist (the app itself writes no `img` and no handler attribute). */
const injected = page => page.evaluate(() => ({
  ran: window.__ran ?? null,
  imgs: [...document.querySelectorAll('img')].map(e => e.outerHTML),
  handlers: [...document.querySelectorAll('*')]
    .filter(e => [...e.attributes].some(a => /^on/i.test(a.name)))
    .map(e => e.outerHTML.slice(0, 160)),
  refused: window.stagecraftCspViolations ?? ['the page did not install its policy report'],
}));

const clean = { ran: null, imgs: [], handlers: [], refused: [] };

/** The text of the whole page as shown: its text, hidden parts too, the fields' values, and the
 * attribute values (titles, labels). */
const allText = page => page.evaluate(() => [
  document.documentElement.textContent,
  ...[...document.querySelectorAll('textarea, input')].map(e => e.value),
  ...[...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.value)),
].join('\n'));

test('markup in error messages and document names is shown as text', async () => {
  const page = await open(link({ text: withErrors }));
  await page.waitForFunction(() => /unknown scope/.test(document.querySelector('.problems-wrap')?.textContent ?? ''));
  const problems = await page.locator('.problems-wrap').innerText();
  assert.ok(problems.includes(plainImg(3)), `the scope is quoted as text: ${problems}`);
  assert.ok(problems.includes('"><svg onload=window.__ran=4>'), `the dtype is quoted as text: ${problems}`);
  // Saved once edited: the document is named after its first comment.
  await page.fill('#source', withErrors + '\n');
  await page.waitForTimeout(1000);
  await page.click('#documents');
  await page.waitForSelector('#documents-menu .document');
  const names = await page.locator('#documents-menu .document .name').allInnerTexts();
  assert.ok(names.some(n => n.includes(img(1))), `the document's name is shown as text: ${names}`);
  await page.keyboard.press('Escape');
  assert.deepEqual(await injected(page), clean);
  await page.close();
});

test('markup in every pane, program view and code target of a pipelined loop, a pasted program and a link is shown as text', async () => {
  const page = await open(link({
    text: pipelined,
    view: 'check',
    pipelined: pasted,
    params: { N: 8, [plainImg(11)]: 3 },
    lesson: 'race-free',
    counts: [{ queue: 0, section: 'body', before: plainImg(12), occurrence: 0, delta: 1 }],
  }));
  await page.waitForFunction(() => /does not read/.test(document.querySelector('.problems-wrap')?.textContent ?? ''));
  assert.ok((await page.locator('.problems-wrap').innerText()).includes(plainImg(8)), 'the annotation key is quoted as text');
  await page.waitForSelector('#pipelined');
  assert.equal(await page.inputValue('#pipelined'), pasted);
  await page.waitForFunction(() => document.querySelector('#check-verdict')?.textContent?.trim());
  for (const view of ['tokens', 'tvm-0.27', 'stagecraft', 'check']) {
    await page.click(`button[data-view="${view}"]`);
    await page.waitForTimeout(300);
  }
  for (const pane of ['verification', 'timeline', 'space', 'steps', 'code', 'program']) {
    await page.click(`#tab-${pane}`);
    await page.waitForTimeout(400);
    if (pane === 'code') {
      for (const target of await page.locator('#target option').evaluateAll(os => os.map(o => o.value))) {
        await page.selectOption('#target', target);
        await page.waitForTimeout(400);
      }
    }
  }
  // Saved once edited: the Documents menu names it after its first comment.
  await page.fill('#source', pipelined + '\n');
  await page.waitForTimeout(1000);
  await page.click('#lessons');
  await page.waitForTimeout(200);
  await page.keyboard.press('Escape');
  await page.click('#documents');
  await page.waitForSelector('#documents-menu .document');
  await page.keyboard.press('Escape');
  await page.screenshot({ path: SHOTS + 'markup-as-text.png' });
  const text = await allText(page);
  // The comments are in the editor and the document's name, the pasted program in its field, the
  // count moved by hand that the text no longer has in a notice.
  for (const shown of [img(5), breakout(6), img(7), plainImg(8), img(9), plainImg(10), plainImg(12)]) {
    assert.ok(text.includes(shown), `${shown} is shown as text`);
  }
  assert.deepEqual(await injected(page), clean);
  await page.close();
});

test('the page has no inline script, and runs under its policy', async () => {
  const page = await open(BASE);
  const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '');
  const directive = name => (policy.match(new RegExp(`(?:^|;)\\s*${name}\\s+([^;]*)`)) ?? [])[1]?.trim() ?? null;
  assert.equal(directive('script-src'), "'self' 'wasm-unsafe-eval'");
  assert.equal(directive('worker-src'), "'self'");
  assert.equal(directive('object-src'), "'none'");
  assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script');
  // The worker's own policy is the header its script is served with.
  const loader = await page.evaluate(() => document.querySelector('meta[name="stagecraft-worker"]').content);
  const header = await page.evaluate(async u => (await fetch(u)).headers.get('content-security-policy'), loader);
  assert.equal(header, policy, 'the worker is served with the page\'s policy');
  // The worker runs under it: the app explored, and a script from elsewhere (a data: URL) is
  // refused there and reported to the worker (Playwright's evaluate itself is exempt).
  const worker = page.workers()[0] ?? await page.waitForEvent('worker');
  const imported = await worker.evaluate(() => new Promise(resolve => {
    const refused = [];
    self.addEventListener('securitypolicyviolation', e => refused.push(`${e.effectiveDirective} ${e.blockedURI}`));
    import('data:text/javascript,export default 1').then(() => 'ran', e => e.name)
      .then(outcome => setTimeout(() => resolve({ outcome, refused }), 200));
  }));
  assert.deepEqual(imported, { outcome: 'TypeError', refused: ['script-src-elem data'] });
  errors.splice(0, errors.length, ...errors.filter(e => !/data:text\/javascript/.test(e)));
  assert.deepEqual(await injected(page), clean);
  await page.close();
});

test('what the policy refuses is refused and reported', async () => {
  const page = await open(BASE);
  const before = errors.length;
  const outcome = await page.evaluate(() => new Promise(resolve => {
    const s = document.createElement('script');
    s.textContent = 'window.__ran = "inline"';
    document.head.append(s);
    const el = document.createElement('div');
    el.innerHTML = '<img src="data:," onerror="window.__ran = \'handler\'">';
    document.body.append(el);
    let worker = 'started';
    const w = new Worker(URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' })));
    w.onerror = () => { worker = 'refused'; };
    w.onmessage = () => { worker = 'ran'; };
    setTimeout(() => resolve({ ran: window.__ran ?? null, worker, refused: window.stagecraftCspViolations.slice() }), 800);
  }));
  assert.equal(outcome.ran, null, 'neither the inline script nor the handler ran');
  assert.equal(outcome.worker, 'refused', 'a worker from a blob: URL is refused');
  assert.ok(outcome.refused.some(r => r.startsWith('script-src-elem refused inline')), `the inline script is reported: ${outcome.refused}`);
  assert.ok(outcome.refused.some(r => r.startsWith('script-src-attr refused inline')), `the handler is reported: ${outcome.refused}`);
  assert.ok(outcome.refused.some(r => r.startsWith('worker-src refused blob')), `the worker is reported: ${outcome.refused}`);
  // Each is also an error in the console, which every browser suite fails on.
  await page.waitForTimeout(300);
  const said = errors.slice(before);
  for (const what of ['script-src-elem refused inline', 'script-src-attr refused inline', 'worker-src refused blob']) {
    assert.ok(said.some(e => e.includes(`Content-Security-Policy: ${what}`)), `"${what}" in the console: ${said.join('\n')}`);
  }
  errors.splice(before);
  await page.close();
});

test('no script errors on any page', () => {
  assert.deepEqual(errors, []);
});
