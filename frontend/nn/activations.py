"""Activation functions: ``gelu`` and ``silu`` (``erf`` is ``s4tf.erf``).

```python
import numpy as np
from s4tf import nn

np.asarray(nn.gelu(np.array([-1.0, 0.0, 2.0], np.float32)))
```
"""

from __future__ import annotations

import math

from s4tf.arrays.math_functions import erf
from s4tf.arrays.numpy_api import _float_operand, sigmoid, tanh


def gelu(x, approximate=False):
    """The Gaussian error linear unit ``x * Phi(x)``: exact with ``erf``, or with
    ``approximate=True`` the tanh form of Hendrycks and Gimpel (as ``jax.nn.gelu``'s)."""
    x = _float_operand(x)
    if approximate:
        return 0.5 * x * (1 + tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1 + erf(x * (1 / math.sqrt(2))))


def silu(x):
    """``x * sigmoid(x)`` (swish)."""
    x = _float_operand(x)
    return x * sigmoid(x)


__all__ = ["erf", "gelu", "silu"]
