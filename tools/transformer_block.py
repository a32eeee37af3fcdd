"""A transformer encoder block for the training benchmarks and ``s4tf-tune`` (issue 17), in s4tf and in JAX.

Pre-norm: ``x + attention(layer_norm(x))``, then ``+ feed_forward(layer_norm(.))`` (width
4d, exact ``gelu``); a mean over the sequence and a dense layer give class logits, so the
block trains with ``s4tf.nn.training.train_step``'s softmax cross-entropy.

```
model = encoder_block(d=256, classes=10)
logits = model(x)                # x: (batch, seq, d) float32
```
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from s4tf import nn
from s4tf.arrays import numpy_api as snp

HEADS = 4


@dataclass
class EncoderBlock:
    """The block's layers, in the order :func:`jax_forward` takes their parameters."""

    norm1: Any
    query: Any
    key: Any
    value: Any
    out: Any
    norm2: Any
    hidden: Any
    project: Any
    head: Any

    def __call__(self, x):
        batch, seq, d = x.shape
        width = d // HEADS

        def split(t):  # (batch, seq, d) -> (batch, heads, seq, d / heads)
            return snp.transpose(snp.reshape(t, (batch, seq, HEADS, width)), (0, 2, 1, 3))

        h = self.norm1(x)
        q, k, v = split(self.query(h)), split(self.key(h)), split(self.value(h))
        weights = snp.softmax(snp.matmul(q, snp.transpose(k, (0, 1, 3, 2))) * (1 / math.sqrt(width)), axis=-1)
        attended = snp.reshape(snp.transpose(snp.matmul(weights, v), (0, 2, 1, 3)), (batch, seq, d))
        x = x + self.out(attended)
        x = x + self.project(self.hidden(self.norm2(x)))
        return self.head(snp.mean(x, axis=1))


def encoder_block(d: int = 256, classes: int = 10, seed: int = 0) -> EncoderBlock:
    return EncoderBlock(
        nn.LayerNorm(d), nn.Dense(d, d, seed=seed), nn.Dense(d, d, seed=seed + 1), nn.Dense(d, d, seed=seed + 2),
        nn.Dense(d, d, seed=seed + 3), nn.LayerNorm(d), nn.Dense(d, 4 * d, activation=functools.partial(nn.gelu, approximate=False), seed=seed + 4),
        nn.Dense(4 * d, d, seed=seed + 5), nn.Dense(d, classes, seed=seed + 6),
    )


def parameter_pairs(model: EncoderBlock) -> list:
    """``[(weight or scale, bias or offset), ...]`` per layer, in field order."""
    return [(layer.scale, layer.offset) if hasattr(layer, "scale") else (layer.weight, layer.bias)
            for layer in (getattr(model, name) for name in EncoderBlock.__dataclass_fields__)]


def flops(batch: int, seq: int = 128, d: int = 256) -> int:
    """Multiply-adds of the forward pass times 2 (flops) times 3 (the step)."""
    dense = 4 * d * d + 2 * d * 4 * d
    attention = 2 * seq * d
    return 3 * 2 * batch * seq * (dense + attention)


def jax_forward(params, x):
    """The same block in JAX, on :func:`parameter_pairs`' list."""
    import jax
    import jax.numpy as jnp

    (s1, o1), (wq, bq), (wk, bk), (wv, bv), (wo, bo), (s2, o2), (w1, b1), (w2, b2), (wh, bh) = params
    batch, seq, d = x.shape
    width = d // HEADS

    def norm(t, scale, offset):
        mean = jnp.mean(t, axis=-1, keepdims=True)
        variance = jnp.mean(jnp.square(t - mean), axis=-1, keepdims=True)
        return (t - mean) * jax.lax.rsqrt(variance + 1e-5) * scale + offset

    def split(t):
        return t.reshape(batch, seq, HEADS, width).transpose(0, 2, 1, 3)

    h = norm(x, s1, o1)
    q, k, v = split(h @ wq + bq), split(h @ wk + bk), split(h @ wv + bv)
    weights = jax.nn.softmax((q @ k.transpose(0, 1, 3, 2)) * (1 / math.sqrt(width)), axis=-1)
    x = x + (weights @ v).transpose(0, 2, 1, 3).reshape(batch, seq, d) @ wo + bo
    x = x + jax.nn.gelu(norm(x, s2, o2) @ w1 + b1, approximate=False) @ w2 + b2
    return jnp.mean(x, axis=1) @ wh + bh
