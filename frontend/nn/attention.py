"""Multi-head dot-product attention (Flax's ``MultiHeadDotProductAttention``, Keras's
``MultiHeadAttention``), with an attention mask and a causal one.

```python
mha = nn.MultiHeadAttention(num_heads=2, in_features=8, seed=0)
y = mha(x, causal=True)          # self-attention over x: (batch, length, 8)
z = mha(x, memory, mask=keep)     # keys and values from memory; keep: True where attended
```
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import ShapeError
from s4tf.dialects.types import to_numpy_dtype
from s4tf.nn.activations import softmax
from s4tf.nn.checks import check_features, check_positive, layer_error
from s4tf.nn.layers import Dense


@dataclass(init=False)
class MultiHeadAttention:
    """``out(softmax(q k^T / sqrt(head_dim), masked) v)`` per head, heads concatenated.

    ``query``, ``key``, ``value`` project ``in_features`` to ``qkv_features`` (split into
    ``num_heads`` heads), ``out`` projects back to ``out_features`` (both default to
    ``in_features``). Inputs are ``(batch, length, in_features)``; ``inputs_k`` defaults to
    ``inputs_q``, ``inputs_v`` to ``inputs_k``. ``mask`` (booleans, True where a query may
    attend a key) broadcasts to ``(batch, num_heads, q_length, kv_length)``; ``causal=True``
    also hides later positions. A query that may attend no key gets the mean of the values."""

    query: Dense
    key: Dense
    value: Dense
    out: Dense
    num_heads: int = 1

    def __init__(self, num_heads=None, in_features=None, qkv_features=None, out_features=None, *, use_bias=True,
                 seed=0, query=None, key=None, value=None, out=None):
        if in_features is not None:
            qkv_features = in_features if qkv_features is None else qkv_features
            out_features = in_features if out_features is None else out_features
            check_positive("MultiHeadAttention", num_heads=num_heads, in_features=in_features,
                           qkv_features=qkv_features, out_features=out_features)
            if qkv_features % num_heads:
                raise layer_error(f"MultiHeadAttention: num_heads={num_heads} must divide qkv_features={qkv_features}")
            query, key, value = (Dense(in_features, qkv_features, use_bias=use_bias, seed=seed + i) for i in range(3))
            out = Dense(qkv_features, out_features, use_bias=use_bias, seed=seed + 3)
        self.query, self.key, self.value, self.out, self.num_heads = query, key, value, out, num_heads

    def __call__(self, inputs_q, inputs_k=None, inputs_v=None, mask=None, causal=False):
        inputs_k = inputs_q if inputs_k is None else inputs_k
        inputs_v = inputs_k if inputs_v is None else inputs_v
        features = self.query.weight.shape[0]
        for name, x in (("inputs_q", inputs_q), ("inputs_k", inputs_k), ("inputs_v", inputs_v)):
            if len(getattr(x, "shape", ())) != 3:
                raise layer_error(f"MultiHeadAttention: {name} must be (batch, length, features), got shape "
                                  f"{tuple(getattr(x, 'shape', ()))}", ShapeError)
            check_features("MultiHeadAttention", x, features)
        q, k, v = self._heads(self.query(inputs_q)), self._heads(self.key(inputs_k)), self._heads(self.value(inputs_v))
        logits = snp.matmul(q, snp.transpose(k, (0, 1, 3, 2))) * (1.0 / math.sqrt(q.shape[-1]))
        keep = _mask(mask, causal, logits.shape)
        if keep is not None:
            logits = snp.where(keep, logits, np.finfo(to_numpy_dtype(snp.dtype_of(logits))).min)
        heads = snp.matmul(softmax(logits, axis=-1), v)  # (batch, heads, q_length, head_dim)
        batch, _, length, _ = heads.shape
        return self.out(snp.reshape(snp.transpose(heads, (0, 2, 1, 3)), (batch, length, -1)))

    def _heads(self, x):
        """``(batch, length, heads * head_dim)`` to ``(batch, heads, length, head_dim)``."""
        batch, length, features = x.shape
        return snp.transpose(snp.reshape(x, (batch, length, self.num_heads, features // self.num_heads)), (0, 2, 1, 3))


def _mask(mask, causal: bool, shape: tuple):
    """The boolean mask of the attention logits (``None``: every key), checked to broadcast."""
    if causal:
        lower = np.tril(np.ones(shape[-2:], bool))
        mask = lower if mask is None else snp.logical_and(mask, lower)
    if mask is None:
        return None
    mask_shape = tuple(mask.shape)
    if len(mask_shape) > 4 or any(m not in (1, s) for m, s in zip(mask_shape[::-1], shape[::-1])):
        raise layer_error(f"MultiHeadAttention: mask of shape {mask_shape} does not broadcast to the attention "
                          f"weights' (batch, num_heads, q_length, kv_length) = {tuple(shape)}", ShapeError)
    return mask
