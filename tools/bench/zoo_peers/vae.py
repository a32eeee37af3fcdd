"""The variational autoencoder in JAX (Optax's Adam), step for step as
``docs/examples/zoo/vae.py``, from the s4tf model's weights; the noise comes in with the batch."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax


def _params(model) -> dict:
    """The s4tf model's Dense layers as ``{name: (weight (in, out), bias)}``."""
    hidden, out = model.decoder.layers
    layers = {"encoder": model.encoder, "mean": model.mean, "log_var": model.log_var, "hidden": hidden, "out": out}
    return {name: (np.asarray(layer.weight), np.asarray(layer.bias)) for name, layer in layers.items()}


def _loss(p, x, noise):
    dense = lambda name, h: h @ p[name][0] + p[name][1]  # noqa: E731
    h = jax.nn.relu(dense("encoder", x))
    mean, log_var = dense("mean", h), dense("log_var", h)
    logits = dense("out", jax.nn.relu(dense("hidden", mean + jnp.exp(0.5 * log_var) * noise)))
    reconstruction = jnp.sum(jax.nn.softplus(logits) - x * logits, axis=-1)
    kl = -0.5 * jnp.sum(1.0 + log_var - mean * mean - jnp.exp(log_var), axis=-1)
    return jnp.mean(reconstruction + kl)


def jax_train_step(config: dict, model=None, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, opt_state)`` from the s4tf model's
    weights; ``step(state, x, noise)`` -> ``(state, loss)``, jitted, the state donated."""
    tx = optax.adam(config["lr"])  # s4tf's optim.Adam: b1 0.9, b2 0.999, eps 1e-8, eps outside the sqrt

    def init(model):
        params = jax.tree_util.tree_map(jnp.asarray, _params(model))
        return params, tx.init(params)

    def step(state, x, noise):
        params, opt_state = state
        loss, grads = jax.value_and_grad(_loss)(params, x, noise)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return init, jax.jit(step, donate_argnums=(0,))
