"""The small model the runtime tests compile for every target: ``tanh(x @ w + b)``."""

import numpy as np

import s4tf


def predict(w, b, x):
    return s4tf.tanh(x @ w + b)


def expected(w, b, x):
    """``predict`` in NumPy."""
    return np.tanh(x @ w + b)


def model_inputs(seed: int):
    """``(w, b, x)``: float32 weights ``3x2`` and ``2``, input ``4x3``."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    return w, b, x
