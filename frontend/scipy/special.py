"""``s4tf.scipy.special``: SciPy's special functions that s4tf composes.

```python
import numpy as np, s4tf
from s4tf.scipy import special

special.logsumexp(np.array([1.0, 2.0, 3.0]), b=np.array([1.0, -1.0, 2.0]), return_sign=True)
```
"""

from __future__ import annotations

import math

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError
from s4tf.core.locations import user_location
from s4tf.dialects.composition import is_python_scalar
from s4tf.arrays.math_functions import erf, isfinite
from s4tf.arrays.numpy_api import logistic as expit
from s4tf.arrays.numpy_math import erfc, polynomial

# Lanczos' approximation, g = 7, 9 terms (Numerical Recipes' and Boost's choice): relative
# error about 1e-15 for x > 0.5.
_LANCZOS_G = 7.0
_LANCZOS = (
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
)


def _float(x):
    return snp.asarray(snp._float_operand(x))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``log(sum(b * exp(a)))`` over ``axis``, stable; with ``return_sign``, ``(log|sum|,
    sign(sum))`` (the sum may be negative when ``b`` is)."""
    if b is None and not return_sign:
        return snp.logsumexp(a, axis=axis, keepdims=keepdims)
    a = _float(a)
    peak = snp.stop_gradient(snp.max(a, axis=axis, keepdims=True))
    peak = snp.where(isfinite(peak), peak, snp.zeros((), a.dtype))
    scaled = snp.exp(a - peak) if b is None else snp.exp(a - peak) * b
    total = snp.sum(scaled, axis=axis, keepdims=True)
    magnitude = snp.log(snp.abs(total) if return_sign else total) + peak
    if not keepdims:
        magnitude = snp.squeeze(magnitude, axis=axis)
        total = snp.squeeze(total, axis=axis)
    return (magnitude, snp.sign(total)) if return_sign else magnitude


def logit(p):
    """``log(p / (1 - p))``, the inverse of ``expit``."""
    p = _float(p)
    return snp.log(p) - snp.log1p(-p)


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x`` is 0 (also where ``y`` is)."""
    zero = snp.equal(x, 0)
    return snp.where(zero, 0.0, x * snp.log(snp.where(zero, 1.0, y)))


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x`` is 0."""
    zero = snp.equal(x, 0)
    return snp.where(zero, 0.0, x * snp.log1p(snp.where(zero, 0.0, y)))


def ndtr(x):
    """The standard normal distribution function."""
    return 0.5 * erfc(-_float(x) / math.sqrt(2.0))


def log_ndtr(x):
    """``log(ndtr(x))``, accurate in both tails: above 0 ``log(1 - ndtr(-x))`` (a series
    where ``ndtr(-x)`` is below 1e-4), below -10 (float32) or -20 (float64) the asymptotic
    series ``log(pdf(x) / -x * (1 - 1/x**2 + 3/x**4 - 15/x**6))``, ``log(ndtr(x))`` between."""
    x = _float(x)
    lower = -20.0 if x.dtype == np.float64 else -10.0
    upper_tail = ndtr(-snp.where(x > 0, x, 1.0))  # safe values in the branches a where drops
    small = snp.minimum(upper_tail, 1e-4)
    above = snp.where(upper_tail < 1e-4, -small * (1.0 + small * (0.5 + small * (1.0 / 3.0 + small * 0.25))),
                      snp.log(1.0 - upper_tail))
    low = snp.where(x > lower, lower, x)
    inverse_square = 1.0 / (low * low)
    series = 1.0 + inverse_square * (-1.0 + inverse_square * (3.0 - 15.0 * inverse_square))
    tail = -0.5 * low * low - snp.log(-low) - 0.5 * math.log(2 * math.pi) + snp.log(series)
    return snp.where(x > 0, above, snp.where(x > lower, snp.log(ndtr(snp.where((x > lower) & (x <= 0), x, -1.0))), tail))


# Acklam's rational approximations of the normal quantile (relative error 1.2e-9), made
# exact to the float64 rounding by one Halley step.
_ACKLAM_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
             -3.066479806614716e01, 2.506628277459239e00)
_ACKLAM_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
             -1.328068155288572e01, 1.0)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
             4.374664141464968e00, 2.938163982698783e00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00, 1.0)


def ndtri(p):
    """The inverse of ``ndtr``: ``-inf`` at 0, ``inf`` at 1, NaN outside ``[0, 1]``."""
    p = _float(p)
    inside = (p > 0) & (p < 1)
    safe = snp.where(inside, p, 0.5)
    tail = snp.minimum(safe, 1.0 - safe)  # the lower tail, mirrored for the upper
    q = snp.sqrt(-2.0 * snp.log(snp.where(tail < 0.02425, tail, 0.01)))
    tails = polynomial(_ACKLAM_C, q) / polynomial(_ACKLAM_D, q)
    tails = snp.where(safe > 0.5, -tails, tails)
    r = (safe - 0.5) ** 2
    central = (safe - 0.5) * polynomial(_ACKLAM_A, r) / polynomial(_ACKLAM_B, r)
    x = snp.where(tail < 0.02425, tails, central)
    error = snp.where(safe > 0.5, (1.0 - safe) - ndtr(-x), ndtr(x) - safe)  # in the smaller tail: no cancellation
    u = error * math.sqrt(2 * math.pi) * snp.exp(0.5 * x * x)
    x = x - u / (1.0 + 0.5 * x * u)
    edges = snp.where(p == 0, -np.inf, snp.where(p == 1, np.inf, np.nan))
    return snp.where(inside, x, edges)


def gammaln(x):
    """``log|gamma(x)|``: Lanczos' approximation, reflected below 0.5; of a Python number,
    Python's ``math.lgamma`` (a float32 keeping its float64 value, as ``s4tf.log(2.0)``)."""
    if is_python_scalar(x):
        try:
            return snp.asarray(math.lgamma(x))
        except ValueError:  # a pole: 0, -1, -2, ...
            return snp.asarray(math.inf)
    x = _float(x)
    reflect = x < 0.5
    z = snp.where(reflect, 1.0 - x, x) - 1.0
    series = _LANCZOS[0]
    for k, coefficient in enumerate(_LANCZOS[1:], start=1):
        series = series + coefficient / (z + float(k))
    t = z + (_LANCZOS_G + 0.5)
    positive = 0.5 * math.log(2 * math.pi) + (z + 0.5) * snp.log(t) - t + snp.log(series)
    reflected = math.log(math.pi) - snp.log(snp.abs(snp.sin(math.pi * x))) - positive
    return snp.where(reflect, reflected, positive)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (SciPy's and JAX's):
    ``d (d - 1) / 4 log(pi) + sum(gammaln(a - j / 2) for j in range(d))``."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise S4tfError(f"multigammaln: the dimension d is a positive Python int, got {d!r}", str(user_location() or "") or None)
    total = gammaln(a)
    for j in range(1, int(d)):
        total = total + gammaln(a - j / 2)
    return total + d * (d - 1) / 4 * math.log(math.pi)


def softmax(x, axis=None):
    """``exp(x)`` normalized over ``axis`` (all axes when ``None``, as SciPy's)."""
    return snp.exp(log_softmax(x, axis))


def log_softmax(x, axis=None):
    x = _float(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


__all__ = ["erf", "erfc", "expit", "gammaln", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "softmax", "xlog1py", "xlogy"]
