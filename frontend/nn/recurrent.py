"""Recurrent layers: ``LSTMCell`` and ``GRUCell`` (Flax's cells and carries), and ``RNN``,
which runs a cell over the time axis with ``s4tf.scan`` (one loop when staged).

```python
outputs = nn.RNN(nn.LSTMCell(3, 8, seed=0))(x)              # x: (batch, time, 3) -> (batch, time, 8)
h, outputs = nn.RNN(nn.GRUCell(3, 8), return_carry=True)(x)  # h: the last carry, (batch, 8)
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import ShapeError
from s4tf.nn.activations import sigmoid
from s4tf.nn.checks import check_features, check_positive, layer_error
from s4tf.nn.initializers import glorot_uniform
from s4tf.transforms.scan import scan


def _kernels(layer: str, in_features, hidden_features, gates: int, seed: int) -> tuple:
    check_positive(layer, in_features=in_features, hidden_features=hidden_features)
    return (glorot_uniform((in_features, gates * hidden_features), seed),
            glorot_uniform((hidden_features, gates * hidden_features), seed + 1),
            np.zeros(gates * hidden_features, np.float32))


def _split(x, parts: int) -> list:
    """``x``'s last axis in ``parts`` equal slices."""
    size = x.shape[-1] // parts
    return [x[..., i * size:(i + 1) * size] for i in range(parts)]


@dataclass(init=False)
class LSTMCell:
    """One step of a long short-term memory: ``cell((c, h), x) -> ((c', h'), h')``.

    Gates ``i, f, g, o`` (in that order along the kernels' last axis) are
    ``x @ input_kernel + h @ recurrent_kernel + bias``; ``c' = sigmoid(f) * c +
    sigmoid(i) * tanh(g)``, ``h' = sigmoid(o) * tanh(c')`` (Flax's ``LSTMCell``; its carry is
    ``(c, h)`` too)."""

    input_kernel: Any
    recurrent_kernel: Any
    bias: Any

    def __init__(self, in_features=None, hidden_features=None, *, seed=0, input_kernel=None, recurrent_kernel=None,
                 bias=None):
        if in_features is not None:
            input_kernel, recurrent_kernel, bias = _kernels("LSTMCell", in_features, hidden_features, 4, seed)
        self.input_kernel, self.recurrent_kernel, self.bias = input_kernel, recurrent_kernel, bias

    @property
    def hidden_features(self) -> int:
        return self.recurrent_kernel.shape[0]

    def initialize_carry(self, batch_size: int):
        """Zeros ``(c, h)``, each ``(batch_size, hidden_features)``."""
        shape = (batch_size, self.hidden_features)
        return np.zeros(shape, np.float32), np.zeros(shape, np.float32)

    def __call__(self, carry, x):
        check_features("LSTMCell", x, self.input_kernel.shape[0])
        c, h = carry
        i, f, g, o = _split(snp.matmul(x, self.input_kernel) + snp.matmul(h, self.recurrent_kernel) + self.bias, 4)
        c = sigmoid(f) * c + sigmoid(i) * snp.tanh(g)
        h = sigmoid(o) * snp.tanh(c)
        return (c, h), h


@dataclass(init=False)
class GRUCell:
    """One step of a gated recurrent unit: ``cell(h, x) -> (h', h')`` (Flax's ``GRUCell``).

    With ``x @ input_kernel + bias`` split into ``x_r, x_z, x_n`` and ``h @ recurrent_kernel``
    into ``h_r, h_z, h_n``: ``r = sigmoid(x_r + h_r)``, ``z = sigmoid(x_z + h_z)``,
    ``n = tanh(x_n + r * (h_n + recurrent_bias))``, ``h' = (1 - z) * n + z * h``."""

    input_kernel: Any
    recurrent_kernel: Any
    bias: Any
    recurrent_bias: Any

    def __init__(self, in_features=None, hidden_features=None, *, seed=0, input_kernel=None, recurrent_kernel=None,
                 bias=None, recurrent_bias=None):
        if in_features is not None:
            input_kernel, recurrent_kernel, bias = _kernels("GRUCell", in_features, hidden_features, 3, seed)
            recurrent_bias = np.zeros(hidden_features, np.float32)
        self.input_kernel, self.recurrent_kernel = input_kernel, recurrent_kernel
        self.bias, self.recurrent_bias = bias, recurrent_bias

    @property
    def hidden_features(self) -> int:
        return self.recurrent_kernel.shape[0]

    def initialize_carry(self, batch_size: int):
        """Zeros ``h``: ``(batch_size, hidden_features)``."""
        return np.zeros((batch_size, self.hidden_features), np.float32)

    def __call__(self, h, x):
        check_features("GRUCell", x, self.input_kernel.shape[0])
        x_r, x_z, x_n = _split(snp.matmul(x, self.input_kernel) + self.bias, 3)
        h_r, h_z, h_n = _split(snp.matmul(h, self.recurrent_kernel), 3)
        r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z)
        n = snp.tanh(x_n + r * (h_n + self.recurrent_bias))
        h = (1.0 - z) * n + z * h
        return h, h


@dataclass
class RNN:
    """``cell`` run over the time axis of ``(batch, time, features)`` inputs (Flax's ``RNN``;
    ``time_major=True`` takes ``(time, batch, features)``), from ``initial_carry`` (zeros by
    default); returns the outputs stacked like the inputs, or ``(carry, outputs)`` with
    ``return_carry``. ``reverse=True`` runs from the last step (outputs stay in time order)."""

    cell: Any
    return_carry: bool = False
    reverse: bool = False
    time_major: bool = False

    def __call__(self, x, initial_carry=None):
        shape = tuple(getattr(x, "shape", ()))
        if len(shape) != 3:
            raise layer_error(f"RNN: expected inputs (batch, time, features), got shape {shape}", ShapeError)
        xs = snp.asarray(x) if self.time_major else snp.transpose(x, (1, 0, 2))
        carry = self.cell.initialize_carry(xs.shape[1]) if initial_carry is None else initial_carry
        carry, ys = scan(self.cell, carry, xs, reverse=self.reverse)
        outputs = ys if self.time_major else snp.transpose(ys, (1, 0, 2))
        return (carry, outputs) if self.return_carry else outputs
