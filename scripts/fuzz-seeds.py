#!/usr/bin/env python3
"""Writes a fuzz target's seeds into DIR: the repository's own inputs in the form the target reads,
made by the `stagecraft` command line from the examples (their TVMScript exports, printed
programs in count and token form) so that the fuzzer starts from the structure it mutates.
scripts/fuzz.sh passes them beside the committed corpus; what they add is merged into it.

    scripts/fuzz-seeds.py TARGET DIR [STAGECRAFT]

STAGECRAFT is the command line's binary (default: target/release/stagecraft, built if missing).
"""
import json
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOOPS = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "tests/cases").glob("*.py"))
PRIMFUNCS = (
    sorted((ROOT / "tests/tvmscript").glob("*.py"))  # TVM <= 0.20's T.block spelling, mostly
    + sorted((ROOT / "tests/tvm_suite").glob("*.py"))  # 0.27's T.sblock
    + sorted((ROOT / "tests/tvm").glob("*tvmscript*.py"))
)
TARGETS = ["ptx", "ptx-sm90", "amdgpu", "amdgpu-gfx950", "amdgpu-ir"]


def run(cli, *args):
    """The command line's output, or None when it has none for this input (exit 1: nothing)."""
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    return done.stdout if done.returncode in (0, 3) and done.stdout.strip() else None


def programs(cli, loop, tokens):
    """The loop's pipelined programs as printed: rolled, peeled, and TVM 0.27's."""
    emit = "tir-tokens" if tokens else "tir"
    for args in (["--emit", emit], ["--form", "peeled", "--emit", emit], ["--as", "tvm-0.27", "--emit", emit]):
        text = run(cli, "explore", loop, *args)
        if text:
            yield text


def seeds(target, cli):
    """(name, bytes) of each seed of `target`."""
    if target in ("parse", "explore"):
        for f in LOOPS:
            yield f.name, f.read_bytes()
    elif target == "url_state":
        yield "frozen_v1_link.txt", (ROOT / "link/tests/frozen_v1_link.txt").read_bytes()
        for f in LOOPS[:8]:
            yield f.name, f.read_bytes()
    elif target == "tvmscript":
        for f in PRIMFUNCS:
            yield f"{f.parent.name}-{f.name}", f.read_bytes()
        for f in LOOPS:
            text = run(cli, "explore", f, "--emit", "tvmscript")
            if text:
                yield f"export-{f.name}", text.encode()
    elif target == "tilelang":
        for f in sorted((ROOT / "tests/tilelang").rglob("*.py")):
            if f.parent.name != "twins":
                yield f"{f.parent.name}-{f.name}", f.read_bytes()
        # Built GEMMs (the target's structured inputs): a control byte, then sizes and schedule.
        for k in range(12):
            yield f"built-{k}", bytes([1, k % 4, (k + 1) % 4, (k + 2) % 4, k % 6, k % 2, k % 3 == 0, k % 5, k % 6])
    elif target == "tokens":
        for f in LOOPS:
            for k, text in enumerate(programs(cli, f, tokens=True)):
                yield f"{f.stem}-{k}.py", text.encode()
    elif target == "check":
        for f in LOOPS + PRIMFUNCS[:4]:
            loop = f.read_bytes()
            for tokens in (False, True):
                for k, text in enumerate(programs(cli, f, tokens)):
                    yield f"{f.stem}-{int(tokens)}{k}.py", loop + b"\0" + text.encode()
    elif target == "request":
        for k, f in enumerate(LOOPS):
            lines = request_lines(k, f.read_text(), cli, f)
            # As the page posts them: `stagecraft requests` writes each as its bytes after its length.
            posted = subprocess.run([cli, "requests"], input=lines.encode(), capture_output=True, check=True)
            yield f"{f.stem}.requests", posted.stdout
    elif target == "link_layers":
        for f in LOOPS[:12]:
            text = f.read_bytes()
            for level in (0, 1, 9):
                z = zlib.compressobj(level, zlib.DEFLATED, -15)
                yield f"{f.stem}-deflate{level}", z.compress(text) + z.flush()
            state = {"text": text.decode(), "form": "peeled", "pane": "timeline", "target": "ptx",
                     "params": {"N": 8}, "step": 3, "zoom": 2, "lesson": "race-free",
                     "counts": [{"queue": 0, "section": "body", "before": "B[i] = A[i]",
                                 "occurrence": 0, "delta": -1}]}
            yield f"{f.stem}.json", json.dumps(state).encode()
            doc = {"document": 1, "name": text.decode().splitlines()[0], "saved": 1764300000000,
                   "revision": 3, "state": "v1/" + "A" * 40}
            yield f"{f.stem}-document.json", json.dumps(doc).encode()


def request_lines(k, text, cli, path):
    """An exploration asking for every part, then more parts of it, as the page posts them."""
    pasted = next(programs(cli, path, tokens=bool(k % 2)), "")
    wants = ["verification", "timeline", {"tokens": {"form": "rolled"}}, "tvm",
             {"steps": {"options": {"model": "as_timed" if k % 2 else "latest"}, "position": 3 * k}},
             {"check": {"pipelined": pasted}}, "tvm_script",
             {"code": {"target": TARGETS[k % len(TARGETS)]}},
             {"machine": {"target": TARGETS[(k + 1) % len(TARGETS)]}}]
    options = {"form": "peeled" if k % 3 == 0 else "rolled", "both_forms": False,
               "targets": [TARGETS[k % len(TARGETS)]], "params": {"N": 8 + k % 5}}
    explore = {"id": k + 1, "job": {"explore": {"text": text, "options": options, "wants": wants}}}
    more = {"id": k + 1, "job": {"more": {"wants": [{"tokens": {"form": "peeled"}}]}}}
    return json.dumps(explore) + "\n" + json.dumps(more) + "\n"


def main():
    target, out = sys.argv[1], Path(sys.argv[2])
    cli = sys.argv[3] if len(sys.argv) > 3 else str(ROOT / "target/release/stagecraft")
    if target in ("tvmscript", "tokens", "check", "request") and not Path(cli).exists():
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "stagecraft-core", "--bin", "stagecraft"],
                       cwd=ROOT, check=True)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for name, data in seeds(target, cli):
        (out / name).write_bytes(data)
        n += 1
    print(f"fuzz-seeds: {n} seed(s) for {target}")


if __name__ == "__main__":
    main()
