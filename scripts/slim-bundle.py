#!/usr/bin/env python3
"""Makes Trunk's unoptimized output in dist/ the shipped bundle: drops the JavaScript classes no one
uses, with their exports, and the exports the glue never names; renames the module's imports from
the glue, and the exports it calls, to short names; runs wasm-opt (the flags below); writes the
files' new integrity hashes into index.html.

Exported classes: a dependency the app never calls (wasm-streams, through Leptos's server
functions) exports classes with `#[wasm_bindgen]`; exports are roots, so neither rustc nor
wasm-opt can drop their code. A class is dropped only when the glue names it nowhere but in its own
definition and finalization registry (index.html imports only the init function), else nothing
is written.

Import names: wasm-bindgen names each import after its Rust binding and a 16-digit hash
(`__wbg_set_innerHTML_a9d3a267967b5117`), once in the .wasm's import section and once as a key of
the glue's import object: about 200 names of incompressible hashes, 6 KB of the gzipped bundle
(docs/benchmarks.md, "Making room in the bundle"). The names mean nothing at run time. Every
renamed name must appear in the glue exactly once, as that key, or nothing is written: a build
whose glue uses an import name some other way fails here rather than in the browser.

The glue, edited, is minified by terser (e2e's npm packages): its local names shortened and its
whitespace gone, its exports and property names kept (5.7 → 4.1 KB gzipped).

wasm-opt runs here, not in Trunk (index.html says `data-wasm-opt="0"`), because only after the
exports are dropped can it drop their code.

    python3 scripts/slim-bundle.py dist
"""
import base64
import hashlib
import re
import string
import subprocess
import sys
import tempfile
from pathlib import Path


def leb(data, at):
    """An unsigned LEB128 at `at`: (value, position after it)."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def to_leb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def name_at(data, at):
    length, at = leb(data, at)
    return data[at:at + length].decode(), at + length


def limits_end(data, at):
    flags = data[at]
    _, at = leb(data, at + 1)
    return leb(data, at)[1] if flags & 1 else at


def import_desc_end(data, at):
    """The end of an import's description (its kind and type) that starts at `at`."""
    kind = data[at]
    at += 1
    if kind == 0:  # function: a type index
        return leb(data, at)[1]
    if kind == 1:  # table: a reference type, then limits
        return limits_end(data, at + 1)
    if kind == 2:  # memory: limits
        return limits_end(data, at)
    if kind == 3:  # global: a value type and mutability
        return at + 2
    if kind == 4:  # tag: an attribute, then a type index
        return leb(data, at + 1)[1]
    raise SystemExit(f"slim-bundle: import kind {kind} unknown")


def short_names():
    """a, b, …, Z, aa, ab, …: valid JavaScript property names, never a digit first."""
    letters = string.ascii_letters
    for n in range(1, 4):
        yield from ("".join(p) for p in _products(letters, n))


def _products(letters, n):
    if n == 0:
        yield ()
        return
    for first in letters:
        for rest in _products(letters, n - 1):
            yield (first, *rest)


def rename_imports(wasm, glue_module):
    """The module with its imports from `glue_module` renamed, and the mapping old → new."""
    assert wasm[:8] == b"\0asm\x01\0\0\0", "not a WebAssembly module"
    out, at, mapping = bytearray(wasm[:8]), 8, {}
    names = short_names()
    while at < len(wasm):
        section = wasm[at]
        size, body = leb(wasm, at + 1)
        end = body + size
        if section != 2:
            out += wasm[at:end]
            at = end
            continue
        count, p = leb(wasm, body)
        entries = bytearray(to_leb(count))
        for _ in range(count):
            module, p = name_at(wasm, p)
            field, p = name_at(wasm, p)
            desc_end = import_desc_end(wasm, p)
            if module == glue_module:
                field = mapping.setdefault(field, next(names))
            for text in (module, field):
                entries += to_leb(len(text.encode())) + text.encode()
            entries += wasm[p:desc_end]
            p = desc_end
        assert p == end, "import section not read to its end"
        out += bytes([2]) + to_leb(len(entries)) + entries
        at = end
    return bytes(out), mapping


def sections(wasm):
    """(id, start of the section, start of its body, end) for each section."""
    assert wasm[:8] == b"\0asm\x01\0\0\0", "not a WebAssembly module"
    at, out = 8, []
    while at < len(wasm):
        size, body = leb(wasm, at + 1)
        out.append((wasm[at], at, body, body + size))
        at = body + size
    return out


def drop_exports(wasm, dropped):
    """The module without the exports for which `dropped(name)` holds, and their names."""
    out, gone = bytearray(wasm[:8]), []
    for section, start, body, end in sections(wasm):
        if section != 7:
            out += wasm[start:end]
            continue
        count, p = leb(wasm, body)
        kept = []
        for _ in range(count):
            entry = p
            name, p = name_at(wasm, p)
            p = leb(wasm, p + 1)[1]  # the kind, then the index
            if dropped(name):
                gone.append(name)
            else:
                kept.append(wasm[entry:p])
        assert p == end, "export section not read to its end"
        entries = to_leb(len(kept)) + b"".join(kept)
        out += bytes([7]) + to_leb(len(entries)) + entries
    return bytes(out), gone


def rename_exports(wasm, glue):
    """The module with the exports the glue calls (`wasm.NAME`: the glue reaches the module's
    exports only so) renamed to short names, and the glue calling them so; the others as they were.
    A glue function may share its export's name: it keeps it."""
    if re.search(r"\bwasm\[|\bexports\s*[.\[]", glue):
        raise SystemExit("slim-bundle: the glue reaches the module's exports other than as `wasm.NAME`")
    out, names, mapping = bytearray(wasm[:8]), short_names(), {}
    for section, start, body, end in sections(wasm):
        if section != 7:
            out += wasm[start:end]
            continue
        count, p = leb(wasm, body)
        entries = bytearray(to_leb(count))
        for _ in range(count):
            name, p = name_at(wasm, p)
            desc_end = leb(wasm, p + 1)[1]  # the kind, then the index
            if re.search(rf"\bwasm\.{re.escape(name)}\b", glue):
                name = mapping.setdefault(name, next(names))
            entries += to_leb(len(name.encode())) + name.encode() + wasm[p:desc_end]
            p = desc_end
        assert p == end, "export section not read to its end"
        out += bytes([7]) + to_leb(len(entries)) + entries
    for old, new in mapping.items():
        glue = re.sub(rf"\bwasm\.{re.escape(old)}\b", f"wasm.{new}", glue)
    return bytes(out), glue, mapping


def unused_classes(glue):
    """The glue without the exported classes nothing else in it names, and their names."""
    names = []
    for name in re.findall(r"^export class (\w+) \{", glue, re.M):
        block = re.compile(rf"^export class {name} \{{\n.*?^\}}\n(?:if \(Symbol\.dispose\) {name}\.prototype[^\n]*\n)?", re.M | re.S)
        registry = re.compile(rf"^const {name}Finalization = .*?;\n", re.M | re.S)
        without = registry.sub("", block.sub("", glue, count=1), count=1)
        if not re.search(rf"\b{name}\b", without):
            glue = without
            names.append(name)
    return glue, names


# wasm-opt's flags for the shipped module (docs/benchmarks.md "The bundle built for size"): the
# passes that flatten and re-loop the code before the size passes take about 0.5 % more off, and
# the same again on their output another 1.2 KB gzipped (a third time, nothing).
SIZE_PASSES = ["--flatten", "--rereloop", "-Oz", "-Oz"]
# `--low-memory-unused`: the optimizer may assume no access below address 1024, and so fold a
# constant added to an address into the access's offset (7.5 KB of code, 2.5 KB gzipped). True of
# this module: Rust's linker puts the 1 MiB stack first, growing down towards 0, and the data
# after it (`__stack_pointer` starts at 1 MiB), so the low 1 KiB is only ever the stack's last
# kilobyte; a stack that deep would then trap a kilobyte sooner. Emscripten passes the same flag
# whenever its data begins at 1024 or above.
WASM_OPT = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--low-memory-unused",
            *SIZE_PASSES, *SIZE_PASSES, "--strip-producers", "--strip-target-features"]


def optimized(wasm):
    with tempfile.TemporaryDirectory() as tmp:
        before, after = Path(tmp, "in.wasm"), Path(tmp, "out.wasm")
        before.write_bytes(wasm)
        subprocess.run(["wasm-opt", *WASM_OPT, str(before), "-o", str(after)], check=True)
        return after.read_bytes()


def minified(glue):
    """The glue minified by terser; its exports (the init function index.html imports) keep their
    names."""
    result = subprocess.run(["terser", "--module", "--compress", "passes=3", "--mangle"],
                            input=glue, capture_output=True, text=True, check=True)
    return result.stdout


def integrity(data):
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def main(dist):
    dist = Path(dist)
    [wasm_path] = dist.glob("*_bg.wasm")
    glue_path = wasm_path.with_name(wasm_path.name.removesuffix("_bg.wasm") + ".js")
    html_path = dist / "index.html"
    wasm, glue, html = wasm_path.read_bytes(), glue_path.read_text(), html_path.read_text()
    original = (wasm, glue_path.read_bytes())

    glue, classes = unused_classes(glue)
    prefixes = tuple(c.lower() + "_" for c in classes)
    frees = {f"__wbg_{c.lower()}_free" for c in classes}
    # Exports of the classes dropped, and exports the glue never names (the module's exports are
    # reached only through it: Leptos's wasm-split marker, wasm-bindgen's unused abort hooks).
    new_wasm, dropped = drop_exports(
        wasm, lambda n: n.startswith(prefixes) or n in frees or not re.search(rf"\b{re.escape(n)}\b", glue))
    for name in dropped:
        if re.search(rf"\b{re.escape(name)}\b", glue):
            raise SystemExit(f"slim-bundle: the glue still calls {name}, an export of a class dropped")

    # The glue hands the module one import object, under the module name wasm-bindgen gave it.
    modules = set(re.findall(r'"(\./[^"]+_bg\.js)"\s*:', glue))
    if len(modules) != 1:
        raise SystemExit(f"slim-bundle: expected one import module in {glue_path.name}, found {modules}")
    [module] = modules
    new_wasm, mapping = rename_imports(new_wasm, module)
    for old, new in mapping.items():
        uses = len(re.findall(rf"\b{re.escape(old)}\b", glue))
        keys = len(re.findall(rf"^(\s+){re.escape(old)}:", glue, re.M))
        if uses != 1 or keys != 1:
            raise SystemExit(f"slim-bundle: {old} appears {uses} times in {glue_path.name}, "
                             f"{keys} as an import key: not renamed")
        glue = re.sub(rf"^(\s+){re.escape(old)}:", rf"\g<1>{new}:", glue, flags=re.M)
    new_wasm, glue, exports = rename_exports(new_wasm, glue)
    new_wasm = optimized(new_wasm)
    new_glue = minified(glue).encode()
    for path, before, after in ((wasm_path, original[0], new_wasm), (glue_path, original[1], new_glue)):
        old_hash = integrity(before)
        if html.count(old_hash) != 1:
            raise SystemExit(f"slim-bundle: index.html does not name {path.name}'s integrity once")
        html = html.replace(old_hash, integrity(after))
    wasm_path.write_bytes(new_wasm)
    glue_path.write_bytes(new_glue)
    html_path.write_text(html)
    print(f"slim-bundle: classes {', '.join(classes) or 'none'} dropped; {len(dropped)} exports dropped; "
          f"{len(mapping)} imports and {len(exports)} exports renamed; wasm-opt: {len(wasm)} → {len(new_wasm)} bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dist")
