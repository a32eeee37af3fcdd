"""DCGAN in JAX (``jax.lax`` convolutions, Optax's Adam), step for step as
``docs/examples/zoo/dcgan.py``, from the s4tf models' weights: the discriminator's update,
then the generator's against the updated discriminator."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax

NHWC = ("NHWC", "HWIO", "NHWC")


def _convert(model):
    """``(params, stats)`` from the s4tf ``(generator, discriminator)``; filters HWIO, Dense
    weights ``(in, out)``, as s4tf's."""
    g, d = model
    array = lambda a: None if a is None else np.asarray(a)  # noqa: E731
    generator = {"project": array(g.project.weight), "up1": array(g.up1.filter), "up2": array(g.up2.filter),
                 "up2_bias": array(g.up2.bias), "bn0": (array(g.bn0.scale), array(g.bn0.offset)),
                 "bn1": (array(g.bn1.scale), array(g.bn1.offset))}
    conv1, conv2, _, dense = d.layers
    discriminator = {"conv1": (array(conv1.filter), array(conv1.bias)), "conv2": (array(conv2.filter), array(conv2.bias)),
                     "dense": (array(dense.weight), array(dense.bias))}
    stats = {name: (array(bn.running_mean), array(bn.running_var)) for name, bn in (("bn0", g.bn0), ("bn1", g.bn1))}
    return (generator, discriminator), stats, (g.bn0.momentum, g.bn0.epsilon)


def _bn(params, stats, x, momentum, epsilon):
    mean = jnp.mean(x, axis=(0, 1, 2))
    variance = jnp.mean(jnp.square(x - mean), axis=(0, 1, 2))
    new = (momentum * stats[0] + (1 - momentum) * mean, momentum * stats[1] + (1 - momentum) * variance)
    return (x - mean) * jax.lax.rsqrt(variance + epsilon) * params[0] + params[1], new


def _generate(p, stats, z, bn):
    """Images and the new BatchNorm statistics (training mode)."""
    h = (z @ p["project"]).reshape(z.shape[0], 2, 2, p["bn0"][0].shape[0])
    h, s0 = _bn(p["bn0"], stats["bn0"], h, *bn)
    h = jax.lax.conv_transpose(jax.nn.relu(h), p["up1"], (2, 2), "SAME", dimension_numbers=NHWC)
    h, s1 = _bn(p["bn1"], stats["bn1"], h, *bn)
    h = jax.lax.conv_transpose(jax.nn.relu(h), p["up2"], (2, 2), "SAME", dimension_numbers=NHWC) + p["up2_bias"]
    return jnp.tanh(h), {"bn0": s0, "bn1": s1}


def _discriminate(p, x):
    for name in ("conv1", "conv2"):
        w, b = p[name]
        x = jax.nn.leaky_relu(jax.lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=NHWC) + b, 0.2)
    w, b = p["dense"]
    return x.reshape(x.shape[0], -1) @ w + b


def _bce(logits, label):
    return jnp.mean(jax.nn.softplus(logits) - label * logits)


def jax_train_step(config: dict, model=None, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, stats, opt_states)`` from the s4tf
    models' weights; ``step(state, real, z)`` -> ``(state, (d_loss, g_loss))``, jitted, the state donated."""
    tx = optax.adam(2e-4, b1=0.5)  # s4tf's optim.Adam(lr=2e-4, beta1=0.5): b2 0.999, eps 1e-8
    bn = _convert(model)[2]

    def init(model):
        params, stats, _ = _convert(model)
        params, stats = jax.tree_util.tree_map(jnp.asarray, (params, stats))
        return params, stats, (tx.init(params[0]), tx.init(params[1]))

    def step(state, real, z):
        (g, d), stats, (g_opt, d_opt) = state
        fake, _ = _generate(g, stats, z, bn)
        d_loss, d_grads = jax.value_and_grad(lambda d: _bce(_discriminate(d, real), 1.0) + _bce(_discriminate(d, fake), 0.0))(d)
        updates, d_opt = tx.update(d_grads, d_opt, d)
        d = optax.apply_updates(d, updates)

        def g_loss_fn(g):
            fake, new_stats = _generate(g, stats, z, bn)
            return _bce(_discriminate(d, fake), 1.0), new_stats

        (g_loss, stats), g_grads = jax.value_and_grad(g_loss_fn, has_aux=True)(g)
        updates, g_opt = tx.update(g_grads, g_opt, g)
        return ((optax.apply_updates(g, updates), d), stats, (g_opt, d_opt)), (d_loss, g_loss)

    return init, jax.jit(step, donate_argnums=(0,))
