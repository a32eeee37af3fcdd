"""Float32 sums and means as accurate as XLA's on the CPU: compiled results and the ops'
NumPy references against the float64 reduction of the same input, one case per class of
reduced extent ``n``, within ``5e-8 * log2(n)`` relative (a bound JAX's jit meets on the
same inputs, checked alongside), and compiled and reference within float32 rounding of
each other (they sum the same blocks, in orders that differ only inside a block)."""

import numpy as np
import pytest

import s4tf
from op_testing import DTYPES, TOLERANCES, as_float64, random_array
from s4tf.dialects.reductions import ReduceMean, ReduceSum

# name: (shape, axes, "sum" or "mean")
CASES = {
    "short": ((8, 50), (1,), "sum"),
    "medium": ((16, 5000), (1,), "mean"),
    "medium, no block divides n": ((4, 4099), (1,), "sum"),
    "long": ((500_000,), (0,), "sum"),
    "long, no block divides n": ((1_000_003,), (0,), "mean"),
    "axes merged, as BatchNorm's mean": ((32, 32, 32, 16), (0, 1, 2), "mean"),
    "leading axis": ((100_003, 16), (0,), "sum"),
}
REFERENCES = {"sum": ReduceSum.reference, "mean": ReduceMean.reference}


def relative_errors(result, exact) -> np.ndarray:
    return np.abs(np.asarray(result, np.float64) - exact) / np.abs(exact)


@pytest.mark.parametrize("name", CASES)
def test_float32_reductions_are_as_accurate_as_xla(name):
    import jax
    import jax.numpy as jnp

    shape, axes, kind = CASES[name]
    x = (np.random.default_rng(len(name)).standard_normal(shape) + 1).astype(np.float32)
    exact = getattr(x.astype(np.float64), kind)(axis=axes)
    n = int(np.prod([shape[a] for a in axes]))
    bound = 5e-8 * np.log2(n)
    compiled = np.asarray(s4tf.function(lambda t: getattr(s4tf, kind)(t, axis=axes))(x))
    reference = REFERENCES[kind](x, axes=axes, keepdims=False)
    peer = np.asarray(jax.jit(lambda t: getattr(jnp, kind)(t, axis=axes))(x))
    assert compiled.dtype == reference.dtype == np.float32
    for result in (compiled, reference, peer):
        assert relative_errors(result, exact).max() <= bound, (relative_errors(compiled, exact).max(),
                                                                relative_errors(reference, exact).max(),
                                                                relative_errors(peer, exact).max(), bound)
    np.testing.assert_allclose(compiled, reference, rtol=4 * np.finfo(np.float32).eps, atol=0)


def test_batchnorm_mean_is_within_2e_7_of_float64():
    x = (np.random.default_rng(0).standard_normal((32, 32, 32, 16)) + 1).astype(np.float32)
    mean = np.asarray(s4tf.function(lambda t: s4tf.mean(t, axis=(0, 1, 2)))(x))
    assert relative_errors(mean, x.astype(np.float64).mean(axis=(0, 1, 2))).max() <= 2e-7


@pytest.mark.parametrize("dtype, shape, axes, keepdims, kind", [
    ("f64", (130, 3, 70), (0, 2), True, "sum"),
    ("f16", (67, 5), (0,), False, "sum"),
    ("bf16", (3, 1000), (1,), True, "mean"),
    ("f32", (2, 97, 3, 65), (1, 3), False, "mean"),
])
def test_blocked_sums_in_every_float_dtype_with_keepdims_and_apart_axes(dtype, shape, axes, keepdims, kind):
    x = random_array(np.random.default_rng(1), shape, dtype, low=0.0, high=2.0)
    compiled = np.asarray(s4tf.function(lambda t: getattr(s4tf, kind)(t, axis=axes, keepdims=keepdims))(x))
    reference = REFERENCES[kind](x, axes=axes, keepdims=keepdims)
    exact = getattr(as_float64(x), kind)(axis=axes, keepdims=keepdims)
    assert compiled.dtype == reference.dtype == DTYPES[dtype] and compiled.shape == reference.shape == exact.shape
    np.testing.assert_allclose(as_float64(compiled), as_float64(reference), **TOLERANCES[dtype])
    np.testing.assert_allclose(as_float64(reference), exact, **TOLERANCES[dtype])
