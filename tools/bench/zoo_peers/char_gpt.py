"""The character-level GPT in JAX (Optax's AdamW), step for step as
``docs/examples/zoo/char_gpt.py``, from the s4tf model's weights."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax


def _dense(layer) -> dict:
    return {"w": layer.weight, "b": layer.bias}  # weight (in, out)


def _norm(layer) -> dict:
    return {"scale": layer.scale, "offset": layer.offset}


def _params(model) -> dict:
    """The s4tf model's weights as nested dicts of NumPy arrays."""
    blocks = [{"ln1": _norm(b.attention_norm), "ln2": _norm(b.mlp_norm),
               "q": _dense(b.attention.query), "k": _dense(b.attention.key), "v": _dense(b.attention.value),
               "o": _dense(b.attention.out), "fc1": _dense(b.mlp.layers[0]), "fc2": _dense(b.mlp.layers[1])}
              for b in model.blocks]
    return {"tokens": model.tokens.table, "positions": model.positions.table, "blocks": blocks,
            "ln": _norm(model.norm), "readout": _dense(model.readout)}


def _layer_norm(p, x, epsilon=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(variance + epsilon) * p["scale"] + p["offset"]


def _linear(p, x):
    return x @ p["w"] + p["b"]


def _attention(p, x, heads):
    """s4tf's MultiHeadAttention(causal=True): heads split from the projections' last axis,
    logits scaled by 1/sqrt(head_dim), later keys set to float32's lowest value."""
    batch, length, _ = x.shape

    def split(y):
        return y.reshape(batch, length, heads, -1).transpose(0, 2, 1, 3)

    q, k, v = split(_linear(p["q"], x)), split(_linear(p["k"], x)), split(_linear(p["v"], x))
    logits = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(q.shape[-1]))
    causal = jnp.tril(jnp.ones((length, length), bool))
    logits = jnp.where(causal, logits, jnp.finfo(logits.dtype).min)
    out = jax.nn.softmax(logits, axis=-1) @ v
    return _linear(p["o"], out.transpose(0, 2, 1, 3).reshape(batch, length, -1))


def _loss(p, inputs, targets, heads):
    x = p["tokens"][inputs] + p["positions"][jnp.arange(inputs.shape[1])]
    for b in p["blocks"]:
        x = x + _attention(b, _layer_norm(b["ln1"], x), heads)
        x = x + _linear(b["fc2"], jax.nn.gelu(_linear(b["fc1"], _layer_norm(b["ln2"], x))))
    logits = _linear(p["readout"], _layer_norm(p["ln"], x))
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(log_probs, targets[..., None], axis=-1))


def jax_train_step(config: dict, model=None, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, opt_state)`` from the s4tf model's
    weights; ``step(state, inputs, targets)`` -> ``(state, loss)``, jitted, the state donated."""
    # s4tf's optim.AdamW: b1 0.9, b2 0.999, eps 1e-8 outside the sqrt, lr * weight_decay * p on every parameter
    tx = optax.adamw(config["lr"], weight_decay=config["weight_decay"])

    def init(model):
        params = jax.tree_util.tree_map(lambda a: jnp.asarray(np.asarray(a)), _params(model))
        return params, tx.init(params)

    def step(state, inputs, targets):
        params, opt_state = state
        loss, grads = jax.value_and_grad(_loss)(params, inputs, targets, config["heads"])
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return init, jax.jit(step, donate_argnums=(0,))
