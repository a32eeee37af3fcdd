"""ResNet-20 in JAX (``jax.lax`` convolutions, Optax's SGD with momentum), step for step as
``docs/examples/zoo/resnet20.py``, from the s4tf model's weights."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax

from zoo_peers.batchnorm_step import batchnorm_train_step


def _conv(x, w, stride: int):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _bn(params, stats, x, momentum: float, epsilon: float):
    mean = jnp.mean(x, axis=(0, 1, 2))
    variance = jnp.mean(jnp.square(x - mean), axis=(0, 1, 2))
    new = {"mean": momentum * stats["mean"] + (1 - momentum) * mean, "var": momentum * stats["var"] + (1 - momentum) * variance}
    return (x - mean) * jax.lax.rsqrt(variance + epsilon) * params["scale"] + params["offset"], new


def _convert(model):
    """``(params, stats, plan)`` from the s4tf model: plan is each layer's kind and stride."""
    params, stats, plan = [], [], []
    for layer in model.layers:
        kind = type(layer).__name__
        if kind == "Conv2D":
            params.append({"w": np.asarray(layer.filter)}), stats.append({}), plan.append(("conv", layer.stride))
        elif kind == "BatchNorm":
            params.append({"scale": np.asarray(layer.scale), "offset": np.asarray(layer.offset)})
            stats.append({"mean": np.asarray(layer.running_mean), "var": np.asarray(layer.running_var)})
            plan.append(("bn", (layer.momentum, layer.epsilon)))
        elif kind == "Block":
            p = {name: {"w": np.asarray(getattr(layer, name).filter)} for name in ("conv1", "conv2", "project")
                 if getattr(layer, name) is not None}
            s = {}
            for name in ("bn1", "bn2", "project_bn"):
                bn = getattr(layer, name)
                if bn is not None:
                    p[name] = {"scale": np.asarray(bn.scale), "offset": np.asarray(bn.offset)}
                    s[name] = {"mean": np.asarray(bn.running_mean), "var": np.asarray(bn.running_var)}
            params.append(p), stats.append(s), plan.append(("block", (layer.conv1.stride, layer.bn1.momentum, layer.bn1.epsilon)))
        elif kind == "Dense":
            params.append({"w": np.asarray(layer.weight), "b": np.asarray(layer.bias)}), stats.append({}), plan.append(("dense", None))
        else:  # the ReLU and the global average pool
            params.append({}), stats.append({}), plan.append(("relu" if getattr(layer, "__name__", "") == "relu" else "pool", None))
    return params, stats, plan


def _forward(plan, params, stats, x):
    """The logits and every layer's new BatchNorm statistics (training mode)."""
    new_stats = []
    for (kind, extra), p, s in zip(plan, params, stats):
        if kind == "conv":
            x = _conv(x, p["w"], extra)
        elif kind == "bn":
            x, s = _bn(p, s, x, *extra)
        elif kind == "block":
            stride, momentum, epsilon = extra
            h, s1 = _bn(p["bn1"], s["bn1"], _conv(x, p["conv1"]["w"], stride), momentum, epsilon)
            h, s2 = _bn(p["bn2"], s["bn2"], _conv(jax.nn.relu(h), p["conv2"]["w"], 1), momentum, epsilon)
            shortcut, new = x, {"bn1": s1, "bn2": s2}
            if "project" in p:
                shortcut, new["project_bn"] = _bn(p["project_bn"], s["project_bn"], _conv(x, p["project"]["w"], stride),
                                                  momentum, epsilon)
            x, s = jax.nn.relu(h + shortcut), new
        elif kind == "relu":
            x = jax.nn.relu(x)
        elif kind == "pool":
            x = jnp.mean(x, axis=(1, 2))
        else:
            x = x @ p["w"] + p["b"]
        new_stats.append(s)
    return x, new_stats


def jax_train_step(config: dict, model, opt=None):
    """``(init, step)``: ``init(model)`` -> ``(params, stats, opt_state)`` from the s4tf
    model's weights; ``step(state, x, y)`` -> ``(state, loss)``, jitted, the state donated."""
    return batchnorm_train_step(optax.sgd(config["lr"], momentum=0.9), _convert, _forward, model)
