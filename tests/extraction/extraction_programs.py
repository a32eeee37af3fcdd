"""Programs with host calls shared by the extraction tests, each with its NumPy reference.

Every program is a plain Python function: run as written it executes eagerly (each op and
host call at once, nothing partitioned); under ``s4tf.function(extract=True)`` it is
partitioned into device functions and a host program.
"""

from __future__ import annotations

import numpy as np

import s4tf


def ranks(x):
    """Host function: the rank of each element within its row."""
    return np.argsort(np.argsort(x, axis=1), axis=1).astype(np.float32)


def middle(w, x):
    """A host call in the middle: device, host (on a device value), device again."""
    logits = x @ w
    r = s4tf.host(ranks)(logits)
    return s4tf.tanh(logits) * r


def middle_numpy(w, x):
    logits = x @ w
    return np.tanh(logits) * ranks(logits)


def solve(a, b):
    """Host function: ``a^-1 b`` by LAPACK."""
    return np.linalg.solve(a, b).astype(np.float32)


def flows_back(a, b):
    """A host result flowing back to the device, and device work that does not wait for it."""
    gram = a @ s4tf.transpose(a) + 3.0 * np.eye(a.shape[0], dtype=np.float32)
    plan = s4tf.host(solve, result=b)(gram, b)
    return gram @ plan - b, s4tf.exp(-gram)


def flows_back_numpy(a, b):
    gram = a @ a.T + 3.0 * np.eye(a.shape[0], dtype=np.float32)
    return gram @ solve(gram, b) - b, np.exp(-gram)


def row_sums(x):
    return x.sum(axis=1, keepdims=True).astype(np.float32)


def col_max(x):
    return x.max(axis=0, keepdims=True).astype(np.float32)


def two_independent(x):
    """Two host calls on the same device value, neither needing the other."""
    y = s4tf.sin(x)
    return y * s4tf.host(row_sums, result=np.zeros((x.shape[0], 1), np.float32))(y) + s4tf.host(
        col_max, result=np.zeros((1, x.shape[1]), np.float32)
    )(y)


def two_independent_numpy(x):
    y = np.sin(x)
    return y * row_sums(y) + col_max(y)


def cumulative(y):
    return np.cumsum(y).astype(np.float32)


def no_device_dependency(x, y):
    """A host call on an argument: it needs no device result."""
    z = s4tf.exp(x) @ s4tf.exp(x)
    return z, s4tf.host(cumulative)(y) * 2.0


def no_device_dependency_numpy(x, y):
    return np.exp(x) @ np.exp(x), cumulative(y) * 2.0


def shift(x, offset):
    return (x + offset).astype(np.float32)


SCALE = np.linspace(0.5, 1.5, 64 * 64, dtype=np.float32).reshape(64, 64)


def with_constants(x):
    """Constants for the device (a 64x64 array) and for the host call (an offset)."""
    offset = s4tf.asarray(np.full((64, 64), 0.25, np.float32))
    moved = s4tf.host(shift)(x * SCALE, offset)
    return moved * SCALE


def with_constants_numpy(x):
    return (x * SCALE + 0.25) * SCALE


def host_only(y):
    """Nothing but a host call on an argument: no device function at all."""
    return s4tf.host(cumulative)(y)


def host_only_numpy(y):
    return cumulative(y)


def canonicalized_away(y):
    """``y * 1`` is canonicalized to ``y``: the host call reads the argument, and the only
    device work waits for its result."""
    return s4tf.host(cumulative)(y * 1) + 1


def canonicalized_away_numpy(y):
    return cumulative(y) + 1


def host_chain(y):
    """Host calls on an argument and on device work after each other (an unrolled loop)."""
    for _ in range(3):
        y = s4tf.host(cumulative)(y) * 0.5
    return y


def host_chain_numpy(y):
    for _ in range(3):
        y = cumulative(y) * np.float32(0.5)
    return y
