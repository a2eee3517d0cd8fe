// Loaded first, before the app (a file, not an inline script: the page's Content-Security-Policy
// allows no inline script).
//
// A trap in the page's WebAssembly (a bug) ends the app without a Rust panic message the app
// could show: show its banner from here instead.
//
// Whatever the Content-Security-Policy refuses is a bug of the page (everything it loads is its
// own): say so in the console, and keep the list for the browser tests, which fail on any.
(() => {
  const stopped = error => {
    if (!(error instanceof WebAssembly.RuntimeError)) return;
    const el = document.getElementById('panic');
    if (!el) return;
    el.textContent = 'Stagecraft hit an internal error and stopped (' + error.message +
      '). Your work is saved in this browser; reload to continue.';
    el.className = 'banner error';
  };
  addEventListener('error', e => stopped(e.error));
  addEventListener('unhandledrejection', e => stopped(e.reason));

  // index.html shows the editor with the default example before the app runs (#early): not to a
  // tab that opens a link, saved work (services/documents.rs's keys) or its own state again (a
  // reload), which the app shows instead; nor the introduction to one that has seen it.
  try {
    const saved = Object.keys(localStorage).some(k => k.startsWith('stagecraft.document.') ||
      k === 'stagecraft.v2.state' || k === 'stagecraft.v1.text');
    if (location.hash.length > 1 || saved || sessionStorage.getItem('stagecraft.tab') !== null) {
      document.documentElement.classList.add('returning');
    }
    if (localStorage.getItem('stagecraft.intro.seen') !== null) {
      document.documentElement.classList.add('intro-seen');
    }
  } catch {
    // Storage refused: the app opens the default example, but the link's hash may still be one.
    if (location.hash.length > 1) document.documentElement.classList.add('returning');
  }

  const refused = window.stagecraftCspViolations = [];
  addEventListener('securitypolicyviolation', e => {
    const what = `${e.effectiveDirective} refused ${e.blockedURI || 'inline code'}` +
      (e.sourceFile ? ` (${e.sourceFile}:${e.lineNumber})` : '') +
      (e.sample ? `: ${e.sample}` : '');
    refused.push(what);
    console.error(`Content-Security-Policy: ${what}`);
  });
})();
