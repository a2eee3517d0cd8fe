#!/usr/bin/env python3
"""Records what Apache TVM 0.27's InjectSoftwarePipeline really produces, as golden files.

    scripts/tvm-goldens.sh            (creates .tools/tvm-venv, builds stagecraft, runs this)
    .tools/tvm-venv/bin/python scripts/tvm-goldens.py STAGECRAFT_BINARY

For every schedule below (the RFC examples, the corner presets of tests/cases, random loops of
`stagecraft workload random|copies SEED`) it writes the Stagecraft loop into tests/tvm/NAME.py,
converts it to a TVMScript PrimFunc (0.27 spellings: `@T.prim_func(s_tir=True)`, `T.sblock`,
`T.sblock_alloc_buffer`), runs `tvm.s_tir.transform.InjectSoftwarePipeline()` on it and writes
tests/tvm/NAME.tvm: TVM's program executed statically, one line per store in execution order, with
the commit, wait and async scopes around it, every index and count evaluated (so that the comparison
does not depend on how either side spells an expression), or TVM's own error message when the pass
refuses the schedule. core/tests/tvm_goldens.rs compares core's reproduction (`stagecraft::tvm`)
with these files, statement for statement, wait for wait; CI uses the committed files, not TVM.

The Stagecraft → TVMScript conversion here is the minimal one this script needs (Python's `ast`
over the loop language, every buffer float32: the pass does not look at types); it can be replaced
by `stagecraft explore --emit tvmscript` once that exists.
"""
import ast
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

# The fixed schedules: every example and corner preset with one pipelined loop and a constant extent.
# (Nested pipelines and symbolic extents are not reproduced by core yet: see docs/tvm.md.)
FIXED = [
    "examples/rfc_a_async_copy.py",
    "examples/rfc_b_two_async_stages.py",
    "examples/rfc_c_interleaved.py",
    "examples/rfc_d_same_stage.py",
    "examples/cutlass_multistage.py",
    "examples/cdna4_interleaved.py",
    "tests/cases/accumulate.py",
    "tests/cases/extent_below_stages.py",
    "tests/cases/extent_one.py",
    "tests/cases/keyword_form.py",
    "tests/cases/reversed_order.py",
    "tests/cases/unannotated.py",
    "tests/cases/error_later_stage.py",
    "tests/cases/error_war.py",
]
# Random loops: the first seeds of each generator whose loop has one pipelined loop with a constant
# extent (all of them today), up to these counts.
RANDOM_SEEDS = 40
COPIES_SEEDS = 40


class Unsupported(Exception):
    pass


# ---------------------------------------------------------------- Stagecraft loop → TVMScript


class Loop:
    """The parts of a Stagecraft loop file the conversion needs."""

    def __init__(self, source):
        tree = ast.parse(source)
        self.allocs = {}  # name -> (shape, scope)
        self.loop = None
        self.annotations = {}  # loop variable -> {key: [ints]}
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and _name(stmt.value.func) == "alloc":
                shape = ast.literal_eval(stmt.value.args[0])
                scope = "shared"
                for kw in stmt.value.keywords:
                    if kw.arg == "scope":
                        scope = ast.literal_eval(kw.value)
                self.allocs[stmt.targets[0].id] = (shape, scope)
            elif isinstance(stmt, ast.For):
                if self.loop is not None:
                    raise Unsupported("two top-level loops")
                self.loop = stmt
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _name(stmt.value.func).endswith("annotate"):
                call = stmt.value
                args = list(call.args)
                kws = {kw.arg: kw.value for kw in call.keywords}
                var = args[0].id if args else kws["loop"].id
                key = ast.literal_eval(args[1] if len(args) > 1 else kws["ann_key"])
                val = ast.literal_eval(args[2] if len(args) > 2 else kws["ann_val"])
                if key in PIPELINE_KEYS:
                    self.annotations.setdefault(var, {})[key] = val
        if self.loop is None:
            raise Unsupported("no loop")
        self.globals = {}  # name -> number of dimensions
        self.params = []
        for node in ast.walk(self.loop):
            if isinstance(node, ast.Subscript):
                name = node.value.id
                if name not in self.allocs:
                    self.globals[name] = len(_indices(node))
            if isinstance(node, ast.For):
                for arg in node.iter.args:
                    if not isinstance(arg, ast.Constant):
                        raise Unsupported("symbolic extent")

    def tvmscript(self):
        params = [f'{b}: T.Buffer({tuple([1024] * d)!r}, "float32")' for b, d in sorted(self.globals.items())]
        lines = ["from tvm.script import tirx as T", "", "", "@T.prim_func(s_tir=True)", f"def main({', '.join(params)}):"]
        self._loop(self.loop, lines, 1, outermost=True)
        return "\n".join(lines) + "\n"

    def _loop(self, loop, lines, depth, outermost=False):
        pad = "    " * depth
        args = [_index(a) for a in loop.iter.args]
        lo, hi = (args[0], args[1]) if len(args) == 2 else ("0", args[0])
        ann = self.annotations.get(loop.target.id)
        if ann is None:
            lines.append(f"{pad}for {loop.target.id} in T.serial({lo}, {hi}):")
            for s in loop.body:
                self._stmt(s, lines, depth + 1)
            return
        lines.append(f"{pad}for {loop.target.id} in T.serial({lo}, {hi}, annotations={ann!r}):")
        lines.append(f"{pad}    with T.sblock():")
        if outermost:
            for b, (shape, scope) in self.allocs.items():
                lines.append(f'{pad}        {b} = T.sblock_alloc_buffer({tuple(shape)!r}, "float32", scope="{scope}")')
        for s in loop.body:
            lines.append(f"{pad}        with T.sblock():")
            self._stmt(s, lines, depth + 3)

    def _stmt(self, s, lines, depth):
        pad = "    " * depth
        if isinstance(s, ast.For):
            self._loop(s, lines, depth)
        elif isinstance(s, ast.If):
            if s.orelse:
                raise Unsupported("else")
            lines.append(f"{pad}if {_index(s.test)}:")
            for x in s.body:
                self._stmt(x, lines, depth + 1)
        elif isinstance(s, ast.Assign):
            lines.append(f"{pad}{_access(s.targets[0])} = {_value(s.value)}")
        else:
            raise Unsupported(type(s).__name__)


def _name(f):
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _indices(sub):
    return sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]


def _access(sub):
    return f"{sub.value.id}[{', '.join(_index(i) for i in _indices(sub))}]"


BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/"}
CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def _index(e):
    if isinstance(e, ast.Constant):
        return str(e.value)
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.BinOp):
        return f"({_index(e.left)} {BINOPS[type(e.op)]} {_index(e.right)})"
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return f"(-{_index(e.operand)})"
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return f"(not {_index(e.operand)})"
    if isinstance(e, ast.Call) and _name(e.func) in ("min", "max"):
        return f"T.{_name(e.func)}({', '.join(_index(a) for a in e.args)})"
    if isinstance(e, ast.IfExp):
        return f"T.if_then_else({_index(e.test)}, {_index(e.body)}, {_index(e.orelse)})"
    if isinstance(e, ast.Compare) and len(e.ops) == 1:
        return f"({_index(e.left)} {CMPOPS[type(e.ops[0])]} {_index(e.comparators[0])})"
    if isinstance(e, ast.BoolOp):
        op = " and " if isinstance(e.op, ast.And) else " or "
        return "(" + op.join(_index(v) for v in e.values) + ")"
    raise Unsupported(f"index {ast.dump(e)}")


def _value(e):
    if isinstance(e, ast.Constant):
        return f"T.float32({float(e.value)!r})"
    if isinstance(e, ast.Name):
        return f'T.Cast("float32", {e.id})'
    if isinstance(e, ast.Subscript):
        return _access(e)
    if isinstance(e, ast.BinOp):
        return f"({_value(e.left)} {BINOPS[type(e.op)]} {_value(e.right)})"
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return f"(-{_value(e.operand)})"
    if isinstance(e, ast.Call):
        f, args = _name(e.func), [_value(a) for a in e.args]
        if f in ("min", "max"):
            return f"T.{f}({', '.join(args)})"
        if f == "fma":
            return f"({args[0]} * {args[1]} + {args[2]})"
        if f == "abs":
            return f"T.abs({args[0]})"
    raise Unsupported(f"value {ast.dump(e)}")


def load_primfunc(code, name):
    # The TVMScript parser reads the function's source: write a real module and import it.
    import importlib.util

    path = os.path.join(tempfile.mkdtemp(), f"tvm_{name}.py")
    with open(path, "w") as f:
        f.write(code)
    spec = importlib.util.spec_from_file_location(f"tvm_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tvm.IRModule.from_expr(module.main.with_attr("global_symbol", "main"))


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


def tvm_message(e):
    """TVM's own message on one line. The blocks TVM prints inside it (a TVMScript dump of each
    statement) become `<block>`: core names the statements in its own syntax there."""
    text = re.sub(r"with T\.sblock\([^)]*\):\n(?:    .*\n)*?    .*? (?=in (?:a later )?stage -?\d)",
                  "<block> ", str(e).strip())
    return " ".join(text.split()), type(e).__name__


def golden(name, loop_path, source):
    loop = Loop(source)
    code = loop.tvmscript()
    header = [f"# TVM {tvm.__version__} s_tir.transform.InjectSoftwarePipeline — recorded by scripts/tvm-goldens.py",
              f"# loop: {loop_path}"]
    try:
        mod = load_primfunc(code, name)
    except Exception as e:  # noqa: BLE001  (TVMScript refuses the converted loop: not a schedule TVM can run)
        raise Unsupported(f"TVMScript does not parse it: {' '.join(str(e).split())[:120]}")
    try:
        out = s_tir_transform.InjectSoftwarePipeline()(mod)
    except Exception as e:  # TVM refuses the schedule: its message is the golden output.
        message, kind = tvm_message(e)
        return "\n".join(header + [f"error {kind}: {message}"]) + "\n", code, None
    t = Trace()
    t.stmt(out["main"].body, {}, 0, False)
    return "\n".join(header + sorted(t.allocs) + t.lines) + "\n", code, out["main"].script()


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
            text, _code, _script = golden(name, path, source)
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
    print(f"{written} goldens in tests/tvm ({refused} refused by TVM, {skipped} skipped) in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
