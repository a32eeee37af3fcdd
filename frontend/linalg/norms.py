"""Vector and matrix norms: the Array API's ``vector_norm`` and ``matrix_norm``, and
NumPy's ``norm``."""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.locations import shape_error
from s4tf.linalg.matrices import linalg_error
from s4tf.linalg.spectral import svdvals

def _float(x):
    return snp.asarray(snp._float_operand(x))


def _vector_norm(x, ord, axis, keepdims):
    """The ``ord``-norm of the vectors along the one ``axis``."""
    if isinstance(ord, str):
        raise linalg_error(f"ord {ord!r} is a matrix norm; vectors take numbers")
    magnitude = snp.abs(x)
    if ord is None or ord == 2:
        return snp.sqrt(snp.sum(x * x, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return snp.max(magnitude, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return snp.min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        return snp.sum(snp.astype(x != 0, x.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return snp.sum(magnitude, axis=axis, keepdims=keepdims)
    return snp.sum(magnitude ** float(ord), axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _axes(axis, rank):
    axes = tuple(range(rank)) if axis is None else (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for a in axes:
        if not -rank <= a < rank:
            raise shape_error(f"axis {a} is out of range for a tensor of rank {rank}")
    normalized = tuple(int(a) % rank for a in axes)
    if len(set(normalized)) != len(normalized):
        raise shape_error(f"axis {axis!r} repeats an axis")
    return normalized


def vector_norm(x, axis=None, keepdims=False, ord=2):
    """The ``ord``-norm (``inf``, ``-inf``, ``0``, or ``p``: ``sum(|x|**p)**(1/p)``) of
    the vectors along ``axis``: one axis, several (flattened into one vector), or all
    (``None``)."""
    x = _float(x)
    axes = _axes(axis, x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    flat = snp.reshape(snp.transpose(x, kept + list(axes)), (*[x.shape[a] for a in kept], -1))
    result = _vector_norm(flat, ord, -1, False)
    if keepdims:
        return snp.reshape(result, [1 if a in axes else x.shape[a] for a in range(x.ndim)])
    return result


def _matrix_norm(x, ord, axes, keepdims):
    row_axis, column_axis = axes
    if ord in (None, "fro"):
        result = snp.sqrt(snp.sum(x * x, axis=axes))
    elif ord in (1, -1, np.inf, -np.inf):
        summed_axis, kept_axis = (row_axis, column_axis) if ord in (1, -1) else (column_axis, row_axis)
        sums = snp.sum(snp.abs(x), axis=summed_axis, keepdims=True)
        result = (snp.max if ord in (1, np.inf) else snp.min)(sums, axis=(kept_axis,), keepdims=True)
        result = snp.squeeze(result, axis=axes)
    elif ord in (2, -2, "nuc"):
        s = svdvals(snp.transpose(x, [i for i in range(x.ndim) if i not in axes] + list(axes)))
        result = snp.sum(s, axis=-1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
    else:
        raise linalg_error(f"ord {ord!r} is not a matrix norm (None, 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)")
    if keepdims:
        for axis in sorted(axes):
            result = snp.expand_dims(result, axis)
    return result


def matrix_norm(x, keepdims=False, ord="fro"):
    """The ``ord``-norm of the matrices on the last two axes: ``'fro'``, ``'nuc'`` (the sum
    of the singular values), ``1``, ``2`` (the largest singular value), ``inf`` and their
    negatives (the smallest column sum, singular value, row sum)."""
    x = _float(x)
    if x.ndim < 2:
        raise linalg_error(f"matrix_norm needs matrices (..., m, n), got shape {tuple(x.shape)}")
    return _matrix_norm(x, ord, (x.ndim - 2, x.ndim - 1), keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: vector norms over one axis, matrix norms over two; with
    ``axis=None`` the 2-norm of the flattened ``x``, or the matrix norm of a matrix."""
    x = _float(x)
    if axis is None:
        if ord is not None and x.ndim == 2:
            return _matrix_norm(x, ord, (0, 1), keepdims)
        if ord is not None and x.ndim != 1:
            raise linalg_error(f"ord={ord!r} needs a vector or matrix, or an axis; got shape {tuple(x.shape)}")
        return vector_norm(x, None, keepdims, ord)
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise linalg_error(f"norm takes one axis (vectors) or two (matrices), got {axis!r}")
