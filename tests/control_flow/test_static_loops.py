"""Loops with a static trip count stay loops: ``s4tf.fori_loop`` with Python int bounds is
one ``s4tf.while`` (``unroll=`` as JAX's), and so is a Python ``for`` over a ``range`` of
more than 4 steps in a staged function, unless its body needs the index as a Python int.
Values and gradients against JAX's ``lax.fori_loop`` in float64; op counts of the staged
module, which do not grow with the trip count. Also ``s4tf.full`` with a traced fill value
and ``s4tf.repeat``'s ``total_repeat_length``, against JAX."""

from __future__ import annotations

from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.core.errors import S4tfError

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jax.config.update("jax_enable_x64", True)

X = np.array([0.7, -1.2, 1.9])
W = np.array([0.9, 0.4, -1.1])


def op_counts(lowered) -> Counter:
    """How many of each op the staged module holds (its functions' regions included)."""
    counts = Counter()

    def visit(operation):
        for region in operation.regions:
            for block in region.blocks:
                for op in block.operations:
                    counts[op.operation.name] += 1
                    visit(op.operation)

    visit(lowered.module.operation)
    return counts


def step(i, v, w, np_=s4tf):
    return np_.sin(v * w) + v * i * 0.001  # v first: 0.001 * i alone would be float32 (Python numbers only)


# -- s4tf.fori_loop with Python int bounds --------------------------------------------------


@pytest.mark.parametrize("lower, upper, unroll", [(0, 7, None), (2, 9, 3), (5, 2, None), (0, 6, True), (1, 9, 4)])
def test_fori_loop_values_and_gradients_match_jax(lower, upper, unroll):
    def loss(x, w):
        return s4tf.sum(s4tf.fori_loop(lower, upper, lambda i, v: step(i, v, w), x, unroll=unroll))

    def jax_loss(x, w):
        return jnp.sum(jax.lax.fori_loop(lower, upper, lambda i, v: step(i, v, w, jnp), x, unroll=unroll))

    value = s4tf.function(loss)(X, W)
    np.testing.assert_allclose(np.asarray(value), float(jax_loss(X, W)), rtol=1e-12)
    gradients = s4tf.grad(loss, argnums=(0, 1))(X, W)
    for got, want in zip(gradients, jax.grad(jax_loss, argnums=(0, 1))(X, W)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12)


def fori(steps, unroll=None):
    return s4tf.function(lambda x, w: s4tf.fori_loop(0, steps, lambda i, v: step(i, v, w), x, unroll=unroll))


def test_a_hundred_steps_are_one_loop_not_a_hundred_bodies():
    counts = op_counts(fori(100).lower(X, W))
    assert counts["s4tf.while"] == 1 and counts["s4tf.sin"] == 1


@pytest.mark.parametrize("unroll, sines, loops", [(4, 4, 1), (3, 3 + 1, 1), (1, 1, 1), (False, 1, 1), (True, 100, 0), (200, 100, 0)])
def test_unroll_copies_the_body_per_iteration_and_the_remainder_after(unroll, sines, loops):
    counts = op_counts(fori(100, unroll).lower(X, W))
    assert counts["s4tf.sin"] == sines and counts["s4tf.while"] == loops


def test_the_gradient_module_does_not_grow_with_the_trip_count():
    def gradient(steps):
        def loss(x, w):
            return s4tf.sum(s4tf.fori_loop(0, steps, lambda i, v: step(i, v, w), x))
        return op_counts(s4tf.function(s4tf.grad(loss, argnums=(0, 1))).lower(X, W))

    assert gradient(10) == gradient(100)


def test_unroll_needs_static_bounds_and_a_positive_count():
    traced = s4tf.function(lambda x, n: s4tf.fori_loop(0, n, lambda i, v: v * 2.0, x, unroll=2))
    with pytest.raises(S4tfError, match="unroll= of s4tf.fori_loop needs Python int bounds") as error:
        traced.lower(X, np.int32(3))
    assert "test_static_loops.py" in str(error.value)
    with pytest.raises(S4tfError, match="must be True, False or an int >= 1, got 0"):
        fori(5, 0).lower(X, W)


# -- Python for loops over a static range ------------------------------------------------------


def python_for(steps):
    def f(x, w):
        for i in range(steps):
            x = s4tf.sin(x * w) + x * i * 0.001
        return x
    return f


def jax_python_for(steps):
    return lambda x, w: jax.lax.fori_loop(0, steps, lambda i, v: step(i, v, w, jnp), x)


def test_python_for_loop_is_one_loop_with_jaxs_values_and_gradients():
    staged = s4tf.function(python_for(64))
    np.testing.assert_allclose(np.asarray(staged(X, W)), np.asarray(jax_python_for(64)(X, W)), rtol=1e-12)
    for steps in (8, 64):
        counts = op_counts(s4tf.function(python_for(steps)).lower(X, W))
        assert counts["s4tf.while"] == 1 and counts["s4tf.sin"] == 1
    gradient = s4tf.grad(loss_of_64_steps, argnums=(0, 1))
    want = jax.grad(lambda x, w: jnp.sum(jax_python_for(64)(x, w)), argnums=(0, 1))(X, W)
    for got, expected in zip(gradient(X, W), want):
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-10, atol=1e-12)
    counts = op_counts(s4tf.function(gradient).lower(X, W))
    assert counts["s4tf.while"] >= 1 and counts["s4tf.sin"] < 8


def loss_of_64_steps(x, w):
    for i in range(64):
        x = s4tf.sin(x * w) + x * i * 0.001
    return s4tf.sum(x)


def test_four_steps_or_fewer_are_unrolled():
    counts = op_counts(s4tf.function(python_for(4)).lower(X, W))
    assert counts["s4tf.while"] == 0 and counts["s4tf.sin"] == 4


SCALES = [0.5, 1.5, -2.0, 0.25, 3.0, 1.0]


def scaled_by_list(x):
    for i in range(6):
        x = x * SCALES[i]  # a Python list indexed by the index: unrolled
    return x


def appending(x):
    outputs = []
    for _ in range(6):
        x = x * 0.5
        outputs.append(x)  # a Python side effect: unrolled
    return s4tf.stack(outputs)


def counting(x):
    count, total = 0, 0.0
    for i in range(6):
        count += 1  # stays a Python int, so the loop is unrolled: a shape after it
        total = total + x * i
    return s4tf.reshape(total, (count // 2, -1))


def summing_from_a_python_float(x):
    total = 0.0  # a tensor after the first step, which runs in Python; the rest is a loop
    for i in range(10):
        total = total + x * i
    return total


def prefix_sums(x):
    total = x[:1] * 0.0
    for i in range(6):
        total = total + s4tf.sum(x[: i % 3 + 1])  # a slice bound of the index: unrolled
    return total


@pytest.mark.parametrize("f, want, loops", [
    (scaled_by_list, X * np.prod(SCALES), 0),
    (appending, np.stack([X * 0.5 ** k for k in range(1, 7)]), 0),
    (counting, (X * 15.0).reshape(3, -1), 0),
    (summing_from_a_python_float, X * 45.0, 1),
    (prefix_sums, np.array([2 * (X[:1].sum() + X[:2].sum() + X[:3].sum())]), 0),
])
def test_bodies_that_need_a_python_index_or_python_state_are_unrolled(f, want, loops):
    staged = s4tf.function(f)
    np.testing.assert_allclose(np.asarray(staged(X)), want, rtol=1e-12)
    assert op_counts(staged.lower(X))["s4tf.while"] == loops


# -- full with a traced fill value, repeat with total_repeat_length ----------------------------


def test_full_takes_a_traced_fill_value():
    fill = s4tf.function(lambda v: s4tf.full((2, 3), v * 2.0))
    np.testing.assert_array_equal(np.asarray(fill(np.float32(1.5))), jnp.full((2, 3), np.float32(1.5) * 2.0))
    assert np.asarray(fill(np.float32(1.5))).dtype == np.float32
    as_int = s4tf.function(lambda v: s4tf.full((3,), v, dtype="int32"))
    np.testing.assert_array_equal(np.asarray(as_int(2.7)), jnp.full((3,), 2.7, dtype=jnp.int32))
    got = s4tf.grad(lambda v: s4tf.sum(s4tf.full((2, 3), v * v)))(1.5)
    np.testing.assert_allclose(np.asarray(got), float(jax.grad(lambda v: jnp.sum(jnp.full((2, 3), v * v)))(1.5)))


@pytest.mark.parametrize("repeats, total", [([1, 2, 0, 3], 6), ([1, 2, 0, 3], 4), ([1, 2, 0, 3], 9), ([3], 5)])
def test_repeat_to_a_total_length_matches_jax(repeats, total):
    x = np.arange(1.0, 5.0)
    want = jnp.repeat(x, jnp.asarray(repeats), total_repeat_length=total)
    staged = s4tf.function(lambda x, r: s4tf.repeat(x, r, total_repeat_length=total))  # traced repeats
    np.testing.assert_array_equal(np.asarray(staged(x, np.asarray(repeats, np.int32))), want)


def test_repeat_along_an_axis_and_with_a_scalar_count():
    m = np.arange(6.0).reshape(2, 3)
    staged = s4tf.function(lambda m, r: s4tf.repeat(m, r, axis=1, total_repeat_length=5))
    want = jnp.repeat(m, jnp.array([2, 1, 2]), axis=1, total_repeat_length=5)
    np.testing.assert_array_equal(np.asarray(staged(m, np.array([2, 1, 2], np.int32))), want)
    eager = s4tf.repeat(m[0], np.array([1, 0, 3]), total_repeat_length=5)
    np.testing.assert_array_equal(np.asarray(eager), jnp.repeat(m[0], jnp.array([1, 0, 3]), total_repeat_length=5))
    np.testing.assert_array_equal(np.asarray(s4tf.repeat(m, 2, total_repeat_length=12)), jnp.repeat(m, 2, total_repeat_length=12))
    for total in (7, 15):  # an int count past the length is cut, short of it the last element fills in: JAX's
        np.testing.assert_array_equal(np.asarray(s4tf.repeat(m, 2, total_repeat_length=total)),
                                      jnp.repeat(m, 2, total_repeat_length=total))
        staged = s4tf.function(lambda m: s4tf.repeat(m, 2, axis=1, total_repeat_length=total))
        np.testing.assert_array_equal(np.asarray(staged(m)), jnp.repeat(m, 2, axis=1, total_repeat_length=total))


def test_hessian_through_a_staged_loop_is_jaxs():
    """Forward mode over the loop's reverse mode: the tape ops' forward-mode rules."""

    def ours(x):
        return s4tf.sum(s4tf.fori_loop(0, 20, lambda i, v: s4tf.sin(v) * 1.1 + v * v * 0.1, x) ** 2)

    def theirs(x):
        return jnp.sum(jax.lax.fori_loop(0, 20, lambda i, v: jnp.sin(v) * 1.1 + v * v * 0.1, x) ** 2)

    x = np.array([0.3, -0.2, 0.1])
    with jax.enable_x64(True):
        expected = np.asarray(jax.hessian(theirs)(x))
    np.testing.assert_allclose(np.asarray(s4tf.hessian(ours)(x)), expected, rtol=1e-10, atol=1e-12)
