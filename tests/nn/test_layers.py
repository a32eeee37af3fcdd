"""Each layer's forward pass against NumPy and its parameter gradient against finite differences."""

import numpy as np
import pytest
from nn_checks import check_model_gradient, conv2d_nhwc, pool2d_nhwc

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def apply(layer, x):
    return s4tf.function(lambda layer, x: layer(x))(layer, x)


def weighted_sum(layer, x, r):
    return s4tf.sum(layer(x) * r)


def test_dense_forward_and_gradient():
    layer = nn.Dense(4, 3, activation=s4tf.relu, seed=1)
    x = rand(5, 4)
    np.testing.assert_allclose(np.asarray(apply(layer, x)), np.maximum(x @ layer.weight + layer.bias, 0), rtol=1e-5, atol=1e-6)
    check_model_gradient(weighted_sum, nn.Dense(4, 3, activation=s4tf.sigmoid, seed=1), x.astype(np.float64), rand(5, 3).astype(np.float64))


@pytest.mark.parametrize("padding,stride", [("valid", 1), ("same", 2)])
def test_conv2d_forward(padding, stride):
    layer = nn.Conv2D(2, 3, 3, stride=stride, padding=padding, seed=2)
    layer.bias = rand(3)
    x = rand(2, 6, 6, 2)
    np.testing.assert_allclose(np.asarray(apply(layer, x)), conv2d_nhwc(x, layer.filter, stride, padding) + layer.bias, rtol=1e-4, atol=1e-5)


def test_conv2d_gradient():
    x, r = rand(2, 5, 5, 2).astype(np.float64), rand(2, 5, 5, 3).astype(np.float64)
    check_model_gradient(weighted_sum, nn.Conv2D(2, 3, 3, padding="same", activation=s4tf.sigmoid, seed=2), x, r)


def test_pooling_and_flatten():
    x = rand(2, 4, 6, 3)
    np.testing.assert_allclose(np.asarray(apply(nn.MaxPool2D(2), x)), pool2d_nhwc(x, 2, np.max), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(apply(nn.AvgPool2D(2), x)), pool2d_nhwc(x, 2, np.mean), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(apply(nn.Flatten(), x)), x.reshape(2, -1))


def test_sequential_of_layers_and_plain_functions_gradient():
    model = nn.Sequential([nn.Conv2D(1, 2, 3, seed=0), s4tf.sigmoid, nn.AvgPool2D(2), nn.Flatten(), nn.Dense(2 * 2 * 2, 3, seed=1)])
    x = rand(2, 6, 6, 1)
    conv = 1 / (1 + np.exp(-conv2d_nhwc(x, model.layers[0].filter)))
    expected = pool2d_nhwc(conv, 2, np.mean).reshape(2, -1) @ model.layers[4].weight
    np.testing.assert_allclose(np.asarray(apply(model, x)), expected, rtol=1e-4, atol=1e-5)
    check_model_gradient(lambda m, x, y: nn.softmax_cross_entropy(m(x), y), model, x.astype(np.float64), np.array([0, 2], np.int32))


def test_layer_norm_forward_and_gradient():
    layer = nn.LayerNorm(4)
    layer.scale, layer.offset = rand(4), rand(4)
    x = rand(3, 4)
    normalized = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(apply(layer, x)), normalized * layer.scale + layer.offset, rtol=1e-4, atol=1e-5)
    check_model_gradient(weighted_sum, layer, x.astype(np.float64), rand(3, 4).astype(np.float64))


def test_batch_norm_training_eval_and_running_statistics():
    layer = nn.BatchNorm(3, momentum=0.8)
    x = rand(8, 3) * 2 + 1
    batch = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    train = s4tf.function(lambda layer, x: layer(x, training=True))
    np.testing.assert_allclose(np.asarray(train(layer, x)), batch, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(apply(layer, x)), x / np.sqrt(1 + 1e-5), rtol=1e-5)  # running stats 0 and 1
    updated = s4tf.function(lambda layer, x: layer.updated(x))(layer, x)
    np.testing.assert_allclose(np.asarray(updated.running_mean), 0.2 * x.mean(0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(updated.running_var), 0.8 + 0.2 * x.var(0), rtol=1e-4)
    check_model_gradient(lambda m, x, r: s4tf.sum(m(x, training=True) * r), layer, x.astype(np.float64), rand(8, 3).astype(np.float64))


def test_embedding_forward_and_gradient():
    layer = nn.Embedding(5, 3, seed=4)
    ids = np.array([[0, 4], [2, 2]], np.int32)
    np.testing.assert_allclose(np.asarray(apply(layer, ids)), layer.table[ids], rtol=1e-6)
    check_model_gradient(weighted_sum, layer, ids, rand(2, 2, 3).astype(np.float64))


def test_dropout_uses_its_key_keeps_the_mean_and_is_identity_in_eval():
    x = np.ones((64, 64), np.float32)
    drop = s4tf.function(lambda layer, x, key: layer(x, key=key, training=True))
    layer = nn.Dropout(0.25)
    a, b = np.asarray(drop(layer, x, np.int32(1))), np.asarray(drop(layer, x, np.int32(2)))
    assert set(np.unique(a)) == {0.0, np.float32(1 / 0.75)}
    assert abs((a == 0).mean() - 0.25) < 0.03 and abs(a.mean() - 1.0) < 0.05
    assert (a != b).any()
    np.testing.assert_array_equal(a, np.asarray(drop(layer, x, np.int32(1))))
    np.testing.assert_array_equal(np.asarray(apply(layer, x)), x)
    with pytest.raises(s4tf.S4tfError, match="explicit key"):
        layer(x, training=True)


def test_initializers_are_seeded_and_scaled():
    a, b = nn.initializers.glorot_uniform((300, 200), seed=7), nn.initializers.glorot_uniform((300, 200), seed=7)
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).max() <= np.sqrt(6 / 500) and a.std() == pytest.approx(np.sqrt(2 / 500), rel=0.05)
    he = nn.initializers.he_normal((5, 5, 4, 50), seed=1)
    assert he.std() == pytest.approx(np.sqrt(2 / 100), rel=0.05)
    assert not np.array_equal(he, nn.initializers.he_normal((5, 5, 4, 50), seed=2))


def test_gradient_of_a_model_has_the_models_structure():
    model = nn.Sequential([nn.Dense(3, 2, activation=s4tf.relu), nn.Dense(2, 1)])
    grads = s4tf.grad(lambda m, x: s4tf.sum(m(x)))(model, rand(4, 3))
    assert isinstance(grads, nn.Sequential) and isinstance(grads.layers[0], nn.Dense)
    assert grads.layers[0].weight.shape == (3, 2) and grads.layers[1].bias.shape == (1,)


def test_activations_by_name_and_unknown_names_are_errors_at_the_users_line():
    x = rand(4, 3)
    by_name = nn.Dense(3, 2, activation="relu6", seed=0)
    by_function = nn.Dense(3, 2, activation=nn.relu6, seed=0)
    np.testing.assert_array_equal(np.asarray(by_name(x)), np.asarray(by_function(x)))
    with pytest.raises(s4tf.S4tfError, match=r"test_layers.py:\d+: Conv2D: activation must be a function or one of .*relu6"):
        nn.Conv2D(3, 2, 3, activation="rellu")
