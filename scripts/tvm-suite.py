#!/usr/bin/env python3
"""TVM's own InjectSoftwarePipeline tests as Stagecraft's acceptance suite: the inputs and the real
outputs, recorded.

    scripts/tvm-suite.sh             (makes .tools/tvm-venv with pytest, runs this)
    .tools/tvm-venv/bin/python scripts/tvm-suite.py

tests/tvm_suite/upstream/ holds apache/tvm's
tests/python/s_tir/transform/test_s_tir_transform_inject_software_pipeline.py as it is at the 0.27
release (20 tests, 19 inputs; the two GEMM tests are skipped, below). For each input this script

- takes the PrimFunc's text out of that file (Python's `ast`: the function as written, with
  `gen_simple_compute`'s `num_stages` replaced by the number the test passes) and writes it to
  tests/tvm_suite/NAME.py as a user would paste it, with the annotations the test adds through
  `tvm.s_tir.Schedule` written after it as `sch.annotate(...)` lines;
- parses that text with TVM 0.27 and checks it is the PrimFunc the test hands the pass
  (`tvm.ir.assert_structural_equal` with the test module's own object, where the test file defines
  it at the top level);
- applies the schedule annotations as the test does, runs `s_tir.transform.InjectSoftwarePipeline`
  and, where the test compares the result with an expected PrimFunc, repeats that comparison (the
  test's `_check`: `StmtSimplify`, then structural equality), so the golden is the output TVM's
  own test asserts;
- writes tests/tvm_suite/NAME.tvm: TVM's program executed statically (scripts/tvm-goldens.py's
  trace: every store with the elements it reads, commit and wait scopes with their counts, the
  allocations with their versioned shapes), once per value of a symbolic size (`run k=3`),
  thread-binding loops at their first two and last thread, or TVM's error kind and message.

core/tests/tvm_suite.rs reads these files; CI does not run TVM.
"""
import ast
import importlib.util
import os
import re
import tempfile
import textwrap
import time

import tvm
import tvm.s_tir.transform as s_tir_transform

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "tests", "tvm_suite")
UPSTREAM_REL = "tests/tvm_suite/upstream/test_s_tir_transform_inject_software_pipeline.py"
UPSTREAM = os.path.join(ROOT, UPSTREAM_REL)


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


goldens = _load(os.path.join(ROOT, "scripts", "tvm-goldens.py"), "tvm_goldens")

# Every test of the upstream file: the input(s) it hands the pass, or why it is skipped.
# (name, test, function: "NAME" at the top level or "OUTER.NAME" nested in a function or a test,
#  substitutions into the function's text, annotations the test adds with sch.annotate,
#  what the test expects: the PrimFunc it compares the output with (and whether it simplifies it
#  first, as `_check` does), or the error `_check_error` expects)
ASYNC_0 = {"software_pipeline_async_stages": [0]}
SUITE = [
    ("simple_compute", "test_simple_compute", "gen_simple_compute.simple_compute", {"num_stages": 1}, {},
     ("transformed_simple_compute", True)),
    ("simple_compute_with_other_annotation", "test_simple_compute_with_other_annotation",
     "simple_compute_with_other_annotation", {}, {}, ("transformed_simple_compute_with_other_annotation", True)),
    ("dynamic_compute", "test_dynamic_compute", "dynamic_compute", {}, {}, ("transformed_dynamic_compute", True)),
    ("trivial_pipeline", "test_trivial_pipeline", "trivial_pipeline", {}, {}, ("transformed_trivial_pipeline", True)),
    ("three_stage_compute", "test_three_stage_compute", "three_stage_compute", {}, {},
     ("transformed_three_stage_compute", True)),
    ("dag_interleaving", "test_dag_interleaving", "dag_interleaving", {}, {}, ("transformed_dag_interleaving", True)),
    ("nested_pipeline_simple", "test_nest_pipeline_simple", "nested_pipeline_simple", {}, {},
     ("transformed_nested_pipeline_simple", True)),
    ("nested_pipeline_prefetch_inner", "test_nest_pipeline_prefetch_inner", "nested_pipeline_prefetch_inner", {}, {},
     ("transformed_nested_pipeline_prefetch_inner", True)),
    ("nested_pipeline_interleaving", "test_nest_pipeline_interleaving", "nested_pipeline_interleaving", {}, {},
     ("transformed_nested_pipeline_interleaving", True)),
    ("nested_pipeline_double_buffer", "test_nest_pipeline_double_buffer", "nested_pipeline_double_buffer", {}, {},
     ("transformed_nested_pipeline_double_buffer", True)),
    ("error_reorder", "test_error_reorder", "simple_compute_incorrect_reorder", {}, {}, "ValueError"),
    ("error_conflicting_order", "test_error_conflicting_order", "simple_compute_conflicting_order", {}, {}, "ValueError"),
    ("error_missing_annotation", "test_error_missing_annotation", "simple_compute_missing_annotation", {}, {}, "ValueError"),
    ("simple_compute_async", "test_simple_compute_async", "gen_simple_compute.simple_compute", {"num_stages": 1},
     {"i": ASYNC_0}, ("test_simple_compute_async.ref", False)),
    ("simple_compute_async_3", "test_simple_compute_async", "gen_simple_compute.simple_compute", {"num_stages": 3},
     {"i": ASYNC_0}, ("test_simple_compute_async.ref#2", False)),
    ("async_producer_interleaving", "test_async_producer_interleaving",
     "test_async_producer_interleaving.simple_compute", {},
     {"i": {"software_pipeline_stage": [0, 0, 3], "software_pipeline_order": [0, 2, 1],
            "software_pipeline_async_stages": [0]}}, ("test_async_producer_interleaving.ref", False)),
    ("three_stage_compute_two_stage_async", "test_three_stage_compute_two_stage_async", "three_stage_compute", {},
     {"i": {"software_pipeline_async_stages": [0, 1]}}, ("test_three_stage_compute_two_stage_async.ref", False)),
    ("less_loop_than_num_stage", "test_less_loop_than_num_stage", "test_less_loop_than_num_stage.before", {}, {},
     ("test_less_loop_than_num_stage.after", True)),
    ("less_loop_than_num_stage_dynamic", "test_less_loop_than_num_stage_dynamic",
     "test_less_loop_than_num_stage_dynamic.before", {}, {}, ("test_less_loop_than_num_stage_dynamic.after", True)),
]
GEMM_REASON = ("needs CUDA: get_mma_schedule (sm_80 MMA and ldmatrix tensor intrinsics) ends in a "
               "segmentation fault on a machine without one, before the pass runs, and the test then "
               "compiles and runs the kernel on the GPU; pytest skips it there ('need cuda')")
SKIPPED = {
    "test_async_pipelined_mma_gemm_simple": GEMM_REASON,
    "test_async_nested_pipeline_mma_gemm_ideal_annotation": GEMM_REASON,
}
IMPORT = "from tvm.script import tirx as T\n\n\n"


def functions(tree):
    """Every function of the file by dotted path: top-level ones and those defined inside them,
    a second definition of one name inside a test as `NAME#2` (test_simple_compute_async's two
    `ref`s)."""
    out = {}
    for top in tree.body:
        if isinstance(top, ast.FunctionDef):
            out[top.name] = top
            for inner in ast.walk(top):
                if isinstance(inner, ast.FunctionDef) and inner is not top:
                    path, k = f"{top.name}.{inner.name}", 1
                    while path in out:
                        k += 1
                        path = f"{top.name}.{inner.name}#{k}"
                    out[path] = inner
    return out


def source_of(text, node, substitutions):
    lines = text.splitlines()
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    code = textwrap.dedent("\n".join(lines[first - 1:node.end_lineno]))
    for name, value in substitutions.items():
        code = re.sub(rf"\b{name}\b", str(value), code)
    return code + "\n"


def annotate_lines(annotations):
    return "".join(f'sch.annotate({var}, "{key}", {value!r})\n'
                   for var, entries in annotations.items() for key, value in entries.items())


def schedule(mod, annotations):
    """The test's `sch.annotate` calls: on the loop of that name around the block "compute"."""
    if not annotations:
        return mod
    sch = tvm.s_tir.Schedule(mod)
    loops = sch.get_loops(sch.get_sblock("compute"))
    for var, entries in annotations.items():
        (loop,) = [l for l in loops if sch.get(l).loop_var.name == var]
        for key, value in entries.items():
            sch.annotate(loop, ann_key=key, ann_val=value)
    return sch.mod


def load(code, name, function):
    # The TVMScript parser reads the function's source: write a real module and import it.
    path = os.path.join(tempfile.mkdtemp(), f"suite_{name}.py")
    with open(path, "w") as f:
        f.write(code)
    return getattr(_load(path, f"suite_{name}"), function)


def main():
    with open(UPSTREAM) as f:
        text = f.read()
    tree = ast.parse(text)
    funcs = functions(tree)
    tests = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    covered = {s[1] for s in SUITE} | set(SKIPPED)
    missing = [t for t in tests if t not in covered]
    assert not missing, f"tests of {UPSTREAM_REL} the suite does not cover: {missing}"
    upstream = _load(UPSTREAM, "upstream_inject_software_pipeline")
    t0 = time.perf_counter()
    pipelined = refused = 0
    for name, test, path, subs, annotations, expected in SUITE:
        code = source_of(text, funcs[path], subs)
        what = path.split(".")[-1] + (f"({', '.join(str(v) for v in subs.values())})" if subs else "")
        header = (f"# TVM 0.27's test_s_tir_transform_inject_software_pipeline.py, {test}:\n# `{what}`"
                  + (", annotated by the test's schedule as below" if annotations else "")
                  + " (scripts/tvm-suite.py).\n")
        source = header + IMPORT + code
        if annotations:
            source += "\n\n" + annotate_lines(annotations)
        with open(os.path.join(OUT, f"{name}.py"), "w") as f:
            f.write(source)
        # The text as pasted (without the schedule's lines), parsed by TVM: the PrimFunc the test
        # builds.
        func = load(IMPORT + code, name, funcs[path].name)
        module = tvm.IRModule.from_expr(func.with_attr("global_symbol", "main"))
        owner, _, attr = path.rpartition(".")
        if not owner:
            tvm.ir.assert_structural_equal(func.with_attr("global_symbol", "main"),
                                           getattr(upstream, attr).with_attr("global_symbol", "main"), True)
        elif owner == "gen_simple_compute":
            built = upstream.gen_simple_compute(*subs.values())
            tvm.ir.assert_structural_equal(func.with_attr("global_symbol", "main"),
                                           built.with_attr("global_symbol", "main"), True)
        mod = schedule(module, annotations)
        lines = [f"# TVM {tvm.__version__} s_tir.transform.InjectSoftwarePipeline on {name}.py"]
        try:
            out = s_tir_transform.InjectSoftwarePipeline()(mod)
        except Exception as e:  # TVM refuses the schedule: its message is the golden.
            message, kind = goldens.tvm_message(e)
            assert expected == kind, f"{name}: TVM raises {kind}, the test expects {expected}"
            lines.append(f"error {kind}: {message}")
            refused += 1
        else:
            assert not isinstance(expected, str), f"{name}: the test expects {expected}"
            if expected is not None:
                # The test's own comparison: `_check` simplifies first, the async tests do not.
                path, simplify = expected
                want = load(IMPORT + source_of(text, funcs[path], {}), f"{name}_expected",
                            funcs[path].name)
                got = tvm.tirx.transform.StmtSimplify()(out) if simplify else out
                tvm.ir.assert_structural_equal(got["main"], want.with_attr("global_symbol", "main"), True)
            lines.extend(goldens.traces(out["main"]))
            pipelined += 1
        with open(os.path.join(OUT, f"{name}.tvm"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{name}: {lines[1] if lines[1].startswith('error') else str(len(lines) - 1) + ' lines'}")
    print(f"{len(SUITE)} inputs of {len(tests)} tests ({len(SKIPPED)} skipped: GEMM on a GPU): "
          f"{pipelined} pipelined by TVM {tvm.__version__}, {refused} refused, in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
