"""``s4tf.scipy.special`` and ``s4tf.scipy.linalg`` against SciPy in f64 and f32 (one
staged function per dtype), derivatives against float64 finite differences, and errors
that name the user's line."""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.special

import s4tf
from s4tf.linalg import LinAlgError
from s4tf.scipy import linalg, special

sys.path.insert(0, str(Path(__file__).parents[1] / "autodiff"))
from gradient_checks import directional_check  # noqa: E402

RNG = np.random.default_rng(9)
TOLERANCE = {np.float64: 1e-12, np.float32: 1e-5}


def _special(m, x, p, w):
    """Every function of ``m`` (s4tf's or SciPy's ``special``) at once."""
    return [
        m.logsumexp(x), m.logsumexp(x, axis=1), m.logsumexp(x, axis=0, keepdims=True), m.logsumexp(x, axis=1, b=w),
        *m.logsumexp(x, axis=1, b=w - 0.5, return_sign=True), m.erf(x), m.erfc(x), m.expit(x), m.logit(p),
        m.xlogy(x, p), m.xlogy(x[0] * (x[0] > 0), p[0] * (x[0] > 0)), m.xlog1py(x, p), m.ndtr(x),
        m.gammaln(p * 10), m.gammaln(x * 3), m.softmax(x), m.softmax(x, axis=0), m.log_softmax(x, axis=1),
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_special_against_scipy(dtype):
    x, p, w = RNG.standard_normal((3, 4)), RNG.uniform(0.05, 0.95, (3, 4)), RNG.uniform(0.1, 1.0, (3, 4))
    x[0, 0] = -0.5  # gammaln at a negative half-integer: the reflection
    args = [a.astype(dtype) for a in (x, p, w)]
    actual = s4tf.function(lambda *a: _special(special, *a))(*args)
    expected = _special(scipy.special, x, p, w)
    for index, (result, value) in enumerate(zip(actual, expected, strict=True)):
        result = np.asarray(result)
        assert result.shape == np.shape(value), index
        np.testing.assert_allclose(result, value, rtol=TOLERANCE[dtype] * 30, atol=TOLERANCE[dtype] * 30, err_msg=str(index))
        assert result.dtype == dtype, index


def _linalg(m, lower, upper, a, spd, b, v):
    c_lower, c_upper = m.cho_factor(spd, lower=True)[0], m.cho_factor(spd)[0]
    return [
        m.solve_triangular(lower, b, lower=True), m.solve_triangular(upper, v), m.solve_triangular(lower, b, trans="T", lower=True),
        m.solve_triangular(upper, b, trans=1, unit_diagonal=True), m.cholesky(spd), m.cholesky(spd, lower=True),
        m.cho_solve((c_lower, True), b), m.cho_solve((c_upper, False), v), *m.lu(a), *m.lu(a, permute_l=True),
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_linalg_against_scipy(dtype):
    a = RNG.standard_normal((4, 4)) + 3 * np.eye(4)
    a[0, 0] = 0.0  # lu must pivot
    g = RNG.standard_normal((4, 4))
    spd, b, v = g @ g.T + 4 * np.eye(4), RNG.standard_normal((4, 2)), RNG.standard_normal(4)
    triangles = RNG.standard_normal((4, 4)) + 3 * np.eye(4)
    args = (np.tril(triangles), np.triu(triangles), a, spd, b, v)
    staged = s4tf.function(lambda *args: [*_linalg(linalg, *args), *linalg.cho_factor(args[3])[:1]])
    actual = staged(*(t.astype(dtype) for t in args))
    expected = [*_linalg(scipy.linalg, *args), np.triu(scipy.linalg.cho_factor(spd)[0])]
    for index, (result, value) in enumerate(zip(actual, expected, strict=True)):
        np.testing.assert_allclose(np.asarray(result, np.float64), value, rtol=TOLERANCE[dtype] * 100, atol=TOLERANCE[dtype] * 100, err_msg=str(index))
    assert linalg.cho_factor(spd)[1] is False


def test_derivatives():
    x, p, w = RNG.standard_normal((2, 3)), RNG.uniform(0.1, 0.9, (2, 3)), RNG.uniform(0.1, 1.0, (2, 3))
    directional_check(lambda x, p, w: s4tf.concatenate([s4tf.reshape(r, (-1,)) for r in (
        special.logsumexp(x, axis=1, b=w), special.logit(p), special.xlogy(x, p), special.gammaln(p * 5),
        special.gammaln(x - 0.5), special.ndtr(x), special.log_softmax(x, axis=0),
    )]), [x, p, w])
    spd = RNG.standard_normal((3, 3))
    spd = spd @ spd.T + 3 * np.eye(3)
    directional_check(lambda spd, b: linalg.cho_solve(linalg.cho_factor(spd), b), [spd, RNG.standard_normal((3, 2))])
    directional_check(lambda a: linalg.lu(a, permute_l=True)[1], [RNG.standard_normal((3, 3)) + 2 * np.eye(3)])


def test_bad_arguments_name_the_users_line():
    here = rf"{Path(__file__).name}:\d+"
    with pytest.raises(LinAlgError, match=rf"{here}.*trans must be 0, 1, 2, 'N', 'T' or 'C', got 3"):
        linalg.solve_triangular(np.eye(2), np.ones(2), trans=3)
    with pytest.raises(LinAlgError, match=rf"{here}.*a must be a square matrix \(\.\.\., n, n\), got shape \(2, 3\)"):
        linalg.lu(np.ones((2, 3)))
