"""Random numbers for layers from an explicit key (no hidden state).

``uniform(key, shape)`` draws with ``s4tf.random`` (Threefry): ``key`` is an int or an
integer scalar tensor (a seed, such as the step number) or a key from ``s4tf.random``.
"""

from __future__ import annotations

import numpy as np

from s4tf import random
from s4tf.staging.tensor import Tensor


def as_key(key):
    """A ``s4tf.random`` key from a seed (an int or integer scalar tensor) or a key."""
    if isinstance(key, (int, np.integer)) or (isinstance(key, Tensor) and key.shape == ()):
        return random.key(key)
    return key


def uniform(key, shape) -> object:
    """Numbers in ``[0, 1)`` of ``shape`` (float32) from ``key`` (a seed or a key)."""
    return random.uniform(as_key(key), tuple(shape))
