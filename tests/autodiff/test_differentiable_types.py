"""Dataclass models as differentiable values: ``s4tf.no_derivative`` fields are constants
(their tangent is ``None``), and ``s4tf.move`` steps a model along a tangent."""

from dataclasses import dataclass

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(3)


@dataclass
class Dense:
    w: np.ndarray
    b: np.ndarray
    temperature: np.ndarray = s4tf.no_derivative(default_factory=lambda: np.array(2.0, np.float32))
    steps: int = 1


def loss(model, x):
    return s4tf.sum(s4tf.tanh((x @ model.w + model.b) / model.temperature) ** 2)


def numpy_loss_gradients(model, x):
    z = (x @ model.w + model.b) / model.temperature
    dz = 2 * np.tanh(z) * (1 - np.tanh(z) ** 2) / model.temperature
    return x.T @ dz, dz.sum(axis=0)


MODEL = Dense(RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal(2).astype(np.float32))
X = RNG.standard_normal((4, 3)).astype(np.float32)


def test_no_derivative_fields_have_none_tangents_and_are_constants():
    grads = s4tf.grad(loss)(MODEL, X)
    assert isinstance(grads, Dense) and grads.temperature is None and grads.steps is None
    dw, db = numpy_loss_gradients(MODEL, X)
    np.testing.assert_allclose(np.asarray(grads.w), dw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(grads.b), db, rtol=1e-5, atol=1e-6)


def test_jvp_takes_none_for_constant_fields():
    direction = Dense(np.ones((3, 2), np.float32), np.zeros(2, np.float32), temperature=None, steps=None)
    _, tangent = s4tf.jvp(loss, (MODEL, X), (direction, None))
    dw, _ = numpy_loss_gradients(MODEL, X)
    np.testing.assert_allclose(float(np.asarray(tangent)), dw.sum(), rtol=1e-4)


def test_move_steps_along_the_gradient_and_keeps_constants():
    @s4tf.function
    def train_step(model, x):
        return s4tf.move(model, s4tf.grad(loss)(model, x), -0.5)

    moved = train_step(MODEL, X)
    dw, db = numpy_loss_gradients(MODEL, X)
    np.testing.assert_allclose(np.asarray(moved.w), MODEL.w - 0.5 * dw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(moved.b), MODEL.b - 0.5 * db, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(moved.temperature), MODEL.temperature)
    assert moved.steps == 1
    eager = s4tf.move({"a": np.ones(2), "n": 3}, {"a": np.full(2, 4.0), "n": None})
    np.testing.assert_array_equal(eager["a"], [5.0, 5.0])
    assert eager["n"] == 3


def test_move_rejects_a_tangent_of_another_structure():
    with pytest.raises(s4tf.S4tfError, match="tangent given to s4tf.move .* does not have the structure"):
        s4tf.move({"a": np.ones(2)}, [np.ones(2)])
