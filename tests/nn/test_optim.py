"""Optimizer updates against values computed by hand, inside one staged function."""

import math

import numpy as np
import pytest

import s4tf
from s4tf import nn, optim

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

W = np.array([1.0, -2.0], np.float32)
G1 = np.array([0.5, 0.25], np.float32)
G2 = np.array([-1.0, 0.5], np.float32)


def two_steps(opt):
    """``opt`` applied with gradients G1 then G2 to ``{"w": W}``; the state after each step."""
    update = s4tf.function(opt.update)
    model, state = {"w": W}, opt.init({"w": W})
    model1, state = update(model, state, {"w": G1})
    model2, state = update(model1, state, {"w": G2})
    return np.asarray(model1["w"]), np.asarray(model2["w"]), state


def test_sgd():
    w1, w2, _ = two_steps(optim.SGD(lr=0.1))
    np.testing.assert_allclose(w1, [0.95, -2.025], rtol=1e-6)
    np.testing.assert_allclose(w2, [1.05, -2.075], rtol=1e-6)


def test_sgd_momentum_and_nesterov():
    w1, w2, state = two_steps(optim.SGD(lr=0.1, momentum=0.9))
    # v1 = g1 = [0.5, 0.25]; v2 = 0.9 v1 + g2 = [-0.55, 0.725]
    np.testing.assert_allclose(w1, [0.95, -2.025], rtol=1e-6)
    np.testing.assert_allclose(w2, [0.95 + 0.055, -2.025 - 0.0725], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(state.velocity[0]), [-0.55, 0.725], rtol=1e-6)
    w1, w2, _ = two_steps(optim.SGD(lr=0.1, momentum=0.9, nesterov=True))
    # step = g + 0.9 v: [0.95, 0.475], then [-1 + 0.9 * -0.55, 0.5 + 0.9 * 0.725] = [-1.495, 1.1525]
    np.testing.assert_allclose(w1, [1 - 0.095, -2 - 0.0475], rtol=1e-6)
    np.testing.assert_allclose(w2, [1 - 0.095 + 0.1495, -2 - 0.0475 - 0.11525], rtol=1e-6)


def adam_by_hand(lr, b1, b2, eps, wd, w, grads):
    m = v = 0.0
    for t, g in enumerate(grads, start=1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        w = w - lr * (m_hat / (math.sqrt(v_hat) + eps) + wd * w)
    return w


@pytest.mark.parametrize("opt,wd", [(optim.Adam(lr=0.1), 0.0), (optim.AdamW(lr=0.1, weight_decay=0.5), 0.5)])
def test_adam_and_adamw(opt, wd):
    w1, w2, state = two_steps(opt)
    for i in range(2):
        assert w1[i] == pytest.approx(adam_by_hand(0.1, 0.9, 0.999, 1e-8, wd, float(W[i]), [float(G1[i])]), rel=1e-5)
        assert w2[i] == pytest.approx(adam_by_hand(0.1, 0.9, 0.999, 1e-8, wd, float(W[i]), [float(G1[i]), float(G2[i])]), rel=1e-5)
    assert float(state.step) == 2.0
    # first step of Adam is lr * sign(g) (plus decay): [1 - 0.1 - 0.05, -2 - 0.1 + 0.1] for AdamW
    np.testing.assert_allclose(w1, W - 0.1 * np.sign(G1) - 0.1 * wd * W, rtol=1e-5)


def test_only_float_parameters_change_and_static_fields_survive():
    model = nn.Conv2D(1, 2, 3, stride=2, padding="same", activation=s4tf.relu)
    grads = {"filter": np.ones_like(model.filter), "bias": np.ones(2, np.float32)}
    grads = nn.Conv2D(filter=grads["filter"], bias=grads["bias"], stride=None, padding=None, activation=None)
    new, _ = s4tf.function(optim.SGD(lr=0.5).update)(model, optim.SGD(lr=0.5).init(model), grads)
    assert (new.stride, new.padding, new.activation) == (2, "same", s4tf.relu)
    np.testing.assert_allclose(np.asarray(new.filter), model.filter - 0.5, rtol=1e-6)


def test_gradients_of_another_structure_are_an_error():
    with pytest.raises(s4tf.S4tfError, match="structure"):
        optim.SGD().update({"w": W}, optim.SGD().init({"w": W}), [G1])
