"""Weight initializers with explicit seeds: the same seed gives the same weights, drawn
with ``s4tf.random`` from ``s4tf.random.key(seed)`` (so on any target, and as JAX would
draw them from ``jax.random.PRNGKey(seed)``).

```python
w = glorot_uniform((784, 512), seed=0)       # float32 NumPy array
k = he_normal((5, 5, 1, 6), seed=1)          # HWIO filter: fan_in = 5*5*1
```
"""

from __future__ import annotations

import numpy as np

from s4tf import random


def fans(shape) -> tuple[int, int]:
    """``(fan_in, fan_out)``: a dense ``(in, out)`` matrix, or an HWIO filter (receptive field times channels)."""
    shape = tuple(shape)
    if len(shape) < 2:
        return (shape[0], shape[0]) if shape else (1, 1)
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def glorot_uniform(shape, seed: int = 0, dtype=np.float32) -> np.ndarray:
    """Glorot (Xavier) uniform: ``U(-a, a)`` with ``a = sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = fans(shape)
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return np.asarray(random.uniform(random.key(seed), shape, dtype, -limit, limit))


def he_normal(shape, seed: int = 0, dtype=np.float32) -> np.ndarray:
    """He (Kaiming) normal: ``N(0, 2 / fan_in)``, for ReLU layers."""
    fan_in, _ = fans(shape)
    return normal(shape, seed, np.sqrt(2.0 / fan_in), dtype)


def normal(shape, seed: int = 0, stddev: float = 1.0, dtype=np.float32) -> np.ndarray:
    """``N(0, stddev**2)``."""
    return np.asarray(random.normal(random.key(seed), shape, dtype)) * np.asarray(stddev, dtype)


INITIALIZERS = {"glorot_uniform": glorot_uniform, "he_normal": he_normal}
