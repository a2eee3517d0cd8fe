#!/usr/bin/env python3
"""Writes docs/fuzzing.md's table of cumulative fuzzing from fuzz/runs.tsv (one line per run of
scripts/fuzz.sh: when, commit, target, executions, seconds, crashes, corpus files, corpus bytes):
per target, the executions and time of every run added up, the crashes, and the corpus as the
last run left it. The text between the table's markers is replaced; the rest of the page is not.

    scripts/fuzz-table.py
"""
import re
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS, DOC = ROOT / "fuzz/runs.tsv", ROOT / "docs/fuzzing.md"
BEGIN, END = "<!-- fuzz-table: written by scripts/fuzz-table.py -->", "<!-- fuzz-table end -->"
GOAL = 10_000_000


def spaced(n: int) -> str:
    return f"{n:,}".replace(",", " ")


def hours(seconds: int) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{round(seconds / 60)} min"


def main() -> None:
    totals: "OrderedDict[str, dict]" = OrderedDict()
    for line in RUNS.read_text().splitlines()[1:]:
        when, commit, target, runs, seconds, crashes, files, size = line.split("\t")
        t = totals.setdefault(target, {"runs": 0, "seconds": 0, "crashes": 0, "n": 0})
        t["runs"] += int(runs)
        t["seconds"] += int(seconds)
        t["crashes"] += int(crashes)
        t["n"] += 1
        t.update(files=int(files), bytes=int(size), last=f"{when[:10]} ({commit})")
    rows = ["| target | executions | of 10 M | time | runs | crashes | corpus | last run |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for target, t in sorted(totals.items()):
        rows.append(f"| {target} | {spaced(t['runs'])} | {min(100, 100 * t['runs'] // GOAL)} % | "
                    f"{hours(t['seconds'])} | {t['n']} | {t['crashes']} | "
                    f"{t['files']} files, {round(t['bytes'] / 1024)} KB | {t['last']} |")
    doc = DOC.read_text()
    table = BEGIN + "\n" + "\n".join(rows) + "\n" + END
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(doc):
        raise SystemExit(f"fuzz-table: {DOC} has no table markers")
    DOC.write_text(pattern.sub(lambda _: table, doc))


if __name__ == "__main__":
    main()
