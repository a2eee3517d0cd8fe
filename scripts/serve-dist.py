#!/usr/bin/env python3
"""Serves a built dist/ as a host should:
- compressed: a client that accepts gzip gets the wasm, scripts, styles and page gzipped, as every
  static host and CDN sends them — the byte budgets (scripts/bundle-size.sh) are gzipped bytes, and
  the first-load benchmarks (e2e/bench.mjs) must see what a user's browser downloads;
- with the page's Content-Security-Policy (the one in index.html's <meta>, if it has one) as a
  header on every response, which is how the policy reaches the worker (a worker keeps the policy
  its own script is served with; a page's <meta> does not apply to it). docs/security.md.

    scripts/serve-dist.py PORT [DIST]     (binds 127.0.0.1)
"""
import functools
import gzip
import html
import io
import os
import re
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMPRESSED = {".wasm", ".js", ".css", ".html", ".svg", ".json", ".txt"}


def policy(dist: Path) -> str:
    m = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', (dist / "index.html").read_text())
    return html.unescape(m.group(1)) if m else ""


class Handler(SimpleHTTPRequestHandler):
    csp = ""
    # Compressed once per file and version: dist/ is rebuilt in place while a server runs.
    gzipped: dict = {}

    def end_headers(self):
        if self.csp:
            self.send_header("Content-Security-Policy", self.csp)
        super().end_headers()

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not accepts or Path(path).suffix not in COMPRESSED or not os.path.isfile(path):
            return super().send_head()
        key = (path, os.stat(path).st_mtime_ns)
        if key not in self.gzipped:
            self.gzipped[key] = gzip.compress(Path(path).read_bytes(), 9)
        body = self.gzipped[key]
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


def main():
    port = int(sys.argv[1])
    dist = Path(sys.argv[2] if len(sys.argv) > 2 else "dist")
    Handler.csp = policy(dist)
    Handler.extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm", ".js": "text/javascript"}
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=str(dist)))
    server.serve_forever()


if __name__ == "__main__":
    main()
