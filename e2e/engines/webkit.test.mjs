// The main path in WebKit, Safari's engine: Debian's WebKitWebDriver driving its MiniBrowser (a
// W3C WebDriver session over plain HTTP), under a virtual X display (Xvfb) unless one is given.
// WebDriver does not pass on the page's console: what the Content-Security-Policy refuses is read
// from the page (assets/guard.js keeps it), script errors from the page's own listeners.
import { test, after } from 'node:test';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { mainPath, teachingPath, markupPath, wavesPath } from './main-path.mjs';

const MINIBROWSER = process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const children = [];
let session, driverUrl;
after(async () => {
  if (session) await fetch(`${driverUrl}/session/${session}`, { method: 'DELETE' }).catch(() => {});
  for (const c of children) c.kill();
});

const freePort = () => new Promise(resolve => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

async function call(method, path, body) {
  const res = await fetch(`${driverUrl}${path}`, {
    method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body),
  });
  const json = await res.json();
  if (json.value?.error) throw new Error(`${json.value.error}: ${json.value.message}`);
  return json.value;
}
const ELEMENT = 'element-6066-11e4-a52f-4f58b7e4d0b1';

/** The main path in a MiniBrowser of its own, with its display and driver. */
async function mainPathInWebKit() {
  const env = { ...process.env };
  if (!env.DISPLAY || process.env.WEBKIT_XVFB === '1') {
    const display = `:${90 + Math.floor(Math.random() * 9)}${Math.floor(Math.random() * 10)}`;
    children.push(spawn('Xvfb', [display, '-screen', '0', '1600x1000x24', '-nolisten', 'tcp'], { stdio: 'ignore' }));
    env.DISPLAY = display;
    await new Promise(r => setTimeout(r, 500));
  }
  const port = await freePort();
  children.push(spawn('WebKitWebDriver', [`--port=${port}`], { env, stdio: 'ignore' }));
  driverUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try { await call('GET', '/status'); break; } catch (e) { if (i > 100) throw e; await new Promise(r => setTimeout(r, 100)); }
  }
  ({ sessionId: session } = await call('POST', '/session', { capabilities: { alwaysMatch: {
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
  } } }));
  await call('POST', `/session/${session}/window/rect`, { width: 1500, height: 900 }).catch(() => {});
  const s = `/session/${session}`;
  const driver = {
    goto: url => call('POST', `${s}/url`, { url }),
    // The function's source, called with its arguments (JSON) in the page.
    evaluate: (fn, ...args) => call('POST', `${s}/execute/sync`, { script: `return (${fn}).apply(null, arguments)`, args }),
    click: async selector => {
      const el = await call('POST', `${s}/element`, { using: 'css selector', value: selector });
      await call('POST', `${s}/element/${el[ELEMENT] ?? Object.values(el)[0]}/click`, {});
    },
    // WebKitWebDriver's screenshot fails now and then right after a navigation ("unknown error",
    // seen in CI on the 2-core machine, once in many runs): the picture is for people to look at,
    // the test's assertions are on the page, so it is tried again and at worst reported.
    screenshot: async path => {
      for (let attempt = 1; ; attempt++) {
        try {
          return writeFileSync(path, Buffer.from(await call('GET', `${s}/screenshot`), 'base64'));
        } catch (e) {
          if (attempt === 3) return console.log(`# no screenshot ${path}: ${e.message}`);
          await new Promise(r => setTimeout(r, 500));
        }
      }
    },
  };
  await mainPath(driver, 'webkit');
  await teachingPath(driver, 'webkit');
  await markupPath(driver, 'webkit');
  await wavesPath(driver, 'webkit');
}

/** Ends the session and the processes `mainPathInWebKit` started. */
async function stopWebKit() {
  if (session) await fetch(`${driverUrl}/session/${session}`, { method: 'DELETE' }).catch(() => {});
  session = undefined;
  for (const c of children.splice(0)) c.kill();
}

test('WebKit (MiniBrowser): first load, an edit, a preset, every pane, a link round trip, the clipboard fallback, the trap banner; the step-through, the TVM view and the check view; markup in a link shown as text; the CDNA4 race between two waves in the check view; nothing refused by the Content-Security-Policy', async () => {
  try {
    await mainPathInWebKit();
  } catch (e) {
    // WebKitWebDriver fails now and then for reasons of its own, in runs where the page did
    // nothing wrong: the MiniBrowser gone halfway ("invalid session id", here while a build ran
    // beside the suite), "unknown error: Could not parse script result" from a script that
    // returns a boolean, a screenshot refused (CI). So the path is run once more, from the start,
    // in a new browser; what the page gets wrong fails both runs, and the test.
    if (e.code === 'ERR_ASSERTION') throw e;
    console.log(`# WebKit: ${e.message}; running the main path once more in a new browser`);
    await stopWebKit();
    await mainPathInWebKit();
  }
});
