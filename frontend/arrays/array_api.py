"""``s4tf`` as an Array API namespace (standard 2024.12): data-type functions (``finfo``,
``iinfo``, ``result_type``, ``can_cast``, ``isdtype``), constants, the inspection namespace,
and the tensor attributes the standard asks for (``x.mT``, ``x.device``,
``x.__array_namespace__()``, the ``^``, ``<<`` and ``>>`` operators), and DLPack
(``from_dlpack``, ``x.__dlpack__()``, through host copies).

```python
import numpy as np, s4tf

x = s4tf.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
xp = x.__array_namespace__()
xp.finfo(xp.float32).eps, xp.result_type(x, 1), x.mT.shape, xp.isdtype(x.dtype, "real floating")
```

s4tf's dtypes are bool, int8, int32, int64, float16, bfloat16, float32 and float64; its
default float is float32 and its default integer int32 (NumPy's types stand for them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from s4tf.dialects.types import BOOL_DTYPE, DTYPES, canonical_dtype, is_float, is_integer, promote_dtypes, to_numpy_dtype
from s4tf.core.errors import DTypeError
from s4tf.dialects.composition import check_device
from s4tf.arrays.numpy_api import _result_dtype, _tensor, asarray, dtype_of, full, invert, power
from s4tf.staging.tensor import Tensor

__array_api_version__ = "2024.12"

e, pi, inf, nan = math.e, math.pi, math.inf, math.nan
newaxis = None


def _dtype_name(value) -> str:
    """The s4tf dtype of a dtype, or of a tensor or array."""
    if isinstance(value, (Tensor, np.ndarray)):
        return dtype_of(value)
    return canonical_dtype(value)


@dataclass(frozen=True)
class finfo_object:  # noqa: N801  (the standard's name for what finfo returns)
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801
    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type):  # noqa: A002  (the standard's argument name)
    """Machine limits of a float dtype (or of a float tensor's)."""
    dtype = _dtype_name(type)
    if not is_float(dtype):
        raise DTypeError(f"finfo needs a float dtype, got {dtype}")
    numpy_dtype = to_numpy_dtype(dtype)
    info = ml_dtypes.finfo(numpy_dtype) if dtype == "bf16" else np.finfo(numpy_dtype)
    return finfo_object(
        int(info.bits), float(info.eps), float(info.max), float(info.min), float(info.smallest_normal), numpy_dtype
    )


def iinfo(type):  # noqa: A002
    """Limits of an integer dtype (or of an integer tensor's)."""
    dtype = _dtype_name(type)
    if not is_integer(dtype):
        raise DTypeError(f"iinfo needs an integer dtype, got {dtype}")
    numpy_dtype = to_numpy_dtype(dtype)
    info = np.iinfo(numpy_dtype)
    return iinfo_object(int(info.bits), int(info.max), int(info.min), numpy_dtype)


def result_type(*arrays_and_dtypes):
    """The dtype s4tf's operators compute in for these tensors, dtypes and Python scalars."""
    if not arrays_and_dtypes:
        raise DTypeError("result_type needs at least one array or dtype")
    values = [
        v if isinstance(v, (Tensor, np.ndarray, bool, int, float, complex)) and not isinstance(v, np.generic) else
        np.empty((), to_numpy_dtype(canonical_dtype(v)))
        for v in arrays_and_dtypes
    ]
    return to_numpy_dtype(_result_dtype(*values))


def can_cast(from_, to, /):
    """Whether ``from_`` (a dtype or tensor) promotes to ``to`` without losing values."""
    source, target = _dtype_name(from_), canonical_dtype(to)
    return promote_dtypes(source, target) == target


_KINDS = {
    "bool": lambda d: d == BOOL_DTYPE,
    "signed integer": is_integer,
    "unsigned integer": lambda d: False,
    "integral": is_integer,
    "real floating": is_float,
    "complex floating": lambda d: False,
    "numeric": lambda d: is_integer(d) or is_float(d),
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name (``"real floating"``,
    ``"integral"``, ...), or a tuple of them."""
    name = canonical_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str) and kind in _KINDS:
        return _KINDS[kind](name)
    if isinstance(kind, str) and kind not in DTYPES:
        raise DTypeError(f"unknown dtype kind {kind!r}; kinds are {', '.join(_KINDS)}")
    return name == canonical_dtype(kind)


# -- the standard's names for NumPy's functions, and complex parts of real tensors ------

pow = power  # noqa: A001  (the standard's name)
bitwise_invert = invert


def conj(x):
    """The complex conjugate: ``x`` itself (s4tf has no complex dtypes)."""
    return _tensor(x)


def real(x):
    """The real part: ``x`` itself (s4tf has no complex dtypes)."""
    return _tensor(x)


def imag(x):
    """The imaginary part: zeros (s4tf has no complex dtypes)."""
    x = _tensor(x)
    return full(x.shape, 0, dtype_of(x))


# -- inspection -------------------------------------------------------------------------


class _Info:
    """What ``__array_namespace_info__()`` reports: one device, ``"cpu"``."""

    def capabilities(self):
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": None}

    def default_device(self):
        return "cpu"

    def devices(self):
        return ["cpu"]

    def default_dtypes(self, *, device=None):
        return {"real floating": np.dtype(np.float32), "complex floating": None,
                "integral": np.dtype(np.int32), "indexing": np.dtype(np.int32)}

    def dtypes(self, *, device=None, kind=None):
        names = {"bool": "i1", "int8": "i8", "int32": "i32", "int64": "i64", "float32": "f32", "float64": "f64"}
        return {
            name: to_numpy_dtype(dtype) for name, dtype in names.items() if kind is None or isdtype(dtype, kind)
        }


def __array_namespace_info__():  # noqa: N807  (the standard's name)
    return _Info()


# -- tensor attributes ------------------------------------------------------------------


def _namespace(self, /, *, api_version=None):
    if api_version not in (None, "2023.12", "2024.12"):
        raise ValueError(f"s4tf implements the Array API standard 2024.12, not {api_version!r}")
    import s4tf

    return s4tf


def _to_device(self, device, /, *, stream=None):
    if device != "cpu" and device != getattr(self, "target", "cpu"):
        raise ValueError(f"to_device: s4tf moves tensors between targets with s4tf.function(target=...), not to {device!r}")
    return self


# -- DLPack -----------------------------------------------------------------------------

#: DLPack's device type of the host memory a tensor is exported into.
_DLPACK_CPU = 1


def _dlpack(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of a host copy of the elements: a tensor's buffer is the device's,
    and it is immutable, so a consumer is never handed it to write into (``copy=False``
    is a ``BufferError``)."""
    if copy is False:
        raise BufferError("s4tf exports a tensor through DLPack as a host copy (tensors are immutable); copy=False cannot be met")
    if dl_device is not None and tuple(dl_device) != (_DLPACK_CPU, 0):
        raise BufferError(f"s4tf exports a tensor through DLPack into host memory (kDLCPU, 0), not {tuple(dl_device)}")
    return self.numpy().__dlpack__(max_version=max_version)


def _dlpack_device(self, /):
    return (_DLPACK_CPU, 0)


def from_dlpack(x, /, *, device=None, copy=None):
    """A tensor of the elements of ``x``, any DLPack producer (a NumPy array, a JAX or
    PyTorch array on the CPU); an s4tf tensor is returned as it is (it is immutable, so a
    copy would change nothing). Other producers' memory is copied to the device, so
    ``copy=False`` is a ``BufferError`` for them."""
    check_device(device, "from_dlpack")
    if isinstance(x, Tensor):
        return x
    if copy is False:
        raise BufferError("from_dlpack: s4tf copies a producer's memory to the device; copy=False cannot be met")
    return asarray(np.from_dlpack(x))


def attach() -> None:
    """Give :class:`Tensor` the Array API's attributes; called once when ``s4tf`` is imported."""
    from s4tf.arrays.creation import matrix_transpose
    from s4tf.arrays.math_functions import bitwise_left_shift, bitwise_right_shift, bitwise_xor

    for name, function in (("xor", bitwise_xor), ("lshift", bitwise_left_shift), ("rshift", bitwise_right_shift)):
        setattr(Tensor, f"__{name}__", function)
        setattr(Tensor, f"__r{name}__", lambda self, other, function=function: function(other, self))
    Tensor.mT = property(matrix_transpose)
    Tensor.__array_namespace__ = _namespace
    Tensor.device = property(lambda self: getattr(self, "target", "cpu"))
    Tensor.to_device = _to_device
    Tensor.__dlpack__ = _dlpack
    Tensor.__dlpack_device__ = _dlpack_device
    if not hasattr(Tensor, "__index__"):
        Tensor.__index__ = lambda self: int(self.numpy()) if self.shape == () and is_integer(self.tensor_type.dtype) else _not_an_index(self)
    Tensor.__complex__ = lambda self: complex(self.numpy())


def _not_an_index(tensor):
    raise TypeError(f"only a 0-d integer tensor is an index, not a {tensor.tensor_type} tensor")


__all__ = [
    "__array_api_version__", "__array_namespace_info__", "bitwise_invert", "can_cast", "conj", "e", "finfo",
    "from_dlpack", "iinfo", "imag", "inf", "isdtype", "nan", "newaxis", "pi", "pow", "real", "result_type",
]
