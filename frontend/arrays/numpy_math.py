"""``s4tf.<name>``: NumPy's elementwise functions beyond the Array API's: ``exp2``,
``cbrt``, ``erfc``, ``sinc``, ``logaddexp2``, ``deg2rad``/``radians``,
``rad2deg``/``degrees``, ``fmax``, ``fmin``, ``fmod``, ``nan_to_num``, ``isclose``,
``allclose`` and ``absolute`` (``abs``).

```python
import numpy as np, s4tf

x = np.array([-2.0, 0.0, 0.5, np.nan], np.float32)
np.asarray(s4tf.sinc(x)), np.asarray(s4tf.fmax(x, 0.0)), np.asarray(s4tf.nan_to_num(x, nan=-1.0))
```

Each is a composition of ops whose derivatives are known; dtypes are promoted as
:mod:`s4tf.arrays.numpy_api` promotes them (integer inputs of the float functions become float32).
"""

from __future__ import annotations

import math

import numpy as np

from s4tf.arrays.math_functions import _float_dtype, erf, isinf, isnan, logaddexp, trunc
from s4tf.arrays.statistics import all as _all
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: abs)
    _as_operand, _float_operand, _result_dtype, _tensor, _weak_if_all_weak, abs, apply1, divide, dtype_of, equal,
    exp, maximum, minimum, multiply, power, sign, sin, subtract, where,
)
from s4tf.dialects.types import is_float

_LN2 = math.log(2)

absolute = abs


def fabs(x):
    """``|x|`` as a float (integers become the default float, as in JAX)."""
    return abs(_float_operand(x))


def exp2(x):
    """``2 ** x``."""
    return exp(_float_operand(x) * _LN2)


def cbrt(x):
    """The real cube root: ``sign(x) * |x| ** (1/3)``."""
    x = _float_operand(x)
    return sign(x) * power(abs(x), 1 / 3)


# Cephes' erfc (ndtr.c): for 1 <= |x| < 8, exp(-x**2) P(|x|) / Q(|x|); from 8, R / S; the
# leading coefficients of Q and S are 1. Relative error 6e-14 in float64.
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0, 4.86371970985681366614e1,
           1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2, 1.02755188689515710272e3,
           5.57535335369399327526e2)
_ERFC_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2, 9.75708501743205489753e2,
           1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2)
_ERFC_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0, 6.16021097993053585195e0,
           7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1, 1.70814450747565897222e1,
           9.60896809063285878198e0, 3.36907645100081516050e0)


def polynomial(coefficients, x):
    """``coefficients[0] * x**n + ... + coefficients[n]`` by Horner's rule."""
    result = coefficients[0]
    for coefficient in coefficients[1:]:
        result = result * x + coefficient
    return result


def erfc(x):
    """``1 - erf(x)`` without its cancellation: below 1 in magnitude ``1 - erf(x)``, beyond
    Cephes' rational approximations of ``exp(x**2) erfc(|x|)`` (as ``scipy.special.erfc``,
    to 1e-13 relative in float64, and tiny values rather than 0 in the tail)."""
    x = _float_operand(x)
    a = abs(x)
    far = maximum(a, 1.0)  # the branch that a where drops must stay finite, with its derivative
    ratio = where(far < 8.0, polynomial(_ERFC_P, far) / polynomial(_ERFC_Q, far),
                  polynomial(_ERFC_R, far) / polynomial(_ERFC_S, far))
    tail = exp(-far * far) * ratio
    tail = where(x < 0, 2.0 - tail, tail)
    return where(a < 1.0, 1.0 - erf(x), tail)


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0 (with a derivative of 0 there)."""
    x = _float_operand(x)
    zero = equal(x, 0)
    scaled = where(zero, 1.0, x) * math.pi  # no 0 / 0 in the branch the where drops, nor in its derivative
    return where(zero, 1.0, sin(scaled) / scaled)


def logaddexp2(x1, x2):
    """``log2(2 ** x1 + 2 ** x2)`` without overflow."""
    dtype = _float_dtype(x1, x2)
    a, b = _as_operand(x1, dtype), _as_operand(x2, dtype)
    return _weak_if_all_weak(logaddexp(a * _LN2, b * _LN2) * (1 / _LN2), x1, x2)


def deg2rad(x):
    """Degrees to radians."""
    return _float_operand(x) * (math.pi / 180)


def rad2deg(x):
    """Radians to degrees."""
    return _float_operand(x) * (180 / math.pi)


radians, degrees = deg2rad, rad2deg


def _nan_ignoring(pick, x1, x2):
    dtype = _result_dtype(x1, x2)
    a, b = _as_operand(x1, dtype), _as_operand(x2, dtype)
    if not is_float(dtype):
        return _weak_if_all_weak(pick(a, b), x1, x2)
    return _weak_if_all_weak(where(isnan(b), a, where(isnan(a), b, pick(a, b))), x1, x2)


def fmax(x1, x2):
    """Elementwise maximum that ignores a NaN beside a number (NaN only where both are)."""
    return _nan_ignoring(maximum, x1, x2)


def fmin(x1, x2):
    """Elementwise minimum that ignores a NaN beside a number (NaN only where both are)."""
    return _nan_ignoring(minimum, x1, x2)


def fmod(x1, x2):
    """C's remainder of ``x1 / x2``, of the sign of ``x1`` (``s4tf.remainder`` takes ``x2``'s);
    integers divided by 0 give 0, as NumPy's."""
    dtype = _result_dtype(x1, x2)
    a, b = _as_operand(x1, dtype), _as_operand(x2, dtype)
    if is_float(dtype):
        rest = subtract(a, multiply(trunc(divide(a, b)), b))
        rest = where(isinf(b) & ~isinf(a), a, rest)  # a finite x1 modulo an infinite x2 is x1
        return _weak_if_all_weak(where(equal(rest, 0), a * 0, rest), x1, x2)  # a zero keeps x1's sign
    safe = where(equal(b, 0), 1, b)
    rest = subtract(a, multiply(apply1("div", a, safe), safe))  # integer division truncates toward zero
    return _weak_if_all_weak(where(equal(b, 0), 0, rest), x1, x2)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaNs replaced by ``nan`` and infinities by ``posinf``/``neginf`` (by
    default the largest and the smallest finite value of its dtype)."""
    x = _tensor(x)
    dtype = dtype_of(x)
    if not is_float(dtype):
        return x
    info = np.finfo(np.dtype(x.dtype))
    high = float(info.max) if posinf is None else posinf
    low = float(info.min) if neginf is None else neginf
    x = where(isnan(x), nan, x)
    return where(isinf(x), where(x > 0, high, low), x)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``|a - b| <= atol + rtol * |b|`` elementwise; infinities are close to
    themselves only, NaNs to each other only with ``equal_nan``."""
    dtype = _float_dtype(a, b)
    x, y = _as_operand(a, dtype), _as_operand(b, dtype)
    finite = abs(subtract(x, y)) <= atol + rtol * abs(y)
    close = where(isinf(x) | isinf(y), equal(x, y), finite)
    return close | (isnan(x) & isnan(y)) if equal_nan else close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether :func:`isclose` holds everywhere: a 0-d bool tensor (``bool()`` of it outside staging)."""
    return _all(isclose(a, b, rtol, atol, equal_nan))


__all__ = [
    "absolute", "allclose", "cbrt", "fabs", "deg2rad", "degrees", "erfc", "exp2", "fmax", "fmin", "fmod", "isclose", "logaddexp2", "nan_to_num", "rad2deg",
    "radians", "sinc",
]
