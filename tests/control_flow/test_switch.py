"""``s4tf.lax.switch`` against JAX's ``lax.switch``: values for indices in and out of range,
derivatives through it, ``vmap`` over the index, inside a ``scan``, and the errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.core.errors import StagingError


def _branches(np_):
    return [lambda x: x * 2.0, np_.sin, lambda x: np_.exp(x) - x * x, lambda x: x + 1.0, np_.tanh]


X = np.array([0.3, -0.4, 1.2], np.float32)


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_switch_runs_the_branch_of_the_clamped_index(count):
    ours = s4tf.function(lambda i, x: s4tf.lax.switch(i, _branches(s4tf)[:count], x))
    for index in (-3, 0, 1, 2, 3, 4, 9):
        want = jax.lax.switch(index, _branches(jnp)[:count], X)
        np.testing.assert_allclose(np.asarray(ours(np.int32(index), X)), np.asarray(want), rtol=1e-6)


def test_switch_with_a_python_index_calls_one_branch_without_staging():
    calls = []
    branches = [lambda x: calls.append(0) or x, lambda x: calls.append(1) or x * 3.0]
    got = s4tf.function(lambda x: s4tf.lax.switch(5, branches, x))(X)
    np.testing.assert_allclose(np.asarray(got), X * 3.0)
    assert calls == [1]


@pytest.mark.parametrize("transform", ["grad", "jacfwd", "hessian"])
def test_derivatives_through_switch_equal_jaxs(transform):
    def loss(np_, switch):
        return lambda x, i: np_.sum(switch(i, _branches(np_), x * x) * x)

    ours_t, theirs_t = {"grad": (s4tf.grad, jax.grad), "jacfwd": (s4tf.jacfwd, jax.jacfwd),
                        "hessian": (s4tf.hessian, jax.hessian)}[transform]
    ours = s4tf.function(ours_t(loss(s4tf, s4tf.lax.switch)))
    x = X.astype(np.float64)
    with jax.enable_x64(True):
        for index in range(5):
            want = theirs_t(loss(jnp, jax.lax.switch))(x, index)
            np.testing.assert_allclose(np.asarray(ours(x, np.int32(index))), np.asarray(want), rtol=1e-10, atol=1e-12)


def test_vmap_over_the_index_equals_jaxs():
    indices = np.array([0, 4, 2, -1, 3, 1], np.int32)
    xs = np.stack([X * (k + 1) * 0.3 for k in range(6)])
    ours = s4tf.function(s4tf.vmap(lambda i, x: s4tf.lax.switch(i, _branches(s4tf), x)))(indices, xs)
    want = jax.vmap(lambda i, x: jax.lax.switch(i, _branches(jnp), x))(indices, xs)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(want), rtol=1e-5)


def test_grad_of_a_scan_choosing_its_step_by_switch_equals_jaxs():
    """A step picked per iteration from the data (``argmax`` of the carry), 9 steps."""

    def loss(np_, lax):
        def step(c, v):
            c = lax.switch(np_.argmax(c), [lambda c: c * 0.9 + v, lambda c: np_.sin(c) + v * v, lambda c: c - 0.1 * v], c)
            return c, np_.sum(c)

        return lambda x: (lambda out: np_.sum(out[0]) + np_.sum(out[1] ** 2))(lax.scan(step, x[:3], x.reshape(-1, 3)))

    x = np.linspace(-0.8, 0.9, 27).astype(np.float64)
    ours = s4tf.function(s4tf.grad(loss(s4tf, s4tf.lax)))(x)
    with jax.enable_x64(True):
        want = jax.grad(loss(jnp, jax.lax))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(want), rtol=1e-10)


@pytest.mark.parametrize("call, message", [
    (lambda i, x: s4tf.lax.switch(i, [], x), "non-empty sequence of callables"),
    (lambda i, x: s4tf.lax.switch(i.astype(np.float32), [s4tf.sin, s4tf.cos], x), "must be an integer scalar"),
    (lambda i, x: s4tf.lax.switch(i, [lambda x: x, lambda x: (x, x)], x), "branches of a staged s4tf.lax.switch return different structures"),
])
def test_bad_switches_are_errors_at_the_users_line(call, message):
    with pytest.raises(StagingError, match=message) as error:
        s4tf.function(call)(np.int32(1), X)
    assert "test_switch.py" in str(error.value)
