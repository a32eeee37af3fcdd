"""MultiHeadAttention against a NumPy formula (self- and cross-attention, a mask, a causal
mask), its gradient against float64 finite differences, and its argument errors."""

import numpy as np
import pytest
from nn_checks import check_model_gradient

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def attention(mha, xq, xkv, keep):
    """The NumPy reference: project, split heads, masked softmax, merge heads, project."""
    def heads(x, dense):
        y = x @ dense.weight + dense.bias
        return y.reshape(*y.shape[:2], mha.num_heads, -1).transpose(0, 2, 1, 3)

    q, k, v = heads(xq, mha.query), heads(xkv, mha.key), heads(xkv, mha.value)
    logits = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    logits = np.where(keep, logits, -np.inf)
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    merged = (weights @ v).transpose(0, 2, 1, 3).reshape(xq.shape[0], xq.shape[1], -1)
    return merged @ mha.out.weight + mha.out.bias


def test_self_attention_with_a_causal_mask_and_cross_attention_with_a_mask():
    mha = nn.MultiHeadAttention(2, 6, qkv_features=8, out_features=5, seed=1)
    for dense in (mha.query, mha.key, mha.value, mha.out):
        dense.bias = rand(*dense.bias.shape)
    x, memory = rand(2, 4, 6), rand(2, 3, 6)
    keep = RNG.random((2, 1, 4, 3)) < 0.7
    keep[..., 0] = True  # every query attends at least one key
    run = s4tf.function(lambda m, x, memory, keep: (m(x, causal=True), m(x, memory, mask=keep)))
    causal, cross = run(mha, x, memory, keep)
    np.testing.assert_allclose(np.asarray(causal), attention(mha, x, x, np.tril(np.ones((4, 4), bool))), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(cross), attention(mha, x, memory, keep), rtol=1e-4, atol=1e-5)


def test_attention_gradient():
    mha = nn.MultiHeadAttention(2, 4, seed=2)
    x, r = rand(1, 3, 4).astype(np.float64), rand(1, 3, 4).astype(np.float64)
    check_model_gradient(lambda m, x, r: s4tf.sum(m(x, causal=True) * r), mha, x, r, rtol=1e-4)


def test_bad_attention_arguments_name_the_line():
    with pytest.raises(s4tf.S4tfError, match=r"test_attention.py:\d+: MultiHeadAttention: num_heads=3 must divide qkv_features=8"):
        nn.MultiHeadAttention(3, 8)
    mha = nn.MultiHeadAttention(2, 4)
    with pytest.raises(s4tf.ShapeError, match=r"test_attention.py:\d+: MultiHeadAttention: inputs_q must be \(batch, length, features\)"):
        mha(np.zeros((3, 4), np.float32))
    with pytest.raises(s4tf.ShapeError, match="MultiHeadAttention: expected an input with 4 features"):
        mha(np.zeros((1, 3, 4), np.float32), np.zeros((1, 2, 5), np.float32))
    with pytest.raises(s4tf.ShapeError, match=r"mask of shape \(3, 3\) does not broadcast .* \(1, 2, 3, 2\)"):
        mha(np.zeros((1, 3, 4), np.float32), np.zeros((1, 2, 4), np.float32), mask=np.ones((3, 3), bool))
