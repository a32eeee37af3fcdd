"""Tensor types of the s4tf dialect, as plain Python values.

Rules (shape inference, verification) work on :class:`TensorType`; conversion to and
from MLIR's ``RankedTensorType`` happens only at the edges.

>>> TensorType((4, None), "f32").mlir_text
'tensor<4x?xf32>'
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from s4tf.core.errors import DTypeError, ShapeError
from s4tf.core.mlir import ir

FLOAT_DTYPES = ("f16", "bf16", "f32", "f64")
INT_DTYPES = ("i8", "i32", "i64")
BOOL_DTYPE = "i1"
DTYPES = (BOOL_DTYPE, *INT_DTYPES, *FLOAT_DTYPES)

_NUMPY_DTYPES = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
_FROM_NUMPY = {v: k for k, v in _NUMPY_DTYPES.items()}

#: The largest dimension of a tensor type (MLIR's are int64).
MAX_DIMENSION = 2**63 - 1


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_integer(dtype: str) -> bool:
    return dtype in INT_DTYPES


def to_numpy_dtype(dtype: str) -> np.dtype:
    try:
        return _NUMPY_DTYPES[dtype]
    except KeyError:
        raise DTypeError(f"unknown dtype {dtype!r}; s4tf dtypes are {', '.join(DTYPES)}") from None


def canonical_dtype(dtype) -> str:
    """An s4tf dtype name from a NumPy dtype, a type like ``np.float32``, or a name."""
    if isinstance(dtype, str) and dtype in _NUMPY_DTYPES:
        return dtype
    try:
        np_dtype = np.dtype(dtype)
    except TypeError:
        raise DTypeError(f"not a dtype: {dtype!r}") from None
    try:
        return _FROM_NUMPY[np_dtype]
    except KeyError:
        raise DTypeError(
            f"dtype {np_dtype} is not supported; s4tf dtypes are {', '.join(DTYPES)}"
        ) from None


def promote_dtypes(a: str, b: str) -> str:
    """The dtype two operands are converted to before a binary op: NumPy 2's
    ``np.result_type`` (``int32`` and ``float32`` give ``float64``). ``bfloat16`` (from
    ml_dtypes, which gives it no promotion rules of its own) promotes as ``float16`` does,
    except that the two meet at ``float32``, the smallest float that holds both exactly."""
    if a == b:
        return a
    if "bf16" in (a, b):
        other = b if a == "bf16" else a
        if other == "f16":
            return "f32"
        promoted = promote_dtypes("f16", other)
        return "bf16" if promoted == "f16" else promoted
    return _FROM_NUMPY[np.result_type(_NUMPY_DTYPES[a], _NUMPY_DTYPES[b])]


def element_type(dtype: str) -> ir.Type:
    """The MLIR element type for an s4tf dtype (needs an active context)."""
    return ir.Type.parse(dtype)


@dataclass(frozen=True)
class TensorType:
    """A ranked tensor type; a ``None`` dimension is dynamic."""

    shape: tuple[int | None, ...]
    dtype: str

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(self.shape))
        _check_dtype(self.dtype)
        for d in self.shape:  # a loop, not any(...): types are built by the ten thousand in a lowering
            if d is not None and not 0 <= d <= MAX_DIMENSION:
                raise ShapeError(f"shape {shape_str(self.shape)} has a dimension outside 0 to 2**63 - 1")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        size = 1
        for dim in self.shape:
            size *= dim
        return size

    @property
    def mlir_text(self) -> str:
        dims = "".join(f"{'?' if d is None else d}x" for d in self.shape)
        return f"tensor<{dims}{self.dtype}>"

    def to_mlir(self) -> ir.RankedTensorType:
        return ir.RankedTensorType.get(
            [ir.ShapedType.get_dynamic_size() if d is None else d for d in self.shape],
            element_type(self.dtype),
        )

    @staticmethod
    def from_mlir(mlir_type: ir.Type) -> "TensorType":
        ranked = ir.RankedTensorType(mlir_type)
        shape = ranked.shape
        if not ranked.has_static_shape:
            shape = [None if ranked.is_dynamic_dim(i) else d for i, d in enumerate(shape)]
        dtype = str(ranked.element_type)
        _check_dtype(dtype)
        found = object.__new__(TensorType)  # MLIR's dimensions are in range: no check (a lowering reads ~50,000 types)
        object.__setattr__(found, "shape", tuple(shape))
        object.__setattr__(found, "dtype", dtype)
        return found

    def with_dtype(self, dtype: str) -> "TensorType":
        return TensorType(self.shape, dtype)

    def with_shape(self, shape) -> "TensorType":
        return TensorType(tuple(shape), self.dtype)

    def __str__(self) -> str:
        return self.mlir_text


def _check_dtype(dtype: str) -> None:
    if dtype not in _NUMPY_DTYPES:
        raise DTypeError(f"unknown dtype {dtype!r}")


def shape_str(shape) -> str:
    """``(4, 3)`` for messages."""
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
