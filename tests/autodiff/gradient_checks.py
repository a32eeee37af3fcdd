"""Checking derivatives against central finite differences, forward and reverse mode.

``directional_check(fn, args)``: the JVP along a random direction must match the finite
difference of ``fn`` along it, and the VJP must satisfy <ct, J v> = <J^T ct, v>.
``second_order_check(fn, x)``: the same for the first derivatives of a scalar ``fn``, in
all four compositions of forward and reverse mode. ``numeric_jacobian(fn, x)``: the whole
Jacobian (a scalar ``fn``'s gradient) by central differences.

Each check stages one function computing everything it compares (``fn`` at the point and
at the two shifted points, the JVP, the pullback), so that its module is built once. What
the checks test is the transformation, so that module runs through the ops' NumPy
references (:func:`s4tf.dialects.reference.run_function`) except in the IREE sample: the
first check of each test in the sample (``tests/conftest.py`` says which tests are,
``$S4TF_TEST_IREE_SAMPLE``) compiles it with IREE, and ``S4TF_TEST_IREE=all`` compiles every
check's (the per-op tests in ``tests/dialects`` check each op's IREE lowering against its
reference). A module the references cannot run (an op without a NumPy rule for its
operands) is compiled with IREE.
"""

import os

import numpy as np
import pytest

import s4tf
from s4tf import pytree
from s4tf.dialects.reference import run_function
from s4tf.dialects.types import to_numpy_dtype
from s4tf.staging.tracing import rebuild_outputs

DIRECTIONS = np.random.default_rng(11)

#: Test ids (``$PYTEST_CURRENT_TEST``) whose first check has been run.
_CHECKED_TESTS: set[str] = set()


def _through_iree() -> bool:
    """Whether this check compiles with IREE: every check with ``S4TF_TEST_IREE=all``, else
    the first of a test in the sample."""
    if os.environ.get("S4TF_TEST_IREE") == "all":
        return True
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    first = test not in _CHECKED_TESTS
    _CHECKED_TESTS.add(test)
    return first and os.environ.get("S4TF_TEST_IREE_SAMPLE") == "1"


def evaluate(fn, args, iree: bool | None = None):
    """``fn(*args)`` (``args``: arrays) as a pytree of NumPy arrays, compiled and run by IREE
    (``iree``; by default as :func:`_through_iree` says) or run through the ops' references."""
    staged = s4tf.function(fn)
    if iree is None:
        iree = _through_iree()
    if not iree:
        lowered = staged.lower(*args)
        record = lowered.record
        try:
            with np.errstate(all="ignore"):  # IREE does not warn of overflow or division by zero either
                raw = run_function(lowered.module, lowered.entry, [np.asarray(a) for a in args])
        except (NotImplementedError, KeyError):  # an op without a NumPy rule for these operands: IREE's module
            iree = True
        else:
            arrays = [np.asarray(r).astype(to_numpy_dtype(t.dtype), copy=False) for r, t in zip(raw, record.result_types)]
            return rebuild_outputs(record, arrays)
    return pytree.tree_map(np.asarray, staged(*args))


def evaluate_together(pieces, iree: bool | None = None) -> list:
    """``[f(*inputs) for f, inputs in pieces]`` by :func:`evaluate`, staged as one module; where
    IREE cannot compile that module, each piece in a module of its own (IREE fails on some
    modules whose parts it compiles: two ``s4tf.pad`` that crop, "'stream.yield' op used
    resource not listed in explicit captures")."""
    if iree is None:
        iree = _through_iree()
    inputs = tuple(x for _, xs in pieces for x in xs)

    def together(*flat):
        results, start = [], 0
        for f, xs in pieces:
            results.append(f(*flat[start:start + len(xs)]))
            start += len(xs)
        return tuple(results)

    try:
        return list(evaluate(together, inputs, iree))
    except s4tf.CompilationError:
        if not iree:
            raise
        return [evaluate(f, xs, True) for f, xs in pieces]


def _as_array(value) -> np.ndarray:
    """One array for ``fn``'s value, as ``np.asarray`` makes of it (a tuple's leaves stacked)."""
    leaves = pytree.flatten(value)[0]
    return np.asarray(leaves[0] if len(leaves) == 1 and not isinstance(value, (tuple, list)) else leaves, np.float64)


def directional_check(fn, args, dtype=np.float64, eps=1e-5, rtol=1e-4, atol=1e-6):
    args = tuple(np.asarray(a, dtype) for a in args)
    directions = tuple(DIRECTIONS.standard_normal(a.shape).astype(dtype) for a in args)
    plus_args = tuple(a + eps * d for a, d in zip(args, directions))
    minus_args = tuple(a - eps * d for a, d in zip(args, directions))
    record = s4tf.function(fn).lower(*args).record
    shape = _as_array(rebuild_outputs(record, [np.zeros(t.shape) for t in record.result_types])).shape
    cotangent = DIRECTIONS.standard_normal(shape).astype(dtype)
    n = len(args)
    at, plus, minus, (value, tangent), reverse = evaluate_together([
        (fn, args), (fn, plus_args), (fn, minus_args),
        (lambda *a: s4tf.jvp(fn, a[:n], a[n:]), args + directions),
        (lambda *a: tuple(s4tf.vjp(fn, *a[:n])[1](a[n])), args + (cotangent,)),
    ])
    finite_difference = (_as_array(plus) - _as_array(minus)) / (2 * eps)
    np.testing.assert_allclose(_as_array(value), _as_array(at), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(_as_array(tangent), finite_difference, rtol=rtol, atol=atol)
    lhs = float(np.sum(cotangent * _as_array(tangent)))
    rhs = sum(float(np.sum(np.asarray(r) * d)) for r, d in zip(reverse, directions))
    assert lhs == pytest.approx(rhs, rel=rtol, abs=atol * 10)


def second_order_check(fn, x, **tolerances):
    """Second derivatives of the scalar ``fn`` at ``x`` against finite differences of its
    first: forward and reverse over reverse (the JVP and VJP of ``grad(fn)``), forward and
    reverse over forward (of ``fn``'s JVP along a random direction)."""
    direction = DIRECTIONS.standard_normal(np.shape(x))
    directional_check(s4tf.grad(fn), [x], **tolerances)
    directional_check(lambda v: s4tf.jvp(fn, (v,), (direction,))[1], [x], **tolerances)


def numeric_jacobian(fn, x, eps=1e-6):
    """d fn / d x, shape fn(x).shape + x.shape, by float64 central differences."""
    columns = []
    for index in range(x.size):
        step = np.zeros(x.size)
        step[index] = eps
        step = step.reshape(x.shape)
        columns.append((fn(x + step) - fn(x - step)) / (2 * eps))
    return np.moveaxis(np.asarray(columns), 0, -1).reshape(np.shape(fn(x)) + x.shape)
