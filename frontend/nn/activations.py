"""Activation functions under ``jax.nn``'s names (``erf`` is ``s4tf.erf``; ``relu``,
``sigmoid``, ``softmax``, ``log_softmax`` and ``logsumexp`` are ``s4tf``'s).

```python
import numpy as np
from s4tf import nn

x = np.array([-1.0, 0.0, 2.0], np.float32)
np.asarray(nn.gelu(x)), np.asarray(nn.gelu(x, approximate=False)), np.asarray(nn.leaky_relu(x, 0.1))
```

Each is a composition of ``s4tf`` functions, so its derivatives are theirs, except
``gelu`` and ``silu``: a forward-mode rule (``@s4tf.derivative(..., mode="jvp")``) gives their
derivative as one function of ``x`` written with none of the value's intermediate ops, so
reverse mode keeps one tensor, which IREE computes from ``x`` in the backward pass. Composed,
each kept value of the chain (``tanh``, ``1 + tanh``, ``0.5 * x``) is a tensor IREE writes in
the forward pass and reads in the backward one: a character GPT's step spent 18 of 77 ms on
them (docs/benchmarks.md).
"""

from __future__ import annotations

import math

from s4tf.arrays.math_functions import erf, exp, expm1, logaddexp
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: max)
    _float_operand, _normalize_axis, clip, log_softmax, logsumexp, maximum, minimum, relu, sigmoid, slice, softmax,
    tanh, where,
)
from s4tf.core.locations import shape_error
from s4tf.staging.function import function
from s4tf.transforms.custom_derivatives import derivative


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715


def gelu(x, approximate=True):
    """The Gaussian error linear unit ``x * Phi(x)``: by default the tanh form of Hendrycks
    and Gimpel, as ``jax.nn.gelu``; with ``approximate=False`` the exact one, with ``erf``."""
    x = _float_operand(x)
    return _gelu_tanh(x) if approximate else _gelu_erf(x)


@function
def _gelu_tanh(x):
    return 0.5 * x * (1 + tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)))


@derivative(of=_gelu_tanh, mode="jvp")
def _gelu_tanh_jvp(primals, tangents):
    """``gelu'(x) dx``: with ``t = tanh(u)``, ``u = c (x + a x^3)``, ``gelu'(x) = (1 + t) / 2
    + x (1 - t^2) u'(x) / 2``; ``u`` here is ``x (c + c a x^2)``, not the value's ops."""
    (x,), (dx,) = primals, tangents
    t = tanh(x * (_SQRT_2_OVER_PI + (_SQRT_2_OVER_PI * _GELU_CUBIC) * (x * x)))
    slope = (0.5 + 0.5 * t) + (x * (1 - t * t)) * ((0.5 * _SQRT_2_OVER_PI) + (1.5 * _SQRT_2_OVER_PI * _GELU_CUBIC) * (x * x))
    return _gelu_tanh(x), slope * dx


@function
def _gelu_erf(x):
    return 0.5 * x * (1 + erf(x * (1 / math.sqrt(2))))


@derivative(of=_gelu_erf, mode="jvp")
def _gelu_erf_jvp(primals, tangents):
    """``gelu'(x) dx = (Phi(x) + x phi(x)) dx``; ``Phi`` through ``erf(x / sqrt(2))``, a
    division where the value multiplies."""
    (x,), (dx,) = primals, tangents
    slope = (0.5 + 0.5 * erf(x / math.sqrt(2))) + x * (exp(-0.5 * (x * x)) * (1 / math.sqrt(2 * math.pi)))
    return _gelu_erf(x), slope * dx


def silu(x):
    """``x * sigmoid(x)`` (swish)."""
    return _silu(_float_operand(x))


@function
def _silu(x):
    return x * sigmoid(x)


@derivative(of=_silu, mode="jvp")
def _silu_jvp(primals, tangents):
    """``silu'(x) dx = s (1 + x (1 - s)) dx``, ``s = 1 / (1 + exp(-x))``, not the value's
    ``sigmoid``."""
    (x,), (dx,) = primals, tangents
    s = 1 / (1 + exp(-x))
    return _silu(x), (s * (1 + x * (1 - s))) * dx


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
