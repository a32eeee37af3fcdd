"""``s4tf.<name>``: NumPy-named functions over tensors, staged or eager.

Operands may be tensors, NumPy arrays or Python scalars. Dtypes are promoted as NumPy 2
promotes them (``np.result_type``; Python scalars are weak, NEP 50): ``int32 + float32`` is
float64, ``int8_tensor + 1`` is int8, ``int_tensor + 1.5`` is float64. Where nothing gives a
dtype (Python scalars alone, ``zeros(shape)``), s4tf's defaults are float32 and int32.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from s4tf import pytree
from s4tf.dialects.composition import (  # the compositions the derivative rules share, re-exported
    DEFAULT_FLOAT, DEFAULT_INT, NUMPY_FLOAT, NUMPY_INT, add, asarray, astype, broadcast_to, concatenate, cos,
    divide, dot_general, dtype_of, equal, exp, expand_dims, full, full_like, greater, greater_equal, less,
    less_equal, log, log1p, maximum, minimum, multiply, negative, not_equal, op, power, reshape, rsqrt, shape_of,
    sign, sin, slice, sqrt, stack, subtract, sum, tanh, transpose, where, zeros, zeros_like,
    broadcast_in_dim, iota, logical_and, min, ones,
)
from s4tf.dialects.composition import apply1, as_operand as _as_operand, as_tensor as _tensor, axes_of as _axes
from s4tf.dialects.composition import check_device as _check_device
from s4tf.dialects.composition import elementwise as _elementwise, float_operand as _float_operand
from s4tf.dialects.composition import no_bool_loop as _no_bool_loop, normalize_axis as _normalize_axis
from s4tf.dialects.composition import reduction as _reduce, result_dtype as _result_dtype
from s4tf.dialects.composition import shape_tuple as _shape_tuple, unary_float as _unary_float
from s4tf.dialects.composition import stop_gradient as _stop_gradient, weak_if_all_weak as _weak_if_all_weak
from s4tf.dialects.types import BOOL_DTYPE, canonical_dtype, is_float
from s4tf.core.locations import shape_error


# -- elementwise ------------------------------------------------------------------------


def _rounding(op_name):
    def rounding(x):
        x = _tensor(x)
        return apply1(op_name, x) if is_float(x.tensor_type.dtype) else x

    rounding.__name__ = op_name
    rounding.__doc__ = f"Elementwise ``s4tf.{op_name}``; integers and bools are already whole: returned as they are."
    return rounding


floor = _rounding("floor")
ceil = _rounding("ceil")
round = _rounding("round")  # noqa: A001  (NumPy's name)
sigmoid = _unary_float("logistic")
sigmoid.__name__ = "sigmoid"
logistic = sigmoid


def abs(x):  # noqa: A001  (NumPy's name)
    return _elementwise("abs", x)


def logical_not(x):
    return apply1("not", _as_operand(x, "i1"))


def floor_divide(x, y):
    """``x // y`` as in Python and NumPy: the quotient rounded toward minus infinity."""
    dtype = _no_bool_loop(_result_dtype(x, y))
    if is_float(dtype):
        return _weak_if_all_weak(floor(divide(x, y)), x, y)
    lhs, rhs = _as_operand(x, dtype), _as_operand(y, dtype)
    quotient = apply1("div", lhs, rhs)  # integer division truncates toward zero
    rest = subtract(lhs, multiply(quotient, rhs))
    return _weak_if_all_weak(subtract(quotient, astype(_rounds_down(rest, rhs), dtype)), x, y)


def remainder(x, y):
    """``x % y`` as in Python and NumPy: zero or of the sign of ``y`` (a zero too: ``0.0 % -2``
    is ``-0.0``); a finite ``x`` modulo an infinite ``y`` is ``x`` where they have one sign,
    else ``y``."""
    dtype = _no_bool_loop(_result_dtype(x, y))
    if is_float(dtype):
        return _weak_if_all_weak(_float_remainder(_as_operand(x, dtype), _as_operand(y, dtype)), x, y)
    lhs, rhs = _as_operand(x, dtype), _as_operand(y, dtype)
    rest = subtract(lhs, multiply(apply1("div", lhs, rhs), rhs))
    return _weak_if_all_weak(where(_rounds_down(rest, rhs), add(rest, rhs), rest), x, y)


def _float_remainder(x, y):
    # the floored quotient is piecewise constant: no derivative flows through it
    rest = subtract(x, multiply(stop_gradient(floor(divide(x, y))), y))
    same_sign = logical_or(equal(x, 0), equal(less(x, 0), less(y, 0)))
    by_infinity = logical_and(equal(abs(y), math.inf), less(abs(x), math.inf))  # where x - 0 * inf is NaN
    rest = where(by_infinity, where(same_sign, x, y), rest)
    magnitude = abs(rest)
    return where(equal(rest, 0), where(less(y, 0), negative(magnitude), magnitude), rest)


def _rounds_down(rest, y):
    """Where a truncated quotient is one above the floored one: a non-zero remainder whose
    sign differs from the divisor's."""
    return logical_and(not_equal(rest, 0), not_equal(less(rest, 0), less(y, 0)))


def logical_or(x, y):
    return _elementwise("or", x, y, dtype="i1")


def bitwise_and(x, y):
    """``x & y``: logical on bools, bitwise on integers (as in NumPy)."""
    return _elementwise("and", x, y)


def bitwise_or(x, y):
    """``x | y``: logical on bools, bitwise on integers (as in NumPy)."""
    return _elementwise("or", x, y)


def invert(x):
    """``~x``: logical not on bools, bitwise not on integers (as in NumPy)."""
    return _elementwise("not", x)


select = where


cast = astype


def clip(x, min=None, max=None):  # noqa: A002  (the Array API's names)
    """``x`` limited to ``[min, max]``; a bound that is ``None`` limits nothing."""
    x = _tensor(x)
    x = x if min is None else maximum(x, min)
    return x if max is None else minimum(x, max)


def square(x):
    return multiply(x, x)


# -- creation ---------------------------------------------------------------------------


def ones_like(x, dtype=None, *, device=None):
    return full_like(x, 1, dtype, device=device)


def arange(start, stop=None, step=1, dtype=None, *, device=None):
    """``np.arange`` with static bounds, computed on the device from ``s4tf.iota``."""
    _check_device(device, "arange")
    if stop is None:
        start, stop = 0, start
    dtype = canonical_dtype(dtype) if dtype is not None else _result_dtype(start, stop, step)
    count = builtins.max(0, math.ceil((stop - start) / step))
    indices = apply1("iota", shape=(count,), dimension=0, dtype=dtype)
    if step != 1:
        indices = multiply(indices, step)
    return indices if start == 0 else add(indices, start)


# -- shapes -----------------------------------------------------------------------------


def squeeze(x, axis=None):
    x = _tensor(x)
    rank = len(x.shape)
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else [
        _normalize_axis(a, rank) for a in ((axis,) if isinstance(axis, int) else axis)
    ]
    for a in axes:
        if x.shape[a] != 1:
            raise shape_error(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


def pad(x, pad_width, constant_values=0):
    """``np.pad`` in constant mode; ``pad_width`` is an int, a pair, or one pair per axis.
    A negative width crops that many elements from its edge (as ``lax.pad``)."""
    x = _tensor(x)
    rank = len(x.shape)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (rank, 2))
    value = _as_operand(constant_values, x.tensor_type.dtype).reshape(())
    return apply1(
        "pad", x, value, low=tuple(widths[:, 0]), high=tuple(widths[:, 1]), interior=(0,) * rank
    )


def flip(x, axis=None):
    """``np.flip``: reverse the order of elements along ``axis`` (all axes when ``None``)."""
    x = _tensor(x)
    axes = _axes(axis, len(x.shape))
    return apply1("reverse", x, axes=axes) if axes else x  # IREE cannot compile a reverse of no axes


def stop_gradient(x):
    """``x``, with a derivative of zero: differentiation treats it as a constant. ``x`` may
    be a pytree (a tuple, list, dict or dataclass): each of its leaves is stopped."""
    return pytree.tree_map(_stop_gradient, x)


# -- reductions -------------------------------------------------------------------------


def max(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    return _reduce("reduce_max", x, axis, keepdims)


def mean(x, axis=None, keepdims=False):
    return _reduce("reduce_mean", _float_operand(_tensor(x)), axis, keepdims)


def argmax(x, axis=None, keepdims=False, dtype=np.int32):
    """Index of the first maximum; ``axis=None`` looks at the flattened tensor."""
    x = _tensor(x)
    if axis is None:
        x, axis = reshape(x, -1), 0
    return apply1(
        "argmax", x, axis=_normalize_axis(axis, len(x.shape)), keepdims=bool(keepdims), dtype=canonical_dtype(dtype)
    )


def logsumexp(x, axis=None, keepdims=False):
    x = _float_operand(_tensor(x))
    peak = max(x, axis=axis, keepdims=True)
    peak = stop_gradient(where(equal(peak, peak), peak, 0.0))  # the value does not depend on the shift
    total = log(sum(exp(subtract(x, peak)), axis=axis, keepdims=True))
    result = add(total, peak)
    return result if keepdims else squeeze(result, axis=_axes(axis, len(x.shape)))


def softmax(x, axis=-1):
    x = _float_operand(_tensor(x))
    shifted = exp(subtract(x, stop_gradient(max(x, axis=axis, keepdims=True))))  # as JAX's: no derivative of the shift
    return divide(shifted, sum(shifted, axis=axis, keepdims=True))


def log_softmax(x, axis=-1):
    x = _float_operand(_tensor(x))
    shifted = subtract(x, stop_gradient(max(x, axis=axis, keepdims=True)))  # as JAX's: no derivative of the shift
    return subtract(shifted, log(sum(exp(shifted), axis=axis, keepdims=True)))


def relu(x):
    return maximum(x, 0)


# -- contractions -----------------------------------------------------------------------


def preferred(x, y, preferred_element_type):
    """``x`` and ``y`` converted to ``preferred_element_type`` (the product's dtype, JAX's
    argument) when given, so that the product accumulates in it."""
    if preferred_element_type is None:
        return x, y
    return astype(x, preferred_element_type), astype(y, preferred_element_type)


def matmul(x, y, *, precision=None, preferred_element_type=None):
    """``np.matmul``: 1-D operands are promoted, batch dimensions broadcast. ``precision``
    (JAX's) is accepted and ignored: on the CPU, float32 products are always computed in
    full float32 precision. ``preferred_element_type``: the result's dtype."""
    x, y = preferred(x, y, preferred_element_type)
    dtype = _result_dtype(x, y)
    if dtype == BOOL_DTYPE:  # as NumPy's: the or of ands
        return not_equal(matmul(astype(x, DEFAULT_INT), astype(y, DEFAULT_INT)), 0)
    x, y = _tensor(_as_operand(x, dtype)), _tensor(_as_operand(y, dtype))
    x_rank, y_rank = len(x.shape), len(y.shape)
    if x_rank == 0 or y_rank == 0:
        raise shape_error("matmul needs operands of rank >= 1; use * for scalars")
    x2 = reshape(x, (1, x.shape[0])) if x_rank == 1 else x
    y2 = reshape(y, (y.shape[0], 1)) if y_rank == 1 else y
    if x2.shape[-1] != y2.shape[-2]:
        raise shape_error(
            f"matmul: incompatible shapes {tuple(x.shape)} and {tuple(y.shape)}: "
            f"{x2.shape[-1]} columns against {y2.shape[-2]} rows"
        )
    if y_rank == 2 and x_rank >= 2:  # (..., k) by (k, n): one product over all leading axes, the matrix not broadcast
        return apply1("dot_general", x, y, lhs_batch=(), rhs_batch=(), lhs_contract=(x_rank - 1,), rhs_contract=(0,))
    try:
        batch = tuple(np.broadcast_shapes(tuple(x2.shape[:-2]), tuple(y2.shape[:-2])))
    except ValueError:
        raise shape_error(
            f"matmul: incompatible shapes {tuple(x.shape)} and {tuple(y.shape)}: "
            f"batch dimensions {tuple(x2.shape[:-2])} and {tuple(y2.shape[:-2])} do not broadcast"
        ) from None
    nb = len(batch)
    if nb:
        x2 = broadcast_to(x2, batch + tuple(x2.shape[-2:]))
        y2 = broadcast_to(y2, batch + tuple(y2.shape[-2:]))
    result = apply1(
        "dot_general", x2, y2,
        lhs_batch=tuple(range(nb)), rhs_batch=tuple(range(nb)), lhs_contract=(nb + 1,), rhs_contract=(nb,),
    )
    final = list(result.shape)
    if y_rank == 1:
        final.pop(-1)
    if x_rank == 1:
        final.pop(-2 if y_rank != 1 else -1)
    return reshape(result, final)


def _pair(value, name) -> tuple:
    pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(pair) != 2:
        raise shape_error(f"{name} must be an int or a pair, got {value!r}")
    return tuple(int(v) for v in pair)


def _padding(padding, spatial, window, strides, dilation) -> tuple:
    """``(top, bottom, left, right)`` from ``"valid"``, ``"same"``, an int or pairs."""
    if isinstance(padding, str):
        if padding.lower() == "valid":
            return (0, 0, 0, 0)
        if padding.lower() != "same":
            raise shape_error(f"padding must be 'valid', 'same', an int or pairs, got {padding!r}")
        result = []
        for size, k, s, d in zip(spatial, window, strides, dilation):
            total = builtins.max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
            result += [total // 2, total - total // 2]
        return tuple(result)
    if isinstance(padding, (int, np.integer)):
        return (int(padding),) * 4
    pairs = [_pair(p, "padding") for p in padding]
    if len(pairs) != 2:
        raise shape_error(f"padding needs one pair per spatial axis, got {padding!r}")
    return (*pairs[0], *pairs[1])


def conv2d(x, w, strides=1, padding="valid", dilation=1, groups=1, *, lhs_dilation=1):
    """2-D convolution, input NHWC, filter HWIO (as TensorFlow); ``lhs_dilation`` spreads the
    input's rows and columns apart first (then padding is ``"valid"`` or explicit, as in JAX:
    :func:`conv_transpose` says what ``"same"`` means there)."""
    dtype = _result_dtype(x, w)
    x, w = _tensor(_as_operand(x, dtype)), _tensor(_as_operand(w, dtype))
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise shape_error(f"conv2d needs a rank-4 NHWC input and HWIO filter, got {tuple(x.shape)} and {tuple(w.shape)}")
    strides, dilation, lhs_dilation = _pair(strides, "strides"), _pair(dilation, "dilation"), _pair(lhs_dilation, "lhs_dilation")
    if lhs_dilation != (1, 1) and isinstance(padding, str) and padding.lower() == "same":
        raise shape_error("conv2d with lhs_dilation takes 'valid' or explicit padding: conv_transpose says what 'same' means there")
    return apply1(
        "conv2d", x, w,
        strides=strides,
        padding=_padding(padding, x.shape[1:3], w.shape[0:2], strides, dilation),
        lhs_dilation=lhs_dilation,
        rhs_dilation=dilation,
        feature_group_count=int(groups),
    )


def conv_transpose(x, w, strides=1, padding="valid", dilation=1):
    """Transposed 2-D convolution, input NHWC, filter HWIO (``(kh, kw, in, out)``, not
    flipped): ``jax.lax.conv_transpose`` with TensorFlow's layouts, its default. The input
    is dilated by ``strides``; ``"valid"`` gives ``H * s + max(kh' - s, 0)`` rows (``kh'``
    the dilated filter's height), ``"same"`` gives ``H * s``; explicit pairs pad the dilated
    input. The gradient of ``conv2d`` with respect to its input, as a layer's forward."""
    dtype = _result_dtype(x, w)
    x, w = _tensor(_as_operand(x, dtype)), _tensor(_as_operand(w, dtype))
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise shape_error(f"conv_transpose needs a rank-4 NHWC input and HWIO filter, got {tuple(x.shape)} and {tuple(w.shape)}")
    strides, dilation = _pair(strides, "strides"), _pair(dilation, "dilation")
    if isinstance(padding, str) and padding.lower() in ("valid", "same"):
        windows = [(k - 1) * d + 1 for k, d in zip(w.shape[:2], dilation)]
        pads = tuple(p for k, s in zip(windows, strides) for p in _transpose_padding(k, s, padding.lower()))
    elif isinstance(padding, str):
        raise shape_error(f"padding must be 'valid', 'same', an int or pairs, got {padding!r}")
    else:
        pads = _padding(padding, x.shape[1:3], w.shape[0:2], (1, 1), dilation)
    return apply1("conv2d", x, w, strides=(1, 1), padding=pads, lhs_dilation=strides, rhs_dilation=dilation,
                  feature_group_count=1)


def _transpose_padding(k: int, s: int, padding: str) -> tuple[int, int]:
    """Rows before and after the dilated input (``jax.lax.conv_transpose``'s padding)."""
    if padding == "same":
        total = k + s - 2
        before = k - 1 if s > k - 1 else -(-total // 2)
    else:
        total, before = k + s - 2 + builtins.max(k - s, 0), k - 1
    return before, total - before


def _pool(op_name, x, window, strides, padding):
    x = _float_operand(_tensor(x))
    window = _pair(window, "window")
    strides = window if strides is None else _pair(strides, "strides")
    if len(x.shape) != 4:
        raise shape_error(f"pooling needs a rank-4 NHWC input, got {tuple(x.shape)}")
    return apply1(
        op_name, x, window=window, strides=strides, padding=_padding(padding, x.shape[1:3], window, strides, (1, 1))
    )


def max_pool2d(x, window=2, strides=None, padding="valid"):
    """Max pooling over NHWC input; ``strides`` defaults to the window."""
    return _pool("max_pool2d", x, window, strides, padding)


def avg_pool2d(x, window=2, strides=None, padding="valid"):
    """Average pooling over NHWC input, counting only unpadded elements."""
    return _pool("avg_pool2d", x, window, strides, padding)


__all__ = [
    "abs", "add", "arange", "argmax", "asarray", "astype", "avg_pool2d", "bitwise_and", "bitwise_or",
    "broadcast_in_dim",
    "broadcast_to", "cast", "ceil", "clip", "concatenate", "conv2d", "conv_transpose", "cos", "divide",
    "dot_general", "equal", "exp", "expand_dims", "flip", "floor", "floor_divide", "full", "full_like",
    "greater", "greater_equal", "invert", "iota", "less", "less_equal", "log", "log1p", "log_softmax",
    "logical_and", "logical_not", "logical_or", "logistic", "logsumexp", "matmul", "max",
    "max_pool2d", "maximum", "mean", "min", "minimum", "multiply", "negative", "not_equal",
    "ones", "ones_like", "op", "pad", "power", "relu", "remainder", "reshape", "round", "rsqrt", "select",
    "sigmoid", "sign", "sin", "slice", "softmax", "sqrt", "square", "squeeze", "stack", "stop_gradient",
    "subtract", "sum", "tanh", "transpose", "where", "zeros", "zeros_like",
]
