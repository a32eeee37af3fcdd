"""The random-bits ops through IREE against JAX's Threefry-2x32 (an independent
implementation of the same cipher) and NumPy's unsigned shifts."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from jax.extend.random import threefry2x32_p
from op_testing import SEEDS, check_staged, covers, op_fn

import s4tf
from s4tf.staging.dispatch import apply
from s4tf.core.errors import DTypeError, ShapeError

jax.config.update("jax_enable_x64", True)  # JAX's 64-bit random bits


def _jax_key(words: np.ndarray):
    return jnp.asarray(np.asarray(words, np.int32).view(np.uint32))


def _as_i32(array) -> np.ndarray:
    return np.asarray(array, np.uint32).view(np.int32)


@covers("threefry2x32")
@settings(max_examples=5, deadline=None)
@given(SEEDS)
def test_threefry2x32_is_jaxs_cipher(seed):
    rng = np.random.default_rng(seed)
    key0, key1 = (rng.integers(-(2**31), 2**31, (), np.int32) for _ in range(2))
    x0, x1 = (rng.integers(-(2**31), 2**31, (7,), np.int32) for _ in range(2))
    expected = threefry2x32_p.bind(*(_jax_key(w) for w in (key0, key1, x0, x1)))
    check_staged(
        lambda *words: tuple(apply("threefry2x32", words)), [key0, key1, x0, x1],
        [_as_i32(e) for e in expected], ops=["threefry2x32"],
    )


@covers("random_bits")
@pytest.mark.parametrize("dtype, jax_dtype", [("i32", jnp.uint32), ("i64", jnp.uint64)])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4, 2)])
def test_random_bits_are_jaxs(dtype, jax_dtype, shape):
    words = np.array([12345, -7], np.int32)
    expected = np.asarray(jax.random.bits(_jax_key(words), shape, jax_dtype)).view(np.int32 if dtype == "i32" else np.int64)
    check_staged(op_fn("random_bits", shape=shape, dtype=dtype), [words], expected, ops=["random_bits"])


def test_random_bits_rejects_bad_keys_and_sizes():
    with pytest.raises(ShapeError, match=r"the key is two 32-bit words, tensor<2xi32>, got tensor<3xi32>"):
        s4tf.function(op_fn("random_bits", shape=(2,), dtype="i32")).lower(np.zeros(3, np.int32))
    with pytest.raises(DTypeError, match="random bits are i32 or i64, got f32"):
        s4tf.function(op_fn("random_bits", shape=(2,), dtype="f32")).lower(np.zeros(2, np.int32))
    with pytest.raises(ShapeError, match=r"at most 2\*\*32 draws per key"):
        s4tf.function(op_fn("random_bits", shape=(2**16, 2**16 + 1), dtype="i32")).lower(np.zeros(2, np.int32))


@covers("shift_right_logical")
@pytest.mark.parametrize("dtype, unsigned", [(np.int32, np.uint32), (np.int64, np.uint64), (np.int8, np.uint8)])
def test_shift_right_logical_shifts_in_zeros(dtype, unsigned):
    bits = np.iinfo(dtype).bits
    x = np.array([-1, -8, 5, np.iinfo(dtype).min, 77, -3, 9], dtype)
    n = np.array([1, 2, 0, bits - 1, bits, -1, bits + 3], dtype)
    in_range = (n >= 0) & (n < bits)
    expected = np.where(in_range, x.view(unsigned) >> np.where(in_range, n, 0).astype(unsigned), 0).astype(unsigned)
    assert expected[0] == np.iinfo(unsigned).max >> 1  # zeros shifted in, not the sign
    check_staged(op_fn("shift_right_logical"), [x, n], expected.view(dtype), ops=["shift_right_logical"])


def test_shift_right_logical_needs_integers():
    with pytest.raises(DTypeError, match="operands must be integers, got f32"):
        s4tf.function(op_fn("shift_right_logical")).lower(np.ones(2, np.float32), np.ones(2, np.float32))
