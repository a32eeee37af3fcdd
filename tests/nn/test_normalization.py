"""RMSNorm and GroupNorm against NumPy formulas, their gradients against float64 finite
differences, and their argument errors."""

import numpy as np
import pytest
from nn_checks import check_model_gradient

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def weighted_sum(layer, x, r):
    return s4tf.sum(layer(x) * r)


def group_norm(x, groups, scale, offset, epsilon):
    grouped = x.reshape(*x.shape[:-1], groups, -1)
    axes = (*range(1, x.ndim - 1), x.ndim)
    mean, var = grouped.mean(axes, keepdims=True), grouped.var(axes, keepdims=True)
    return ((grouped - mean) / np.sqrt(var + epsilon)).reshape(x.shape) * scale + offset


def test_rms_norm_forward_and_gradient():
    layer = nn.RMSNorm(4)
    layer.scale = rand(4)
    x = rand(2, 3, 4)
    expected = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * layer.scale
    np.testing.assert_allclose(np.asarray(s4tf.function(lambda m, x: m(x))(layer, x)), expected, rtol=1e-4, atol=1e-5)
    check_model_gradient(weighted_sum, layer, x.astype(np.float64), rand(2, 3, 4).astype(np.float64))


def test_group_norm_forward_and_gradient():
    layer = nn.GroupNorm(2, 6)
    layer.scale, layer.offset = rand(6), rand(6)
    x = rand(2, 3, 3, 6) * 3 + 1
    expected = group_norm(x, 2, layer.scale, layer.offset, 1e-6)
    np.testing.assert_allclose(np.asarray(s4tf.function(lambda m, x: m(x))(layer, x)), expected, rtol=1e-4, atol=1e-4)
    check_model_gradient(weighted_sum, layer, x.astype(np.float64), rand(2, 3, 3, 6).astype(np.float64), rtol=1e-4)


def test_bad_normalization_arguments_name_the_line():
    with pytest.raises(s4tf.S4tfError, match=r"test_normalization.py:\d+: GroupNorm: num_groups=4 must divide num_features=6"):
        nn.GroupNorm(4, 6)
    with pytest.raises(s4tf.S4tfError, match="RMSNorm: num_features must be a positive int, got 2.5"):
        nn.RMSNorm(2.5)
    with pytest.raises(s4tf.ShapeError, match=r"test_normalization.py:\d+: GroupNorm: expected an input with 6 features"):
        nn.GroupNorm(2, 6)(np.zeros((2, 4), np.float32))
    with pytest.raises(s4tf.ShapeError, match="LayerNorm: expected an input with 3 features on its last axis, got shape"):
        nn.LayerNorm(3)(np.zeros((2, 4), np.float32))
