"""Activation functions under ``jax.nn``'s names (``erf`` is ``s4tf.erf``; ``relu``,
``sigmoid``, ``softmax``, ``log_softmax`` and ``logsumexp`` are ``s4tf``'s).

```python
import numpy as np
from s4tf import nn

x = np.array([-1.0, 0.0, 2.0], np.float32)
np.asarray(nn.gelu(x)), np.asarray(nn.gelu(x, approximate=False)), np.asarray(nn.leaky_relu(x, 0.1))
```

Each is a composition of ``s4tf`` functions, so its derivatives are theirs.
"""

from __future__ import annotations

import math

from s4tf.arrays.math_functions import erf, expm1, logaddexp
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: max)
    _float_operand, _normalize_axis, clip, log_softmax, logsumexp, maximum, minimum, relu, sigmoid, slice, softmax,
    tanh, where,
)
from s4tf.core.locations import shape_error


def gelu(x, approximate=True):
    """The Gaussian error linear unit ``x * Phi(x)``: by default the tanh form of Hendrycks
    and Gimpel, as ``jax.nn.gelu``; with ``approximate=False`` the exact one, with ``erf``."""
    x = _float_operand(x)
    if approximate:
        return 0.5 * x * (1 + tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1 + erf(x * (1 / math.sqrt(2))))


def silu(x):
    """``x * sigmoid(x)`` (swish)."""
    x = _float_operand(x)
    return x * sigmoid(x)


swish = silu


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return clip(_float_operand(x), 0.0, 6.0)


def leaky_relu(x, negative_slope=0.01):
    """``x`` where ``x >= 0``, ``negative_slope * x`` elsewhere."""
    x = _float_operand(x)
    return where(x >= 0, x, negative_slope * x)


def softplus(x):
    """``log(1 + exp(x))``, as ``logaddexp(x, 0)`` (no overflow)."""
    return logaddexp(_float_operand(x), 0.0)


def log_sigmoid(x):
    """``log(sigmoid(x))``, as ``-softplus(-x)``."""
    return -softplus(-_float_operand(x))


def elu(x, alpha=1.0):
    """``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere."""
    x = _float_operand(x)
    return where(x > 0, x, alpha * expm1(minimum(x, 0.0)))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``, as ``jax.nn.celu``."""
    x = _float_operand(x)
    return maximum(x, 0.0) + alpha * expm1(minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """The scaled exponential linear unit of Klambauer et al.: ``scale * elu(x, alpha)``."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def hard_tanh(x):
    """``x`` clipped to ``[-1, 1]``."""
    return clip(_float_operand(x), -1.0, 1.0)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6``."""
    return relu6(_float_operand(x) + 3.0) / 6.0


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (hard swish)."""
    x = _float_operand(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def glu(x, axis=-1):
    """The gated linear unit: ``x`` split in two halves along ``axis``, ``a * sigmoid(b)``."""
    x = _float_operand(x)
    axis = _normalize_axis(axis, len(x.shape))
    size = x.shape[axis]
    if size % 2:
        raise shape_error(f"glu needs an even size along axis {axis}, got {size} (shape {tuple(x.shape)})")
    start, middle, limit = [0] * len(x.shape), list(x.shape), list(x.shape)
    middle[axis] = size // 2
    first = slice(x, start, middle)
    start[axis] = size // 2
    return first * sigmoid(slice(x, start, limit))


__all__ = [
    "celu", "elu", "erf", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "log_sigmoid", "log_softmax", "logsumexp", "relu", "relu6", "selu", "sigmoid", "silu", "softmax", "softplus",
    "swish",
]
