"""``s4tf.random``: counter-based random numbers from explicit keys, as in JAX.

A key is a ``tensor<2xi32>`` (two 32-bit words, JAX's ``uint32[2]`` bits). Draws hash each
element's index with the key (Threefry-2x32, ``s4tf.random_bits``), so they are pure
functions of the key: the same key gives bit-identical numbers on every target, and
``split``/``fold_in`` derive independent keys. The bits, keys and uniform floats are those
of JAX's default (partitionable Threefry) generator for the same key.

```python
import s4tf
key = s4tf.random.key(0)
keys = s4tf.random.split(key, 2)
x = s4tf.random.normal(keys[0], (3, 4))
```
"""

from __future__ import annotations

import functools
import math

import ml_dtypes
import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.dialects.types import canonical_dtype, is_float, is_integer, to_numpy_dtype
from s4tf.staging.dispatch import apply
from s4tf.core.errors import DTypeError, S4tfError
from s4tf.core.locations import shape_error
from s4tf.staging.function import StagedFunction
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import current_scope

_WORD = 2**32


class InvalidKeyError(S4tfError, TypeError):
    """Not a random key, seed or key data."""


def _run(impl):
    """``impl`` staged as one function when called outside a trace (one compiled module
    per signature, not one per op); traced inline inside one. Python scalars, strings and
    tuples of them are static."""
    staged: dict[str, StagedFunction] = {}

    @functools.wraps(impl)
    def run(*args):
        if current_scope() is not None:
            return impl(*args)
        target = next((a.target for a in args if isinstance(a, Tensor)), "cpu")
        if target not in staged:
            staged[target] = StagedFunction(impl, target, (), False, trace_scalars=False)
        return staged[target](*args)

    return run


def _key(key):
    """``key`` as an i32[2] operand (a JAX ``uint32[2]`` key's bits are accepted too)."""
    if not isinstance(key, Tensor):
        array = np.asarray(key)
        if array.dtype == np.uint32:
            array = array.view(np.int32)
        key = array
    if tuple(key.shape) != (2,) or np.dtype(key.dtype) != np.int32:
        raise InvalidKeyError(
            f"a random key is a tensor<2xi32> from s4tf.random.key or split, got shape {tuple(key.shape)} of {key.dtype}"
        )
    return key


def _shape(shape) -> tuple:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
        raise shape_error(f"a shape is a tuple of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def _float_dtype(dtype) -> str:
    dtype = canonical_dtype(dtype)
    if not is_float(dtype):
        raise DTypeError(f"random floats need a float dtype, got {dtype}")
    return dtype


# -- keys -------------------------------------------------------------------------------


def key(seed) -> Tensor:
    """The key of ``seed``: a Python int (its 64 bits, high word first, as JAX with 64-bit
    integers) or an integer scalar tensor (``i32``: ``(0, seed)``)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, Tensor)):
        raise InvalidKeyError(f"a seed is an int or an integer scalar tensor, got {seed!r}")
    if not isinstance(seed, Tensor):
        seed = int(seed)
        if not -(2**63) <= seed < 2**64:
            raise InvalidKeyError(f"seed {seed} does not fit in 64 bits")
        words = np.array([(seed >> 32) % _WORD, seed % _WORD], np.uint32).view(np.int32)
        return snp.asarray(words)
    if seed.shape != () or not is_integer(canonical_dtype(seed.dtype)):
        raise InvalidKeyError(f"a seed tensor is an integer scalar, got shape {tuple(seed.shape)} of {seed.dtype}")
    return _seed_key(seed)


PRNGKey = key  # JAX's older name, which ported code calls


@_run
def _seed_key(seed):
    if canonical_dtype(seed.dtype) != "i64":
        return snp.stack([snp.zeros((), np.int32), snp.astype(seed, np.int32)])
    words = [snp.op("shift_right_logical", seed, snp.asarray(np.int64(32))), snp.bitwise_and(seed, _WORD - 1)]
    # each word is in [0, 2**32): shifted into i32's range before the conversion, which keeps its bits
    return snp.stack([snp.astype(snp.where(w >= 2**31, w - _WORD, w), np.int32) for w in words])


def _words(key):
    return snp.reshape(key[0:1], ()), snp.reshape(key[1:2], ())


def split(key, num: int = 2) -> Tensor:
    """``num`` new keys from ``key``, as a ``(num, 2)`` tensor (``keys[i]`` is one)."""
    if not isinstance(num, (int, np.integer)) or num < 1:
        raise shape_error(f"split makes num >= 1 keys, got {num!r}")
    return _split(_key(key), int(num))


@_run
def _split(key, num):
    k0, k1 = _words(key)
    y0, y1 = apply("threefry2x32", [k0, k1, snp.zeros((num,), np.int32), snp.iota((num,), dtype=np.int32)])
    return snp.stack([y0, y1], axis=1)


def fold_in(key, data) -> Tensor:
    """A new key from ``key`` and an integer ``data`` (a Python int read as 32 bits, or an
    ``i32`` scalar tensor such as a step counter)."""
    if isinstance(data, (int, np.integer)) and not isinstance(data, (bool, np.bool_)):
        data = np.array(int(data) % _WORD, np.uint32).view(np.int32)
    elif not (isinstance(data, Tensor) and data.shape == () and canonical_dtype(data.dtype) == "i32"):
        raise InvalidKeyError(f"fold_in takes an int or an i32 scalar tensor, got {data!r}")
    return _fold_in(_key(key), data)


@_run
def _fold_in(key, data):
    k0, k1 = _words(key)
    return snp.stack(list(apply("threefry2x32", [k0, k1, snp.zeros((), np.int32), data])))


def bits(key, shape=(), dtype=np.int32) -> Tensor:
    """Uniformly random bits: ``i32`` (JAX's ``uint32`` bits) or ``i64``."""
    dtype = canonical_dtype(dtype)
    if dtype not in ("i32", "i64"):
        raise DTypeError(f"random bits are int32 or int64, got {dtype}")
    return _bits(_key(key), _shape(shape), dtype)


@_run
def _bits(key, shape, dtype):
    return snp.op("random_bits", key, shape=shape, dtype=dtype)


# -- floats -----------------------------------------------------------------------------

#: Mantissa bits of each float dtype: a draw is ``m * 2**-mantissa`` for a random
#: ``mantissa``-bit integer ``m``, exact in the dtype, so every target computes it alike.
_MANTISSA = {"f16": 10, "bf16": 7, "f32": 23, "f64": 52}


def _unit(key, shape, dtype):
    """Floats in ``[0, 1)``: the top mantissa bits of random bits, scaled (JAX's draws for
    f32 and f64; for 16-bit floats the top bits of 32, where JAX takes the low 16)."""
    mantissa = _MANTISSA[dtype]
    wide = dtype == "f64"
    raw = snp.op("random_bits", key, shape=shape, dtype="i64" if wide else "i32")
    shift = np.asarray((64 if wide else 32) - mantissa, raw.dtype)
    integer = snp.op("shift_right_logical", raw, snp.asarray(shift))
    width = "f64" if wide else "f32"  # holds every mantissa exactly; 16-bit floats round nothing either
    scaled = snp.astype(integer, to_numpy_dtype(width)) * float(2.0**-mantissa)
    return snp.astype(scaled, to_numpy_dtype(dtype))


def uniform(key, shape=(), dtype=np.float32, minval=0.0, maxval=1.0) -> Tensor:
    """Floats uniform in ``[minval, maxval)`` (scalars or tensors broadcasting to ``shape``)."""
    return _uniform(_key(key), _shape(shape), _float_dtype(dtype), minval, maxval)


def _uniform_floats(key, shape, dtype, minval, maxval):
    np_dtype = to_numpy_dtype(dtype)
    minval, maxval = snp.astype(snp.asarray(minval), np_dtype), snp.astype(snp.asarray(maxval), np_dtype)
    floats = _unit(key, shape, dtype)
    return snp.broadcast_to(snp.maximum(minval, floats * (maxval - minval) + minval), shape)


_uniform = _run(_uniform_floats)


#: Giles' single-precision ``erfinv`` (as XLA's): a polynomial in ``w = -log(1 - x**2)``
#: for ``w < 5``, and in ``sqrt(w)`` beyond.
_ERFINV_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)
_ERFINV_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)


def _erfinv(x):
    """``erfinv`` on ``(-1, 1)`` from s4tf ops (no derivative needed: draws are constants)."""
    w = -snp.log1p(-x * x)
    central = w < 5.0
    w = snp.where(central, w - 2.5, snp.sqrt(w) - 3.0)
    p = snp.where(central, _ERFINV_CENTRAL[0], _ERFINV_TAIL[0])
    for a, b in zip(_ERFINV_CENTRAL[1:], _ERFINV_TAIL[1:]):
        p = snp.where(central, a, b) + p * w
    return p * x


def _next_after(number: float, toward: float, dtype: str) -> float:
    np_dtype = to_numpy_dtype(dtype)
    return float(np.nextafter(np.asarray(number, np_dtype), np.asarray(toward, np_dtype)))


def normal(key, shape=(), dtype=np.float32) -> Tensor:
    """Standard normal floats: ``sqrt(2) * erfinv(u)`` for ``u`` uniform in ``(-1, 1)``."""
    return _normal(_key(key), _shape(shape), _float_dtype(dtype))


@_run
def _normal(key, shape, dtype):
    low = _next_after(-1.0, 1.0, dtype)
    return _normal_from_uniform(_uniform_floats(key, shape, dtype, low, 1.0))


def _normal_from_uniform(u):
    """16-bit floats go through f32 (the polynomial's precision)."""
    wide = u if canonical_dtype(u.dtype) in ("f32", "f64") else snp.astype(u, np.float32)
    return snp.astype(math.sqrt(2.0) * _erfinv(wide), u.dtype)


def truncated_normal(key, lower, upper, shape=(), dtype=np.float32) -> Tensor:
    """Standard normal floats conditioned on ``lower < x < upper`` (Python numbers): the
    inverse CDF of uniform draws between the bounds' CDF values."""
    if not all(isinstance(b, (int, float, np.integer, np.floating)) for b in (lower, upper)):
        raise S4tfError("truncated_normal takes Python numbers as bounds")
    if not lower < upper:
        raise S4tfError(f"truncated_normal needs lower < upper, got {lower} and {upper}")
    return _truncated_normal(_key(key), float(lower), float(upper), _shape(shape), _float_dtype(dtype))


@_run
def _truncated_normal(key, lower, upper, shape, dtype):
    a, b = math.erf(lower / math.sqrt(2.0)), math.erf(upper / math.sqrt(2.0))
    u = _uniform_floats(key, shape, dtype, a, b)
    return snp.clip(_normal_from_uniform(u), _next_after(lower, math.inf, dtype), _next_after(upper, -math.inf, dtype))


def bernoulli(key, p=0.5, shape=None) -> Tensor:
    """Booleans, true with probability ``p`` (a number or a float tensor; ``shape``
    defaults to ``p``'s)."""
    if shape is None:
        shape = np.shape(p) if not isinstance(p, Tensor) else p.shape
    return _bernoulli(_key(key), p, _shape(shape))


@_run
def _bernoulli(key, p, shape):
    dtype = canonical_dtype(p.dtype) if isinstance(p, Tensor) and is_float(canonical_dtype(p.dtype)) else "f32"
    return _uniform_floats(key, shape, dtype, 0.0, 1.0) < p


def gumbel(key, shape=(), dtype=np.float32) -> Tensor:
    """Standard Gumbel floats: ``-log(-log(u))`` for ``u`` uniform in ``(0, 1)``."""
    return _gumbel(_key(key), _shape(shape), _float_dtype(dtype))


def _gumbel_impl(key, shape, dtype):
    tiny = float(ml_dtypes.finfo(to_numpy_dtype(dtype)).tiny)
    return -snp.log(-snp.log(_uniform_floats(key, shape, dtype, tiny, 1.0)))


_gumbel = _run(_gumbel_impl)


def categorical(key, logits, axis: int = -1, shape=None) -> Tensor:
    """Indices drawn with probabilities ``softmax(logits)`` along ``axis`` (the Gumbel-max
    trick); ``shape`` defaults to ``logits``' shape without ``axis``."""
    rank = len(logits.shape)
    if not -rank <= axis < rank:
        raise shape_error(f"axis {axis} is out of range for logits of shape {tuple(logits.shape)}")
    axis %= rank
    batch = tuple(d for i, d in enumerate(logits.shape) if i != axis)
    shape = batch if shape is None else _shape(shape)
    if shape[len(shape) - len(batch):] != batch:
        raise shape_error(f"shape {shape} must end with the logits' batch shape {batch}")
    return _categorical(_key(key), logits, axis, shape)


@_run
def _categorical(key, logits, axis, shape):
    logits = snp.asarray(logits)
    dtype = canonical_dtype(logits.dtype) if is_float(canonical_dtype(logits.dtype)) else "f32"
    logits = snp.astype(logits, to_numpy_dtype(dtype))
    moved = snp.transpose(logits, [i for i in range(logits.ndim) if i != axis] + [axis])
    noise = _gumbel_impl(key, (*shape, logits.shape[axis]), dtype)
    return snp.argmax(noise + moved, axis=-1)


def permutation(key, x) -> Tensor:
    """A random permutation of ``range(x)`` (an int), or of ``x``'s rows (a tensor)."""
    if isinstance(x, (int, np.integer)):
        if x < 0:
            raise shape_error(f"permutation of a negative count {x}")
        return _permutation(_key(key), int(x))
    if not np.shape(x):
        raise shape_error("permutation needs an int or a tensor of rank >= 1")
    return _permute_rows(_key(key), x)


def _ranks(key, n):
    """A uniformly random permutation of ``range(n)`` as each index's rank among random
    32-bit keys (ties, chance ~n**2 / 2**33, broken by index): O(n**2) comparisons."""
    draws = snp.op("random_bits", key, shape=(n,), dtype="i32")
    index = snp.iota((n,), dtype=np.int32)
    column, row = snp.reshape(draws, (n, 1)), snp.reshape(draws, (1, n))
    before = (row < column) | ((row == column) & (snp.reshape(index, (1, n)) < snp.reshape(index, (n, 1))))
    return snp.sum(snp.astype(before, np.int32), axis=1)


def _placement(key, n):
    """``placed[r, i]``: index ``i`` goes to position ``r``."""
    return snp.reshape(_ranks(key, n), (1, n)) == snp.reshape(snp.iota((n,), dtype=np.int32), (n, 1))


@_run
def _permutation(key, n):
    index = snp.reshape(snp.iota((n,), dtype=np.int32), (1, n))
    return snp.sum(snp.where(_placement(key, n), index, 0), axis=1)


@_run
def _permute_rows(key, x):
    x = snp.asarray(x)
    n = x.shape[0]
    placed = snp.reshape(_placement(key, n), (n, n) + (1,) * (x.ndim - 1))
    return snp.sum(snp.where(placed, snp.expand_dims(x, 0), snp.zeros((), x.dtype)), axis=1)
