"""Normalization layers: BatchNorm (with running statistics as model state), LayerNorm,
RMSNorm and GroupNorm, each over the last (feature) axis of its input.

```python
y, model = nn.apply(nn.Sequential([nn.Dense(4, 8), nn.BatchNorm(8)]), x, training=True)
z = nn.GroupNorm(2, 8)(y.reshape(1, 2, -1, 8))
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import ShapeError
from s4tf.nn.checks import check_features, check_positive, layer_error
from s4tf.nn.context import is_training, record_update
from s4tf.staging.function import function
from s4tf.transforms.custom_derivatives import derivative
from s4tf.transforms.differentiable import no_derivative


def _moments(x, axes):
    """``(mean, variance)`` over ``axes``. The variance squares ``mean - x``, so that the
    normalized value's ``x - mean`` has one use and IREE fuses the square into the
    reduction rather than writing both."""
    mean = snp.mean(x, axis=axes, keepdims=True)
    variance = snp.mean(snp.square(mean - x), axis=axes, keepdims=True)
    return mean, variance


def _statistics(x, axes, epsilon):
    """``(mean, 1 / sqrt(variance + epsilon))`` over ``axes``."""
    mean, variance = _moments(x, axes)
    return mean, snp.rsqrt(variance + epsilon)


def _affine_normalization(axes_of):
    """A staged ``normalize(x, scale, offset, epsilon) = (x - mean) / sqrt(variance +
    epsilon) * scale + offset``, the moments over ``axes_of(rank)``, with a forward-mode rule
    whose tangent reads ``x`` and the moments alone (its normalized value is ``(x + -mean) *
    rstd``, not the value's ops): reverse mode keeps no tensor of the layer's size but ``x``,
    which IREE reads again in the backward pass. As composed, IREE wrote ``x - mean``, its
    square, the normalized value and the scaled one in the forward pass and read them in
    the backward one: ResNet-20's step spent 35 of its 90 ms of dispatches on elementwise
    ones, 20 with the rule (docs/benchmarks.md)."""

    @function
    def normalize(x, scale, offset, epsilon):
        mean, rstd = _statistics(x, axes_of(len(x.shape)), epsilon)
        return (x - mean) * (rstd * scale) + offset

    @derivative(of=normalize, mode="jvp")
    def normalize_jvp(primals, tangents):
        (x, scale, offset, epsilon), (dx, dscale, doffset, _) = primals, tangents
        axes = axes_of(len(x.shape))
        mean, rstd = _statistics(x, axes, epsilon)
        normalized = (x + -mean) * rstd
        centered = dx - snp.mean(dx, axis=axes, keepdims=True)
        tangent = rstd * (centered - normalized * snp.mean(normalized * centered, axis=axes, keepdims=True)) * scale
        tangent = tangent if dscale is None else tangent + normalized * dscale
        return normalize(x, scale, offset, epsilon), tangent if doffset is None else tangent + doffset

    return normalize


#: Over every axis but the last (features): BatchNorm's training moments.
_batch_normalize = _affine_normalization(lambda rank: tuple(range(rank - 1)))
#: Over the last axis: LayerNorm's.
_feature_normalize = _affine_normalization(lambda rank: (rank - 1,))


def _ones_and_zeros(layer: str, num_features) -> tuple:
    check_positive(layer, num_features=num_features)
    return np.ones(num_features, np.float32), np.zeros(num_features, np.float32)


@dataclass(init=False)
class BatchNorm:
    """Batch normalization over the last (feature) axis.

    ``bn(x, training=True)`` normalizes with the batch's statistics, ``bn(x)`` with the
    running ones (``training=None``: whether the enclosing ``nn.apply`` trains). The running
    statistics are model state (``no_derivative`` fields): no gradient, no optimizer
    moments. ``bn.updated(x)`` returns the layer with them moved toward the batch's
    (``momentum`` keeps that much of the old); inside ``nn.apply`` a training call does it
    for you.
    """

    scale: Any
    offset: Any
    running_mean: Any = no_derivative()
    running_var: Any = no_derivative()
    momentum: float = 0.9
    epsilon: float = 1e-5

    def __init__(self, num_features=None, momentum=0.9, epsilon=1e-5, *, scale=None, offset=None,
                 running_mean=None, running_var=None):
        if num_features is not None:
            scale, offset = _ones_and_zeros("BatchNorm", num_features)
            running_var, running_mean = _ones_and_zeros("BatchNorm", num_features)
        self.scale, self.offset, self.running_mean, self.running_var = scale, offset, running_mean, running_var
        self.momentum, self.epsilon = momentum, epsilon

    def __call__(self, x, training=None):
        check_features("BatchNorm", x, self.scale.shape[0])
        if is_training(training):
            record_update(self, self.updated(x))
            return _batch_normalize(x, self.scale, self.offset, self.epsilon)
        return (x - self.running_mean) * snp.rsqrt(self.running_var + self.epsilon) * self.scale + self.offset

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
        if num_features is not None:
            scale, offset = _ones_and_zeros("LayerNorm", num_features)
        self.scale, self.offset, self.epsilon = scale, offset, epsilon

    def __call__(self, x):
        check_features("LayerNorm", x, self.scale.shape[0])
        return _feature_normalize(x, self.scale, self.offset, self.epsilon)


@dataclass(init=False)
class RMSNorm:
    """Root-mean-square normalization (Flax's ``RMSNorm``): ``x / sqrt(mean(x**2) + epsilon)``
    over the last axis, ``* scale``; no centering, no offset."""

    scale: Any
    epsilon: float = 1e-6

    def __init__(self, num_features=None, epsilon=1e-6, *, scale=None):
        if num_features is not None:
            scale, _ = _ones_and_zeros("RMSNorm", num_features)
        self.scale, self.epsilon = scale, epsilon

    def __call__(self, x):
        check_features("RMSNorm", x, self.scale.shape[0])
        return x * snp.rsqrt(snp.mean(snp.square(x), axis=-1, keepdims=True) + self.epsilon) * self.scale


@dataclass(init=False)
class GroupNorm:
    """Group normalization (Flax's ``GroupNorm``): the last axis's features in ``num_groups``
    groups, each normalized over its features and every axis but the first (batch), then
    ``* scale + offset`` per feature. Inputs are ``(N, ..., features)``: NHWC images, sequences."""

    scale: Any
    offset: Any
    num_groups: int = 32
    epsilon: float = 1e-6

    def __init__(self, num_groups=32, num_features=None, epsilon=1e-6, *, scale=None, offset=None):
        if num_features is not None:
            check_positive("GroupNorm", num_groups=num_groups)
            if num_features % num_groups:
                raise layer_error(f"GroupNorm: num_groups={num_groups} must divide num_features={num_features}")
            scale, offset = _ones_and_zeros("GroupNorm", num_features)
        self.scale, self.offset, self.num_groups, self.epsilon = scale, offset, num_groups, epsilon

    def __call__(self, x):
        check_features("GroupNorm", x, self.scale.shape[0])
        shape = tuple(x.shape)
        if len(shape) < 2:
            raise layer_error(f"GroupNorm: expected an input (batch, ..., features), got shape {shape}", ShapeError)
        grouped = snp.reshape(x, (*shape[:-1], self.num_groups, shape[-1] // self.num_groups))
        axes = (*range(1, len(shape) - 1), len(shape))
        mean, variance = _moments(grouped, axes)
        normalized = snp.reshape((grouped - mean) * snp.rsqrt(variance + self.epsilon), shape)
        return normalized * self.scale + self.offset
