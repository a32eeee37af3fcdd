"""Host and device work overlap, shown by ordering (never by speed): a host call that needs
no device result runs while the device computes; in a training loop that logs its loss
from inside the step, the host's handling of step i runs while the device computes step
i + 1. Each host callback records, when it runs, whether a device result is computed yet
(``Tensor.is_ready()``)."""

from __future__ import annotations

import threading

import numpy as np

import s4tf

DEADLINE_S = 30.0
RNG = np.random.default_rng(3)
MATRIX = (RNG.standard_normal((384, 384)) / 384**0.5).astype(np.float32)


def busy_device(a):
    """About a hundred milliseconds of device work on 2 cores."""
    for _ in range(30):
        a = s4tf.tanh(a @ a + 0.5)
    return a


def test_host_work_without_device_dependency_runs_while_the_device_works():
    seen = {}
    returned = threading.Event()
    visible = []  # the call's device result, once the call returned

    def independent(y):
        seen["called"] = True
        if returned.wait(DEADLINE_S):
            seen["device_busy"] = not visible[-1].is_ready()
        return (y + 1).astype(np.float32)

    def step(a, y):
        return busy_device(a), s4tf.host(independent)(y)

    extracted = s4tf.function(step, extract=True)
    y = np.arange(4, dtype=np.float32)
    for _ in range(3):
        returned.clear()
        seen.clear()
        device_result, host_result = extracted(MATRIX, y)
        visible.append(device_result)
        returned.set()
        np.testing.assert_allclose(np.asarray(host_result), y + 1)
        assert seen == {"called": True, "device_busy": True}
    a = MATRIX
    for _ in range(30):
        a = np.tanh(a @ a + 0.5)
    np.testing.assert_allclose(np.asarray(device_result), a, rtol=1e-4, atol=1e-5)


def test_a_logging_training_loop_overlaps_step_i_host_work_with_step_i_plus_1():
    steps = 6
    states = {}
    published = [threading.Event() for _ in range(steps + 1)]
    log = []  # (step, loss, whether step + 1 was still being computed when step's loss was handled)

    def log_loss(loss):
        i = len(log)
        next_busy = None
        if i + 1 < steps and published[i + 1].wait(DEADLINE_S):
            next_busy = not states[i + 1].is_ready()
        log.append((i, float(loss), next_busy))

    def loss_fn(w, x):
        return s4tf.mean(busy_layers(w, x) ** 2)

    @s4tf.function(extract=True)
    def train_step(w, x):
        loss, grad = s4tf.value_and_grad(loss_fn)(w, x)
        s4tf.host(log_loss, result=())(loss)
        return w - 0.5 * grad

    w = MATRIX
    for i in range(steps):
        w = train_step(w, MATRIX)
        states[i] = w
        published[i].set()
    w.block_until_ready()
    assert [i for i, _, _ in log] == list(range(steps))
    assert [busy for _, _, busy in log] == [True] * (steps - 1) + [None]
    expected_w, expected_losses = MATRIX, []
    for _ in range(steps):
        loss, grad = numpy_loss_and_grad(expected_w, MATRIX)
        expected_losses.append(loss)
        expected_w = expected_w - 0.5 * grad
    np.testing.assert_allclose([loss for _, loss, _ in log], expected_losses, rtol=1e-4)
    np.testing.assert_allclose(np.asarray(w), expected_w, rtol=1e-3, atol=1e-5)


LAYERS = 6


def busy_layers(w, x):
    for _ in range(LAYERS):
        x = s4tf.tanh(x @ w)
    return x


def numpy_loss_and_grad(w, x):
    """``mean(busy_layers(w, x) ** 2)`` and its gradient in ``w``, by hand."""
    activations = [x]
    for _ in range(LAYERS):
        activations.append(np.tanh(activations[-1] @ w))
    out = activations[-1]
    loss = np.mean(out**2)
    upstream = 2 * out / out.size
    grad = np.zeros_like(w)
    for layer in reversed(range(LAYERS)):
        pre = upstream * (1 - activations[layer + 1] ** 2)
        grad += activations[layer].T @ pre
        upstream = pre @ w.T
    return loss, grad
