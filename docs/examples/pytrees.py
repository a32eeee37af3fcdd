"""Pytrees: nested tuples, lists, dicts and dataclasses as arguments and results."""

from dataclasses import dataclass

import numpy as np

import s4tf


@dataclass
class Dense:
    w: np.ndarray
    b: np.ndarray


@s4tf.function
def classify(layers, batch):
    """``layers``: a list of ``Dense``; ``batch``: a dict. Returns a dict of a tuple and a scalar."""
    h = batch["x"]
    for layer in layers[:-1]:
        h = s4tf.tanh(h @ layer.w + layer.b)
    logits = h @ layers[-1].w + layers[-1].b
    loss = -s4tf.mean(s4tf.sum(s4tf.log_softmax(logits) * batch["onehot"], axis=-1))
    return {"prediction": (s4tf.argmax(logits, axis=-1), s4tf.softmax(logits)), "loss": loss}


rng = np.random.default_rng(0)
layers = [
    Dense(rng.standard_normal((3, 5)).astype(np.float32), np.zeros(5, np.float32)),
    Dense(rng.standard_normal((5, 2)).astype(np.float32), np.zeros(2, np.float32)),
]
batch = {"x": rng.standard_normal((4, 3)).astype(np.float32), "onehot": np.eye(2, dtype=np.float32)[[0, 1, 1, 0]]}

out = classify(layers, batch)
labels, probabilities = out["prediction"]
print("result keys:", sorted(out))
print("labels:", np.asarray(labels).tolist())
print("probabilities sum to 1:", np.allclose(np.asarray(probabilities).sum(axis=-1), 1.0, atol=1e-6))
print("loss is a scalar:", np.asarray(out["loss"]).shape == ())

# Gradients have the structure of what they are taken with respect to: a list of Dense.
loss_grad = s4tf.grad(lambda layers, batch: classify(layers, batch)["loss"])(layers, batch)
print("gradient type:", type(loss_grad).__name__, "of", type(loss_grad[0]).__name__)
print("gradient shapes:", [(np.asarray(g.w).shape, np.asarray(g.b).shape) for g in loss_grad])
