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
from s4tf.core.errors import ShapeError
from s4tf.nn import activations, initializers
from s4tf.nn.checks import check_positive, layer_error
from s4tf.nn.context import is_training, layer_key


def _initializer(name):
    """An initializer by name (:data:`~s4tf.nn.initializers.INITIALIZERS`), or the function given."""
    if callable(name):
        return name
    try:
        return initializers.INITIALIZERS[name]
    except KeyError:
        raise layer_error(f"unknown initializer '{name}'; known: {', '.join(initializers.INITIALIZERS)}") from None


def _activate(activation, y):
    return y if activation is None else activation(y)


def _activation(value, layer: str):
    """A layer's ``activation``: a callable, ``None``, or the name of one of ``s4tf.nn``'s
    activations (``"relu"``, Keras's habit); anything else is an error at the user's line."""
    if value is None or callable(value):
        return value
    if isinstance(value, str) and value in activations.__all__:
        return getattr(activations, value)
    raise layer_error(f"{layer}: activation must be a function or one of {', '.join(sorted(activations.__all__))}; "
                      f"got {value!r}")


@dataclass(init=False)
class Dense:
    """``activation(x @ weight + bias)``; ``weight`` is ``(in_features, out_features)``;
    ``use_bias=False`` leaves ``bias`` out (``None``)."""

    weight: Any
    bias: Any
    activation: Callable | None = None

    def __init__(self, in_features=None, out_features=None, activation=None, *, use_bias=True, seed=0,
                 initializer="glorot_uniform", weight=None, bias=None):
        if in_features is not None:
            check_positive("Dense", in_features=in_features, out_features=out_features)
            weight = _initializer(initializer)((in_features, out_features), seed) if weight is None else weight
            bias = np.zeros(out_features, np.float32) if bias is None and use_bias else bias
        self.weight, self.bias, self.activation = weight, bias, _activation(activation, "Dense")

    def __call__(self, x):
        return _activate(self.activation, _biased(snp.matmul(x, self.weight), self.bias))


def _biased(y, bias):
    return y if bias is None else y + bias


def _conv_filter(layer, in_channels, out_channels, kernel_size, groups, initializer, seed):
    """A new HWIO filter for ``layer``'s arguments (``I`` is ``in_channels / groups``)."""
    check_positive(layer, in_channels=in_channels, out_channels=out_channels, groups=groups)
    if in_channels % groups or out_channels % groups:
        raise layer_error(f"{layer}: groups={groups} must divide in_channels={in_channels} and out_channels={out_channels}")
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    check_positive(layer, kernel_height=kh, kernel_width=kw)
    return _initializer(initializer)((kh, kw, in_channels // groups, out_channels), seed)


def _check_image(layer: str, x, channels: int) -> None:
    shape = tuple(getattr(x, "shape", ()))
    if len(shape) != 4 or shape[3] != channels:
        raise layer_error(f"{layer}: expected an NHWC input with {channels} channels, got shape {shape}", ShapeError)


@dataclass(init=False)
class Conv2D:
    """2-D convolution of NHWC input with an HWIO ``filter``, plus ``bias``, then ``activation``.

    ``groups`` splits the channels into groups convolved apart (the filter is
    ``(kh, kw, in_channels / groups, out_channels)``); ``groups=in_channels`` is a depthwise
    convolution. ``use_bias=False`` leaves ``bias`` out."""

    filter: Any
    bias: Any
    stride: int = 1
    padding: str = "valid"
    activation: Callable | None = None
    groups: int = 1

    def __init__(self, in_channels=None, out_channels=None, kernel_size=None, stride=1, padding="valid",
                 activation=None, *, groups=1, use_bias=True, seed=0, initializer="he_normal", filter=None,  # noqa: A002
                 bias=None):
        if in_channels is not None:
            if filter is None:
                filter = _conv_filter("Conv2D", in_channels, out_channels, kernel_size, groups, initializer, seed)  # noqa: A001
            bias = np.zeros(out_channels, np.float32) if bias is None and use_bias else bias
        self.filter, self.bias = filter, bias
        self.stride, self.padding, self.activation, self.groups = stride, padding, _activation(activation, "Conv2D"), groups

    def __call__(self, x):
        _check_image("Conv2D", x, self.filter.shape[2] * self.groups)
        y = snp.conv2d(x, self.filter, strides=self.stride, padding=self.padding, groups=self.groups)
        return _activate(self.activation, _biased(y, self.bias))


@dataclass(init=False)
class ConvTranspose2D:
    """Transposed 2-D convolution (Flax's ``ConvTranspose``, ``jax.lax.conv_transpose``):
    the NHWC input is dilated by ``stride`` and convolved with the HWIO ``filter``
    (``(kh, kw, in_channels, out_channels)``, not flipped). ``padding="valid"`` gives
    ``H * stride + max(kh - stride, 0)`` rows, ``"same"`` gives ``H * stride``."""

    filter: Any
    bias: Any
    stride: int = 1
    padding: str = "valid"
    activation: Callable | None = None

    def __init__(self, in_channels=None, out_channels=None, kernel_size=None, stride=1, padding="valid",
                 activation=None, *, use_bias=True, seed=0, initializer="he_normal", filter=None, bias=None):  # noqa: A002
        if padding is not None and str(padding).lower() not in ("valid", "same"):  # None: a gradient's tree
            raise layer_error(f"ConvTranspose2D: padding must be 'valid' or 'same', got {padding!r}")
        if in_channels is not None:
            if filter is None:
                filter = _conv_filter("ConvTranspose2D", in_channels, out_channels, kernel_size, 1, initializer, seed)  # noqa: A001
            bias = np.zeros(out_channels, np.float32) if bias is None and use_bias else bias
        self.filter, self.bias = filter, bias
        self.stride, self.padding, self.activation = stride, padding, _activation(activation, "ConvTranspose2D")

    def __call__(self, x):
        _check_image("ConvTranspose2D", x, self.filter.shape[2])
        x = snp.asarray(x)
        y = snp.conv_transpose(x, snp.astype(snp.asarray(self.filter), x.dtype), self.stride, self.padding)
        return _activate(self.activation, _biased(y, self.bias))


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

    ``training`` (Keras's flag; ``None``: whether the enclosing ``nn.apply`` trains) off, the
    layer is the identity. Randomness comes from an explicit ``key``: an int or an integer
    scalar tensor (a seed, e.g. the step number) or a ``s4tf.random`` key; without one, from
    the enclosing ``nn.apply``'s key.
    """

    rate: float = 0.5

    def __post_init__(self):  # a gradient or a partition's tree has rate None
        if self.rate is not None and not 0.0 <= self.rate < 1.0:
            raise layer_error(f"Dropout: rate must be in [0, 1), got {self.rate!r}")

    def __call__(self, x, key=None, training=None):
        if not is_training(training) or self.rate == 0.0:
            return x
        keep = snp.astype(random.bernoulli(layer_key(key, "Dropout"), 1.0 - self.rate, x.shape), snp.dtype_of(x))
        return x * keep * (1.0 / (1.0 - self.rate))


@dataclass(init=False)
class Embedding:
    """Rows of ``table`` (``(vocab_size, features)``) for integer ids of any shape: a
    gather (``s4tf.take(table, ids, axis=0)``; ids index as NumPy's do, negative ones from
    the end, traced ones out of range clamped), whose gradient is a scatter-add of the rows'
    cotangents into one table-sized buffer (the sparse adjoint)."""

    table: Any

    def __init__(self, vocab_size=None, features=None, *, seed=0, table=None):
        if vocab_size is not None and table is None:
            check_positive("Embedding", vocab_size=vocab_size, features=features)
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
