"""RMSNorm and GroupNorm against NumPy formulas, their gradients against float64 finite
differences, and their argument errors; BatchNorm's and LayerNorm's second derivatives
against JAX's, and the form of their derivative rule."""

import numpy as np
import pytest
from nn_checks import check_model_gradient

import s4tf
from s4tf import nn
from s4tf.core.mlir import new_context, parse_module

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


LAYERS = {"BatchNorm": lambda layer, x: layer(x, training=True), "LayerNorm": lambda layer, x: layer(x)}


def jax_normalized(jnp, x, axes, scale, offset):
    mean = x.mean(axes, keepdims=True)
    return (x - mean) / jnp.sqrt(((x - mean) ** 2).mean(axes, keepdims=True) + 1e-5) * scale + offset


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_batch_and_layer_norm_hessians_equal_jax(name):
    """Their forward-mode rule, differentiated again, gives JAX's second derivatives."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    x, w = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    layer = getattr(nn, name)(5)
    layer.scale, layer.offset = RNG.uniform(0.5, 2, 5), RNG.standard_normal(5)
    axes = (0,) if name == "BatchNorm" else (1,)
    ours = s4tf.hessian(lambda v: s4tf.sum(LAYERS[name](layer, v) * w))(x)
    theirs = jax.hessian(lambda v: (jax_normalized(jax.numpy, v, axes, layer.scale, layer.offset) * w).sum())(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-7, atol=1e-8)  # IREE's float64 rsqrt: 9e-9 apart


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_the_normalized_value_and_its_derivative_read_x_through_ops_of_their_own(name):
    """In the step's StableHLO, ``x - mean`` (the value), ``x + -mean`` (the derivative's
    normalized value) and ``mean - x`` (the variance's) are three ops on ``x``, so IREE
    writes none of them in the forward pass for the backward one; as composed, one
    ``x - mean`` fed the variance, the value and the derivative (ResNet-20's step spent
    35 of 90 ms of dispatches on such elementwise ones, 20 with the rule)."""
    layer, x, w = getattr(nn, name)(3), rand(8, 4, 3), rand(8, 4, 3)
    stablehlo = s4tf.function(s4tf.value_and_grad(lambda v: s4tf.sum(LAYERS[name](layer, v) * w))).lower(x).stablehlo()
    with new_context():
        module = parse_module(stablehlo, name)
        x_uses = module.body.operations[0].regions[0].blocks[0].arguments[0].uses
        users = [use.owner.name for use in x_uses]
    assert sorted(u for u in users if u in ("stablehlo.add", "stablehlo.subtract")) == [
        "stablehlo.add", "stablehlo.subtract", "stablehlo.subtract"], users
