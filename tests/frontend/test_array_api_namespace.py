"""s4tf as an Array API namespace: data-type functions, constants, inspection, and the
tensor attributes of the standard."""

import math

import ml_dtypes
import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


def test_finfo_and_iinfo_are_numpys():
    for dtype in (np.float16, np.float32, np.float64):
        info, expected = s4tf.finfo(dtype), np.finfo(dtype)
        assert (info.bits, info.eps, info.max, info.min, info.smallest_normal) == (
            expected.bits, float(expected.eps), float(expected.max), float(expected.min), float(expected.smallest_normal))
    assert s4tf.finfo(s4tf.bfloat16).eps == float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)
    assert s4tf.finfo(s4tf.zeros(2)).bits == 32
    for dtype in (np.int8, np.int32, np.int64):
        assert (s4tf.iinfo(dtype).min, s4tf.iinfo(dtype).max) == (np.iinfo(dtype).min, np.iinfo(dtype).max)
    with pytest.raises(s4tf.DTypeError, match="needs a float dtype"):
        s4tf.finfo(np.int32)


def test_result_type_can_cast_and_isdtype():
    x = s4tf.asarray(np.ones(2, np.int8))
    assert s4tf.result_type(x, np.float32) == np.float32
    assert s4tf.result_type(x, 1) == np.int8  # Python scalars are weak
    assert s4tf.result_type(np.int32, np.float32) == np.float64
    assert s4tf.result_type(s4tf.bfloat16, np.float16) == np.float32
    assert s4tf.can_cast(np.int8, np.int32) and not s4tf.can_cast(np.int64, np.int32) and s4tf.can_cast(x, np.float32)
    assert s4tf.isdtype(np.int32, "integral") and s4tf.isdtype(np.float64, ("bool", "real floating"))
    assert not s4tf.isdtype(np.bool_, "numeric") and s4tf.isdtype(np.float32, np.float32)
    with pytest.raises(s4tf.DTypeError, match="unknown dtype kind"):
        s4tf.isdtype(np.int32, "whole")


def test_namespace_constants_and_tensor_attributes():
    x = s4tf.asarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert x.__array_namespace__() is s4tf and s4tf.__array_api_version__ == "2024.12"
    assert (s4tf.e, s4tf.pi, s4tf.inf) == (math.e, math.pi, math.inf) and math.isnan(s4tf.nan)
    assert x.mT.shape == (3, 2) and x.device == "cpu" and x.to_device("cpu") is x
    np.testing.assert_array_equal(np.asarray(x ^ 1), np.arange(6).reshape(2, 3) ^ 1)
    np.testing.assert_array_equal(np.asarray(x << 2), np.arange(6).reshape(2, 3) << 2)
    np.testing.assert_array_equal(np.asarray(64 >> x), 64 >> np.arange(6).reshape(2, 3))
    info = s4tf.__array_namespace_info__()
    assert info.default_dtypes()["integral"] == np.int32 and "float64" in info.dtypes()
    assert set(info.dtypes(kind="integral")) == {"int8", "int32", "int64"}


def test_tensor_attributes_work_when_staged():
    staged = s4tf.function(lambda v: (v.mT ^ 3, v << 1))
    a, b = staged(np.arange(6, dtype=np.int64).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(a), np.arange(6).reshape(2, 3).T ^ 3)
    np.testing.assert_array_equal(np.asarray(b), np.arange(6).reshape(2, 3) << 1)


def test_the_standards_names_for_numpys_functions_and_real_complex_parts():
    import operator

    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(np.asarray(s4tf.pow(x, 2)), x**2)
    np.testing.assert_array_equal(np.asarray(s4tf.bitwise_invert(np.int8([1, -3]))), ~np.int8([1, -3]))
    np.testing.assert_array_equal(np.asarray(s4tf.conj(x)), x)
    np.testing.assert_array_equal(np.asarray(s4tf.real(x)), x)
    np.testing.assert_array_equal(np.asarray(s4tf.imag(x)), np.zeros(2, np.float32))
    assert operator.index(s4tf.asarray(np.int64(4))) == 4 and complex(s4tf.asarray(np.float32(1.5))) == 1.5 + 0j
    with pytest.raises(TypeError, match="only a 0-d integer tensor"):
        operator.index(s4tf.asarray(x))


CREATION = {
    "asarray": lambda device: s4tf.asarray([1, 2], device=device),
    "arange": lambda device: s4tf.arange(3, device=device),
    "full": lambda device: s4tf.full((2,), 7, device=device),
    "full_like": lambda device: s4tf.full_like(np.ones(2), 7, device=device),
    "zeros": lambda device: s4tf.zeros((2,), device=device),
    "zeros_like": lambda device: s4tf.zeros_like(np.ones(2), device=device),
    "ones": lambda device: s4tf.ones((2,), device=device),
    "ones_like": lambda device: s4tf.ones_like(np.ones(2), device=device),
    "empty": lambda device: s4tf.empty((2,), device=device),
    "eye": lambda device: s4tf.eye(2, device=device),
    "linspace": lambda device: s4tf.linspace(0, 1, 2, device=device),
    "astype": lambda device: s4tf.astype(np.ones(2), s4tf.int32, device=device),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation_takes_the_standards_device_argument(name):
    assert CREATION[name](None).device == CREATION[name]("cpu").device == "cpu"
    with pytest.raises(s4tf.DeviceError, match="not device='vulkan'") as raised:
        CREATION[name]("vulkan")
    assert isinstance(raised.value, ValueError)  # the standard's error for a bad device
    assert raised.value.location.startswith(f"{__file__}:")  # the user's line, here the lambda's


def test_sum_takes_a_dtype_and_widens_small_integers_as_the_standard_says():
    x = np.array([[100, 100], [-7, 3]], np.int8)
    assert s4tf.sum(x).dtype == np.int32 and int(s4tf.sum(x)) == int(x.astype(np.int64).sum())
    np.testing.assert_array_equal(np.asarray(s4tf.sum(x, axis=0, dtype=s4tf.int64)), x.sum(axis=0, dtype=np.int64))
    np.testing.assert_allclose(np.asarray(s4tf.sum(np.float32([0.5, 2.0]), dtype=s4tf.float64)), 2.5)
    assert s4tf.sum(np.array([True, True, False])).dtype == np.int32


def test_clip_bounds_are_optional_keywords():
    x = np.arange(-3, 4, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(s4tf.clip(x, min=-1)), np.clip(x, -1, None))
    np.testing.assert_array_equal(np.asarray(s4tf.clip(x, max=2)), np.clip(x, None, 2))
    np.testing.assert_array_equal(np.asarray(s4tf.clip(x)), x)
    np.testing.assert_array_equal(np.asarray(s4tf.clip(x, -1, 2)), np.clip(x, -1, 2))


def test_copy_arguments_are_accepted():
    x = s4tf.asarray(np.arange(6.0))
    np.testing.assert_array_equal(np.asarray(s4tf.reshape(x, (2, 3), copy=True)), np.arange(6.0).reshape(2, 3))
    assert s4tf.reshape(x, shape=[3, -1]).shape == (3, 2) and s4tf.reshape(x, 6).shape == (6,)
    assert x.reshape(3, 2).shape == x.reshape((3, 2)).shape == (3, 2)  # the method takes NumPy's two forms
    assert s4tf.astype(x, s4tf.float64, copy=False) is x  # tensors are immutable: nothing to copy
    np.testing.assert_array_equal(np.asarray(s4tf.asarray(x, copy=True)), np.arange(6.0))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64])
def test_dlpack_exports_and_imports_host_copies(dtype):
    array = (np.arange(-3, 9) % 5).astype(dtype).reshape(3, 4)
    x = s4tf.asarray(array)
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(x), array)
    imported = s4tf.from_dlpack(array[:, ::-1].copy(), device="cpu")
    assert isinstance(imported, s4tf.Tensor) and imported.dtype == dtype
    np.testing.assert_array_equal(np.asarray(imported), array[:, ::-1])
    assert s4tf.from_dlpack(x, copy=False) is x  # immutable: the tensor itself


def test_dlpack_round_trips_through_jax_and_refuses_what_it_cannot_do():
    import jax.numpy as jnp

    x = s4tf.asarray(np.linspace(-1.0, 1.0, 6, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(x) * 2), np.asarray(x) * 2)
    np.testing.assert_array_equal(np.asarray(s4tf.from_dlpack(jnp.arange(4.0))), np.arange(4.0, dtype=np.float32))
    with pytest.raises(BufferError, match="host copy"):
        x.__dlpack__(copy=False)
    with pytest.raises(BufferError, match="kDLCPU"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="copy=False"):
        s4tf.from_dlpack(np.ones(2), copy=False)
