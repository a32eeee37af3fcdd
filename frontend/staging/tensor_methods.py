"""NumPy-style operators, methods and properties on :class:`s4tf.Tensor` (and so on tracers).

```python
y = (x @ w + b).T.reshape(-1)[:3] * 2 ** x.sum(axis=0, keepdims=True)
```

Each operator and method calls the ``s4tf.<name>`` function of the same meaning, so
staged and eager code share one definition; arithmetic and comparisons come with
:class:`s4tf.dialects.composition.ArrayValue`, the base of every tensor value. Every
method and property of ``numpy.ndarray`` that has a meaning for an immutable tensor is
here, with NumPy's signature; those that change an array in place (``sort``, ``fill``,
``put``, ``resize``, ...) raise :class:`s4tf.ImmutableTensorError` naming ``x.at[]``, and
the others without a meaning (``view``, ``strides``, ``flags``, ...) say why. A wrong
argument is a :class:`TensorMethodError` at the caller's line.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from s4tf.arrays import contractions, creation, indexing, shaping, sorting, statistics
from s4tf.arrays import numpy_api as np_api
from s4tf.arrays.array_api import conj, imag, real
from s4tf.core.errors import S4tfError
from s4tf.core.locations import user_location
from s4tf.staging.tensor import Tensor


class TensorMethodError(S4tfError, TypeError, ValueError):
    """A tensor method called with arguments it does not take (of a wrong kind or value), or
    one s4tf does not offer."""


class TensorAttributeError(S4tfError, AttributeError):
    """A ``numpy.ndarray`` attribute that has no meaning for a tensor (``strides``, ``flags``, ...)."""


def _where_here() -> str | None:
    return str(user_location() or "") or None


def _swapped(function):
    return lambda self, other: function(other, self)


_BINARY = {
    "floordiv": np_api.floor_divide,
    "mod": np_api.remainder,
    "matmul": np_api.matmul,
    "and": np_api.bitwise_and,
    "or": np_api.bitwise_or,
}


def _method(function):
    """``function`` as a tensor method: arguments it does not take, and a ``TypeError`` or
    ``ValueError`` from below that is not s4tf's own, become a :class:`TensorMethodError`
    at the caller's line."""
    signature = inspect.signature(function)
    name = function.__name__.lstrip("_")
    shown = str(signature.replace(parameters=list(signature.parameters.values())[1:]))

    @functools.wraps(function)
    def method(self, *args, **kwargs):
        try:
            return function(self, *args, **kwargs)
        except S4tfError:
            raise
        except (TypeError, ValueError) as error:
            try:  # arguments the method does not take: Python's message for them (binding only on failure: calls stay cheap)
                signature.bind(self, *args, **kwargs)
            except TypeError as binding:
                raise TensorMethodError(f"x.{name}{shown}: {binding}", _where_here()) from None
            raise TensorMethodError(f"x.{name}{shown}: {error}", _where_here()) from error

    return method


def _refuse_out(out, where=True, name=""):
    if out is not None:
        raise TensorMethodError(
            f"x.{name}(out=...): tensors are values and are not written in place; use the result "
            "(to combine it into part of another tensor: y = y.at[index].set(result))",
            _where_here(),
        )
    if where is not True:
        raise TensorMethodError(
            f"x.{name}(where=...): masked reductions are not offered; reduce s4tf.where(mask, x, identity) instead",
            _where_here(),
        )


# -- shapes -------------------------------------------------------------------------------


def _reshape(self, *shape, order="C", copy=None):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``, as NumPy's method (C order)."""
    if order != "C":
        raise TensorMethodError(f"x.reshape(order={order!r}): s4tf reshapes in C order only", _where_here())
    if not shape:
        raise TensorMethodError("x.reshape() needs a shape", _where_here())
    return np_api.reshape(self, shape[0] if len(shape) == 1 else shape)


def _transpose(self, *axes):
    """``x.transpose()``, ``x.transpose(1, 0, 2)`` or ``x.transpose((1, 0, 2))``."""
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
        axes = axes[0]
    return np_api.transpose(self, None if axes is None or axes == () else tuple(axes))


def _flatten(self, order="C"):
    """A 1-D copy in C order (``"F"``: column-major)."""
    if order not in ("C", "F", "A", "K"):
        raise TensorMethodError(f"x.flatten(order={order!r}): order must be 'C', 'F', 'A' or 'K'", _where_here())
    return np_api.reshape(np_api.transpose(self) if order == "F" else self, -1)


def _ravel(self, order="C"):
    return _flatten(self, order)


def _squeeze(self, axis=None):
    return np_api.squeeze(self, axis)


def _swapaxes(self, axis1, axis2):
    return creation.swapaxes(self, axis1, axis2)


def _repeat(self, repeats, axis=None):
    return creation.repeat(self, repeats, axis)


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return np_api.astype(self, dtype)


def _copy(self, order="C"):
    """``x`` itself: tensors are values, so a copy cannot be told apart from it."""
    return self


def _diagonal(self, offset=0, axis1=0, axis2=1):
    return shaping.diagonal(self, offset, axis1, axis2)


# -- elementwise --------------------------------------------------------------------------


def _clip(self, min=None, max=None, out=None):  # noqa: A002  (NumPy's names)
    _refuse_out(out, name="clip")
    return np_api.clip(self, min, max)


def _round(self, decimals=0, out=None):
    """Rounded to ``decimals`` places (half to even), as ``np.round``: scaled, rounded, scaled back."""
    _refuse_out(out, name="round")
    if decimals == 0:
        return np_api.round(self)
    scale = 10.0 ** decimals
    return np_api.round(self * scale) / scale


def _conj(self):
    return conj(self)


def _conjugate(self):
    return conj(self)


# -- reductions and scans -----------------------------------------------------------------


def _sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out, where, "sum")
    total = np_api.sum(self, axis=axis, keepdims=keepdims, dtype=dtype)
    return total if initial is None else total + initial


def _prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    _refuse_out(out, where, "prod")
    product = statistics.prod(self, axis=axis, dtype=dtype, keepdims=keepdims)
    return product if initial is None else product * initial


def _mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    _refuse_out(out, where, "mean")
    return np_api.mean(self if dtype is None else np_api.astype(self, dtype), axis=axis, keepdims=keepdims)


def _extreme(name, function, combine):
    def extreme(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        _refuse_out(out, where, name)
        result = function(self, axis=axis, keepdims=keepdims)
        return result if initial is None else combine(result, initial)

    extreme.__name__ = f"_{name}"
    return extreme


_max = _extreme("max", np_api.max, np_api.maximum)
_min = _extreme("min", np_api.min, np_api.minimum)


def _argmax(self, axis=None, out=None, *, keepdims=False):
    _refuse_out(out, name="argmax")
    return np_api.argmax(self, axis=axis, keepdims=keepdims)


def _argmin(self, axis=None, out=None, *, keepdims=False):
    _refuse_out(out, name="argmin")
    return statistics.argmin(self, axis=axis, keepdims=keepdims)


def _all(self, axis=None, out=None, keepdims=False, *, where=True):
    _refuse_out(out, where, "all")
    return statistics.all(self, axis=axis, keepdims=keepdims)


def _any(self, axis=None, out=None, keepdims=False, *, where=True):
    _refuse_out(out, where, "any")
    return statistics.any(self, axis=axis, keepdims=keepdims)


def _var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, correction=None):
    _refuse_out(out, where, "var")
    x = self if dtype is None else np_api.astype(self, dtype)
    return statistics.var(x, axis=axis, correction=ddof if correction is None else correction, keepdims=keepdims)


def _std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, correction=None):
    _refuse_out(out, where, "std")
    x = self if dtype is None else np_api.astype(self, dtype)
    return statistics.std(x, axis=axis, correction=ddof if correction is None else correction, keepdims=keepdims)


def _cumsum(self, axis=None, dtype=None, out=None):
    _refuse_out(out, name="cumsum")
    return statistics.cumsum(self, axis=axis, dtype=dtype)


def _cumprod(self, axis=None, dtype=None, out=None):
    _refuse_out(out, name="cumprod")
    return statistics.cumprod(self, axis=axis, dtype=dtype)


def _trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _refuse_out(out, name="trace")
    return shaping.trace(self, offset, axis1, axis2, dtype)


# -- indexing, sorting, products ----------------------------------------------------------


_TAKE_MODES = {"raise": None, "clip": "clip", "wrap": "wrap"}


def _take(self, indices, axis=None, out=None, mode="raise"):
    _refuse_out(out, name="take")
    if mode not in _TAKE_MODES:
        raise TensorMethodError(f"x.take(mode={mode!r}): mode must be 'raise', 'clip' or 'wrap'", _where_here())
    return indexing.take(self, indices, axis=axis, mode=_TAKE_MODES[mode])


def _compress(self, condition, axis=None, out=None):
    """The slices along ``axis`` (of the flattened ``x`` when ``None``) where ``condition``,
    known on the host, is true."""
    _refuse_out(out, name="compress")
    chosen = np.nonzero(np.asarray(condition, dtype=bool).reshape(-1))[0]
    return indexing.take(self, chosen, axis=axis)


def _choose(self, choices, out=None, mode="raise"):
    """``choices[x[i]][i]``: ``x`` holds integer indices into the list ``choices``."""
    _refuse_out(out, name="choose")
    if mode not in _TAKE_MODES:
        raise TensorMethodError(f"x.choose(mode={mode!r}): mode must be 'raise', 'clip' or 'wrap'", _where_here())
    index, *options = creation.broadcast_arrays(self, *choices)
    if mode != "raise":
        index = np_api.clip(index, 0, len(options) - 1) if mode == "clip" else np_api.remainder(index, len(options))
    stacked = np_api.stack(options, axis=0)
    return indexing.take_along_axis(stacked, np_api.expand_dims(index, 0), axis=0)[0]


def _searchsorted(self, v, side="left", sorter=None):
    return sorting.searchsorted(self, v, side=side, sorter=sorter)


def _argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    """Stable indices that sort ``x`` along ``axis`` (every ``kind`` gives them)."""
    if order is not None:
        raise TensorMethodError("x.argsort(order=...): s4tf has no structured dtypes", _where_here())
    return sorting.argsort(np_api.reshape(self, -1) if axis is None else self, axis=-1 if axis is None else axis)


def _nonzero(self):
    """The indices of the nonzero elements, one tensor per axis (eager only: the count is data)."""
    return sorting.nonzero(self)


def _dot(self, b, out=None):
    _refuse_out(out, name="dot")
    return contractions.dot(self, b)


# -- host copies --------------------------------------------------------------------------


def _tolist(self):
    return self.numpy().tolist()


def _item(self, *args):
    return self.numpy().item(*args)


def _tobytes(self, order="C"):
    return self.numpy().tobytes(order)


def _tofile(self, fid, sep="", format="%s"):  # noqa: A002  (NumPy's name)
    self.numpy().tofile(fid, sep, format)


def _dump(self, file):
    self.numpy().dump(file)


def _dumps(self):
    return self.numpy().dumps()


# -- what tensors do not do ---------------------------------------------------------------

#: ``ndarray`` methods that change the array in place -> what to write instead.
IN_PLACE = {
    "sort": "x = s4tf.sort(x, axis=...)",
    "partition": "x = s4tf.sort(x, axis=...) (a sorted tensor is partitioned at every k)",
    "fill": "x = s4tf.full_like(x, value)",
    "put": "x = x.reshape(-1).at[indices].set(values).reshape(x.shape)",
    "resize": "x = x.reshape(new_shape), or s4tf.pad / slicing for another size",
    "setfield": "x = x.at[index].set(value)",
    "setflags": "nothing: a tensor is always read-only",
    "byteswap": "nothing: s4tf tensors are in the device's byte order",
    "itemset": "x = x.at[index].set(value)",
}

#: ``ndarray`` methods without a meaning for a tensor -> why.
NOT_OFFERED = {
    "view": "a view shares the array's memory; a tensor's lives on the device: use x.astype(dtype) for values",
    "getfield": "s4tf has no structured dtypes or byte views",
    "argpartition": "use s4tf.argsort (its result is a valid partition at every k) or s4tf.top_k",
}

#: ``ndarray`` attributes without a meaning for a tensor -> why.
NO_ATTRIBUTE = {
    "strides": "a tensor's buffer lives on the device, with no host strides (np.asarray(x).strides has them)",
    "ctypes": "a tensor's buffer lives on the device (np.asarray(x).ctypes is a host copy's)",
    "data": "a tensor's buffer lives on the device (np.asarray(x).data is a host copy's)",
    "base": "a tensor is never a view of another",
    "flags": "a tensor is always contiguous and read-only (np.asarray(x).flags describes a host copy)",
    "flat": "it assigns in place; read with x.reshape(-1), write with x.at[]",
}


def _in_place(name):
    def refuse(self, *args, **kwargs):
        raise indexing.ImmutableTensorError(
            f"x.{name}() changes an array in place, and s4tf tensors are values: write {IN_PLACE[name]}; "
            "to change elements, x = x.at[index].set(value) (or .add, .multiply, .min, .max)",
            _where_here(),
        )

    refuse.__name__ = name
    return refuse


def _not_offered(name):
    def refuse(self, *args, **kwargs):
        raise TensorMethodError(f"x.{name}() is not offered on s4tf tensors: {NOT_OFFERED[name]}", _where_here())

    refuse.__name__ = name
    return refuse


def _no_attribute(name):
    def refuse(self):
        raise TensorAttributeError(f"x.{name}: not an attribute of s4tf tensors: {NO_ATTRIBUTE[name]}", _where_here())

    return property(refuse)


# -- attaching ----------------------------------------------------------------------------

_METHODS = [
    _reshape, _transpose, _flatten, _ravel, _squeeze, _swapaxes, _repeat, _astype, _copy, _diagonal, _clip, _round,
    _conj, _conjugate, _sum, _prod, _mean, _max, _min, _argmax, _argmin, _all, _any, _var, _std, _cumsum,
    _cumprod, _trace, _take, _compress, _choose, _searchsorted, _argsort, _nonzero, _dot, _tolist, _item,
    _tobytes, _tofile, _dump, _dumps,
]


def attach() -> None:
    """Give :class:`Tensor` its operators and methods; called once when ``s4tf`` is imported."""
    for name, function in _BINARY.items():
        setattr(Tensor, f"__{name}__", function)
        setattr(Tensor, f"__r{name}__", _swapped(function))
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = np_api.abs
    Tensor.__invert__ = np_api.invert
    Tensor.__getitem__ = indexing.getitem
    Tensor.__setitem__ = indexing.no_setitem
    Tensor.at = property(indexing.at)
    Tensor.T = property(np_api.transpose)
    Tensor.real = property(real)
    Tensor.imag = property(imag)
    Tensor.itemsize = property(lambda self: self.dtype.itemsize)
    Tensor.nbytes = property(lambda self: self.size * self.itemsize)
    for function in _METHODS:
        setattr(Tensor, function.__name__.lstrip("_"), _method(function))
    for name in IN_PLACE:
        setattr(Tensor, name, _in_place(name))
    for name in NOT_OFFERED:
        setattr(Tensor, name, _not_offered(name))
    for name in NO_ATTRIBUTE:
        setattr(Tensor, name, _no_attribute(name))
