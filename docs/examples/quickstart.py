"""Quickstart: stage a function, look at its s4tf-dialect module, run it with IREE, differentiate it."""

import numpy as np

import s4tf


@s4tf.function
def predict(w, b, x):
    return s4tf.tanh(x @ w + b)


def loss(w, b, x, y):
    return s4tf.mean((predict(w, b, x) - y) ** 2)


rng = np.random.default_rng(0)
w = rng.standard_normal((3, 2)).astype(np.float32)
b = np.zeros(2, np.float32)
x = rng.standard_normal((4, 3)).astype(np.float32)
y = rng.standard_normal((4, 2)).astype(np.float32)

print("staged module:")
print(predict.lower(w, b, x))
prediction = predict(w, b, x)  # compiled by IREE, runs on the CPU; stays on the device
print("prediction:\n", np.asarray(prediction))
print("matches NumPy:", np.allclose(np.asarray(prediction), np.tanh(x @ w + b), atol=1e-6))

value, (grad_w, grad_b) = s4tf.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
print("loss:", float(value))
print("d loss / d w:\n", np.asarray(grad_w))
