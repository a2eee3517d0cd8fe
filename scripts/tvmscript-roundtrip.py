#!/usr/bin/env python3
"""TVMScript out, checked by TVM itself: every PrimFunc `stagecraft explore FILE --emit tvmscript`
prints for the examples and golden cases must parse in Apache TVM 0.27 and go through its
s_tir.transform.InjectSoftwarePipeline (the pass pipelines it, or refuses the schedule with its own
message where Stagecraft refuses it too). Run by scripts/tvmscript-roundtrip.sh in .tools/tvm-venv.
"""

import glob
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import tvm
import tvm.s_tir.transform as s_tir_transform

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Exports TVM must pipeline, not only parse: an unused allocation once made TVM's pass fail
# (`unordered_map::at`), and the export now allocates it outside the pipelined loop.
MUST_PIPELINE = ["unused_alloc"]


def load(code, name):
    # The TVMScript parser reads the function's source: write a real module and import it.
    path = os.path.join(tempfile.mkdtemp(), f"export_{name}.py")
    with open(path, "w") as f:
        f.write(code)
    spec = importlib.util.spec_from_file_location(f"export_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tvm.IRModule.from_expr(module.main.with_attr("global_symbol", "main"))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/stagecraft")
    inputs = sorted(glob.glob(os.path.join(ROOT, "examples/*.py")) + glob.glob(os.path.join(ROOT, "tests/cases/*.py")))
    start = time.time()
    exported = pipelined = refused = 0
    failures = []
    for path in inputs:
        name = os.path.splitext(os.path.basename(path))[0]
        run = subprocess.run([binary, "explore", path, "--emit", "tvmscript"], capture_output=True, text=True)
        if not run.stdout.startswith("from tvm.script"):
            continue  # a loop that does not read has no export (one Stagecraft refuses to pipeline has)
        exported += 1
        try:
            mod = load(run.stdout, name)
        except Exception as e:  # noqa: BLE001
            failures.append(f"{name}: TVM does not parse the export: {' '.join(str(e).split())[:300]}")
            continue
        try:
            out = s_tir_transform.InjectSoftwarePipeline()(mod)
            out["main"].script()
            pipelined += 1
        except Exception as e:  # noqa: BLE001  (TVM refuses the schedule: allowed, it parsed)
            refused += 1
            message = ' '.join(str(e).split())[:160]
            print(f"  {name}: TVM refuses the schedule: {message}")
            if name in MUST_PIPELINE:
                failures.append(f"{name}: TVM must pipeline this export, but says {type(e).__name__}: {message}")
    print(f"tvmscript round trip: {exported} exports, {pipelined} pipelined by TVM {tvm.__version__}, "
          f"{refused} refused by its pass, {len(failures)} not parsed ({time.time() - start:.1f} s)")
    for f in failures:
        print("  " + f)
    missing = [n for n in MUST_PIPELINE if not os.path.exists(os.path.join(ROOT, "tests/cases", f"{n}.py"))]
    failures.extend(f"tests/cases/{n}.py is missing" for n in missing)
    if failures or exported < 15:
        sys.exit(1)


if __name__ == "__main__":
    main()
