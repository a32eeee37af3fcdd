"""Checking derivatives against central finite differences, forward and reverse mode.

``directional_check(fn, args)``: the JVP along a random direction must match the finite
difference of ``fn`` along it, and the VJP must satisfy <ct, J v> = <J^T ct, v>.
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
