"""``s4tf.scipy.special`` and ``s4tf.scipy.linalg`` against SciPy in f64 and f32 (one
staged function per dtype), derivatives against float64 finite differences, and errors
that name the user's line."""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.special
import scipy.stats

import s4tf
from s4tf.linalg import LinAlgError
from s4tf.scipy import linalg, special, stats

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

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
        m.ndtri(p), m.ndtri(p ** 30), m.log_ndtr(x * 8), m.erfc(x * 4), m.multigammaln(p * 5 + 1, 3),
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


def _stats(m, x, q, cov, points, mean):
    """Every distribution function of ``m`` (s4tf's or SciPy's ``stats``) at once."""
    return [
        m.norm.pdf(x, 0.5, 2.0), m.norm.logpdf(x), m.norm.cdf(x, 1.0, 3.0), m.norm.logcdf(x), m.norm.sf(x), m.norm.logsf(x),
        m.norm.ppf(q), m.norm.ppf(q, 1.0, 2.0), m.norm.isf(q), m.logistic.pdf(x), m.logistic.logpdf(x, 1.0, 2.0),
        m.logistic.cdf(x), m.logistic.sf(x), m.logistic.ppf(q), m.logistic.isf(q), m.uniform.logpdf(x, -1.0, 3.0),
        m.uniform.pdf(x, -1.0, 3.0), m.uniform.cdf(x, -1.0, 3.0), m.uniform.ppf(q, -1.0, 3.0),
        m.multivariate_normal.logpdf(points, mean, cov), m.multivariate_normal.pdf(points[0], mean, cov),
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_stats_against_scipy(dtype):
    x = np.concatenate([RNG.standard_normal(6) * 3, [-40.0, -12.0, -6.0, 7.0, 30.0]])  # far into both tails
    q = np.array([1e-12, 1e-5, 0.01, 0.02425, 0.3, 0.5, 0.7, 0.97, 0.99999, 1 - 1e-6, 0.0, 1.0])
    g = RNG.standard_normal((3, 3))
    args = [a.astype(dtype) for a in (x, q, g @ g.T + np.eye(3), RNG.standard_normal((4, 3)), RNG.standard_normal(3))]
    actual = s4tf.function(lambda *a: _stats(stats, *a))(*args)
    expected = _stats(scipy.stats, *(a.astype(np.float64) for a in args))  # at the same (rounded) points
    for index, (result, value) in enumerate(zip(actual, expected, strict=True)):
        result = np.asarray(result)
        assert result.shape == np.shape(value) and result.dtype == dtype, index
        np.testing.assert_allclose(result, value, rtol=TOLERANCE[dtype] * 20, atol=np.finfo(dtype).tiny, err_msg=str(index))


def test_derivatives():
    x, p, w = RNG.standard_normal((2, 3)), RNG.uniform(0.1, 0.9, (2, 3)), RNG.uniform(0.1, 1.0, (2, 3))
    directional_check(lambda x, p, w: s4tf.concatenate([s4tf.reshape(r, (-1,)) for r in (
        special.logsumexp(x, axis=1, b=w), special.logit(p), special.xlogy(x, p), special.gammaln(p * 5),
        special.gammaln(x - 0.5), special.ndtr(x), special.log_softmax(x, axis=0), special.multigammaln(p * 5 + 1, 4),
    )]), [x, p, w])
    spd = RNG.standard_normal((3, 3))
    spd = spd @ spd.T + 3 * np.eye(3)
    directional_check(lambda spd, b: linalg.cho_solve(linalg.cho_factor(spd), b), [spd, RNG.standard_normal((3, 2))])
    directional_check(lambda a: linalg.lu(a, permute_l=True)[1], [RNG.standard_normal((3, 3)) + 2 * np.eye(3)])


def test_stats_derivatives():
    x, q = np.array([-25.0, -3.0, -0.4, 0.3, 2.0, 9.0]), np.array([1e-3, 0.01, 0.3, 0.6, 0.99, 1 - 1e-3])
    loc, scale = np.array(0.3), np.array(1.7)
    g = RNG.standard_normal((3, 3))
    directional_check(lambda x, q, loc, scale: _flat(
        stats.norm.logpdf(x, loc, scale), stats.norm.logcdf(x, loc, scale), stats.norm.logsf(x, loc, scale),
        stats.norm.cdf(x / 4, loc, scale), stats.norm.ppf(q, loc, scale), stats.logistic.logpdf(x, loc, scale),
        stats.logistic.cdf(x / 4, loc, scale), stats.logistic.ppf(q, loc, scale), stats.uniform.logpdf(q, -loc, scale),
        special.erfc(x / 5), special.log_ndtr(x), special.ndtri(q),
    ), [x, q, loc, scale], eps=1e-6)  # the quantiles' curvature at 1 - 1e-3: a finite difference's step of 1e-5 is 1e-4 off
    directional_check(lambda points, mean, cov: stats.multivariate_normal.logpdf(points, mean, cov),
                      [RNG.standard_normal((4, 3)), RNG.standard_normal(3), g @ g.T + np.eye(3)])


def _flat(*results):
    return s4tf.concatenate([s4tf.reshape(r, (-1,)) for r in results])


def test_bad_arguments_name_the_users_line():
    here = rf"{Path(__file__).name}:\d+"
    with pytest.raises(LinAlgError, match=rf"{here}.*trans must be 0, 1, 2, 'N', 'T' or 'C', got 3"):
        linalg.solve_triangular(np.eye(2), np.ones(2), trans=3)
    with pytest.raises(LinAlgError, match=rf"{here}.*a must be a square matrix \(\.\.\., n, n\), got shape \(2, 3\)"):
        linalg.lu(np.ones((2, 3)))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*cov must have shape \(3, 3\) for x of shape \(2, 3\), got \(2, 2\)"):
        stats.multivariate_normal.logpdf(np.ones((2, 3)), np.zeros(3), np.eye(2))
    with pytest.raises(s4tf.S4tfError, match=rf"{here}.*multigammaln: the dimension d is a positive Python int, got 0"):
        special.multigammaln(3.0, 0)


def test_functions_of_python_numbers_keep_float64s_precision():
    """GradBench's mixture model adds ``k * multigammaln(0.5 * n, p)`` of Python numbers to
    a float64 objective: the float32 that s4tf makes of them by default meets it as the
    float64 number (SciPy's), not rounded to float32."""
    objective = s4tf.function(lambda x: x + 3 * special.multigammaln(2.5, 4) - special.gammaln(0.3))
    expected = 1.0 + 3 * scipy.special.multigammaln(2.5, 4) - scipy.special.gammaln(0.3)
    assert abs(float(objective(np.float64(1.0))) - expected) < 1e-14
    assert special.multigammaln(2.5, 4).dtype == np.float32 and special.gammaln(0.0) == np.inf
