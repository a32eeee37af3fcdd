"""The LSTM character language model in JAX (``jax.lax.scan``, Optax's Adam), step for step
as ``docs/examples/zoo/lstm_lm.py``, from the s4tf model's weights."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax


def _params(model) -> dict:
    """The s4tf model's weights: s4tf's LSTMCell keeps the gates i, f, g, o side by side on
    the kernels' last axis, ``input_kernel (in, 4 * hidden)``, ``recurrent_kernel (hidden, 4 * hidden)``."""
    cell = model.rnn.cell
    return {"embed": model.embed.table, "input_kernel": cell.input_kernel, "recurrent_kernel": cell.recurrent_kernel,
            "bias": cell.bias, "w_out": model.readout.weight, "b_out": model.readout.bias}


def _loss(p, inputs, targets):
    x = p["embed"][inputs].transpose(1, 0, 2)  # time major for the scan
    hidden = p["recurrent_kernel"].shape[0]

    def cell(carry, x_t):
        c, h = carry
        i, f, g, o = jnp.split(x_t @ p["input_kernel"] + h @ p["recurrent_kernel"] + p["bias"], 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (c, h), h

    zeros = jnp.zeros((x.shape[1], hidden), x.dtype)
    _, hs = jax.lax.scan(cell, (zeros, zeros), x)
    logits = hs.transpose(1, 0, 2) @ p["w_out"] + p["b_out"]
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(log_probs, targets[..., None], axis=-1))


def jax_train_step(config: dict, model=None, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, opt_state)`` from the s4tf model's
    weights; ``step(state, inputs, targets)`` -> ``(state, loss)``, jitted, the state donated."""
    tx = optax.adam(config["lr"])  # s4tf's optim.Adam: b1 0.9, b2 0.999, eps 1e-8, eps outside the sqrt

    def init(model):
        params = {name: jnp.asarray(np.asarray(value)) for name, value in _params(model).items()}
        return params, tx.init(params)

    def step(state, inputs, targets):
        params, opt_state = state
        loss, grads = jax.value_and_grad(_loss)(params, inputs, targets)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    return init, jax.jit(step, donate_argnums=(0,))
