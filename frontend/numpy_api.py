"""``s4tf.<name>``: NumPy-named functions over tensors, staged or eager.

Operands may be tensors, NumPy arrays or Python scalars. Dtypes are promoted as NumPy 2
promotes them (``np.result_type``; Python scalars are weak, NEP 50): ``int32 + float32`` is
float64, ``int8_tensor + 1`` is int8, ``int_tensor + 1.5`` is float64. Where nothing gives a
dtype (Python scalars alone, ``zeros(shape)``), s4tf's defaults are float32 and int32.
"""

from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from s4tf import pytree
from s4tf.dialects.types import BOOL_DTYPE, canonical_dtype, is_float, is_integer, promote_dtypes, to_numpy_dtype
from s4tf.dispatch import apply1
from s4tf.errors import DTypeError, ShapeError
from s4tf.locations import user_location
from s4tf.tensor import Tensor, Tracer, is_python_scalar

#: s4tf's default dtypes: of Python scalars alone, and of tensors created with no dtype.
DEFAULT_FLOAT = "f32"
DEFAULT_INT = "i32"
#: NumPy's default dtypes: what a Python float makes of integers and bools, and a Python
#: int of bools, in an op with a tensor or array (NEP 50).
NUMPY_FLOAT = "f64"
NUMPY_INT = "i64"


# -- operands ---------------------------------------------------------------------------


def _scalar_dtype(value) -> str:
    if isinstance(value, bool):
        return "i1"
    return DEFAULT_INT if isinstance(value, int) else DEFAULT_FLOAT


def dtype_of(value) -> str:
    if isinstance(value, Tensor):
        return value.tensor_type.dtype
    if is_python_scalar(value):
        return _scalar_dtype(value)
    return canonical_dtype(np.asarray(value).dtype)


def shape_of(value) -> tuple:
    return value.shape if isinstance(value, Tensor) else np.shape(value)


def asarray(value, dtype=None):
    """A tensor (or host array, converted where it is used) of ``dtype``; a list or tuple
    that holds tensors is their stack, so traced values stay traced (and differentiable)."""
    if isinstance(value, Tensor):
        return value if dtype is None else astype(value, dtype)
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        stacked = stack([asarray(item) for item in value])
        return stacked if dtype is None else astype(stacked, dtype)
    if dtype is None and is_python_scalar(value):
        dtype = _scalar_dtype(value)
    array = np.asarray(value, dtype=None if dtype is None else to_numpy_dtype(canonical_dtype(dtype)))
    canonical_dtype(array.dtype)
    return apply1("constant", value=array)


def _holds_tensor(value) -> bool:
    if isinstance(value, (list, tuple)):
        return builtins.any(_holds_tensor(item) for item in value)
    return isinstance(value, Tensor)


def _as_operand(value, dtype: str):
    """``value`` as an operand of ``dtype``: tensors are cast, host values converted."""
    if isinstance(value, Tensor):
        return value if value.tensor_type.dtype == dtype else apply1("cast", value, dtype=dtype)
    try:
        return np.asarray(value, dtype=to_numpy_dtype(dtype))
    except OverflowError:  # NumPy 2: a Python int that the dtype it meets cannot hold
        raise DTypeError(
            f"Python integer {value} is out of range for {to_numpy_dtype(dtype)}, the dtype it is "
            "combined with (as in NumPy); make it an array of a wider dtype", str(user_location() or "")
        ) from None


def _is_weak(value) -> bool:
    """A Python scalar, or a tracer standing for one (:attr:`Tracer.weak`)."""
    return is_python_scalar(value) or (isinstance(value, Tracer) and value.weak)


def _kind(dtype: str) -> int:
    return 0 if dtype == BOOL_DTYPE else 1 if is_integer(dtype) else 2


def _with_weak(dtype: str, weak_dtype: str) -> str:
    """NEP 50: a weak value takes ``dtype`` unless it is of a higher kind (bool < int <
    float); then it brings NumPy's default dtype of its kind."""
    if _kind(weak_dtype) <= _kind(dtype):
        return dtype
    return NUMPY_FLOAT if is_float(weak_dtype) else NUMPY_INT


def _result_dtype(*values) -> str:
    """The dtype NumPy 2 computes an op on ``values`` in: ``np.result_type`` of the tensors'
    and arrays' dtypes, Python scalars weak (:func:`_with_weak`). Weak values alone give
    the dtype of the highest kind among them: s4tf's defaults for Python scalars."""
    strong = [dtype_of(v) for v in values if not _is_weak(v)]
    weak = [dtype_of(v) for v in values if _is_weak(v)]
    if not strong:
        top = builtins.max(map(_kind, weak))
        return functools.reduce(promote_dtypes, [d for d in weak if _kind(d) == top])
    dtype = functools.reduce(promote_dtypes, strong)
    for weak_dtype in weak:
        dtype = _with_weak(dtype, weak_dtype)
    return dtype


def _weak_if_all_weak(result, *values):
    """``result``, weak when every value it was computed from is."""
    return result.as_weak() if isinstance(result, Tracer) and all(map(_is_weak, values)) else result


def _elementwise(op_name: str, *values, dtype: str | None = None):
    dtype = dtype or _result_dtype(*values)
    return _weak_if_all_weak(apply1(op_name, *[_as_operand(v, dtype) for v in values]), *values)


def _float_operand(x):
    dtype = dtype_of(x)
    return _as_operand(x, dtype if is_float(dtype) else DEFAULT_FLOAT)


def op(op_name: str, *operands, **attrs):
    """Any ``s4tf.<op_name>`` op as it is defined, with no promotion or conveniences:
    ``s4tf.op("pad", x, zero, low=(1,), high=(0,), interior=(0,))``."""
    return apply1(op_name, *operands, **attrs)


# -- elementwise ------------------------------------------------------------------------


def _unary_float(op_name):
    def unary(x):
        return apply1(op_name, _float_operand(x))

    unary.__name__ = op_name
    unary.__doc__ = f"Elementwise ``s4tf.{op_name}``; integer inputs are converted to float32."
    return unary


exp = _unary_float("exp")
log = _unary_float("log")
log1p = _unary_float("log1p")
sin = _unary_float("sin")
cos = _unary_float("cos")
tanh = _unary_float("tanh")
sqrt = _unary_float("sqrt")
rsqrt = _unary_float("rsqrt")


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


def negative(x):
    return _elementwise("neg", x)


def abs(x):  # noqa: A001  (NumPy's name)
    return _elementwise("abs", x)


def sign(x):
    return _elementwise("sign", x)


def logical_not(x):
    return apply1("not", _as_operand(x, "i1"))


#: NumPy's loops for bools: add and maximum are logical or, multiply and minimum logical and.
_BOOL_LOOPS = {"add": "or", "mul": "and", "maximum": "or", "minimum": "and"}


def _arithmetic(op_name, x, y):
    dtype = _result_dtype(x, y)
    return _elementwise(_BOOL_LOOPS[op_name] if dtype == BOOL_DTYPE else op_name, x, y, dtype=dtype)


def _no_bool_loop(dtype: str) -> str:
    """The dtype of an op that NumPy has no bool loop for (power, floor_divide, remainder):
    bools are computed as int8."""
    return "i8" if dtype == BOOL_DTYPE else dtype


def add(x, y):
    """``x + y``; logical or on bools (as in NumPy)."""
    return _arithmetic("add", x, y)


def subtract(x, y):
    """``x - y``; bools cannot be subtracted (as in NumPy)."""
    if _result_dtype(x, y) == BOOL_DTYPE:
        raise DTypeError(
            "bools cannot be subtracted (as in NumPy); for the exclusive or of bools use x != y",
            str(user_location() or ""),
        )
    return _elementwise("sub", x, y)


def multiply(x, y):
    """``x * y``; logical and on bools (as in NumPy)."""
    return _arithmetic("mul", x, y)


def divide(x, y):
    """True division. As if a Python float took part: integers and bools divide in float64
    (NumPy's default float; float32, s4tf's, for Python scalars alone)."""
    return _elementwise("div", x, y, dtype=_result_dtype(x, y, 1.0))


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
    """``x % y`` as in Python and NumPy: zero or of the sign of ``y``."""
    dtype = _no_bool_loop(_result_dtype(x, y))
    if is_float(dtype):  # the floored quotient is piecewise constant: no derivative flows through it
        return _weak_if_all_weak(subtract(x, multiply(stop_gradient(floor(divide(x, y))), y)), x, y)
    lhs, rhs = _as_operand(x, dtype), _as_operand(y, dtype)
    rest = subtract(lhs, multiply(apply1("div", lhs, rhs), rhs))
    return _weak_if_all_weak(where(_rounds_down(rest, rhs), add(rest, rhs), rest), x, y)


def _rounds_down(rest, y):
    """Where a truncated quotient is one above the floored one: a non-zero remainder whose
    sign differs from the divisor's."""
    return logical_and(not_equal(rest, 0), not_equal(less(rest, 0), less(y, 0)))


def power(x, y):
    return _elementwise("pow", x, y, dtype=_no_bool_loop(_result_dtype(x, y)))


def maximum(x, y):
    """Elementwise maximum; logical or on bools (as in NumPy)."""
    return _arithmetic("maximum", x, y)


def minimum(x, y):
    """Elementwise minimum; logical and on bools (as in NumPy)."""
    return _arithmetic("minimum", x, y)


def logical_and(x, y):
    return _elementwise("and", x, y, dtype="i1")


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


def _comparison(op_name):
    def compare(x, y):
        return _elementwise(op_name, x, y)

    compare.__name__ = op_name
    return compare


equal = _comparison("eq")
not_equal = _comparison("ne")
less = _comparison("lt")
less_equal = _comparison("le")
greater = _comparison("gt")
greater_equal = _comparison("ge")


def where(condition, x, y):
    """``x`` where ``condition`` is true, else ``y`` (broadcasting, as ``np.where``)."""
    dtype = _result_dtype(x, y)
    return apply1("select", _as_operand(condition, "i1"), _as_operand(x, dtype), _as_operand(y, dtype))


select = where


def astype(x, dtype):
    dtype = canonical_dtype(dtype)
    if isinstance(x, Tensor) and x.tensor_type.dtype == dtype:
        return x
    return apply1("cast", x if isinstance(x, Tensor) else np.asarray(x), dtype=dtype)


cast = astype


def clip(x, lo, hi):
    return minimum(maximum(x, lo), hi)


def square(x):
    return multiply(x, x)


# -- creation ---------------------------------------------------------------------------


def _shape_tuple(shape) -> tuple:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def full(shape, fill_value, dtype=None):
    """``np.full``; with no dtype, the fill value's (a Python int is int32, a float float32)."""
    dtype = canonical_dtype(dtype) if dtype is not None else dtype_of(fill_value)
    value = np.array(fill_value, dtype=to_numpy_dtype(dtype))
    return apply1("constant", value=np.broadcast_to(value, _shape_tuple(shape)))  # a splat: one element in memory


def zeros(shape, dtype=None):
    """``np.zeros``; with no dtype, s4tf's default float, float32."""
    return full(shape, 0, DEFAULT_FLOAT if dtype is None else dtype)


def ones(shape, dtype=None):
    """``np.ones``; with no dtype, s4tf's default float, float32."""
    return full(shape, 1, DEFAULT_FLOAT if dtype is None else dtype)


def zeros_like(x, dtype=None):
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None):
    return full_like(x, 1, dtype)


def full_like(x, fill_value, dtype=None):
    return full(shape_of(x), fill_value, dtype_of(x) if dtype is None else dtype)


def arange(start, stop=None, step=1, dtype=None):
    """``np.arange`` with static bounds, computed on the device from ``s4tf.iota``."""
    if stop is None:
        start, stop = 0, start
    dtype = canonical_dtype(dtype) if dtype is not None else _result_dtype(start, stop, step)
    count = builtins.max(0, math.ceil((stop - start) / step))
    indices = apply1("iota", shape=(count,), dimension=0, dtype=dtype)
    if step != 1:
        indices = multiply(indices, step)
    return indices if start == 0 else add(indices, start)


def iota(shape, dimension=0, dtype=np.int32):
    return apply1("iota", shape=_shape_tuple(shape), dimension=dimension, dtype=canonical_dtype(dtype))


# -- shapes -----------------------------------------------------------------------------


def _tensor(x):
    return x if isinstance(x, Tensor) else asarray(x)


def _normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < builtins.max(rank, 1):
        raise ShapeError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def reshape(x, *shape):
    """``np.reshape``; one dimension may be ``-1``."""
    x = _tensor(x)
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    shape = [int(d) for d in shape]
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape to {tuple(shape)}: only one dimension can be -1")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        if known == 0 or x.tensor_type.size % known:
            raise ShapeError(f"cannot reshape {x.shape} to {tuple(shape)}")
        shape[shape.index(-1)] = x.tensor_type.size // known
    if tuple(shape) == tuple(x.shape):
        return x
    return apply1("reshape", x, shape=tuple(shape))


def transpose(x, axes=None):
    x = _tensor(x)
    rank = len(x.shape)
    axes = tuple(reversed(range(rank))) if axes is None else tuple(_normalize_axis(a, rank) for a in axes)
    return x if axes == tuple(range(rank)) else apply1("transpose", x, permutation=axes)


def broadcast_to(x, shape):
    x = _tensor(x)
    shape = _shape_tuple(shape)
    if tuple(x.shape) == shape:
        return x
    offset = len(shape) - len(x.shape)
    if offset < 0:
        raise ShapeError(f"cannot broadcast {x.shape} to {shape}")
    return apply1("broadcast_in_dim", x, shape=shape, broadcast_dimensions=tuple(range(offset, len(shape))))


def broadcast_in_dim(x, shape, broadcast_dimensions):
    return apply1("broadcast_in_dim", _tensor(x), shape=_shape_tuple(shape), broadcast_dimensions=tuple(broadcast_dimensions))


def expand_dims(x, axis):
    x = _tensor(x)
    rank = len(x.shape) + 1
    axis = _normalize_axis(axis, rank)
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, shape)


def squeeze(x, axis=None):
    x = _tensor(x)
    rank = len(x.shape)
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else [
        _normalize_axis(a, rank) for a in ((axis,) if isinstance(axis, int) else axis)
    ]
    for a in axes:
        if x.shape[a] != 1:
            raise ShapeError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


def concatenate(arrays, axis=0):
    arrays = list(arrays)
    dtype = _result_dtype(*arrays)
    rank = len(shape_of(arrays[0]))
    return apply1("concatenate", *[_as_operand(a, dtype) for a in arrays], axis=_normalize_axis(axis, rank))


def stack(arrays, axis=0):
    arrays = list(arrays)
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis)


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


def slice(x, start, limit, stride=None):  # noqa: A001  (the op's name)
    x = _tensor(x)
    return apply1("slice", x, start=tuple(start), limit=tuple(limit), stride=tuple(stride or (1,) * len(start)))


def flip(x, axis=None):
    """``np.flip``: reverse the order of elements along ``axis`` (all axes when ``None``)."""
    x = _tensor(x)
    axes = _axes(axis, len(x.shape))
    return apply1("reverse", x, axes=axes) if axes else x  # IREE cannot compile a reverse of no axes


def stop_gradient(x):
    """``x``, with a derivative of zero: differentiation treats it as a constant. ``x`` may
    be a pytree (a tuple, list, dict or dataclass): each of its leaves is stopped."""
    return pytree.tree_map(lambda leaf: apply1("stop_gradient", _tensor(leaf)), x)


# -- reductions -------------------------------------------------------------------------


def _axes(axis, rank) -> tuple:
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(_normalize_axis(int(a), rank) for a in axes))


def _reduce(op_name, x, axis, keepdims):
    x = _tensor(x)
    return apply1(op_name, x, axes=_axes(axis, len(x.shape)), keepdims=bool(keepdims))


def sum(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    """``np.sum``; booleans are counted (summed as int32)."""
    x = _tensor(x)
    return _reduce("reduce_sum", astype(x, DEFAULT_INT) if dtype_of(x) == "i1" else x, axis, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    return _reduce("reduce_max", x, axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    return _reduce("reduce_min", x, axis, keepdims)


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
    peak = where(equal(peak, peak), peak, 0.0)
    total = log(sum(exp(subtract(x, peak)), axis=axis, keepdims=True))
    result = add(total, peak)
    return result if keepdims else squeeze(result, axis=_axes(axis, len(x.shape)))


def softmax(x, axis=-1):
    x = _float_operand(_tensor(x))
    shifted = exp(subtract(x, max(x, axis=axis, keepdims=True)))
    return divide(shifted, sum(shifted, axis=axis, keepdims=True))


def log_softmax(x, axis=-1):
    x = _float_operand(_tensor(x))
    shifted = subtract(x, max(x, axis=axis, keepdims=True))
    return subtract(shifted, log(sum(exp(shifted), axis=axis, keepdims=True)))


def relu(x):
    return maximum(x, 0)


# -- contractions -----------------------------------------------------------------------


def matmul(x, y):
    """``np.matmul``: 1-D operands are promoted, batch dimensions broadcast."""
    dtype = _result_dtype(x, y)
    if dtype == BOOL_DTYPE:  # as NumPy's: the or of ands
        return not_equal(matmul(astype(x, DEFAULT_INT), astype(y, DEFAULT_INT)), 0)
    x, y = _tensor(_as_operand(x, dtype)), _tensor(_as_operand(y, dtype))
    x_rank, y_rank = len(x.shape), len(y.shape)
    if x_rank == 0 or y_rank == 0:
        raise ShapeError("matmul needs operands of rank >= 1; use * for scalars")
    x2 = reshape(x, (1, x.shape[0])) if x_rank == 1 else x
    y2 = reshape(y, (y.shape[0], 1)) if y_rank == 1 else y
    if x2.shape[-1] != y2.shape[-2]:
        raise ShapeError(
            f"matmul: incompatible shapes {tuple(x.shape)} and {tuple(y.shape)}: "
            f"{x2.shape[-1]} columns against {y2.shape[-2]} rows"
        )
    try:
        batch = tuple(np.broadcast_shapes(tuple(x2.shape[:-2]), tuple(y2.shape[:-2])))
    except ValueError:
        raise ShapeError(
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


def dot_general(x, y, contracting, batch=((), ())):
    """Raw ``s4tf.dot_general``: ``contracting`` and ``batch`` are ``(lhs_axes, rhs_axes)``."""
    return apply1(
        "dot_general", _tensor(x), _tensor(y),
        lhs_batch=tuple(batch[0]), rhs_batch=tuple(batch[1]),
        lhs_contract=tuple(contracting[0]), rhs_contract=tuple(contracting[1]),
    )


def _pair(value, name) -> tuple:
    pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(pair) != 2:
        raise ShapeError(f"{name} must be an int or a pair, got {value!r}")
    return tuple(int(v) for v in pair)


def _padding(padding, spatial, window, strides, dilation) -> tuple:
    """``(top, bottom, left, right)`` from ``"valid"``, ``"same"``, an int or pairs."""
    if isinstance(padding, str):
        if padding.lower() == "valid":
            return (0, 0, 0, 0)
        if padding.lower() != "same":
            raise ShapeError(f"padding must be 'valid', 'same', an int or pairs, got {padding!r}")
        result = []
        for size, k, s, d in zip(spatial, window, strides, dilation):
            total = builtins.max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
            result += [total // 2, total - total // 2]
        return tuple(result)
    if isinstance(padding, (int, np.integer)):
        return (int(padding),) * 4
    pairs = [_pair(p, "padding") for p in padding]
    if len(pairs) != 2:
        raise ShapeError(f"padding needs one pair per spatial axis, got {padding!r}")
    return (*pairs[0], *pairs[1])


def conv2d(x, w, strides=1, padding="valid", dilation=1, groups=1):
    """2-D convolution, input NHWC, filter HWIO (as TensorFlow)."""
    dtype = _result_dtype(x, w)
    x, w = _tensor(_as_operand(x, dtype)), _tensor(_as_operand(w, dtype))
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise ShapeError(f"conv2d needs a rank-4 NHWC input and HWIO filter, got {tuple(x.shape)} and {tuple(w.shape)}")
    strides, dilation = _pair(strides, "strides"), _pair(dilation, "dilation")
    return apply1(
        "conv2d", x, w,
        strides=strides,
        padding=_padding(padding, x.shape[1:3], w.shape[0:2], strides, dilation),
        lhs_dilation=(1, 1),
        rhs_dilation=dilation,
        feature_group_count=int(groups),
    )


def _pool(op_name, x, window, strides, padding):
    x = _float_operand(_tensor(x))
    window = _pair(window, "window")
    strides = window if strides is None else _pair(strides, "strides")
    if len(x.shape) != 4:
        raise ShapeError(f"pooling needs a rank-4 NHWC input, got {tuple(x.shape)}")
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
    "broadcast_to", "cast", "ceil", "clip", "concatenate", "conv2d", "cos", "divide",
    "dot_general", "equal", "exp", "expand_dims", "flip", "floor", "floor_divide", "full", "full_like",
    "greater", "greater_equal", "invert", "iota", "less", "less_equal", "log", "log1p", "log_softmax",
    "logical_and", "logical_not", "logical_or", "logistic", "logsumexp", "matmul", "max",
    "max_pool2d", "maximum", "mean", "min", "minimum", "multiply", "negative", "not_equal",
    "ones", "ones_like", "op", "pad", "power", "relu", "remainder", "reshape", "round", "rsqrt", "select",
    "sigmoid", "sign", "sin", "slice", "softmax", "sqrt", "square", "squeeze", "stack", "stop_gradient",
    "subtract", "sum", "tanh", "transpose", "where", "zeros", "zeros_like",
]
