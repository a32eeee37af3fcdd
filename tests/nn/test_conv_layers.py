"""Grouped (depthwise) and bias-free Conv2D and ConvTranspose2D against JAX's convolutions,
their gradients against float64 finite differences, and their argument errors."""

import jax
import numpy as np
import pytest
from nn_checks import check_model_gradient

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)
NHWC = ("NHWC", "HWIO", "NHWC")


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def apply(layer, x):
    return np.asarray(s4tf.function(lambda layer, x: layer(x))(layer, x))


def weighted_sum(layer, x, r):
    return s4tf.sum(layer(x) * r)


def test_grouped_and_depthwise_conv2d_match_jax():
    x = rand(2, 6, 6, 4)
    grouped = nn.Conv2D(4, 6, 3, stride=2, padding="same", groups=2, seed=1)
    grouped.bias = rand(6)
    depthwise = nn.Conv2D(4, 8, 3, groups=4, use_bias=False, seed=2)  # two filters per channel
    assert grouped.filter.shape == (3, 3, 2, 6) and depthwise.bias is None
    with jax.enable_x64(False):
        expected = jax.lax.conv_general_dilated(x, grouped.filter, (2, 2), "SAME", dimension_numbers=NHWC, feature_group_count=2)
        expected_depthwise = jax.lax.conv_general_dilated(x, depthwise.filter, (1, 1), "VALID", dimension_numbers=NHWC, feature_group_count=4)
    np.testing.assert_allclose(apply(grouped, x), np.asarray(expected) + grouped.bias, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(apply(depthwise, x), np.asarray(expected_depthwise), rtol=1e-4, atol=1e-5)


def test_grouped_conv2d_gradient():
    x, r = rand(1, 4, 4, 4).astype(np.float64), rand(1, 2, 2, 4).astype(np.float64)
    check_model_gradient(weighted_sum, nn.Conv2D(4, 4, 3, groups=2, activation=s4tf.tanh, seed=3), x, r)


@pytest.mark.parametrize("padding,stride,kernel", [("valid", 2, 3), ("same", 2, 3), ("valid", 1, 2)])
def test_conv_transpose_matches_jax(padding, stride, kernel):
    layer = nn.ConvTranspose2D(3, 2, kernel, stride=stride, padding=padding, seed=4)
    layer.bias = rand(2)
    x = rand(2, 4, 5, 3)
    with jax.enable_x64(False):
        expected = jax.lax.conv_transpose(x, layer.filter, (stride, stride), padding.upper(), dimension_numbers=NHWC)
    y = apply(layer, x)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, np.asarray(expected) + layer.bias, rtol=1e-4, atol=1e-5)


def test_conv_transpose_gradient():
    x, r = rand(1, 3, 3, 2).astype(np.float64), rand(1, 6, 6, 3).astype(np.float64)
    check_model_gradient(weighted_sum, nn.ConvTranspose2D(2, 3, 3, stride=2, padding="same", activation=s4tf.tanh, seed=5), x, r)


def test_bad_convolution_arguments_name_the_line():
    with pytest.raises(s4tf.S4tfError, match=r"test_conv_layers.py:\d+: Conv2D: groups=3 must divide in_channels=4"):
        nn.Conv2D(4, 6, 3, groups=3)
    with pytest.raises(s4tf.S4tfError, match=r"test_conv_layers.py:\d+: ConvTranspose2D: padding must be 'valid' or 'same'"):
        nn.ConvTranspose2D(2, 3, 3, padding="full")
    with pytest.raises(s4tf.S4tfError, match="ConvTranspose2D: out_channels must be a positive int, got 0"):
        nn.ConvTranspose2D(2, 0, 3)
    with pytest.raises(s4tf.ShapeError, match=r"test_conv_layers.py:\d+: Conv2D: expected an NHWC input with 4 channels, got shape \(1, 5, 5, 3\)"):
        nn.Conv2D(4, 4, 3, groups=2)(np.zeros((1, 5, 5, 3), np.float32))
    with pytest.raises(s4tf.ShapeError, match="ConvTranspose2D: expected an NHWC input with 2 channels"):
        nn.ConvTranspose2D(2, 3, 3)(np.zeros((5, 5, 2), np.float32))
