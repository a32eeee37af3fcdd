"""``s4tf.<name>``: the Array API's elementwise functions beyond :mod:`s4tf.arrays.numpy_api`'s:
inverse and hyperbolic trigonometry, ``atan2``, ``hypot``, ``expm1``, ``log2``,
``logaddexp``, ``erf``, the float predicates, ``trunc``, ``copysign``, ``nextafter``, bitwise xor and shifts.

```python
import numpy as np, s4tf

x = np.array([0.5, -1.0, 2.0], np.float32)
np.asarray(s4tf.logaddexp(x, 0.0)), np.asarray(s4tf.isfinite(x / 0))
```

Each is one op of the dialect (``s4tf.asin``, ``s4tf.xor``) or a short composition of ops
whose derivatives are known; dtypes are promoted as :mod:`s4tf.arrays.numpy_api` promotes them.
"""

from __future__ import annotations

import math

from s4tf.dialects.types import BOOL_DTYPE, is_float, is_integer
from s4tf.core.errors import DTypeError
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: abs)
    _as_operand, _elementwise, _float_operand, _result_dtype, _tensor, _unary_float, _weak_if_all_weak, abs, add,
    ceil, dtype_of, equal, exp, floor, full, less, log, log1p, logical_and, logical_or, maximum, negative,
    not_equal, sqrt, stop_gradient, subtract, where,
)

tan = _unary_float("tan")
asin = _unary_float("asin")
acos = _unary_float("acos")
atan = _unary_float("atan")
sinh = _unary_float("sinh")
cosh = _unary_float("cosh")
asinh = _unary_float("asinh")
acosh = _unary_float("acosh")
atanh = _unary_float("atanh")
expm1 = _unary_float("expm1")
erf = _unary_float("erf")
erfinv = _unary_float("erf_inv")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh


def _float_dtype(*values) -> str:
    dtype = _result_dtype(*values)
    return dtype if is_float(dtype) else _result_dtype(*values, 1.0)


def atan2(x1, x2):
    """Elementwise angle of the point ``(x2, x1)``, in ``[-pi, pi]``."""
    return _elementwise("atan2", x1, x2, dtype=_float_dtype(x1, x2))


arctan2 = atan2


def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)`` as ``|big| * sqrt(1 + (small / big)**2)``, ``big`` the
    operand of larger magnitude, so that it neither overflows nor underflows where the
    result does not. ``big`` and ``small`` keep their signs (a ``where`` picks them, no
    ``abs`` or ``maximum``): each branch is ``hypot`` itself, smooth away from ``(0, 0)``,
    so derivatives of every order are right at ties ``|x1| == |x2|`` and at ``x1 == 0``."""
    dtype = _float_dtype(x1, x2)
    x, y = _as_operand(x1, dtype), _as_operand(x2, dtype)
    swap = less(abs(x), abs(y))
    big, small = where(swap, y, x), where(swap, x, y)
    zero = equal(big, 0)
    ratio = small / where(zero, 1, big)
    result = where(zero, 0, abs(big) * sqrt(1 + ratio * ratio))
    # IEEE: an infinite operand gives inf even with a NaN beside it.
    return _weak_if_all_weak(where(logical_or(isinf(x), isinf(y)), math.inf, result), x1, x2)


def log2(x):
    return log(x) * (1 / math.log(2))


def log10(x):
    return log(x) * (1 / math.log(10))


def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow: ``hi + log1p(exp(lo - hi))``, with
    ``hi``, ``lo`` the larger and the smaller argument picked by a ``where``. Each branch
    is ``log(exp(x1) + exp(x2))`` itself, smooth everywhere, so derivatives of every order
    are right at ``x1 == x2`` too (``max`` and ``-|x1 - x2|`` have kinks there that cancel
    only in value). Equal infinities, whose difference is NaN, give ``x1 + x2``."""
    dtype = _float_dtype(x1, x2)
    a, b = _as_operand(x1, dtype), _as_operand(x2, dtype)
    b_larger = less(a, b)
    hi, lo = where(b_larger, b, a), where(b_larger, a, b)
    difference = subtract(a, b)
    smooth = add(hi, log1p(exp(subtract(lo, hi))))
    return _weak_if_all_weak(where(not_equal(difference, difference), add(a, b), smooth), x1, x2)


def isnan(x):
    """``x != x`` (lowered as neither ``|x| < inf`` nor ``|x| == inf``, which IREE's
    ``vmvx`` gets right: dialects/elementwise.py ``_self_compare``)."""
    x = _tensor(x)
    if not is_float(dtype_of(x)):
        return _full_bool(x, False)
    return not_equal(x, x)


def isinf(x):
    x = _tensor(x)
    return equal(abs(x), math.inf) if is_float(dtype_of(x)) else _full_bool(x, False)


def isfinite(x):
    x = _tensor(x)
    return less(abs(x), math.inf) if is_float(dtype_of(x)) else _full_bool(x, True)


def _full_bool(x, value: bool):
    return full(x.shape, value, BOOL_DTYPE)


def trunc(x):
    """Round toward zero; integers are returned as they are."""
    x = _tensor(x)
    if not is_float(dtype_of(x)):
        return x
    return where(less(x, 0), ceil(x), floor(x))


def signbit(x):
    """Whether the sign bit is set: true for negative numbers, ``-0.0`` and NaNs with the
    sign bit (``-np.nan``), as NumPy's."""
    x = _tensor(x)
    if not is_float(dtype_of(x)):
        return less(x, 0)
    return _elementwise("signbit", x)


def copysign(x1, x2):
    """``|x1|`` with the sign of ``x2`` (``-0.0`` counts as negative)."""
    dtype = _float_dtype(x1, x2)
    magnitude = abs(_as_operand(x1, dtype))
    return _weak_if_all_weak(where(signbit(_as_operand(x2, dtype)), negative(magnitude), magnitude), x1, x2)


def nextafter(x1, x2):
    """The next float after ``x1`` toward ``x2``, elementwise (float32 and float64)."""
    return _elementwise("nextafter", x1, x2, dtype=_float_dtype(x1, x2))


def reciprocal(x):
    """``1 / x`` in a float dtype: integers become float32 first (a tensor, also for a
    Python number)."""
    x = _tensor(x)
    return 1 / (x if is_float(dtype_of(x)) else _tensor(_float_operand(x)))


def positive(x):
    x = _tensor(x)
    if dtype_of(x) == BOOL_DTYPE:
        raise DTypeError("positive needs a number, got a bool tensor")
    return x


def logical_xor(x1, x2):
    return _elementwise("xor", x1, x2, dtype=BOOL_DTYPE)


def bitwise_xor(x1, x2):
    """``x1 ^ x2``: logical on bools, bitwise on integers (as in NumPy)."""
    return _elementwise("xor", x1, x2)


def _shift(op_name, x1, x2):
    dtype = _result_dtype(x1, x2)
    if not is_integer(dtype):
        raise DTypeError(f"bit shifts need integers, got {dtype}")
    return _elementwise(op_name, x1, x2, dtype=dtype)


def bitwise_left_shift(x1, x2):
    """``x1 << x2`` for integers."""
    return _shift("shift_left", x1, x2)


def bitwise_right_shift(x1, x2):
    """``x1 >> x2`` for integers (arithmetic: the sign is kept)."""
    return _shift("shift_right", x1, x2)


left_shift, right_shift = bitwise_left_shift, bitwise_right_shift


__all__ = [
    "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh",
    "atan", "atan2", "atanh", "bitwise_left_shift", "bitwise_right_shift", "bitwise_xor", "copysign", "cosh", "erf", "erfinv",
    "expm1", "hypot", "isfinite", "isinf", "isnan", "left_shift", "log10", "log2", "logaddexp", "logical_xor",
    "nextafter", "positive", "reciprocal", "right_shift", "signbit", "sinh", "tan", "trunc",
]
