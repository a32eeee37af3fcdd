"""Optimizers as values: ``state = opt.init(model)``, ``model, state = opt.update(model, state, grads)``.

Two forms: the classes here (``Adam``, ``AdamW``, ``SGD``, with :func:`cosine_decay`),
whose ``update`` returns the new model; and Optax's composable gradient transformations
under Optax's names (``adamw``, ``chain``, ``masked``, ``clip_by_global_norm``, schedules,
...; :mod:`s4tf.optim_transforms`, :mod:`s4tf.optim_schedules`), whose ``update`` returns
updates for :func:`apply_updates`.

Both the model and the state are pytrees, so an update runs inside ``@s4tf.function``
(one compiled training step) or eagerly. Only float array leaves are trained; other
leaves (static sizes, strides, activations) and model state (``s4tf.no_derivative``
fields: BatchNorm's running statistics) pass through unchanged, without moments. In lazy mode an
update ends with ``s4tf.barrier()``, so each training step is one trace, compiled once.

```python
opt = optim.Adam(lr=1e-3)
state = opt.init(model)
model, state = opt.update(model, state, s4tf.grad(loss)(model, x, y))
```
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from typing import Callable

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf import pytree
from s4tf.lazy_tensors.mode import is_lazy
from s4tf.lazy_tensors.trace import barrier
from s4tf.optim_schedules import (  # noqa: F401  (public: Optax's schedules)
    constant_schedule, cosine_decay_schedule, join_schedules, linear_schedule, piecewise_constant_schedule,
    warmup_cosine_decay_schedule,
)
from s4tf.optim_transforms import (  # noqa: F401  (public: Optax's gradient transformations)
    EmptyState, GradientTransformation, MaskedState, ScaleByAdamState, ScaleByLionState, ScaleByRmsState,
    ScaleByRssState, ScaleByRStdDevState, ScaleByScheduleState, TraceState, adagrad, adam, adamw,
    add_decayed_weights, apply_updates, chain, clip_by_global_norm, global_norm, identity, lion, masked, rmsprop,
    scale, scale_by_adam, scale_by_learning_rate, scale_by_lion, scale_by_rms, scale_by_rss, scale_by_schedule,
    scale_by_stddev, sgd, trace,
)
from s4tf.optim_trees import leaves_like, trainable_positions  # noqa: F401  (s4tf.distributed's too)


def _parameters_and_grads(model, grads):
    leaves, tree = pytree.flatten(model)
    grad_leaves = leaves_like(tree, grads)
    positions = trainable_positions(model)
    return leaves, tree, positions, [grad_leaves[i] for i in positions]


def _rebuild(leaves, tree, positions, new_parameters):
    leaves = list(leaves)
    for i, value in zip(positions, new_parameters):
        leaves[i] = value
    return pytree.unflatten(tree, leaves)


def _then_barrier(update):
    """In lazy mode, an optimizer update ends the step's trace (the S4TF paper's rule for
    training loops, section 3.4): the loop records the same trace each step."""

    @functools.wraps(update)
    def update_then_barrier(self, model, state, grads):
        result = update(self, model, state, grads)
        if is_lazy():
            barrier()
        return result

    return update_then_barrier


def cosine_decay(lr: float, total_steps: int, final_fraction: float = 0.0) -> Callable:
    """A learning-rate schedule for :class:`Adam`: ``lr`` at step 1 falling along a half
    cosine to ``final_fraction * lr`` at ``total_steps`` (and staying there)."""

    def schedule(step):
        progress = snp.minimum((step - 1.0) / max(total_steps - 1, 1), 1.0)
        return lr * (final_fraction + (1 - final_fraction) * 0.5 * (1.0 + snp.cos(math.pi * progress)))

    return schedule


def _zeros_like_parameters(model) -> list:
    leaves, _ = pytree.flatten(model)
    return [np.zeros(snp.shape_of(leaves[i]), np.float32) for i in trainable_positions(model)]


@dataclass
class SGDState:
    velocity: list  # one per trainable leaf; empty without momentum


@dataclass
class SGD:
    """Stochastic gradient descent; with ``momentum``: ``v = momentum * v + g``, then
    ``p -= lr * v`` (or ``lr * (g + momentum * v)`` with ``nesterov``)."""

    lr: float = 0.01
    momentum: float = 0.0
    nesterov: bool = False

    def init(self, model) -> SGDState:
        return SGDState(_zeros_like_parameters(model) if self.momentum else [])

    @_then_barrier
    def update(self, model, state: SGDState, grads):
        leaves, tree, positions, g = _parameters_and_grads(model, grads)
        params = [leaves[i] for i in positions]
        if not self.momentum:
            return _rebuild(leaves, tree, positions, [p - self.lr * gi for p, gi in zip(params, g)]), state
        velocity = [self.momentum * v + gi for v, gi in zip(state.velocity, g)]
        steps = [gi + self.momentum * v for gi, v in zip(g, velocity)] if self.nesterov else velocity
        return _rebuild(leaves, tree, positions, [p - self.lr * s for p, s in zip(params, steps)]), SGDState(velocity)


@dataclass
class AdamState:
    step: object  # float32 scalar: updates done so far
    m: list  # first moments, one per trainable leaf
    v: list  # second moments


@dataclass
class Adam:
    """Adam (Kingma and Ba): bias-corrected moment estimates;
    ``p -= lr * m_hat / (sqrt(v_hat) + eps)``. ``weight_decay`` adds ``lr * weight_decay * p``
    to the step, decoupled from the moments (that is :class:`AdamW`). ``lr`` is a number or
    a schedule: a function of the step count (1, 2, ...), e.g. :func:`cosine_decay`."""

    lr: float | Callable = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    weight_decay: float = 0.0

    def init(self, model) -> AdamState:
        zeros = _zeros_like_parameters(model)
        return AdamState(np.zeros((), np.float32), zeros, [np.zeros_like(z) for z in zeros])

    @_then_barrier
    def update(self, model, state: AdamState, grads):
        leaves, tree, positions, g = _parameters_and_grads(model, grads)
        params = [leaves[i] for i in positions]
        step = state.step + 1.0
        m = [self.beta1 * mi + (1 - self.beta1) * gi for mi, gi in zip(state.m, g)]
        v = [self.beta2 * vi + (1 - self.beta2) * gi * gi for vi, gi in zip(state.v, g)]
        correction1 = 1.0 - snp.exp(step * math.log(self.beta1))
        correction2 = 1.0 - snp.exp(step * math.log(self.beta2))
        lr = self.lr(step) if callable(self.lr) else self.lr
        new = []
        for p, mi, vi in zip(params, m, v):
            update = (mi / correction1) / (snp.sqrt(vi / correction2) + self.eps)
            if self.weight_decay:
                update = update + self.weight_decay * p
            new.append(p - lr * update)
        return _rebuild(leaves, tree, positions, new), AdamState(step, m, v)


@dataclass
class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter), ``weight_decay=0.01`` by default."""

    weight_decay: float = 0.01
