"""The compiled training step and evaluation: one IREE function per step, loss going down."""

from __future__ import annotations

import numpy as np

import s4tf
from s4tf import nn, optim
from s4tf.data import batches
from s4tf.nn.training import evaluate, train_step


def blobs(count=256, seed=0):
    """Three separable Gaussian blobs in 2-D, integer labels."""
    rng = np.random.default_rng(seed)
    centers = np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]], np.float32)
    labels = rng.integers(0, 3, count).astype(np.int32)
    return (centers[labels] + 0.4 * rng.standard_normal((count, 2))).astype(np.float32), labels


def test_a_short_training_run_lowers_the_loss_and_fits_the_data():
    x, y = blobs()
    model = nn.Sequential([nn.Dense(2, 16, activation=s4tf.relu, seed=0), nn.Dense(16, 3, seed=1)])
    opt = optim.Adam(1e-2)
    state = opt.init(model)
    step = train_step(opt)
    before, _ = evaluate(model, x, y)
    losses = []
    for epoch in range(5):
        for bx, by in batches((x, y), 32, seed=0, epoch=epoch):
            model, state, loss, accuracy = step(model, state, bx, by)
            losses.append(float(np.asarray(loss)))
    after, accuracy = evaluate(model, x, y)
    assert float(np.asarray(after)) < 0.3 * float(np.asarray(before))
    assert np.mean(losses[-8:]) < 0.3 * np.mean(losses[:8])
    assert float(np.asarray(accuracy)) > 0.95
    assert int(np.asarray(state.step)) == 40


def test_one_step_matches_the_update_computed_in_numpy():
    """SGD on a linear softmax classifier: the step's new weights are w - lr * dL/dw."""
    x, y = blobs(8)
    model = nn.Dense(2, 3, seed=0)
    step = train_step(optim.SGD(0.5))
    new, _, loss, accuracy = step(model, optim.SGD(0.5).init(model), x, y)
    w, b = np.asarray(model.weight, np.float64), np.asarray(model.bias, np.float64)
    logits = x @ w + b
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    expected_loss = -np.log(p[np.arange(8), y]).mean()
    d_logits = (p - np.eye(3)[y]) / 8
    np.testing.assert_allclose(float(np.asarray(loss)), expected_loss, rtol=1e-5)
    np.testing.assert_allclose(float(np.asarray(accuracy)), np.mean(logits.argmax(1) == y))
    np.testing.assert_allclose(np.asarray(new.weight), w - 0.5 * x.T @ d_logits, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(new.bias), b - 0.5 * d_logits.sum(0), rtol=1e-5, atol=1e-6)


def test_the_step_trains_batchnorm_and_dropout_models_in_training_mode():
    """BatchNorm normalizes with the batch's statistics and its running statistics come back
    updated; Dropout draws from the step's key (a traced Python int: one compiled version)."""
    x, y = blobs(64)
    model = nn.Sequential([nn.Dense(2, 16, seed=0), nn.BatchNorm(16), s4tf.relu, nn.Dropout(0.5), nn.Dense(16, 3, seed=1)])
    opt = optim.SGD(0.1)
    step = train_step(opt)
    expected_loss = nn.softmax_cross_entropy(*_apply_training(model, x, 0), y)
    new, _, loss, _ = step(model, opt.init(model), x, y, 0)
    np.testing.assert_allclose(float(np.asarray(loss)), float(np.asarray(expected_loss)), rtol=1e-5)
    h = x @ np.asarray(model.layers[0].weight) + np.asarray(model.layers[0].bias)
    bn, new_bn = model.layers[1], new.layers[1]
    momentum = bn.momentum
    np.testing.assert_allclose(np.asarray(new_bn.running_mean),
                               momentum * np.asarray(bn.running_mean) + (1 - momentum) * h.mean(0), rtol=1e-4, atol=1e-6)
    losses = {float(np.asarray(step(model, opt.init(model), x, y, key)[2])) for key in (1, 2, 3)}
    assert len(losses) == 3  # another key, another dropout mask
    assert len(step.compiled_signatures()) == 1  # the key is a traced Python int


def _apply_training(model, x, key):
    logits, _ = nn.apply(model, x, training=True, key=key)
    return (logits,)
