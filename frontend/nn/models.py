"""Ready-made models: LeNet-5 (the S4TF paper's Figure 6) and a multilayer perceptron."""

from __future__ import annotations

import functools

from s4tf.arrays import numpy_api as snp
from s4tf.nn.initializers import variance_scaling
from s4tf.nn.layers import AvgPool2D, Conv2D, Dense, Flatten, Sequential

#: LeNet-5's filters: He's normal, not truncated (the README's job is measured with it).
_HE_NORMAL = functools.partial(variance_scaling, scale=2.0, mode="fan_in", distribution="normal")


def LeNet5(in_channels: int = 1, num_classes: int = 10, image_size: int = 28, seed: int = 0) -> Sequential:
    """LeNet-5 for NHWC ``image_size`` x ``image_size`` images: two 5x5 convolutions with
    average pooling, then dense layers 120 and 84 (ReLU activations)."""
    side = ((image_size // 2) - 4) // 2  # conv1 keeps the size ("same"), pool halves, conv2 -4, pool halves
    return Sequential([
        Conv2D(in_channels, 6, 5, padding="same", activation=snp.relu, seed=seed, initializer=_HE_NORMAL),
        AvgPool2D(2),
        Conv2D(6, 16, 5, activation=snp.relu, seed=seed + 1, initializer=_HE_NORMAL),
        AvgPool2D(2),
        Flatten(),
        Dense(16 * side * side, 120, activation=snp.relu, seed=seed + 2),
        Dense(120, 84, activation=snp.relu, seed=seed + 3),
        Dense(84, num_classes, seed=seed + 4),
    ])


def MLP(sizes, seed: int = 0) -> Sequential:
    """Dense layers ``sizes[0] -> sizes[1] -> ...`` with ReLU between them (none after the last)."""
    pairs = list(zip(sizes[:-1], sizes[1:]))
    return Sequential([
        Dense(n_in, n_out, activation=snp.relu if i < len(pairs) - 1 else None, seed=seed + i)
        for i, (n_in, n_out) in enumerate(pairs)
    ])
