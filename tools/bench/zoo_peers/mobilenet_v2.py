"""MobileNetV2 in JAX (``jax.lax`` convolutions, depthwise through ``feature_group_count``,
Optax's Adam), step for step as ``docs/examples/zoo/mobilenet_v2.py``, from the s4tf
model's weights."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax

from zoo_peers.batchnorm_step import batchnorm_train_step


def _conv(x, w, stride: int, groups: int):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=groups)


def _bn(params, stats, x, momentum: float, epsilon: float):
    mean = jnp.mean(x, axis=(0, 1, 2))
    variance = jnp.mean(jnp.square(x - mean), axis=(0, 1, 2))
    mean_, variance_ = jax.lax.stop_gradient((mean, variance))
    new = {"mean": momentum * stats["mean"] + (1 - momentum) * mean_,
           "var": momentum * stats["var"] + (1 - momentum) * variance_}
    return (x - mean) * jax.lax.rsqrt(variance + epsilon) * params["scale"] + params["offset"], new


_CONVS = ("stem", "head")
_BLOCK_CONVS = ("expand", "depthwise", "project")


def _convert(model):
    """``(params, stats, plan)`` from the s4tf model; plan holds the static parts: each
    convolution's stride and groups, each BatchNorm's momentum and epsilon."""

    def conv(layer):
        return {"w": np.asarray(layer.filter)}, (layer.stride, layer.groups)

    def bn(layer):
        return ({"scale": np.asarray(layer.scale), "offset": np.asarray(layer.offset)},
                {"mean": np.asarray(layer.running_mean), "var": np.asarray(layer.running_var)},
                (layer.momentum, layer.epsilon))

    def layers(owner, names):
        params, stats, plan = {}, {}, {}
        for name in names:
            if getattr(owner, name) is not None:
                params[name], plan[name] = conv(getattr(owner, name))
                params[name + "_bn"], stats[name + "_bn"], plan[name + "_bn"] = bn(getattr(owner, name + "_bn"))
        return params, stats, plan

    params, stats, plan = layers(model, _CONVS)
    blocks = [layers(block, _BLOCK_CONVS) for block in model.blocks]
    params["blocks"], stats["blocks"], plan["blocks"] = (list(parts) for parts in zip(*blocks))
    params["classifier"] = {"w": np.asarray(model.classifier.weight), "b": np.asarray(model.classifier.bias)}
    return params, stats, plan


def _forward(plan, params, stats, x):
    """The logits and the new BatchNorm statistics (training mode)."""

    def conv_bn(p, s, new, plan, name, x):
        x = _conv(x, p[name]["w"], *plan[name])
        x, new[name + "_bn"] = _bn(p[name + "_bn"], s[name + "_bn"], x, *plan[name + "_bn"])
        return x

    new = {"blocks": []}
    x = jax.nn.relu6(conv_bn(params, stats, new, plan, "stem", x))
    for p, s, q in zip(params["blocks"], stats["blocks"], plan["blocks"]):
        block_new = {}
        h = x if "expand" not in p else jax.nn.relu6(conv_bn(p, s, block_new, q, "expand", x))
        h = jax.nn.relu6(conv_bn(p, s, block_new, q, "depthwise", h))
        h = conv_bn(p, s, block_new, q, "project", h)
        x = x + h if h.shape == x.shape else h
        new["blocks"].append(block_new)
    x = jax.nn.relu6(conv_bn(params, stats, new, plan, "head", x))
    x = jnp.mean(x, axis=(1, 2))
    return x @ params["classifier"]["w"] + params["classifier"]["b"], new


def jax_train_step(config: dict, model, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, stats, opt_state)`` from the s4tf
    model's weights; ``step(state, x, y)`` -> ``(state, loss)``, jitted, the state donated."""
    return batchnorm_train_step(optax.adam(config["lr"]), _convert, _forward, model)
