"""Attribute kinds of s4tf ops: how a Python value is stored as an MLIR attribute.

Each op declares its attributes as ``{"axes": INT_ARRAY, "keepdims": BOOL}``; the kind
converts both ways, normalizes Python values (lists become tuples) and names the
IRDL constraint used in the dialect's IRDL spec.

```mlir
"s4tf.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np

from s4tf.dialects.types import DTYPES, FLOAT_DTYPES, TensorType, canonical_dtype, element_type, to_numpy_dtype
from s4tf.core.errors import OpAttributeError
from s4tf.core.mlir import ir


class AttrKind:
    """One kind of attribute value; subclasses define the conversions."""

    description = ""
    irdl_base = ""  #: the IRDL base name (``#builtin.integer``); empty: ``irdl.any``
    #: Whether :meth:`batched` knows the value for a batch: a flag or a dtype means the
    #: same for a batch as for one example; what integers mean to the operands' axes, only
    #: a role says (:mod:`s4tf.dialects.attribute_roles`).
    batchable = True

    def batched(self, value, size: int):
        """The value for operands with a leading batch axis of ``size``."""
        return value

    def normalize(self, value):
        return value

    def to_mlir(self, value) -> ir.Attribute:
        raise NotImplementedError

    def from_mlir(self, attribute: ir.Attribute):
        raise NotImplementedError


def _is_integer(value) -> bool:
    """A Python or NumPy integer (0-d integer arrays included), not a bool."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class _IntArray(AttrKind):
    description = "array of i64"
    batchable = False
    irdl_base = "#builtin.dense_array"

    def normalize(self, value):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise OpAttributeError(f"expected a sequence of integers, got {value!r}")
        items = tuple(value)
        if not all(_is_integer(v) for v in items):
            raise OpAttributeError(f"expected a sequence of integers, got {value!r}")
        return tuple(int(v) for v in items)

    def to_mlir(self, value):
        return ir.DenseI64ArrayAttr.get(list(value))

    def from_mlir(self, attribute):
        return tuple(ir.DenseI64ArrayAttr(attribute))


class _Int(AttrKind):
    description = "i64"
    batchable = False
    irdl_base = "#builtin.integer"

    def normalize(self, value):
        if not _is_integer(value):
            raise OpAttributeError(f"expected an integer, got {value!r}")
        return int(value)

    def to_mlir(self, value):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)

    def from_mlir(self, attribute):
        return ir.IntegerAttr(attribute).value


class _Bool(AttrKind):
    description = "bool"
    irdl_base = "#builtin.integer"  # MLIR's BoolAttr is an i1 IntegerAttr

    def normalize(self, value):
        if not isinstance(value, (bool, np.bool_)):
            raise OpAttributeError(f"expected a bool, got {value!r}")
        return bool(value)

    def to_mlir(self, value):
        return ir.BoolAttr.get(value)

    def from_mlir(self, attribute):
        return ir.BoolAttr(attribute).value


class _DType(AttrKind):
    description = f"element type ({', '.join(DTYPES)})"
    irdl_base = "#builtin.type"

    def normalize(self, value):
        return canonical_dtype(value)

    def to_mlir(self, value):
        return ir.TypeAttr.get(element_type(value))

    def from_mlir(self, attribute):
        return str(ir.TypeAttr(attribute).value)


class _Elements(AttrKind):
    """A NumPy array stored as ``dense<...>``."""

    description = "dense elements"
    irdl_base = ""  # DenseIntOrFPElementsAttr has no name IRDL can look up: any attribute

    def normalize(self, value):
        array = np.asarray(value)
        canonical_dtype(array.dtype)
        return array

    def to_mlir(self, value):
        dtype = canonical_dtype(value.dtype)
        mlir_type = TensorType(value.shape, dtype).to_mlir()
        if is_splat_view(value):  # one element in memory: stays one in the attribute
            return ir.DenseElementsAttr.get_splat(mlir_type, _element_attribute(value[(0,) * value.ndim], dtype))
        if dtype == "bf16":
            return ir.DenseElementsAttr.get(np.ascontiguousarray(value).view(np.uint16), type=mlir_type)
        return ir.DenseElementsAttr.get(np.ascontiguousarray(value), type=mlir_type)

    def from_mlir(self, attribute):
        dense = ir.DenseElementsAttr(attribute)
        tensor_type = TensorType.from_mlir(dense.type)
        np_dtype = to_numpy_dtype(tensor_type.dtype)
        if dense.is_splat:
            splat = dense.get_splat_value()
            scalar = ir.FloatAttr(splat).value if tensor_type.dtype in ("f16", "bf16", "f32", "f64") else (
                ir.BoolAttr(splat).value if tensor_type.dtype == "i1" else ir.IntegerAttr(splat).value
            )
            return np.broadcast_to(np.array(scalar, dtype=np_dtype), tensor_type.shape)  # never materialized
        if tensor_type.dtype == "bf16":
            return _bf16_bits(dense).view(np_dtype).reshape(tensor_type.shape)
        return np.array(dense).astype(np_dtype, copy=False).reshape(tensor_type.shape)


def is_splat_view(array: np.ndarray) -> bool:
    """Whether ``array``'s elements are one element in memory (``np.broadcast_to`` of a
    scalar, as splat attributes are read): a splat however large, never materialized."""
    return array.size > 1 and not any(array.strides)


def _element_attribute(value, dtype: str) -> ir.Attribute:
    element = element_type(dtype)
    if dtype in FLOAT_DTYPES:
        return ir.FloatAttr.get(element, float(value))
    return ir.IntegerAttr.get(element, int(value))


def _bf16_bits(dense: ir.DenseElementsAttr) -> np.ndarray:
    """The bit patterns of a bf16 attribute's elements, read from its text: MLIR's Python API
    has no buffer view of bf16 data. MLIR prints each element so that it parses back exactly
    (a decimal, or hex bits such as ``0x7F80`` for non-finite values), or a large attribute
    as one hex string of its raw little-endian bytes."""
    text = str(dense)
    body = text[text.index("<") + 1 : text.rindex("> :")]
    if body.startswith('"0x'):
        return np.frombuffer(bytes.fromhex(body[3:-1]), dtype="<u2")
    return np.array([_bf16_token_bits(token) for token in re.findall(r"[^\s\[\],]+", body)], np.uint16)


def _bf16_token_bits(token: str) -> int:
    if token.startswith("0x"):
        return int(token, 16)
    return int(np.array(float(token)).astype(ml_dtypes.bfloat16).view(np.uint16))


class _Symbol(AttrKind):
    """A name (of a host function), stored as a string."""

    description = "symbol name (string)"
    irdl_base = "#builtin.string"

    def normalize(self, value):
        if not isinstance(value, str) or not value:
            raise OpAttributeError(f"expected a non-empty name, got {value!r}")
        return value

    def to_mlir(self, value):
        return ir.StringAttr.get(value)

    def from_mlir(self, attribute):
        return ir.StringAttr(attribute).value


class _TensorTypes(AttrKind):
    """Declared result types (of a host function), stored as an array of types."""

    description = "array of tensor types"
    batchable = False
    irdl_base = "#builtin.array"

    def normalize(self, value):
        types = tuple(value)
        if not all(isinstance(t, TensorType) for t in types):
            raise OpAttributeError(f"expected tensor types, got {value!r}")
        return types

    def to_mlir(self, value):
        return ir.ArrayAttr.get([ir.TypeAttr.get(t.to_mlir()) for t in value])

    def from_mlir(self, attribute):
        return tuple(TensorType.from_mlir(ir.TypeAttr(a).value) for a in ir.ArrayAttr(attribute))


class Choice(AttrKind):
    """One of a fixed set of names (``kind = "add"``), stored as a string."""

    irdl_base = "#builtin.string"

    def __init__(self, *choices: str):
        self.choices = choices
        self.description = "one of " + ", ".join(f"'{c}'" for c in choices)

    def normalize(self, value):
        if value not in self.choices:
            raise OpAttributeError(f"expected {self.description}, got {value!r}")
        return value

    def to_mlir(self, value):
        return ir.StringAttr.get(value)

    def from_mlir(self, attribute):
        value = ir.StringAttr(attribute).value
        if value not in self.choices:
            raise ValueError(f"{value!r} is not {self.description}")
        return value


INT_ARRAY = _IntArray()
INT = _Int()
BOOL = _Bool()
DTYPE = _DType()
ELEMENTS = _Elements()
SYMBOL = _Symbol()
TENSOR_TYPES = _TensorTypes()
