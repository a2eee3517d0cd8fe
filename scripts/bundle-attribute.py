#!/usr/bin/env python3
"""Bytes of the bundle's code per crate and module, from a wasm that keeps its function names.

Usage: twiggy top -n 100000 --format csv WASM > a.csv; scripts/bundle-attribute.py a.csv [b.csv]
With two files, the difference per row, largest first. WASM is wasm-bindgen's output before
wasm-opt (target/wasm-bindgen/release/stagecraft-app_bg.wasm) of a build with names kept
(the wasm-release profile strips debug info only, so target/wasm32-unknown-unknown/wasm-release/
stagecraft-app.wasm keeps them); sizes are before wasm-opt and gzip, so they rank
where the bytes are, not what a change saves: that is measured on dist/ by scripts/bundle-size.sh.
An instantiation of a library's generic code for an app type counts for the app's module.
"""
import collections
import csv
import re
import sys


def owner(name):
    name = re.sub(r"\[[0-9a-f]+\]", "", name)
    if name.startswith("data segment"):
        return "data"
    app = re.search(r"stagecraft_app::(\w+)(?:::(\w+))?", name)
    if app:
        layer, module = app.groups()
        deeper = layer in ("views", "services", "markup", "model") and module
        return "app::" + layer + ("::" + module if deeper else "")
    if "stagecraft_link" in name:
        return "link"
    crate = re.match(r"^<?\(?&?(?:mut )?(?:dyn )?([a-z_0-9]+)::", name)
    crate = crate.group(1) if crate else "?"
    if crate == "stagecraft":
        return "core::" + re.search(r"stagecraft::(\w+)", name).group(1)
    if crate in ("core", "alloc", "std"):
        # Rust's own libraries, apart from the stagecraft core crate.
        return "rust " + crate + (" (for core's types)" if "stagecraft" in name else "")
    return crate


def sizes(path):
    total = collections.Counter()
    for row in csv.DictReader(open(path)):
        if "function names" not in row["Name"]:
            total[owner(row["Name"])] += int(row["ShallowSize"])
    return total


def main():
    first = sizes(sys.argv[1])
    if len(sys.argv) == 2:
        for key, n in first.most_common():
            print(f"{n:9d}  {key}")
        return
    second = sizes(sys.argv[2])
    keys = sorted(set(first) | set(second), key=lambda k: -abs(second[k] - first[k]))
    for key in keys:
        print(f"{first[key]:9d} {second[key]:9d} {second[key] - first[key]:+8d}  {key}")


main()
