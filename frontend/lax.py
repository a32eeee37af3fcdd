"""``s4tf.lax``: the names of ``jax.lax`` that ported code calls, with JAX's arguments,
mapped to s4tf's functions (only where s4tf has the capability).

```python
import numpy as np, s4tf
from s4tf import lax

total = lax.fori_loop(0, 4, lambda i, acc: acc + lax.rsqrt(i + 1.0), 0.0)
window = lax.dynamic_slice(np.arange(10.0, dtype=np.float32), (3,), (4,))
```
"""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.arrays.contractions import tensordot
from s4tf.arrays.indexing import gather, scatter
from s4tf.arrays.math_functions import atan2, erf, expm1, isfinite as is_finite, logaddexp, tan
from s4tf.arrays.numpy_api import (  # noqa: F401  (re-exported under JAX's names)
    abs, add, broadcast_in_dim, ceil, cos, dot_general as _dot_general, exp, floor, log, log1p, logistic, maximum as max,
    minimum as min, multiply as mul, negative as neg, power as pow, rsqrt, sign, sin, slice, sqrt, square,
    stop_gradient, subtract as sub, tanh, transpose,
)
from s4tf.arrays.numpy_api import preferred
from s4tf.arrays.numpy_math import cbrt, erfc, fmod
from s4tf.core.locations import shape_error
from s4tf.arrays.sorting import sort as _sort, top_k
from s4tf.arrays.statistics import argmin as _argmin, prod
from s4tf.dialects.composition import apply1
from s4tf.dialects.types import canonical_dtype, is_integer
from s4tf.staging.structured_control import cond, fori_loop, switch, while_loop
from s4tf.transforms.scan import scan
from s4tf.tree_util import tree_flatten, tree_unflatten

#: JAX's names (``from s4tf.lax import *`` brings these, not the module's own imports).
__all__ = [
    "abs", "add", "argmax", "argmin", "associative_scan", "atan2", "batch_matmul", "broadcast",
    "broadcast_in_dim", "broadcasted_iota", "cbrt", "ceil", "clamp", "concatenate", "cond",
    "conv_general_dilated", "conv_transpose", "convert_element_type", "cos", "cumlogsumexp",
    "cummax", "cummin", "cumprod", "cumsum", "div", "dot", "dot_general", "dynamic_index_in_dim",
    "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
    "eq", "erf", "erfc", "exp", "expand_dims", "expm1", "floor", "fori_loop", "gather", "ge", "gt",
    "index_in_dim", "integer_pow", "iota", "is_finite", "le", "log", "log1p", "logistic", "lt",
    "map", "max", "min", "mul", "ne", "neg", "pad", "pow", "reduce_max", "reduce_min",
    "reduce_prod", "reduce_sum", "reduce_window", "rem", "reshape", "rev", "rsqrt", "scan",
    "scatter", "select", "select_n", "sign", "sin", "slice", "sort", "sqrt", "square", "squeeze",
    "stop_gradient", "sub", "switch", "tan", "tanh", "top_k", "transpose", "while_loop",
]

eq, ne, lt, le, gt, ge = snp.equal, snp.not_equal, snp.less, snp.less_equal, snp.greater, snp.greater_equal


def select(pred, on_true, on_false):
    """``on_true`` where ``pred``, else ``on_false``."""
    return snp.where(pred, on_true, on_false)


def select_n(which, *cases):
    """``cases[which]`` element by element (JAX's ``lax.select_n``): ``which`` a boolean
    (two cases: ``False`` picks the first) or an integer array of ``cases``' shape, or a
    scalar; a balanced tree of ``where``s. Indices out of range pick the first or last case."""
    if not cases:
        raise shape_error("lax.select_n needs at least one case")
    which = snp.asarray(which)
    if which.dtype == np.bool_:
        if len(cases) != 2:
            raise shape_error(f"lax.select_n with a boolean selector needs 2 cases, got {len(cases)}")
        return snp.where(which, cases[1], cases[0])
    if not np.issubdtype(which.dtype, np.integer):
        raise shape_error(f"lax.select_n needs a boolean or integer selector, got {which.dtype}")
    return _select_tree(which, cases, 0)


def _select_tree(which, cases, first: int):
    if len(cases) == 1:
        return snp.asarray(cases[0])
    half = len(cases) // 2
    return snp.where(which < first + half, _select_tree(which, cases[:half], first), _select_tree(which, cases[half:], first + half))


def clamp(min, x, max):  # noqa: A002  (JAX's argument names)
    return snp.clip(x, min, max)


def convert_element_type(operand, new_dtype):
    return snp.astype(operand, new_dtype)


def _integer(x):
    return is_integer(canonical_dtype(snp.asarray(x).dtype))


def div(x, y):
    """``x / y``, rounded toward zero for integers (C's division)."""
    if not _integer(x):
        return snp.divide(x, y)
    quotient = snp.floor_divide(snp.abs(x), snp.abs(y))
    return snp.where((x < 0) != (y < 0), -quotient, quotient)


def rem(x, y):
    """The remainder of ``div``, with ``x``'s sign (C's ``%`` and ``fmod``)."""
    return x - div(x, y) * y if _integer(x) else fmod(x, y)


def integer_pow(x, y):
    """``x ** y`` for a Python int ``y``, by multiplications."""
    if not isinstance(y, (int, np.integer)):
        raise shape_error(f"integer_pow needs a Python int exponent, got {y!r}")
    x = snp.asarray(x)
    result, base, n = snp.ones_like(x), x, -int(y) if y < 0 else int(y)
    while n:
        if n & 1:
            result = result * base
        n >>= 1
        base = base * base if n else base
    return 1 / result if y < 0 else result


# -- shapes ------------------------------------------------------------------------------


def broadcast(operand, sizes):
    """``operand`` with axes of ``sizes`` put in front."""
    operand = snp.asarray(operand)
    shape = (*sizes, *operand.shape)
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(shape))))


def expand_dims(array, dimensions):
    """``array`` with size-1 axes at ``dimensions`` (positions in the result)."""
    array = snp.asarray(array)
    rank = array.ndim + len(dimensions)
    inserted = sorted(d % rank for d in dimensions)
    shape = list(array.shape)
    for d in inserted:
        shape.insert(d, 1)
    return snp.reshape(array, shape)


def squeeze(array, dimensions):
    return snp.squeeze(array, axis=tuple(dimensions))


def reshape(operand, new_sizes, dimensions=None):
    """``operand`` reshaped (after transposing to ``dimensions`` if given)."""
    if dimensions is not None:
        operand = transpose(operand, tuple(dimensions))
    return snp.reshape(operand, tuple(new_sizes))


def concatenate(operands, dimension):
    return snp.concatenate(operands, axis=dimension)


def rev(operand, dimensions):
    return snp.flip(operand, axis=tuple(dimensions))


def pad(operand, padding_value, padding_config):
    """``operand`` padded with ``padding_value``: ``(low, high, 0)`` per axis (no interior
    padding, no negative padding)."""
    config = [tuple(int(v) for v in c) for c in padding_config]
    if any(interior != 0 or low < 0 or high < 0 for low, high, interior in config):
        raise shape_error(f"s4tf.lax.pad takes (low, high, 0) with low, high >= 0, got {padding_config!r}")
    return snp.pad(operand, [(low, high) for low, high, _ in config], constant_values=padding_value)


def iota(dtype, size):
    return snp.iota((int(size),), dtype=dtype)


def broadcasted_iota(dtype, shape, dimension):
    return snp.iota(tuple(shape), dimension=dimension, dtype=dtype)


def _starts(operand, start_indices, sizes):
    """JAX's start indices: negative ones counted from the end, then clamped so that the
    window of ``sizes`` fits."""
    if len(start_indices) != operand.ndim or len(sizes) != operand.ndim:
        raise shape_error(f"dynamic slicing a tensor of rank {operand.ndim} needs {operand.ndim} start indices and sizes")
    starts = []
    for start, size, dim in zip(start_indices, sizes, operand.shape):
        if size > dim:
            raise shape_error(f"a slice of size {size} does not fit an axis of size {dim}")
        start = snp.astype(start, np.int32)
        start = snp.where(start < 0, start + dim, start)
        starts.append(snp.clip(start, 0, dim - size))
    return starts


def _window(starts, sizes):
    """The coordinates (``(*sizes, rank)``) of the window at ``starts``."""
    axes = []
    for axis, (start, size) in enumerate(zip(starts, sizes)):
        shape = [1] * len(sizes)
        shape[axis] = size
        axes.append(snp.broadcast_to(snp.reshape(start + np.arange(size, dtype=np.int32), shape), tuple(sizes)))
    return snp.stack(axes, axis=-1)


def dynamic_slice(operand, start_indices, slice_sizes):
    """The window of ``slice_sizes`` at ``start_indices`` (tensors allowed), clamped to fit."""
    operand = snp.asarray(operand)
    sizes = tuple(int(s) for s in slice_sizes)
    return gather(operand, _window(_starts(operand, start_indices, sizes), sizes))


def dynamic_update_slice(operand, update, start_indices):
    """``operand`` with ``update`` written at ``start_indices``, clamped to fit."""
    operand, update = snp.asarray(operand), snp.asarray(update)
    sizes = tuple(update.shape)
    return scatter(operand, _window(_starts(operand, start_indices, sizes), sizes), update, kind="set")


def _in_dim(operand, axis, value, fill):
    """Per-axis values for one ``axis``: ``value`` there, ``fill(size)`` elsewhere."""
    axis = axis % operand.ndim
    return [value if a == axis else fill(size) for a, size in enumerate(operand.shape)]


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    """``dynamic_slice`` along ``axis`` alone (the whole of the other axes)."""
    operand = snp.asarray(operand)
    starts = _in_dim(operand, axis, start_index, lambda size: 0)
    return dynamic_slice(operand, starts, _in_dim(operand, axis, slice_size, lambda size: size))


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """``dynamic_update_slice`` at ``start_index`` along ``axis`` (0 along the others)."""
    operand = snp.asarray(operand)
    return dynamic_update_slice(operand, update, _in_dim(operand, axis, start_index, lambda size: 0))


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """The slice at ``index`` (a tensor allowed, clamped) along ``axis``."""
    result = dynamic_slice_in_dim(operand, index, 1, axis)
    return result if keepdims else snp.squeeze(result, axis=axis)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """The slice at the Python int ``index`` (negative from the end) along ``axis``."""
    operand = snp.asarray(operand)
    size = operand.shape[axis]
    if not -size <= index < size:
        raise shape_error(f"index_in_dim: index {index} is out of bounds for an axis of size {size}")
    return dynamic_index_in_dim(operand, index % size, axis, keepdims)


# -- reductions, scans, sorting ---------------------------------------------------------------


def reduce_sum(operand, axes):
    return snp.sum(operand, axis=tuple(axes))


def reduce_max(operand, axes):
    return snp.max(operand, axis=tuple(axes))


def reduce_min(operand, axes):
    return snp.min(operand, axis=tuple(axes))


def reduce_prod(operand, axes):
    operand = snp.asarray(operand)
    return prod(operand, axis=tuple(axes), dtype=operand.dtype)


def argmax(operand, axis, index_dtype):
    return snp.argmax(operand, axis=axis, dtype=index_dtype)


def argmin(operand, axis, index_dtype):
    return _argmin(operand, axis=axis, dtype=index_dtype)


def _cumulative(op_name, operand, axis, reverse):
    operand = snp.asarray(operand)
    return apply1(op_name, operand, axis=axis % operand.ndim, reverse=bool(reverse))


def cumsum(operand, axis=0, reverse=False):
    return _cumulative("cumsum", operand, axis, reverse)


def cumprod(operand, axis=0, reverse=False):
    return _cumulative("cumprod", operand, axis, reverse)


def associative_scan(fn, elems, reverse=False, axis=0):
    """The inclusive scan of ``elems`` (a pytree of equally long axes) with the associative
    ``fn(earlier, later)`` ("earlier" in scan order, as JAX's): Hillis and Steele's
    doubling, ``log2(n)`` steps of slices."""
    leaves, tree = tree_flatten(elems)
    leaves = [snp.asarray(leaf) for leaf in leaves]
    if not leaves:
        raise shape_error("associative_scan needs at least one array in elems")
    axes = [axis % leaf.ndim for leaf in leaves]
    n = leaves[0].shape[axes[0]]
    if any(leaf.shape[a] != n for leaf, a in zip(leaves, axes)):
        raise shape_error(f"associative_scan needs elems of one length along axis {axis}, got shapes "
                          f"{[tuple(leaf.shape) for leaf in leaves]}")
    if reverse:
        leaves = [snp.flip(leaf, axis=a) for leaf, a in zip(leaves, axes)]

    def cut(leaf, a, start, stop):
        return slice(leaf, _in_dim(leaf, a, start, lambda size: 0), _in_dim(leaf, a, stop, lambda size: size))

    offset = 1
    while offset < n:
        earlier = tree_unflatten(tree, [cut(leaf, a, 0, n - offset) for leaf, a in zip(leaves, axes)])
        later = tree_unflatten(tree, [cut(leaf, a, offset, n) for leaf, a in zip(leaves, axes)])
        combined = tree_flatten(fn(earlier, later))[0]
        leaves = [snp.concatenate([cut(leaf, a, 0, offset), snp.asarray(c)], axis=a)
                  for leaf, a, c in zip(leaves, axes, combined)]
        offset *= 2
    if reverse:
        leaves = [snp.flip(leaf, axis=a) for leaf, a in zip(leaves, axes)]
    return tree_unflatten(tree, leaves)


def _scanned(fn, operand, axis, reverse):
    return associative_scan(fn, snp.asarray(operand), reverse=reverse, axis=axis)


def cummax(operand, axis=0, reverse=False):
    return _scanned(snp.maximum, operand, axis, reverse)


def cummin(operand, axis=0, reverse=False):
    return _scanned(snp.minimum, operand, axis, reverse)


def cumlogsumexp(operand, axis=0, reverse=False):
    return _scanned(logaddexp, operand, axis, reverse)


def map(f, xs, *, batch_size=None):  # noqa: A001  (JAX's name)
    """``f`` applied to each element of ``xs`` along its leading axis, one after another
    (a ``scan``); ``batch_size`` is not offered."""
    if batch_size is not None:
        raise shape_error("s4tf.lax.map has no batch_size: use s4tf.vmap for batches")
    return scan(lambda carry, x: (carry, f(x)), (), xs)[1]


def _window_padding(padding, shape, window, strides):
    """JAX's ``padding`` (``'VALID'``, ``'SAME'`` or ``(low, high)`` pairs) as pairs."""
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [(0, 0)] * len(shape)
        if padding.upper() != "SAME":
            raise shape_error(f"padding must be 'VALID', 'SAME' or (low, high) pairs, got {padding!r}")
        totals = [builtins.max((-(-size // stride) - 1) * stride + w - size, 0) for size, w, stride in zip(shape, window, strides)]
        return [(total // 2, total - total // 2) for total in totals]
    pairs = [tuple(int(v) for v in pair) for pair in padding]
    if len(pairs) != len(shape) or any(len(pair) != 2 for pair in pairs):
        raise shape_error(f"padding needs one (low, high) pair per axis of a rank-{len(shape)} operand, got {padding!r}")
    return pairs


def reduce_window(operand, init_value, computation, window_dimensions, window_strides, padding,
                  base_dilation=None, window_dilation=None):
    """``computation`` (a binary elementwise function: ``lax.max``, ``lax.add``, ...) folded
    over each window, from ``init_value``, which also fills the padding. Composed from
    strided slices, one per window element; no dilations."""
    operand = snp.asarray(operand)
    window, strides = tuple(int(w) for w in window_dimensions), tuple(int(s) for s in window_strides)
    if len(window) != operand.ndim or len(strides) != operand.ndim:
        raise shape_error(f"reduce_window on a rank-{operand.ndim} operand needs {operand.ndim} window dimensions "
                          f"and strides, got {window} and {strides}")
    if any(d is not None and any(int(v) != 1 for v in d) for d in (base_dilation, window_dilation)):
        raise shape_error("s4tf.lax.reduce_window has no base_dilation or window_dilation")
    pairs = _window_padding(padding, operand.shape, window, strides)
    padded = snp.pad(operand, pairs, constant_values=init_value) if any(low or high for low, high in pairs) else operand
    out = [(size - w) // stride + 1 for size, w, stride in zip(padded.shape, window, strides)]
    if any(size < 1 for size in out):
        raise shape_error(f"reduce_window: a window of {window} does not fit the padded shape {tuple(padded.shape)}")
    result = snp.full(tuple(out), init_value, dtype=operand.dtype)
    for offset in itertools.product(*(range(w) for w in window)):
        limit = [o + (n - 1) * stride + 1 for o, n, stride in zip(offset, out, strides)]
        result = computation(result, slice(padded, offset, limit, strides))
    return result


def sort(operand, dimension=-1, is_stable=True):
    return _sort(operand, axis=dimension, stable=is_stable)


# -- contractions and convolutions ------------------------------------------------------------


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over leading batch axes of one rank (``>= 2``)."""
    lhs, rhs = snp.asarray(lhs), snp.asarray(rhs)
    if lhs.ndim < 2 or lhs.ndim != rhs.ndim or lhs.shape[:-2] != rhs.shape[:-2]:
        raise shape_error(f"batch_matmul needs operands of one rank >= 2 and equal batch axes, "
                          f"got shapes {tuple(lhs.shape)} and {tuple(rhs.shape)}")
    return snp.matmul(lhs, rhs)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """The product of vectors and matrices (``lhs``'s last axis with ``rhs``'s first), in
    ``preferred_element_type`` when given; ``precision`` is ignored (float32 products are
    full float32 on the CPU)."""
    return tensordot(*preferred(lhs, rhs, preferred_element_type), axes=1)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``: the
    batch axes first in the result, then ``lhs``'s free axes, then ``rhs``'s."""
    contracting, batch = dimension_numbers
    return _dot_general(*preferred(lhs, rhs, preferred_element_type), contracting, batch)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                         precision=None, preferred_element_type=None):
    """2-D convolutions: ``dimension_numbers`` as three strings (default
    ``("NCHW", "OIHW", "NCHW")``), ``padding`` ``"VALID"``, ``"SAME"`` or ``(low, high)``
    pairs (only these with ``lhs_dilation``, as JAX), ``lhs_dilation``, ``rhs_dilation`` and
    ``feature_group_count``; no ``batch_group_count``."""
    if batch_group_count != 1:
        raise shape_error("s4tf.lax.conv_general_dilated has no batch_group_count")
    specs = _conv_specs("conv_general_dilated", dimension_numbers, ("NCHW", "OIHW", "NCHW"))
    x, w = _to_nhwc_hwio(lhs, rhs, specs)
    padding = padding.lower() if isinstance(padding, str) else [tuple(p) for p in padding]
    y = snp.conv2d(x, w, tuple(window_strides), padding, tuple(rhs_dilation or (1, 1)), feature_group_count,
                   lhs_dilation=tuple(lhs_dilation or (1, 1)))
    return _from_nhwc(y, specs)


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None, transpose_kernel=False,
                   precision=None, preferred_element_type=None):
    """``jax.lax.conv_transpose`` in 2-D (:func:`s4tf.conv_transpose`): default dimension
    numbers ``("NHWC", "HWIO", "NHWC")`` as JAX's; ``transpose_kernel=True`` flips the
    filter's spatial axes and swaps its input and output channels (the gradient of a
    convolution with that filter)."""
    specs = _conv_specs("conv_transpose", dimension_numbers, ("NHWC", "HWIO", "NHWC"))
    x, w = _to_nhwc_hwio(lhs, rhs, specs)
    if transpose_kernel:
        w = transpose(snp.flip(w, (0, 1)), (0, 1, 3, 2))
    y = snp.conv_transpose(x, w, tuple(strides), padding, tuple(rhs_dilation or (1, 1)))
    return _from_nhwc(y, specs)


def _conv_specs(name: str, dimension_numbers, default) -> tuple[str, str, str]:
    specs = tuple(dimension_numbers or default)
    if len(specs) != 3 or not all(isinstance(s, str) and len(s) == 4 for s in specs):
        raise shape_error(f"s4tf.lax.{name} takes 2-D convolutions named by three strings, got {dimension_numbers!r}")
    return specs


def _to_nhwc_hwio(lhs, rhs, specs):
    lhs_spec, rhs_spec, _ = specs
    spatial = [c for c in rhs_spec if c not in "OI"]
    return (transpose(lhs, [lhs_spec.index(c) for c in ("N", *spatial, "C")]),
            transpose(rhs, [rhs_spec.index(c) for c in (*spatial, "I", "O")]))


def _from_nhwc(y, specs):
    rhs_spec, out_spec = specs[1:]
    order = ("N", *[c for c in rhs_spec if c not in "OI"], "C")
    return transpose(y, [order.index(c) for c in out_spec])
