"""NeuMF in JAX (Optax's Adam), step for step as ``docs/examples/zoo/neumf.py``, from the
s4tf model's weights."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax


def _params(model) -> dict:
    """The s4tf model's weights as a dict of NumPy arrays (Dense weights are ``(in, out)``)."""
    first, second = model.mlp.layers
    return {"user_gmf": model.user_gmf.table, "item_gmf": model.item_gmf.table,
            "user_mlp": model.user_mlp.table, "item_mlp": model.item_mlp.table,
            "w1": first.weight, "b1": first.bias, "w2": second.weight, "b2": second.bias,
            "w_out": model.readout.weight, "b_out": model.readout.bias}


def _loss(p, users, items, labels):
    gmf = p["user_gmf"][users] * p["item_gmf"][items]
    h = jnp.concatenate([p["user_mlp"][users], p["item_mlp"][items]], axis=-1)
    h = jax.nn.relu(jax.nn.relu(h @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"])
    logits = (jnp.concatenate([gmf, h], axis=-1) @ p["w_out"] + p["b_out"])[:, 0]
    return jnp.mean(jax.nn.softplus(logits) - labels * logits)


def jax_train_step(config: dict, model=None, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, opt_state)`` from the s4tf model's
    weights; ``step(state, users, items, labels)`` -> ``(state, loss)``, jitted, the state donated."""
    tx = optax.adam(config["lr"])  # s4tf's optim.Adam: b1 0.9, b2 0.999, eps 1e-8, eps outside the sqrt

    def init(model):
        params = {name: jnp.asarray(np.asarray(value)) for name, value in _params(model).items()}
        return params, tx.init(params)

    def step(state, users, items, labels):
        params, opt_state = state
        loss, grads = jax.value_and_grad(_loss)(params, users, items, labels)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return init, jax.jit(step, donate_argnums=(0,))
