"""Checking derivatives against central finite differences, forward and reverse mode.

``directional_check(fn, args)``: the JVP along a random direction must match the finite
difference of ``fn`` along it, and the VJP must satisfy <ct, J v> = <J^T ct, v>.
``second_order_check(fn, x)``: the same for the first derivatives of a scalar ``fn``, in
all four compositions of forward and reverse mode. ``numeric_jacobian(fn, x)``: the whole
Jacobian (a scalar ``fn``'s gradient) by central differences.
"""

import numpy as np
import pytest

import s4tf

DIRECTIONS = np.random.default_rng(11)


def directional_check(fn, args, dtype=np.float64, eps=1e-5, rtol=1e-4, atol=1e-6):
    args = tuple(np.asarray(a, dtype) for a in args)
    directions = tuple(DIRECTIONS.standard_normal(a.shape).astype(dtype) for a in args)
    staged = s4tf.function(fn)
    plus = np.asarray(staged(*(a + eps * d for a, d in zip(args, directions))), np.float64)
    minus = np.asarray(staged(*(a - eps * d for a, d in zip(args, directions))), np.float64)
    finite_difference = (plus - minus) / (2 * eps)
    value, tangent = s4tf.jvp(fn, args, directions)
    np.testing.assert_allclose(np.asarray(value), np.asarray(staged(*args)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(tangent), finite_difference, rtol=rtol, atol=atol)
    cotangent = DIRECTIONS.standard_normal(np.shape(finite_difference)).astype(dtype)
    _, pullback = s4tf.vjp(fn, *args)
    reverse = pullback(cotangent)
    lhs = float(np.sum(cotangent * np.asarray(tangent)))
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
