"""``s4tf.scipy.special``: SciPy's special functions that s4tf composes.

```python
import numpy as np, s4tf
from s4tf.scipy import special

special.logsumexp(np.array([1.0, 2.0, 3.0]), b=np.array([1.0, -1.0, 2.0]), return_sign=True)
```
"""

from __future__ import annotations

import math

from s4tf.arrays import numpy_api as snp
from s4tf.arrays.math_functions import erf, isfinite
from s4tf.arrays.numpy_api import logistic as expit
from s4tf.arrays.numpy_math import erfc

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


def gammaln(x):
    """``log|gamma(x)|``: Lanczos' approximation, reflected below 0.5."""
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


def softmax(x, axis=None):
    """``exp(x)`` normalized over ``axis`` (all axes when ``None``, as SciPy's)."""
    return snp.exp(log_softmax(x, axis))


def log_softmax(x, axis=None):
    x = _float(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


__all__ = ["erf", "erfc", "expit", "gammaln", "log_softmax", "logit", "logsumexp", "ndtr", "softmax", "xlog1py", "xlogy"]
