"""``s4tf.nn``: layers as values, initializers, losses and metrics, ready-made models.

```python
from s4tf import nn
model = nn.LeNet5(in_channels=1, num_classes=10)
loss = nn.softmax_cross_entropy(model(x), y)
```
"""

from s4tf.nn import initializers
from s4tf.nn import activations
from s4tf.nn.activations import *  # noqa: F403  (activations.__all__: its names, listed once)
from s4tf.nn.layers import (
    AvgPool2D, Conv2D, ConvTranspose2D, Dense, Dropout, Embedding, Flatten, MaxPool2D, Sequential,
)
from s4tf.nn.attention import MultiHeadAttention
from s4tf.nn.recurrent import RNN, GRUCell, LSTMCell
from s4tf.nn.normalization import BatchNorm, GroupNorm, LayerNorm, RMSNorm
from s4tf.nn.state import merge, partition
from s4tf.nn.context import apply
from s4tf.nn.losses import accuracy, mse, one_hot, softmax_cross_entropy
from s4tf.nn.models import MLP, LeNet5
from s4tf.nn.random_keys import uniform

__all__ = [
    "initializers", "Dense", "Conv2D", "ConvTranspose2D", "MaxPool2D", "AvgPool2D", "Flatten", "Dropout",
    "BatchNorm", "LayerNorm", "RMSNorm", "GroupNorm", "Embedding", "MultiHeadAttention", "LSTMCell", "GRUCell",
    "RNN", "Sequential", "partition", "merge", "apply", "softmax_cross_entropy", "mse", "accuracy", "one_hot",
    "LeNet5", "MLP", "uniform", *activations.__all__,
]
