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


def erfc(x):
    """``1 - erf(x)`` (as ``scipy.special.erfc``; for ``x`` above about 4 in float32 it is 0,
    not the tiny value)."""
    return 1 - erf(x)


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
