#!/usr/bin/env python3
"""Names the worker's files in dist/ by their content, so that an updated page never talks to a
stale cached worker (Trunk names a worker's files after its binary, unhashed: they must be named at
run time). Writes the worker's loader — which waits for the page's first message, the module an
earlier worker compiled, before instantiating — and tells the page its name in
<meta name="stagecraft-worker">; and preloads the worker's module with the page's own files: the
page's editor is editable before its wasm runs (index.html's #early), so the worker's bytes no
longer wait for the page's wasm to arrive and ask for them (services/engine.rs fetches the
preloaded response).

    scripts/version-worker.py DIST
"""
import hashlib
import re
import sys
from pathlib import Path

NAME = "stagecraft-worker"

LOADER = """import init from './{glue}';
// The page answers `hello` with the module an earlier worker compiled, or nothing: instantiate
// that, or fetch this worker's own. The worker's `main` then says it is ready.
addEventListener('message', function first(e) {{
  removeEventListener('message', first);
  init(e.data ? {{ module_or_path: e.data }} : {{ module_or_path: new URL('./{wasm}', import.meta.url) }});
}});
postMessage('hello');
"""


def main(dist: Path) -> None:
    glue, wasm = dist / f"{NAME}.js", dist / f"{NAME}_bg.wasm"
    if not glue.exists() or not wasm.exists():
        sys.exit(f"version-worker: {glue} or {wasm} is missing (did trunk build the worker?)")
    for old in dist.glob(f"{NAME}-*"):
        old.unlink()
    digest = hashlib.sha256(wasm.read_bytes() + glue.read_bytes()).hexdigest()[:16]
    base = f"{NAME}-{digest}"
    new_wasm, new_glue, loader = f"{base}_bg.wasm", f"{base}.js", f"{base}_loader.js"
    text = glue.read_text()
    # The glue's default path to the module, if it names one; the loader passes it explicitly.
    text = text.replace(f"{NAME}_bg.wasm", new_wasm)
    (dist / new_glue).write_text(text)
    wasm.rename(dist / new_wasm)
    glue.unlink()
    (dist / loader).write_text(LOADER.format(glue=new_glue, wasm=new_wasm))
    index = dist / "index.html"
    html = index.read_text()
    html = re.sub(r'\s*<meta name="stagecraft-worker"[^>]*>', "", html)
    html = re.sub(r'\s*<link rel="preload" href="\./stagecraft-worker-[^>]*>', "", html)
    meta = f'<meta name="stagecraft-worker" content="./{loader}">'
    # As `fetch` with the page's credentials mode, as `fetch(url)` asks: the page's request meets it.
    preload = f'<link rel="preload" href="./{new_wasm}" as="fetch" crossorigin="anonymous" type="application/wasm">'
    html = html.replace("<head>", f"<head>\n  {meta}", 1)
    html = html.replace("</head>", f"  {preload}\n</head>", 1)
    index.write_text(html)
    print(f"version-worker: {NAME} → {base}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "dist"))
