"""Every differentiable op has a derivative check (forward and reverse mode against
float64 finite differences, or against JAX): a new op with a derivative rule and no check
fails here.

The ops the tables of derivative checks reach are read from their functions, staged (not
run); ops checked by a test of their own are named with that test, which must exist.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

import s4tf
from s4tf.dialects.op_def import OPS, Op

TESTS = Path(__file__).resolve().parents[1]

#: Tables of ``name: (function, arguments)`` whose every entry ``directional_check`` checks.
TABLES = {
    "autodiff/test_derivatives.py": ("ELEMENTWISE", "SHAPES", "CONTRACTIONS"),
    "autodiff/test_array_api_derivatives.py": ("FLOAT64", "FLOAT32", "REDUCTIONS", "SORTING", "COMPOSITIONS"),
}

#: Ops that no table reaches, by the test that checks their derivatives.
CHECKED_BY = {
    "gather": "autodiff/test_indexing_derivatives.py::test_gather_second_order",
    "scatter": "autodiff/test_indexing_derivatives.py::test_scatter_second_order",
    "if": "control_flow/test_region_derivatives.py::test_grad_of_grad_through_if",
    "while": "control_flow/test_region_derivatives.py::test_newton_sqrt_forward_and_reverse",
    "tape_write": "control_flow/test_static_loops.py::test_hessian_through_a_staged_loop_is_jaxs",
    "tape_read": "control_flow/test_static_loops.py::test_hessian_through_a_staged_loop_is_jaxs",
}


def differentiable_ops() -> set[str]:
    """Ops with a derivative rule (their own, derived, or their regions') that is not zero."""
    return {
        name.removeprefix("s4tf.")
        for name, op in OPS.items()
        if (op.regions or next(c for c in op.__mro__ if "jvp" in vars(c)) is not Op)
        and not (op.piecewise_constant or op.zero_derivative)
    }


def _module(relative: str):
    path = TESTS / relative
    sys.path.insert(0, str(path.parent))  # its helpers (gradient_checks)
    try:
        spec = importlib.util.spec_from_file_location(f"derivative_coverage_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def table_ops() -> set[str]:
    """The ops of the staged functions of every table's entries."""
    reached = set()
    for relative, names in TABLES.items():
        module = _module(relative)
        for name in names:
            for fn, args in getattr(module, name).values():
                text = s4tf.function(fn).lower(*(np.asarray(a, np.float64) for a in args)).as_text()
                reached |= set(re.findall(r'"s4tf\.(\w+)"', text))
    return reached


def _test_exists(reference: str) -> bool:
    relative, name = reference.split("::")
    tree = ast.parse((TESTS / relative).read_text())
    return any(isinstance(node, ast.FunctionDef) and node.name == name for node in tree.body)


def test_every_differentiable_op_has_a_derivative_check():
    missing = sorted(differentiable_ops() - table_ops() - set(CHECKED_BY))
    assert not missing, f"differentiable ops without a derivative check: {', '.join(missing)}"


def test_the_named_derivative_checks_exist():
    absent = sorted(f"{op}: {test}" for op, test in CHECKED_BY.items() if not _test_exists(test))
    assert not absent, f"derivative checks named but not found: {absent}"
    assert set(CHECKED_BY) <= differentiable_ops()
