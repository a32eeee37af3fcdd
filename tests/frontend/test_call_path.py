"""The call path of a staged function: what a call computes once per signature, not per call."""

import numpy as np

import s4tf
from s4tf import tensor as tensor_module
from s4tf.nn.training import train_step
from s4tf.optim import Adam


def test_a_call_on_results_of_staged_calls_does_not_ask_iree_for_their_types(monkeypatch):
    @s4tf.function(donate_argnums=(0,))
    def scale(w, x):
        return 0.5 * w, x + 1.0

    w, x = scale(np.ones((3, 2), np.float32), np.zeros(4, np.float32))  # compiles, results on the device
    asked = []
    real = tensor_module.canonical_dtype
    monkeypatch.setattr(tensor_module, "canonical_dtype", lambda dtype: asked.append(dtype) or real(dtype))
    for _ in range(3):
        w, x = scale(w, x)
    assert asked == []  # the results' types came from the compiled signature
    np.testing.assert_allclose(np.asarray(w), np.full((3, 2), 0.5**4, np.float32))
    np.testing.assert_allclose(np.asarray(x), np.full(4, 4.0, np.float32))
    assert w.tensor_type == s4tf.asarray(np.ones((3, 2), np.float32)).tensor_type


def test_a_donated_input_passed_twice_is_still_copied_not_written_into():
    @s4tf.function(donate_argnums=(0, 1))
    def add(a, b):
        return a + 1.0, b + 2.0

    a = s4tf.asarray(np.ones(3, np.float32))
    first, second = add(a, a)
    np.testing.assert_allclose(np.asarray(first), [2.0] * 3)
    np.testing.assert_allclose(np.asarray(second), [3.0] * 3)


def test_training_steps_agree_with_the_first_calls_signature_precomputed():
    from s4tf import nn

    step, opt = train_step(Adam(1e-2)), Adam(1e-2)
    model = nn.MLP((4, 8, 3))
    state = opt.init(model)
    x, y = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32), np.arange(5, dtype=np.int32) % 3
    losses = []
    for _ in range(5):
        model, state, loss, _ = step(model, state, x, y)
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert len(step._compiled) == 1
