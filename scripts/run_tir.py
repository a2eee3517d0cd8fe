#!/usr/bin/env python3
"""Runs a Stagecraft loop and its printed pipelined program as plain Python and compares outputs.

    python3 scripts/run_tir.py LOOP.py PIPELINED.py [N=16 ...]

The printed program is valid Python once `alloc` and the three scopes exist. Here the scopes are
sequential (a commit or wait does nothing), so this checks the transform's *sequential* meaning
independently of Stagecraft's own interpreter; the asynchronous semantics are checked by
`stagecraft check`. Exit status 0 when every global buffer written by the loop ends up identical.
"""
import contextlib
import math
import sys


class Buffer:
    def __init__(self, name, shape=None):
        self.name, self.shape, self.data = name, shape, {}

    def _key(self, index):
        return index if isinstance(index, tuple) else (index,)

    def __getitem__(self, index):
        key = self._key(index)
        if key not in self.data:
            # Inputs: a deterministic value per element (small integers keep arithmetic exact).
            h = hash((self.name,) + key) % 1000
            self.data[key] = float(h % 17 - 8)
        return self.data[key]

    def __setitem__(self, index, value):
        self.data[self._key(index)] = value


class Globals(dict):
    """Unknown names become global buffers, as in Stagecraft's loop language."""

    def __missing__(self, name):
        if name.startswith("__"):
            raise KeyError(name)
        buf = Buffer(name)
        self[name] = buf
        return buf


class _Sch:
    def annotate(self, *args, **kwargs):
        pass


def alloc(shape, scope="shared", dtype="float32", versions=1, threads="each"):
    buf = Buffer("<alloc>", shape)
    buf.versions = versions
    return buf


@contextlib.contextmanager
def async_commit_queue(queue):
    yield


@contextlib.contextmanager
def async_scope():
    yield


@contextlib.contextmanager
def async_stage(queue):
    yield


@contextlib.contextmanager
def async_wait_queue(queue, count):
    assert count >= 0, f"negative wait count {count}"
    yield


def fma(a, b, c):
    return a * b + c


def barrier():
    """Every thread arrives before any goes on: run as one thread, in order, there is nothing to wait for."""


def run(path, params):
    env = Globals(
        alloc=alloc, async_commit_queue=async_commit_queue, async_scope=async_scope, async_stage=async_stage,
        async_wait_queue=async_wait_queue, fma=fma, barrier=barrier, max=max, min=min, abs=abs, range=range,
        sch=_Sch(), annotate=_Sch().annotate, float=float, True_=True, math=math,
    )
    env.update(params)
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    exec(code, env)
    # Global buffers, and allocated buffers that keep one version (ring buffers change layout).
    return {
        k: v for k, v in env.items()
        if isinstance(v, Buffer) and (v.name == k or (v.name == "<alloc>" and getattr(v, "versions", 1) == 1))
    }


def main():
    loop, pipelined, *rest = sys.argv[1:]
    params = {"N": 16}
    for kv in rest:
        k, v = kv.split("=")
        params[k] = int(v)
    before = run(loop, params)
    after = run(pipelined, params)
    bad = 0
    for name, buf in before.items():
        written = {k: v for k, v in buf.data.items()}
        other = after.get(name)
        if other is None and buf.name == "<alloc>":
            continue  # multi-versioned in the pipelined program: a different layout
        for key, value in written.items():
            got = other.data.get(key) if other else None
            if got != value:
                bad += 1
                if bad <= 5:
                    print(f"{name}{list(key)}: loop computes {value}, pipelined program computes {got}")
    if bad:
        print(f"{bad} element(s) differ")
        sys.exit(1)
    print("same results")


if __name__ == "__main__":
    main()
