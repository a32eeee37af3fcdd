"""Layers as values: dataclasses of parameter arrays with ``__call__``.

A layer is a pytree (its fields are the leaves and sub-layers), so ``s4tf.grad`` of a
loss returns a tangent with the same structure, and an optimizer returns a new layer.
Constructors take sizes and a ``seed``; the parameter fields can also be given directly
(``Dense(weight=w, bias=b)``), which is how a layer is rebuilt from its leaves.

```python
model = Sequential([Conv2D(1, 6, 5, padding="same", activation=s4tf.relu), MaxPool2D(2),
                    Flatten(), Dense(14 * 14 * 6, 10)])
logits = model(x)                 # x: NHWC float32
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.arrays.indexing import take
from s4tf import random
from s4tf.core.errors import S4tfError
from s4tf.nn import initializers
from s4tf.nn.random_keys import as_key


def _initializer(name: str):
    try:
        return initializers.INITIALIZERS[name]
    except KeyError:
        raise S4tfError(f"unknown initializer '{name}'; known: {', '.join(initializers.INITIALIZERS)}") from None


def _activate(activation, y):
    return y if activation is None else activation(y)


@dataclass(init=False)
class Dense:
    """``activation(x @ weight + bias)``; ``weight`` is ``(in_features, out_features)``."""

    weight: Any
    bias: Any
    activation: Callable | None = None

    def __init__(self, in_features=None, out_features=None, activation=None, *, seed=0,
                 initializer="glorot_uniform", weight=None, bias=None):
        if weight is None:
            weight = _initializer(initializer)((in_features, out_features), seed)
            bias = np.zeros(out_features, np.float32) if bias is None else bias
        self.weight, self.bias, self.activation = weight, bias, activation

    def __call__(self, x):
        return _activate(self.activation, snp.matmul(x, self.weight) + self.bias)


@dataclass(init=False)
class Conv2D:
    """2-D convolution of NHWC input with an HWIO ``filter``, plus ``bias``, then ``activation``."""

    filter: Any
    bias: Any
    stride: int = 1
    padding: str = "valid"
    activation: Callable | None = None

    def __init__(self, in_channels=None, out_channels=None, kernel_size=None, stride=1, padding="valid",
                 activation=None, *, seed=0, initializer="he_normal", filter=None, bias=None):  # noqa: A002
        if filter is None:
            kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
            filter = _initializer(initializer)((kh, kw, in_channels, out_channels), seed)  # noqa: A001
            bias = np.zeros(out_channels, np.float32) if bias is None else bias
        self.filter, self.bias = filter, bias
        self.stride, self.padding, self.activation = stride, padding, activation

    def __call__(self, x):
        y = snp.conv2d(x, self.filter, strides=self.stride, padding=self.padding) + self.bias
        return _activate(self.activation, y)


@dataclass
class MaxPool2D:
    """Max pooling over NHWC windows; ``stride`` defaults to the window."""

    window: int = 2
    stride: int | None = None
    padding: str = "valid"

    def __call__(self, x):
        return snp.max_pool2d(x, self.window, self.stride, self.padding)


@dataclass
class AvgPool2D:
    """Average pooling over NHWC windows; ``stride`` defaults to the window."""

    window: int = 2
    stride: int | None = None
    padding: str = "valid"

    def __call__(self, x):
        return snp.avg_pool2d(x, self.window, self.stride, self.padding)


@dataclass
class Flatten:
    """``(N, ...)`` to ``(N, -1)``."""

    def __call__(self, x):
        return snp.reshape(x, (x.shape[0], -1))


@dataclass
class Dropout:
    """Zero each element with probability ``rate`` and scale the rest by ``1 / (1 - rate)``.

    Randomness comes from an explicit ``key``: an int or an integer scalar tensor (a seed,
    e.g. the step number) or a ``s4tf.random`` key; without ``training`` the layer is the
    identity.
    """

    rate: float = 0.5

    def __call__(self, x, key=None, training=False):
        if not training or self.rate == 0.0:
            return x
        if key is None:
            raise S4tfError("Dropout in training needs an explicit key: dropout(x, key=step, training=True)")
        keep = snp.astype(random.bernoulli(as_key(key), 1.0 - self.rate, x.shape), np.float32)
        return x * keep * (1.0 / (1.0 - self.rate))


def _moments(x, axes):
    mean = snp.mean(x, axis=axes, keepdims=True)
    variance = snp.mean(snp.square(x - mean), axis=axes, keepdims=True)
    return mean, variance


@dataclass(init=False)
class BatchNorm:
    """Batch normalization over the last (feature) axis.

    ``bn(x, training=True)`` normalizes with the batch's statistics, ``bn(x)`` with the
    running ones; ``bn.updated(x)`` returns the layer with running statistics moved toward
    the batch's (``momentum`` keeps that much of the old). Running statistics are leaves
    too, so keep them out of the optimizer (their gradient is zero).
    """

    scale: Any
    offset: Any
    running_mean: Any
    running_var: Any
    momentum: float = 0.9
    epsilon: float = 1e-5

    def __init__(self, num_features=None, momentum=0.9, epsilon=1e-5, *, scale=None, offset=None,
                 running_mean=None, running_var=None):
        if scale is None:
            scale, offset = np.ones(num_features, np.float32), np.zeros(num_features, np.float32)
            running_mean, running_var = np.zeros(num_features, np.float32), np.ones(num_features, np.float32)
        self.scale, self.offset, self.running_mean, self.running_var = scale, offset, running_mean, running_var
        self.momentum, self.epsilon = momentum, epsilon

    def __call__(self, x, training=False):
        if training:
            mean, variance = _moments(x, tuple(range(len(x.shape) - 1)))
        else:
            mean, variance = self.running_mean, self.running_var
        return (x - mean) * snp.rsqrt(variance + self.epsilon) * self.scale + self.offset

    def updated(self, x):
        axes = tuple(range(len(x.shape) - 1))
        mean, variance = _moments(snp.stop_gradient(x), axes)
        m = self.momentum
        return BatchNorm(momentum=m, epsilon=self.epsilon, scale=self.scale, offset=self.offset,
                         running_mean=m * self.running_mean + (1 - m) * snp.reshape(mean, (-1,)),
                         running_var=m * self.running_var + (1 - m) * snp.reshape(variance, (-1,)))


@dataclass(init=False)
class LayerNorm:
    """Normalize each example over its last axis, then ``* scale + offset``."""

    scale: Any
    offset: Any
    epsilon: float = 1e-5

    def __init__(self, num_features=None, epsilon=1e-5, *, scale=None, offset=None):
        if scale is None:
            scale, offset = np.ones(num_features, np.float32), np.zeros(num_features, np.float32)
        self.scale, self.offset, self.epsilon = scale, offset, epsilon

    def __call__(self, x):
        mean, variance = _moments(x, (-1,))
        return (x - mean) * snp.rsqrt(variance + self.epsilon) * self.scale + self.offset


@dataclass(init=False)
class Embedding:
    """Rows of ``table`` (``(vocab_size, features)``) for integer ids of any shape: a
    gather (``s4tf.take(table, ids, axis=0)``; ids index as NumPy's do, negative ones from
    the end, traced ones out of range clamped), whose gradient is a scatter-add of the rows'
    cotangents into one table-sized buffer (the sparse adjoint)."""

    table: Any

    def __init__(self, vocab_size=None, features=None, *, seed=0, table=None):
        if table is None:
            table = initializers.normal((vocab_size, features), seed, stddev=1.0 / np.sqrt(features))
        self.table = table

    def __call__(self, ids):
        return take(self.table, ids, axis=0)


@dataclass
class Sequential:
    """Layers and plain functions (``s4tf.relu``) applied in order (S4TF's ``sequenced(through:)``)."""

    layers: list

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
