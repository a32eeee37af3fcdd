"""Batching ``s4tf.while``: a condition per example runs until every example is done
(finished examples keep their values), a shared condition stays one loop with a batched
body; ``fori_loop`` and ``scan`` (loops with shared bounds) and nested loops; reverse mode
both ways (``vmap(grad(f))``, ``grad`` of a vmapped loop) with a trip count per example,
against a Python loop over the examples and float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.arrays import numpy_api as snp

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

XS = np.float64([0.5, 3.0, 10.0, 1.5, 25.0])  # 6, 3, 1, 4 and 0 doublings to pass 20
WS = np.float64([1.3, 1.1, 1.7, 1.2, 1.9])
#: The ops whose batching this module checks (read by tests/dialects/test_op_coverage.py).
BATCHED_OPS = {"while"}


def doubling(x):
    return s4tf.while_loop(lambda c: c[0] < 20.0, lambda c: (c[0] * 2.0, c[1] + 1), (x, 0))


def doubling_np(x):
    count = 0
    while x < 20.0:
        x, count = x * 2.0, count + 1
    return x, count


def test_condition_per_example_runs_each_example_its_own_trip_count():
    values, counts = s4tf.vmap(doubling)(XS.astype(np.float32))
    expected = [doubling_np(x) for x in XS.astype(np.float32)]
    np.testing.assert_array_equal(np.asarray(counts), [n for _, n in expected])
    np.testing.assert_allclose(np.asarray(values), [v for v, _ in expected], rtol=1e-6)


def test_shared_condition_keeps_a_plain_loop_with_a_batched_body():
    def powers(x, n):
        return s4tf.fori_loop(0, n, lambda i, c: c * x + 1.0, x)

    result = s4tf.vmap(powers, in_axes=(0, None))(XS, 4)
    expected = []
    for x in XS:
        c = x
        for _ in range(4):
            c = c * x + 1.0
        expected.append(c)
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-12)


def test_nested_loops_with_inner_trip_counts_per_example():
    def nested(x):
        def outer(c):
            y, total = c
            inner = s4tf.while_loop(lambda d: d < y, lambda d: d + 1.5, snp.zeros_like(y))
            return y - 1.0, total + inner

        return s4tf.while_loop(lambda c: c[0] > 0.0, outer, (x, snp.zeros_like(x)))[1]

    def nested_np(y):
        total = 0.0
        while y > 0.0:
            d = 0.0
            while d < y:
                d += 1.5
            y, total = y - 1.0, total + d
        return total

    result = s4tf.vmap(nested)(XS[:4])
    np.testing.assert_allclose(np.asarray(result), [nested_np(x) for x in XS[:4]], rtol=1e-12)


def test_scan_over_a_batch_of_sequences():
    seqs = np.random.default_rng(4).standard_normal((3, 6, 2))

    def running(xs):
        return s4tf.scan(lambda c, x: (c * 0.5 + x, snp.sum(c)), snp.zeros(2, dtype=xs.dtype), xs)

    carry, ys = s4tf.vmap(running)(seqs)
    for seq, c_b, ys_b in zip(seqs, np.asarray(carry), np.asarray(ys)):
        c, outs = np.zeros(2), []
        for x in seq:
            c, out = c * 0.5 + x, c.sum()
            outs.append(out)
        np.testing.assert_allclose(c_b, c, rtol=1e-12)
        np.testing.assert_allclose(ys_b, outs, rtol=1e-12, atol=1e-12)


def loop(x, w):
    a, b = s4tf.while_loop(lambda c: c[0] < 20.0, lambda c: (c[0] * w + c[1] * 0.1, c[1] + x), (x, x))
    return a + b * b


def loop_np(x, w):
    a, b = x, x
    while a < 20.0:
        a, b = a * w + b * 0.1, b + x
    return a + b * b


def _central_difference(fn, args, index, eps=1e-6):
    up, down = list(args), list(args)
    up[index] += eps
    down[index] -= eps
    return (fn(*up) - fn(*down)) / (2 * eps)


def _numeric_gradients():
    return [np.array([_central_difference(loop_np, (x, w), i) for x, w in zip(XS, WS)]) for i in (0, 1)]


def test_per_example_gradients_through_a_loop_with_per_example_trip_counts():
    grads = s4tf.vmap(s4tf.grad(loop, argnums=(0, 1)))(XS, WS)
    singles = [s4tf.grad(loop, argnums=(0, 1))(x, w) for x, w in zip(XS, WS)]
    for index, (batched, numeric) in enumerate(zip(grads, _numeric_gradients())):
        np.testing.assert_allclose(np.asarray(batched), [float(s[index]) for s in singles], rtol=1e-12)
        np.testing.assert_allclose(np.asarray(batched), numeric, rtol=1e-6)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_gradient_of_a_batched_loop(staged):
    def total(xs, ws):
        return snp.sum(s4tf.vmap(loop)(xs, ws))

    gradient = s4tf.grad(total, argnums=(0, 1))
    grads = (s4tf.function(gradient) if staged else gradient)(XS, WS)
    for batched, numeric in zip(grads, _numeric_gradients()):
        np.testing.assert_allclose(np.asarray(batched), numeric, rtol=1e-6)


def test_forward_mode_both_ways():
    numeric = _numeric_gradients()[0]
    _, tangent = s4tf.jvp(lambda xs: s4tf.vmap(loop)(xs, WS), (XS,), (np.ones_like(XS),))
    np.testing.assert_allclose(np.asarray(tangent), numeric, rtol=1e-6)
    tangents = s4tf.vmap(lambda x, w: s4tf.jvp(lambda x: loop(x, w), (x,), (np.float64(1.0),))[1])(XS, WS)
    np.testing.assert_allclose(np.asarray(tangents), numeric, rtol=1e-6)
