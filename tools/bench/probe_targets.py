"""Measure what each target can do: compile small StableHLO functions per dtype and op
family for every target, run them where this machine can, and compare with NumPy.

```
python tools/bench/probe_targets.py                    # every target, markdown table on stdout
python tools/bench/probe_targets.py --target vulkan    # one target
```

The findings back the table in :mod:`s4tf.passes.iree.availability` and docs/targets.md.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable

import iree.compiler as iree_compiler
import ml_dtypes
import numpy as np

from s4tf.core.errors import S4tfError
from s4tf.runtime.device import LoadedModule, device_available
from s4tf.runtime.targets import TARGETS, compile_flags, get_target
from s4tf.runtime.transfer import to_host

DTYPES = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16), "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
SHAPE = (4, 4)


@dataclass(frozen=True)
class Family:
    """Ops of one kind: ``body(t)`` is the function body over ``%a, %b: t`` returning ``%r``."""

    name: str
    dtypes: tuple[str, ...]
    body: Callable[[str, str], str]
    reference: Callable[[np.ndarray, np.ndarray], np.ndarray]
    result_dtype: Callable[[str], str] = lambda dtype: dtype


FLOATS, INTS = ("f16", "bf16", "f32", "f64"), ("i8", "i32", "i64")


def zero(dtype: str) -> str:
    return "0.0" if dtype in FLOATS else "0"


FAMILIES = (
    Family("add, multiply", FLOATS + INTS, lambda t, d: f"%s = stablehlo.add %a, %b : {t}\n  %r = stablehlo.multiply %s, %b : {t}",
           lambda a, b: (a + b) * b),
    Family("and, or, not", ("i1",), lambda t, d: f"%s = stablehlo.and %a, %b : {t}\n  %n = stablehlo.not %s : {t}\n  %r = stablehlo.or %n, %b : {t}",
           lambda a, b: ~(a & b) | b),
    Family("divide", FLOATS + INTS, lambda t, d: f"%r = stablehlo.divide %a, %b : {t}",
           lambda a, b: a / b if a.dtype.kind == "f" or a.dtype == DTYPES["bf16"] else np.trunc(a / b).astype(a.dtype)),
    *(
        Family(op, FLOATS, lambda t, d, op=op: f"%r = stablehlo.{op} %a : {t}", reference)
        for op, reference in {
            "exponential": lambda a, b: np.exp(a.astype(np.float64)),
            "log": lambda a, b: np.log(a.astype(np.float64)),
            "log_plus_one": lambda a, b: np.log1p(a.astype(np.float64)),
            "logistic": lambda a, b: 1 / (1 + np.exp(-a.astype(np.float64))),
            "tanh": lambda a, b: np.tanh(a.astype(np.float64)),
            "sine": lambda a, b: np.sin(a.astype(np.float64)),
            "cosine": lambda a, b: np.cos(a.astype(np.float64)),
            "sqrt": lambda a, b: np.sqrt(a.astype(np.float64)),
            "rsqrt": lambda a, b: 1 / np.sqrt(a.astype(np.float64)),
        }.items()
    ),
    Family("power", FLOATS, lambda t, d: f"%r = stablehlo.power %a, %b : {t}",
           lambda a, b: np.power(a.astype(np.float64), b.astype(np.float64))),
    Family("dot_general", FLOATS + INTS,
           lambda t, d: f"%r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ({t}, {t}) -> {t}",
           lambda a, b: (a.astype(np.float64) @ b.astype(np.float64))),
    Family("reduce (sum)", FLOATS + INTS,
           lambda t, d: f"%z = stablehlo.constant dense<{zero(d)}> : tensor<{d}>\n  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : ({t}, tensor<{d}>) -> tensor<4x{d}>\n  %r = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4x{d}>) -> {t}",
           lambda a, b: np.broadcast_to(a.astype(np.float64).sum(axis=1, keepdims=True), a.shape)),
    Family("compare, select", FLOATS + INTS,
           lambda t, d: f"%c = stablehlo.compare GT, %a, %b : ({t}, {t}) -> tensor<4x4xi1>\n  %r = stablehlo.select %c, %a, %b : tensor<4x4xi1>, {t}",
           lambda a, b: np.maximum(a, b)),
    Family("convert to f32", FLOATS + INTS, lambda t, d: f"%r = stablehlo.convert %a : ({t}) -> tensor<4x4xf32>",
           lambda a, b: a.astype(np.float32), lambda dtype: "f32"),
    Family("convert from i32", FLOATS + INTS,
           lambda t, d: f"%i = stablehlo.convert %a : ({t}) -> tensor<4x4xi32>\n  %r = stablehlo.convert %i : (tensor<4x4xi32>) -> {t}",
           lambda a, b: np.trunc(a.astype(np.float64))),
)


def sample(dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "i1":
        return rng.random(SHAPE) > 0.5
    if dtype in INTS:
        return rng.integers(1, 4, SHAPE).astype(DTYPES[dtype])
    return rng.uniform(0.5, 2.0, SHAPE).astype(DTYPES[dtype])


def module_text(family: Family, dtype: str) -> str:
    t = f"tensor<4x4x{dtype}>"
    result = f"tensor<4x4x{family.result_dtype(dtype)}>"
    return f"func.func @probe(%a: {t}, %b: {t}) -> {result} {{\n  {family.body(t, dtype)}\n  return %r : {result}\n}}\n"


def first_error(error: Exception) -> str:
    lines = [line.split("error: ", 1)[1] for line in str(error).splitlines() if "error: " in line]
    return (lines[0] if lines else str(error).strip().splitlines()[-1])[:110]


def probe(target: str, family: Family, dtype: str) -> str:
    try:
        vmfb = iree_compiler.compile_str(module_text(family, dtype), input_type="stablehlo", extra_args=compile_flags(target))
    except iree_compiler.CompilerToolError as error:
        return f"compile error: {first_error(error)}"
    device = get_target(target).device
    if not get_target(target).runs_on(device) or not device_available(device):
        return "compiles (not run here)"
    a, b = sample(dtype, 1), sample(dtype, 2)
    try:
        result = to_host(LoadedModule(vmfb, device).invoke("probe", [a, b])[0])
    except S4tfError as error:
        return f"run error: {error}"
    tolerance = {"f16": 2e-2, "bf16": 5e-2}.get(dtype, 1e-4)
    expected = np.asarray(family.reference(a, b)).astype(np.float64)
    return "ok" if np.allclose(result.astype(np.float64), expected, rtol=tolerance, atol=tolerance) else "wrong results"


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="probe_targets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", action="append", choices=list(TARGETS), help="target to probe (repeatable; default: all)")
    return parser


def run(argv: list[str] | None = None) -> int:
    options = argument_parser().parse_args(argv)
    compiled_only = set()
    print("| target | dtype | ops | result |\n| --- | --- | --- | --- |")
    for target in options.target or list(TARGETS):
        for family in FAMILIES:
            for dtype in family.dtypes:
                outcome = probe(target, family, dtype)
                if outcome == "compiles (not run here)":
                    compiled_only.add(target)
                elif outcome != "ok":
                    print(f"| {target} | {dtype} | {family.name} | {outcome} |", flush=True)
    print("\nEvery combination not listed compiled and, where this machine runs the target, matched NumPy.")
    if compiled_only:
        print(f"Compiled, not run on this machine: {', '.join(sorted(compiled_only))}.")
    return 0


if __name__ == "__main__":
    sys.exit(run())
