"""``s4tf-branches-to-selects`` on whole programs: branches in host-stepped loops computed
both ways and selected give JAX's numbers (IREE 3.13 gave wrong ones, or a loop that never
ended, for reverse mode of a ``switch`` in a ``fori_loop`` over a large vector:
tests/lit/iree_reproducers/while_tape_beside_an_if.mlir)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.passes.pipeline import lowering_pipeline

jax.config.update("jax_enable_x64", True)


def _switch_in_a_loop(np_, lax):
    branches = [lambda c: c * 1.1, lambda c: np_.sin(c), lambda c: c * c * 0.5 + 0.1]
    return lambda x: np_.sum(lax.fori_loop(0, 7, lambda i, c: lax.switch(i % 3, branches, c), x))


@pytest.mark.parametrize("target, size", [("cpu", 100_000), ("vmvx", 3)])
def test_grad_of_a_switch_in_a_fori_loop_equals_jaxs(target, size):
    x = np.linspace(-0.5, 0.5, size).astype(np.float32)
    grad = s4tf.function(s4tf.grad(_switch_in_a_loop(s4tf, s4tf.lax)), target=target)
    assert "stablehlo.if" not in grad.lower(x).stablehlo(lowering_pipeline(target))  # the loops are host-stepped
    exact = jax.grad(_switch_in_a_loop(jnp, jax.lax))(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(grad(x)), exact, rtol=2e-6, atol=1e-7)


def test_the_branch_not_taken_may_make_nans():
    """``log`` of negative numbers in the branch never taken: the select drops its NaNs, in
    the value and in the gradient."""
    def f(np_, lax):
        def step(i, c):
            return lax.cond(np_.all(c > -10.0), lambda v: np_.sin(v) * 0.9 + 0.1, lambda v: np_.log(v), c)
        return lambda x: np_.sum(lax.fori_loop(0, 5, step, x))

    x = np.linspace(-2.0, 2.0, 100_000)
    value, gradient = s4tf.function(s4tf.value_and_grad(f(s4tf, s4tf.lax)))(x)
    exact_value, exact_gradient = jax.value_and_grad(f(jnp, jax.lax))(x)
    assert np.isfinite(np.asarray(gradient)).all()
    np.testing.assert_allclose(float(value), float(exact_value), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(gradient), exact_gradient, rtol=1e-12)
