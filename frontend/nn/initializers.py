"""Weight initializers with explicit seeds: the same seed gives the same weights, drawn
with ``s4tf.random`` from ``s4tf.random.key(seed)``, as ``jax.nn.initializers`` draws them
from ``jax.random.PRNGKey(seed)`` (the same numbers, under the same names and defaults).

```python
w = glorot_uniform((784, 512), seed=0)       # float32 NumPy array
k = he_normal((5, 5, 1, 6), seed=1)          # HWIO filter: fan_in = 5*5*1; a truncated normal, as JAX's
q = orthogonal((64, 64), seed=2)             # q.T @ q == I
```
"""

from __future__ import annotations

import functools

import numpy as np

from s4tf import random
from s4tf.nn.checks import layer_error

#: The standard deviation of a standard normal truncated to (-2, 2) (JAX's constant).
_TRUNCATED_STDDEV = 0.87962566103423978


def fans(shape, in_axis: int = -2, out_axis: int = -1) -> tuple[int, int]:
    """``(fan_in, fan_out)``: a dense ``(in, out)`` matrix, or a filter whose ``in_axis`` and
    ``out_axis`` are its channels (receptive field times channels; HWIO by default)."""
    shape = tuple(shape)
    if len(shape) < 2:
        return (shape[0], shape[0]) if shape else (1, 1)
    receptive = int(np.prod(shape)) // (shape[in_axis] * shape[out_axis]) if shape[in_axis] * shape[out_axis] else 0
    return shape[in_axis] * receptive, shape[out_axis] * receptive


def draw_scaled(key, shape, dtype=np.float32, *, scale: float = 1.0, mode: str = "fan_in",
                distribution: str = "truncated_normal", in_axis: int = -2, out_axis: int = -1):
    """:func:`variance_scaling`'s draw from an ``s4tf.random`` key: a tensor, as
    ``jax.nn.initializers.variance_scaling(...)(key, shape, dtype)`` gives."""
    fan_in, fan_out = fans(shape, in_axis, out_axis)
    denominators = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}
    if mode not in denominators:
        raise layer_error(f"variance_scaling: mode must be one of {', '.join(denominators)}, got {mode!r}")
    variance = np.asarray(scale / denominators[mode], dtype)
    if distribution == "truncated_normal":
        return random.truncated_normal(key, -2, 2, shape, dtype) * np.asarray(np.sqrt(variance) / _TRUNCATED_STDDEV, dtype)
    if distribution == "normal":
        return random.normal(key, shape, dtype) * np.sqrt(variance)
    if distribution == "uniform":
        return random.uniform(key, shape, dtype, -1.0, 1.0) * np.sqrt(3 * variance)
    raise layer_error(f"variance_scaling: distribution must be 'truncated_normal', 'normal' or 'uniform', got {distribution!r}")


def variance_scaling(shape, seed: int = 0, dtype=np.float32, *, scale: float = 1.0, mode: str = "fan_in",
                     distribution: str = "truncated_normal") -> np.ndarray:
    """``jax.nn.initializers.variance_scaling``: variance ``scale / n`` with ``n`` the fan in,
    the fan out or their mean (``mode``), drawn from a ``"truncated_normal"`` (to two
    standard deviations, rescaled to that variance), a ``"normal"`` or a ``"uniform"``."""
    return np.asarray(draw_scaled(random.key(seed), tuple(shape), dtype, scale=scale, mode=mode, distribution=distribution))


glorot_uniform = functools.partial(variance_scaling, scale=1.0, mode="fan_avg", distribution="uniform")
glorot_normal = functools.partial(variance_scaling, scale=1.0, mode="fan_avg", distribution="truncated_normal")
he_uniform = functools.partial(variance_scaling, scale=2.0, mode="fan_in", distribution="uniform")
he_normal = functools.partial(variance_scaling, scale=2.0, mode="fan_in", distribution="truncated_normal")
lecun_uniform = functools.partial(variance_scaling, scale=1.0, mode="fan_in", distribution="uniform")
lecun_normal = functools.partial(variance_scaling, scale=1.0, mode="fan_in", distribution="truncated_normal")


def normal(shape, seed: int = 0, stddev: float = 1.0, dtype=np.float32) -> np.ndarray:
    """``N(0, stddev**2)``."""
    return np.asarray(random.normal(random.key(seed), shape, dtype)) * np.asarray(stddev, dtype)


def orthogonal(shape, seed: int = 0, dtype=np.float32, *, scale: float = 1.0) -> np.ndarray:
    """``jax.nn.initializers.orthogonal``: the Q of a standard normal matrix's QR (signs fixed
    by R's diagonal, so uniformly distributed), the last axis as columns: ``w.reshape(-1, n)``
    has orthonormal columns (rows where it is wide)."""
    shape = tuple(shape)
    if len(shape) < 2:
        raise layer_error(f"orthogonal needs a shape of rank >= 2, got {shape}")
    columns = shape[-1]
    rows = int(np.prod(shape)) // columns
    wide = rows < columns
    draws = np.asarray(random.normal(random.key(seed), (columns, rows) if wide else (rows, columns), dtype))
    q, r = np.linalg.qr(draws.astype(np.float64))
    q = q * np.sign(np.diagonal(r))
    return (scale * (q.T if wide else q)).reshape(shape).astype(dtype)


INITIALIZERS = {
    "glorot_uniform": glorot_uniform, "glorot_normal": glorot_normal, "he_uniform": he_uniform, "he_normal": he_normal,
    "lecun_uniform": lecun_uniform, "lecun_normal": lecun_normal, "orthogonal": orthogonal,
}
