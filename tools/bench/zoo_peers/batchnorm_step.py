"""The JAX training step of the zoo's BatchNorm classifiers (ResNet-20, MobileNetV2): the
running statistics threaded beside the parameters through ``has_aux``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax


def batchnorm_train_step(tx, convert, forward, model):
    """``(init, step)`` for a model that ``convert(model)`` turns into ``(params, stats,
    plan)`` and ``forward(plan, params, stats, x)`` runs to ``(logits, stats)``:
    ``init(model)`` -> ``(params, stats, opt_state)``; ``step(state, x, y)`` -> ``(state,
    loss)``, the mean cross-entropy, jitted, the state donated."""
    plan = convert(model)[2]

    def init(model):
        params, stats, _ = convert(model)
        params, stats = jax.tree_util.tree_map(jnp.asarray, (params, stats))
        return params, stats, tx.init(params)

    def loss_fn(params, stats, x, y):
        logits, new_stats = forward(plan, params, stats, x)
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, y)), new_stats

    def step(state, x, y):
        params, stats, opt_state = state
        (loss, stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, stats, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), stats, opt_state), loss

    return init, jax.jit(step, donate_argnums=(0,))
