"""Counter-based random bits: the Threefry-2x32 hash (Salmon et al., SC 2011, as JAX's
``threefry2x32``), random bits of any shape from a key, and the logical right shift that
turns bits into floats.

s4tf has no unsigned dtypes: a 32-bit word is an ``i32`` whose bits are read as unsigned
(additions wrap, shifts are logical), so the draws are the bit patterns JAX's ``uint32``
ones have.

```mlir
%0 = "s4tf.random_bits"(%key) {shape = array<i64: 3, 4>, dtype = i32} : (tensor<2xi32>) -> tensor<3x4xi32>
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import hlo
from s4tf.dialects.attributes import DTYPE, INT, INT_ARRAY
from s4tf.dialects.batching_helpers import elementwise_batch, to_front
from s4tf.dialects.elementwise import BinaryOp, broadcast_shapes
from s4tf.dialects.op_def import Op
from s4tf.dialects.types import TensorType, is_integer, shape_str
from s4tf.core.errors import DTypeError, ShapeError

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant
#: Draws index their elements with one 32-bit counter word.
MAX_DRAWS = 2**32


def threefry2x32(words, key0, key1, x0, x1):
    """Threefry-2x32 with 20 rounds, in the arithmetic of ``words`` (NumPy or StableHLO):
    ``add`` wraps modulo 2**32, ``xor``, ``rotate_left``, ``constant``."""
    keys = (key0, key1, words.xor(words.xor(key0, key1), words.constant(_PARITY)))
    x0, x1 = words.add(x0, keys[0]), words.add(x1, keys[1])
    for step in range(5):
        for rotation in _ROTATIONS[step % 2]:
            x0 = words.add(x0, x1)
            x1 = words.xor(x0, words.rotate_left(x1, rotation))
        x0 = words.add(x0, keys[(step + 1) % 3])
        x1 = words.add(words.add(x1, keys[(step + 2) % 3]), words.constant(step + 1))
    return x0, x1


class _NumpyWords:
    """32-bit words as ``np.uint32`` arrays."""

    @staticmethod
    def constant(number):
        return np.uint32(number)

    @staticmethod
    def add(a, b):
        return (np.asarray(a, np.uint32) + np.asarray(b, np.uint32)).astype(np.uint32)

    @staticmethod
    def xor(a, b):
        return np.bitwise_xor(np.asarray(a, np.uint32), np.asarray(b, np.uint32))

    @staticmethod
    def rotate_left(a, d):
        return (a << np.uint32(d)) | (a >> np.uint32(32 - d))


class _HloWords:
    """32-bit words as StableHLO ``i32`` tensors of one type."""

    def __init__(self, tensor_type: TensorType):
        self.type = tensor_type

    def constant(self, number):
        word = np.array(number, np.uint32).view(np.int32)
        return hlo.broadcast(hlo.constant(word), TensorType((), "i32"), self.type.shape)

    def add(self, a, b):
        return hlo.value("add", [a, b], self.type)

    def xor(self, a, b):
        return hlo.value("xor", [a, b], self.type)

    def rotate_left(self, a, d):
        left = hlo.value("shift_left", [a, self.constant(d)], self.type)
        right = hlo.value("shift_right_logical", [a, self.constant(32 - d)], self.type)
        return hlo.value("or", [left, right], self.type)


def _as_words(array) -> np.ndarray:
    return np.asarray(array, np.int32).view(np.uint32)


class Threefry2x32(Op):
    """The Threefry-2x32 block cipher: 32-bit words ``(x0, x1)`` encrypted with the key
    ``(key0, key1)``, elementwise with NumPy broadcasting (JAX's ``threefry2x32_p``).

    ```mlir
    %0:2 = "s4tf.threefry2x32"(%k0, %k1, %x0, %x1) : (tensor<i32>, tensor<i32>, tensor<8xi32>, tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>)
    ```
    """

    name = "threefry2x32"
    operands = ("key0", "key1", "x0", "x1")
    results = ("y0", "y1")
    batch = classmethod(elementwise_batch)

    @staticmethod
    def infer(*words):
        for word in words:
            if word.dtype != "i32":
                raise DTypeError(f"operands are 32-bit words (i32), got {', '.join(w.dtype for w in words)}")
        result = TensorType(broadcast_shapes(*(w.shape for w in words)), "i32")
        return result, result

    @staticmethod
    def reference(key0, key1, x0, x1):
        shape = np.broadcast_shapes(*(np.shape(w) for w in (key0, key1, x0, x1)))
        words = [np.broadcast_to(_as_words(w), shape) for w in (key0, key1, x0, x1)]
        return tuple(y.view(np.int32) for y in threefry2x32(_NumpyWords, *words))

    @staticmethod
    def lower(lowering, *words):
        result_type = lowering.result_type
        words = [hlo.broadcast(w, t, result_type.shape) for w, t in zip(words, lowering.operand_types)]
        return list(threefry2x32(_HloWords(result_type), *words))


class RandomBits(Op):
    """Uniformly random bits of ``shape`` from a key of two 32-bit words: element ``i``
    (row-major) is Threefry-2x32 of the counter ``(0, i)``, its two words xored (``i32``)
    or concatenated, the first high (``i64``). These are the bits of JAX's
    ``random_bits`` (partitionable Threefry) for the same key.

    ```mlir
    %0 = "s4tf.random_bits"(%key) {shape = array<i64: 3, 4>, dtype = i64} : (tensor<2xi32>) -> tensor<3x4xi64>
    ```
    """

    name = "random_bits"
    operands = ("key",)
    attributes = {"shape": INT_ARRAY, "dtype": DTYPE}

    @staticmethod
    def infer(key, *, shape, dtype):
        if key.shape != (2,) or key.dtype != "i32":
            raise ShapeError(f"the key is two 32-bit words, tensor<2xi32>, got {key}")
        if dtype not in ("i32", "i64"):
            raise DTypeError(f"random bits are i32 or i64, got {dtype}")
        if any(d < 0 for d in shape):
            raise ShapeError(f"shape {shape_str(shape)} has a negative dimension")
        result = TensorType(shape, dtype)
        if result.size > MAX_DRAWS:
            raise ShapeError(f"at most 2**32 draws per key, got shape {shape_str(shape)}; split the key")
        return result

    @staticmethod
    def reference(key, *, shape, dtype):
        key = _as_words(key)
        counters = np.arange(int(np.prod(shape)), dtype=np.uint32)
        high, low = threefry2x32(_NumpyWords, key[0], key[1], np.zeros_like(counters), counters)
        if dtype == "i32":
            bits = (high ^ low).view(np.int32)
        else:
            bits = ((high.astype(np.uint64) << np.uint64(32)) | low.astype(np.uint64)).view(np.int64)
        return bits.reshape(shape)

    @staticmethod
    def batch(ops, operands, batch_dims, *, shape, dtype):
        """A key per example: the draws of ``reference`` for each key at once, from one
        ``threefry2x32`` whose keys have the batch axis and whose counters do not."""
        keys = to_front(ops, operands[0], batch_dims[0])
        size, count = keys.shape[0], int(np.prod(shape))
        key0, key1 = (ops.reshape(ops.slice(keys, (0, i), (size, i + 1)), (size, 1)) for i in range(2))
        counters = ops.reshape(ops.iota((count,), 0, "i32"), (1, count))
        high, low = ops.emit("threefry2x32", [key0, key1, ops.zeros((1, count), "i32"), counters], {})
        if dtype == "i32":
            bits = ops.op("xor", high, low)
        else:
            high, low = (ops.op("and", ops.astype(w, "i64"), ops.full((), 0xFFFFFFFF, "i64")) for w in (high, low))
            bits = ops.op("or", ops.op("shift_left", high, ops.full((), 32, "i64")), low)
        return [ops.reshape(bits, (size, *shape))], [0]

    @staticmethod
    def lower(lowering, key, *, shape, dtype):
        result_type = lowering.result_type
        flat = TensorType((result_type.size,), "i32")
        key_words = []
        for index in range(2):
            word = hlo.value(
                "slice", [key], TensorType((1,), "i32"),
                start_indices=hlo.i64_array([index]), limit_indices=hlo.i64_array([index + 1]),
                strides=hlo.i64_array([1]),
            )
            scalar = hlo.value("reshape", [word], TensorType((), "i32"))
            key_words.append(hlo.broadcast(scalar, TensorType((), "i32"), flat.shape))
        words = _HloWords(flat)
        counters = hlo.value("iota", [], flat, iota_dimension=INT.to_mlir(0))
        high, low = threefry2x32(words, *key_words, words.constant(0), counters)
        if dtype == "i32":
            bits = words.xor(high, low)
        else:
            wide = flat.with_dtype("i64")
            mask = hlo.broadcast(hlo.scalar(0xFFFFFFFF, "i64"), TensorType((), "i64"), wide.shape)
            high, low = (hlo.value("and", [hlo.value("convert", [w], wide), mask], wide) for w in (high, low))
            shift = hlo.broadcast(hlo.scalar(32, "i64"), TensorType((), "i64"), wide.shape)
            bits = hlo.value("or", [hlo.value("shift_left", [high, shift], wide), low], wide)
        return hlo.value("reshape", [bits], result_type)


class ShiftRightLogical(BinaryOp):
    """Elementwise logical right shift of integers (zeros shifted in, the bits read as
    unsigned); a shift by the bit width or more, or by a negative amount, gives 0
    (StableHLO's ``shift_right_logical``).

    ```mlir
    %0 = "s4tf.shift_right_logical"(%x, %n) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    ```
    """

    name, hlo_name = "shift_right_logical", "shift_right_logical"

    @classmethod
    def infer(cls, lhs, rhs):
        result = super().infer(lhs, rhs)
        if not is_integer(result.dtype):
            raise DTypeError(f"operands must be integers, got {lhs.dtype}")
        return result

    @staticmethod
    def numpy(lhs, rhs):
        lhs, rhs = np.asarray(lhs), np.asarray(rhs)
        bits = lhs.dtype.itemsize * 8
        unsigned = np.dtype(f"u{lhs.dtype.itemsize}")
        in_range = (rhs >= 0) & (rhs < bits)
        amount = np.where(in_range, rhs, 0).astype(unsigned)
        shifted = np.right_shift(lhs.view(unsigned), amount)
        return np.where(in_range, shifted, 0).astype(unsigned).view(lhs.dtype)
