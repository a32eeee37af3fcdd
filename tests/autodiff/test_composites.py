"""Derivatives of composite functions built from ``s4tf.nn`` against central finite
differences, forward and reverse mode (``gradient_checks.directional_check``), in float64:
an MLP loss, softmax cross-entropy, layer norm and a small conv net."""

import numpy as np
import pytest
from gradient_checks import directional_check

import s4tf
from s4tf import nn, pytree

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(5)


def test_mlp_loss():
    x, labels = RNG.standard_normal((8, 6)), RNG.integers(0, 4, 8).astype(np.int32)

    def loss(w1, b1, w2, b2):
        model = nn.Sequential([nn.Dense(weight=w1, bias=b1, activation=s4tf.relu), nn.Dense(weight=w2, bias=b2)])
        return nn.softmax_cross_entropy(model(x), labels)

    params = [RNG.standard_normal((6, 5)), RNG.standard_normal(5), RNG.standard_normal((5, 4)), RNG.standard_normal(4)]
    directional_check(loss, params)


def test_softmax_cross_entropy_in_logits_and_soft_labels():
    logits = RNG.standard_normal((5, 3)) * 4  # large logits: log_softmax must stay stable
    labels = RNG.dirichlet(np.ones(3), 5)
    directional_check(nn.softmax_cross_entropy, [logits, labels])


def test_layer_norm_in_input_scale_and_offset():
    def normalized(x, scale, offset):
        return nn.LayerNorm(scale=scale, offset=offset)(x) * np.arange(1.0, 8.0)

    directional_check(normalized, [RNG.standard_normal((4, 7)), RNG.uniform(0.5, 2, 7), RNG.standard_normal(7)])


def test_conv_net_loss():
    images, labels = RNG.standard_normal((2, 6, 6, 2)), np.array([1, 0], np.int32)

    def loss(filter, conv_bias, weight, bias):  # noqa: A002
        model = nn.Sequential([
            nn.Conv2D(filter=filter, bias=conv_bias, padding="same", activation=s4tf.relu),
            nn.MaxPool2D(2),
            nn.Flatten(),
            nn.Dense(weight=weight, bias=bias),
        ])
        return nn.softmax_cross_entropy(model(images), labels)

    params = [RNG.standard_normal((3, 3, 2, 3)), RNG.standard_normal(3), RNG.standard_normal((27, 2)), RNG.standard_normal(2)]
    directional_check(loss, params)


def test_value_and_grad_of_a_dataclass_model_matches_finite_differences():
    """The gradient of a model value (an ``nn.MLP``) has the model's structure, and each of
    its entries is the central finite difference of the loss in that parameter."""
    x, labels = RNG.standard_normal((4, 3)), np.array([0, 1, 1, 0], np.int32)
    model = pytree.tree_map(lambda p: np.asarray(p, np.float64), nn.MLP([3, 4, 2], seed=3))

    def loss(m):
        return nn.softmax_cross_entropy(m(x), labels)

    value, grads = s4tf.value_and_grad(loss)(model)
    staged = s4tf.function(loss)
    np.testing.assert_allclose(float(value), float(staged(model)), rtol=1e-12)
    leaves, structure = pytree.flatten(model)
    gradient_leaves, gradient_structure = pytree.flatten(grads)
    assert gradient_structure == structure
    eps = 1e-6
    for k, leaf in enumerate(leaves):
        expected = np.zeros_like(leaf)
        for index in np.ndindex(leaf.shape):
            step = np.zeros_like(leaf)
            step[index] = eps
            plus = pytree.unflatten(structure, leaves[:k] + [leaf + step] + leaves[k + 1:])
            minus = pytree.unflatten(structure, leaves[:k] + [leaf - step] + leaves[k + 1:])
            expected[index] = (float(staged(plus)) - float(staged(minus))) / (2 * eps)
        np.testing.assert_allclose(np.asarray(gradient_leaves[k]), expected, rtol=1e-6, atol=1e-8)
