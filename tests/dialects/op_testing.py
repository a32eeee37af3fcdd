"""Helpers of the per-op numerical tests.

Each test stages a function, compiles and runs it with IREE, and compares the results
with an independent NumPy computation; the same staged module is also run op by op
through the ops' own ``reference`` rules (``Op.evaluate``), which must agree too.

Tests declare the ops they check with :func:`covers`; ``test_op_coverage.py`` fails
when an op in ``OPS`` has no test.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import s4tf
from s4tf.dialects.reference import run_function

#: NumPy dtypes by s4tf dtype name.
DTYPES = {
    "f64": np.dtype(np.float64),
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "i64": np.dtype(np.int64),
    "i32": np.dtype(np.int32),
    "i8": np.dtype(np.int8),
    "i1": np.dtype(np.bool_),
}
FLOATS = ("f64", "f32", "f16", "bf16")
INTS = ("i64", "i32")

#: Tolerances of float results, against expectations computed in float64.
TOLERANCES = {
    "f64": {"rtol": 1e-12, "atol": 1e-12},
    "f32": {"rtol": 2e-5, "atol": 2e-6},
    "f16": {"rtol": 4e-3, "atol": 4e-3},
    "bf16": {"rtol": 3e-2, "atol": 3e-2},
}

#: Hypothesis draws a seed; arrays come from NumPy's generator (fast, any dtype).
SEEDS = st.integers(0, 2**32 - 1)

#: Every op (full name) some test checks numerically; see ``test_op_coverage.py``.
COVERED: set[str] = set()


def covers(*names: str):
    """Record that the decorated test checks ``s4tf.<name>`` for each name."""
    COVERED.update(f"s4tf.{name}" for name in names)
    return lambda test: test


def covered(names):
    """``names``, recorded as checked (for tables a test is parametrized over)."""
    covers(*names)
    return list(names)


def dtype_name(array) -> str:
    return next(name for name, dtype in DTYPES.items() if dtype == np.asarray(array).dtype)


def random_array(rng: np.random.Generator, shape, dtype: str, low=-3.0, high=3.0) -> np.ndarray:
    """Random values in ``[low, high)``: uniform floats, integers, or random booleans."""
    if dtype == "i1":
        return rng.random(shape) < 0.5
    if dtype in FLOATS:
        return rng.uniform(low, high, shape).astype(DTYPES[dtype])
    return rng.integers(int(low), int(high), shape, endpoint=True).astype(DTYPES[dtype])


def as_float64(array) -> np.ndarray:
    """``array`` in float64, the precision independent expectations are computed in."""
    return np.asarray(array).astype(np.float64)


def lowered_ops(lowered: s4tf.Lowered) -> set[str]:
    """Names of the s4tf ops that reach the lowering to StableHLO (after canonicalization)."""
    return set(re.findall(r'"(s4tf\.\w+)"', lowered.stablehlo("s4tf-verify,s4tf-canonicalize")))


def run_staged(fn, *args, ops) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``fn(*args)`` compiled and run by IREE, and run through the ops' references.

    Fails unless every op named in ``ops`` survives canonicalization, so that its
    lowering is what IREE runs. Results come back as lists of host arrays.
    """
    staged = s4tf.function(fn)
    lowered = staged.lower(*args)
    missing = {f"s4tf.{name}" for name in ops} - lowered_ops(lowered)
    assert not missing, f"{sorted(missing)} did not reach the lowering:\n{lowered}"
    results = staged(*args)
    results = list(results) if isinstance(results, (tuple, list)) else [results]
    for result in results:
        assert isinstance(result, s4tf.Tensor)
    return [np.asarray(r) for r in results], run_function(lowered.module, lowered.entry, args)


def assert_matches(actual, expected, what: str = "result", scale: float = 1.0) -> None:
    """Same shape and dtype; floats within the dtype's tolerance (times ``scale``), others equal."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    dtype = dtype_name(expected)
    if dtype in FLOATS:
        tolerance = {key: value * scale for key, value in TOLERANCES[dtype].items()}
        np.testing.assert_allclose(as_float64(actual), as_float64(expected), err_msg=what, **tolerance)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def check_staged(fn, args, expected, ops, scale: float = 1.0) -> None:
    """IREE's results and the references' both match ``expected`` (an array or a list)."""
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    device, reference = run_staged(fn, *args, ops=ops)
    assert len(device) == len(expected), f"{len(device)} results, expected {len(expected)}"
    for index, (got, ref, want) in enumerate(zip(device, reference, expected)):
        assert_matches(got, want, f"IREE result {index}", scale)
        assert_matches(ref, want, f"reference result {index}", scale)


def check_each(fn, args, expected, ops, scale: float = 1.0) -> None:
    """:func:`check_staged` of ``fn`` applied to each argument, in one staged function."""
    check_staged(lambda *xs: tuple(fn(x) for x in xs), args, expected, ops, scale)


def check_pairwise(fn, pairs, expected, ops, scale: float = 1.0) -> None:
    """:func:`check_staged` of ``fn`` applied to each ``(x, y)`` pair, in one staged function."""
    args = [array for pair in pairs for array in pair]
    check_staged(lambda *xs: tuple(fn(x, y) for x, y in zip(xs[::2], xs[1::2])), args, expected, ops, scale)


def op_fn(name: str, **attrs):
    """A function applying the raw ``s4tf.<name>`` op with ``attrs`` (no promotion)."""

    def apply(*operands):
        return s4tf.op(name, *operands, **attrs)

    apply.__name__ = name
    return apply
