#!/usr/bin/env python3
"""Records what Apache TVM 0.27's InjectSoftwarePipeline really produces, as golden files.

    scripts/tvm-goldens.sh            (creates .tools/tvm-venv, builds stagecraft, runs this)
    .tools/tvm-venv/bin/python scripts/tvm-goldens.py STAGECRAFT_BINARY

For every schedule below (the RFC examples, the corner presets of tests/cases, the hand-written
corners tests/tvm/hand_*.py, random loops of `stagecraft workload random|copies SEED`, which it
writes into tests/tvm/NAME.py) it takes the TVMScript PrimFunc a user exports
(`stagecraft explore FILE --emit tvmscript`; a hand corner written in TVMScript as it is), runs
`tvm.s_tir.transform.InjectSoftwarePipeline()` on it and writes tests/tvm/NAME.tvm: TVM's program
executed statically, one line per store in execution order, with the commit, wait and async scopes
around it, every index and count evaluated (so that the comparison does not depend on how either
side spells an expression), once per value of a symbolic size (`run N=3`), thread-binding loops
at their first two and last thread — or TVM's own error message when the pass refuses the
schedule. core/tests/tvm_goldens.rs compares core's reproduction (`stagecraft::tvm`) with these
files, statement for statement, wait for wait; CI uses the committed files, not TVM.
"""
import re
import os
import subprocess
import sys
import tempfile
import time

import tvm
import tvm.s_tir.transform as s_tir_transform

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "tests", "tvm")
PIPELINE_KEYS = ("software_pipeline_stage", "software_pipeline_order", "software_pipeline_async_stages")

# The fixed schedules: every example and the corner presets.
FIXED = [
    "examples/rfc_a_async_copy.py",
    "examples/rfc_b_two_async_stages.py",
    "examples/rfc_c_interleaved.py",
    "examples/rfc_d_same_stage.py",
    "examples/rfc_e_nested_gemm.py",
    "examples/cutlass_multistage.py",
    "examples/cdna4_interleaved.py",
    "tests/cases/accumulate.py",
    "tests/cases/nested_inner_async.py",
    "tests/cases/symbolic_extent.py",
    "tests/cases/unused_alloc.py",
    "tests/cases/extent_below_stages.py",
    "tests/cases/extent_one.py",
    "tests/cases/keyword_form.py",
    "tests/cases/reversed_order.py",
    "tests/cases/unannotated.py",
    "tests/cases/error_later_stage.py",
    "tests/cases/error_war.py",
]
# Random loops: the first seeds of each generator whose loop has an export, up to these counts.
RANDOM_SEEDS = 40
COPIES_SEEDS = 40


class Unsupported(Exception):
    pass


# ---------------------------------------------------------------- the loop as TVMScript


def is_tvmscript(source):
    return any(line.lstrip().startswith("@") and "prim_func" in line for line in source.splitlines())


def export(binary, source):
    """The loop as a user exports it (`stagecraft explore FILE --emit tvmscript`); a PrimFunc as
    it is."""
    if is_tvmscript(source):
        return source
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    run = subprocess.run([binary, "explore", f.name, "--emit", "tvmscript"], capture_output=True, text=True)
    os.unlink(f.name)
    # A loop Stagecraft refuses to pipeline still exports (TVM may pipeline it, racy).
    if not run.stdout.startswith("from tvm.script"):
        first = (run.stderr or run.stdout).strip().splitlines()[:1]
        raise Unsupported(f"no TVMScript export: {' '.join(first)[:120]}")
    return run.stdout


def load_primfunc(code, name):
    # The TVMScript parser reads the function's source: write a real module and import it.
    import importlib.util

    path = os.path.join(tempfile.mkdtemp(), f"tvm_{name}.py")
    with open(path, "w") as f:
        f.write(code)
    spec = importlib.util.spec_from_file_location(f"tvm_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    funcs = [v for v in vars(module).values() if isinstance(v, tvm.tirx.PrimFunc)]
    if len(funcs) != 1:
        raise Unsupported(f"{len(funcs)} PrimFuncs in the text")
    return tvm.IRModule.from_expr(funcs[0].with_attr("global_symbol", "main"))


def symbols(func):
    """The symbolic sizes of a PrimFunc: its scalar parameters and its buffers' shape variables."""
    names = []
    for param in func.params:
        shape = getattr(param.ty, "shape", None)
        dims = list(shape) if shape is not None else [param]
        for dim in dims:
            if type(dim).__name__ == "Var" and dim.name not in names:
                names.append(dim.name)
    return names


# Values a symbolic size takes in the traces: below, at and above the number of stages.
SYMBOLIC_VALUES = [0, 1, 2, 3, 4, 5, 16]


# ---------------------------------------------------------------- TVM's program → trace


class Trace:
    """Runs the structure of TVM's output statically: loops unrolled, predicates evaluated."""

    def __init__(self):
        self.lines = []
        self.allocs = set()

    BINARY = {
        "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
        "FloorDiv": lambda a, b: a // b, "FloorMod": lambda a, b: a % b, "Min": min, "Max": max,
        "LT": lambda a, b: int(a < b), "LE": lambda a, b: int(a <= b), "GT": lambda a, b: int(a > b),
        "GE": lambda a, b: int(a >= b), "EQ": lambda a, b: int(a == b), "NE": lambda a, b: int(a != b),
        "And": lambda a, b: int(bool(a) and bool(b)), "Or": lambda a, b: int(bool(a) or bool(b)),
        "BitwiseAnd": lambda a, b: a & b, "BitwiseOr": lambda a, b: a | b,
    }

    def expr(self, e, env):
        # By type name: in 0.27 several tirx constructors are functions, not the node classes.
        kind = type(e).__name__
        if kind == "IntImm":
            return int(e.value)
        if kind == "Var":
            return env[e.name]
        if kind == "Cast":
            return self.expr(e.value, env)
        if kind in self.BINARY:
            return self.BINARY[kind](self.expr(e.a, env), self.expr(e.b, env))
        if kind == "Not":
            return int(not self.expr(e.a, env))
        if kind == "Select":
            return self.expr(e.true_value if self.expr(e.condition, env) else e.false_value, env)
        if kind == "Call" and e.op.name.endswith("if_then_else"):
            c, a, b = e.args
            return self.expr(a if self.expr(c, env) else b, env)
        raise Unsupported(f"expression {kind}: {e}")

    def access(self, buffer, indices, env):
        return f"{buffer.name}[{', '.join(str(self.expr(i, env)) for i in indices)}]"

    def reads(self, e, env, out):
        kind = type(e).__name__
        if kind in ("BufferLoad", "TensorLoad"):
            out.append(self.access(getattr(e, "buffer", None) or e.source, e.indices, env))
            return
        if kind == "Call":
            for a in e.args:
                self.reads(a, env, out)
            return
        for field in ("a", "b", "value"):
            sub = getattr(e, field, None)
            if sub is not None and not isinstance(sub, (int, float, str)):
                self.reads(sub, env, out)

    def stmt(self, s, env, depth, is_async):
        pad = "    " * depth
        kind = type(s).__name__
        if kind == "SBlockRealize":
            if self.expr(s.predicate, env):
                self.stmt(s.block, env, depth, is_async)
        elif kind == "SBlock":
            for b in s.alloc_buffers:
                self.allocs.add(f"alloc {b.name} {[int(x) for x in b.shape]}")
            self.stmt(s.body, env, depth, is_async)
        elif kind == "SeqStmt":
            for x in s.seq:
                self.stmt(x, env, depth, is_async)
        elif kind == "For":
            lo, ext = self.expr(s.min, env), self.expr(s.extent, env)
            for v in range(lo, lo + ext):
                self.stmt(s.body, {**env, s.loop_var.name: v}, depth, is_async)
        elif kind == "AttrStmt":
            key = s.attr_key
            if key == "async_commit_queue_scope":
                self.lines.append(f"{pad}commit {self.expr(s.value, env)}")
                self.stmt(s.body, env, depth + 1, is_async)
            elif key == "async_wait_queue_scope":
                inner = s.body
                assert type(inner).__name__ == "AttrStmt" and inner.attr_key == "async_wait_inflight_count"
                self.lines.append(f"{pad}wait {self.expr(s.value, env)} {self.expr(inner.value, env)}")
                self.stmt(inner.body, env, depth + 1, is_async)
            elif key == "async_scope":
                self.stmt(s.body, env, depth, True)
            else:
                self.stmt(s.body, env, depth, is_async)
        elif kind == "BufferStore":
            reads = []
            self.reads(s.value, env, reads)
            target = self.access(s.buffer, s.indices, env)
            self.lines.append(f"{pad}{'async ' if is_async else ''}{target} <- {', '.join(reads)}")
        elif kind == "IfThenElse":
            if self.expr(s.condition, env):
                self.stmt(s.then_case, env, depth, is_async)
            elif s.else_case is not None:
                self.stmt(s.else_case, env, depth, is_async)
        elif kind == "Evaluate":
            pass
        else:
            raise Unsupported(f"statement {kind}")


class ThreadTrace(Trace):
    """The trace with each thread-binding loop run at its first two and last index, each thread's
    lines after a `thread tx = 0` line: the threads run one program with their own index, and
    every thread of TVM's tests would make their goldens 2 MB (`stagecraft::tvm::trace_threads`)."""

    def stmt(self, s, env, depth, is_async):
        if type(s).__name__ == "For" and s.kind == tvm.tirx.ForKind.THREAD_BINDING:
            lo, ext = self.expr(s.min, env), self.expr(s.extent, env)
            for v in sorted({lo, lo + 1, lo + ext - 1} & set(range(lo, lo + ext))):
                self.lines.append(f"{'    ' * depth}thread {s.loop_var.name} = {v}")
                self.stmt(s.body, {**env, s.loop_var.name: v}, depth, is_async)
            return
        super().stmt(s, env, depth, is_async)


def traces(func):
    """TVM's program traced, once per value of its symbolic sizes (a `run N=3` line first)."""
    def one(env):
        t = ThreadTrace()
        t.stmt(func.body, env, 0, False)
        return sorted(t.allocs) + t.lines

    names = symbols(func)
    if not names:
        return one({})
    lines = []
    for value in SYMBOLIC_VALUES:
        lines.append("run " + " ".join(f"{n}={value}" for n in names))
        lines.extend(one({n: value for n in names}))
    return lines


def tvm_message(e):
    """TVM's own message on one line. The blocks TVM prints inside it (a TVMScript dump of each
    statement) become `<block>`: core names the statements in its own syntax there."""
    text = re.sub(r"with T\.sblock\([^)]*\):\n(?:    .*\n)*?    .*? (?=in (?:a later )?stage -?\d)",
                  "<block> ", str(e).strip())
    return " ".join(text.split()), type(e).__name__


def golden(name, loop_path, source, binary):
    code = export(binary, source)
    header = [f"# TVM {tvm.__version__} s_tir.transform.InjectSoftwarePipeline — recorded by scripts/tvm-goldens.py",
              f"# loop: {loop_path}"]
    try:
        mod = load_primfunc(code, name)
    except Unsupported:
        raise
    except Exception as e:  # noqa: BLE001  (TVMScript refuses the text: not a schedule TVM can run)
        raise Unsupported(f"TVMScript does not parse it: {' '.join(str(e).split())[:120]}")
    try:
        out = s_tir_transform.InjectSoftwarePipeline()(mod)
    except Exception as e:  # TVM refuses the schedule: its message is the golden output.
        message, kind = tvm_message(e)
        return "\n".join(header + [f"error {kind}: {message}"]) + "\n"
    return "\n".join(header + traces(out["main"])) + "\n"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/stagecraft")
    os.makedirs(OUT, exist_ok=True)
    cases = []
    for path in FIXED:
        with open(os.path.join(ROOT, path)) as f:
            cases.append((os.path.splitext(os.path.basename(path))[0], path, f.read(), False))
    # Hand-written corners (TVM's checks, its grouping of a run split by another stage, regions).
    for hand in sorted(os.listdir(OUT)):
        if hand.startswith("hand_") and hand.endswith(".py"):
            with open(os.path.join(OUT, hand)) as f:
                cases.append((hand[:-3], f"tests/tvm/{hand}", f.read(), False))
    for flavor, count in (("random", RANDOM_SEEDS), ("copies", COPIES_SEEDS)):
        for seed in range(1, count + 1):
            text = subprocess.run([binary, "workload", flavor, str(seed)], check=True, capture_output=True, text=True).stdout
            name = f"{flavor}_{seed}"
            cases.append((name, f"tests/tvm/{name}.py", text, True))
    t0 = time.perf_counter()
    written = refused = skipped = 0
    for name, path, source, copy in cases:
        try:
            text = golden(name, path, source, binary)
        except Unsupported as e:
            print(f"{name}: skipped ({e})")
            skipped += 1
            continue
        if copy:
            with open(os.path.join(ROOT, path), "w") as f:
                f.write(source)
        with open(os.path.join(OUT, f"{name}.tvm"), "w") as f:
            f.write(text)
        written += 1
        refusal = next((l for l in text.splitlines() if l.startswith("error ")), None)
        refused += refusal is not None
        print(f"{name}: {refusal or str(text.count(chr(10)) - 2) + ' lines'}")
        sys.stdout.flush()
    print(f"{written} goldens in tests/tvm ({refused} refused by TVM, {skipped} skipped) in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
