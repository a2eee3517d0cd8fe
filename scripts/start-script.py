#!/usr/bin/env python3
"""Moves the inline script Trunk writes into dist/index.html (the module that instantiates the
page's WebAssembly) into a file named by its content, so that the page's Content-Security-Policy
needs no inline script: `<script type="module" src=… integrity=…>` takes its place. Fails if any
inline script or inline event handler is left in the page.

Then moves that script and Trunk's preloads of the app's glue and WebAssembly (which Trunk writes at
the end of <head>) before the style sheet and the guard script: a browser's preload scanner does
not always look past a parser-blocking script, and the page's WebAssembly — most of what stands
between a cold load and an editable editor — would wait for the guard and the styles to arrive.

    scripts/start-script.py DIST
"""
import base64
import hashlib
import re
import sys
from pathlib import Path

INLINE = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)


def main(dist: Path) -> None:
    index = dist / "index.html"
    html = index.read_text()
    for old in dist.glob("start-*.js"):
        old.unlink()
    moved = []

    def move(m: re.Match) -> str:
        attrs, body = m.group("attrs"), m.group("body")
        if "src=" in attrs:
            return m.group(0)
        if 'type="module"' not in attrs:
            sys.exit(f"start-script: an inline script that is not Trunk's start module:\n{m.group(0)[:400]}")
        # The start module imports the app's glue by its path: the file goes beside it.
        glue = re.search(r"from '([^']*/)?[^'/]+\.js'", body)
        prefix = (glue.group(1) or "./") if glue else "./"
        data = body.strip().encode() + b"\n"
        name = f"start-{hashlib.sha256(data).hexdigest()[:16]}.js"
        (dist / name).write_bytes(data)
        integrity = "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()
        moved.append(name)
        return f'<script type="module" src="{prefix}{name}" integrity="{integrity}" crossorigin="anonymous"></script>'

    html = INLINE.sub(move, html)
    if len(moved) != 1:
        sys.exit(f"start-script: expected Trunk's one inline start module, found {len(moved)}")
    html = hoist_preloads(html)
    handler = re.search(r"<[^>]*\son[a-z]+\s*=", html)
    if handler:
        sys.exit(f"start-script: an inline event handler is left: {handler.group(0)}")
    index.write_text(html)
    print(f"start-script: Trunk's start module → {moved[0]}")


PRELOAD = re.compile(r'<link rel="(?:modulepreload|preload)"[^>]*>|<script type="module" src="[^"]*start-[^"]*"[^>]*></script>')


def hoist_preloads(html: str) -> str:
    """The start module and the preloads, moved before the first style sheet (see the top)."""
    found = PRELOAD.findall(html)
    if not found:
        sys.exit("start-script: no start module or preloads found in the page")
    html = PRELOAD.sub("", html)
    anchor = html.find('<link rel="stylesheet"')
    if anchor < 0:
        sys.exit("start-script: no style sheet to put the preloads before")
    return html[:anchor] + "\n  ".join(found) + "\n  " + html[anchor:]


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "dist"))
