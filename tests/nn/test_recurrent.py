"""LSTMCell and GRUCell run by RNN over time against NumPy loops (forward and reverse order,
time-major, the final carry), their gradients against float64 finite differences, and
their argument errors."""

import numpy as np
import pytest
from nn_checks import check_model_gradient

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_step(cell, carry, x):
    c, h = carry
    i, f, g, o = np.split(x @ cell.input_kernel + h @ cell.recurrent_kernel + cell.bias, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return (c, h), h


def gru_step(cell, h, x):
    x_r, x_z, x_n = np.split(x @ cell.input_kernel + cell.bias, 3, axis=-1)
    h_r, h_z, h_n = np.split(h @ cell.recurrent_kernel, 3, axis=-1)
    r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z)
    n = np.tanh(x_n + r * (h_n + cell.recurrent_bias))
    h = (1 - z) * n + z * h
    return h, h


def run(step, cell, carry, x, reverse=False):
    """The NumPy reference of RNN: (final carry, outputs (batch, time, hidden))."""
    outputs = [None] * x.shape[1]
    for t in (reversed(range(x.shape[1])) if reverse else range(x.shape[1])):
        carry, outputs[t] = step(cell, carry, x[:, t])
    return carry, np.stack(outputs, axis=1)


def test_lstm_and_gru_over_time_match_numpy():
    lstm, gru = nn.LSTMCell(3, 4, seed=1), nn.GRUCell(3, 4, seed=2)
    lstm.bias, gru.bias, gru.recurrent_bias = rand(16), rand(12), rand(4)
    x, h0 = rand(2, 5, 3), rand(2, 4)

    @s4tf.function
    def forward(lstm, gru, x, h0):
        lstm_carry, lstm_out = nn.RNN(lstm, return_carry=True)(x)
        gru_out = nn.RNN(gru, reverse=True)(x, initial_carry=h0)
        time_major = nn.RNN(gru, time_major=True)(s4tf.transpose(x, (1, 0, 2)), initial_carry=h0)
        return lstm_carry, lstm_out, gru_out, time_major

    (c, h), lstm_out, gru_out, time_major = forward(lstm, gru, x, h0)
    zeros = np.zeros((2, 4), np.float32)
    (c_ref, h_ref), lstm_ref = run(lstm_step, lstm, (zeros, zeros), x)
    np.testing.assert_allclose(np.asarray(lstm_out), lstm_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(c), c_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(h), h_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gru_out), run(gru_step, gru, h0, x, reverse=True)[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(time_major), run(gru_step, gru, h0, x)[1].transpose(1, 0, 2), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cell", [nn.LSTMCell(2, 3, seed=3), nn.GRUCell(2, 3, seed=4)], ids=["lstm", "gru"])
def test_recurrent_gradient(cell):
    x, r = rand(2, 4, 2).astype(np.float64), rand(2, 4, 3).astype(np.float64)
    check_model_gradient(lambda m, x, r: s4tf.sum(m(x) * r), nn.RNN(cell), x, r, rtol=1e-4)


def test_bad_recurrent_arguments_name_the_line():
    with pytest.raises(s4tf.S4tfError, match=r"test_recurrent.py:\d+: LSTMCell: hidden_features must be a positive int, got 0"):
        nn.LSTMCell(3, 0)
    with pytest.raises(s4tf.ShapeError, match=r"test_recurrent.py:\d+: RNN: expected inputs \(batch, time, features\), got shape \(5, 3\)"):
        nn.RNN(nn.GRUCell(3, 4))(np.zeros((5, 3), np.float32))
    with pytest.raises(s4tf.ShapeError, match="GRUCell: expected an input with 3 features on its last axis, got shape"):
        nn.GRUCell(3, 4)(np.zeros((2, 4), np.float32), np.zeros((2, 2), np.float32))
