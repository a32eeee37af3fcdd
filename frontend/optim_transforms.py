"""Optimizers as composable gradient transformations, in Optax's model and under its names.

A transformation is a pair of functions: ``init(params) -> state`` and
``update(updates, state, params=None) -> (updates, state)``. The state is a pytree: tuples
of arrays shaped like the parameters, and an int32 step count where a transformation
counts. ``chain`` composes transformations, ``masked`` applies one to some parameters only,
``apply_updates`` adds the result to the parameters. Inside ``@s4tf.function`` the whole
update, schedules included, is part of the compiled step.

```python
opt = optim.chain(optim.clip_by_global_norm(1.0), optim.adamw(1e-3, weight_decay=1e-2))
state = opt.init(params)
updates, state = opt.update(grads, state, params)
params = optim.apply_updates(params, updates)
```

Gradients of a model with static fields (sizes, strides, activations) have ``None`` there
(``s4tf.grad``'s result); states are shaped the same way, so the updates are too.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from s4tf import pytree
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError
from s4tf.lazy_tensors.mode import is_lazy
from s4tf.lazy_tensors.trace import barrier
from s4tf.optim_schedules import Schedule
from s4tf.optim_trees import full_like_trainable, is_trainable, leaves_like, map_leaves


class GradientTransformation(NamedTuple):
    init: Callable[[Any], Any]
    update: Callable[..., tuple[Any, Any]]


class EmptyState(NamedTuple):
    pass


class TraceState(NamedTuple):
    trace: Any


class ScaleByScheduleState(NamedTuple):
    count: Any  # int32 scalar: updates done so far


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByRmsState(NamedTuple):
    nu: Any


class ScaleByRStdDevState(NamedTuple):
    mu: Any
    nu: Any


class ScaleByRssState(NamedTuple):
    sum_of_squares: Any


class ScaleByLionState(NamedTuple):
    count: Any
    mu: Any


class MaskedState(NamedTuple):
    inner_state: Any


def _zero_count():
    return np.zeros((), np.int32)


def _stateless(function: Callable) -> GradientTransformation:
    """A transformation without state: ``function(updates, params) -> updates``."""
    return GradientTransformation(lambda params: EmptyState(), lambda updates, state, params=None: (function(updates, params), state))


def _needs_params(params, what: str) -> None:
    if params is None:
        raise S4tfError(f"{what}: update needs the parameters: call update(updates, state, params)")


def apply_updates(params, updates):
    """``params + updates`` at each float leaf; other leaves (static fields) as they were.
    In lazy mode this ends the step's trace, as every optimizer update does."""
    leaves, tree = pytree.flatten(params)
    matched = leaves_like(tree, updates, "the updates", "the parameters")
    new = [leaf + update if update is not None and is_trainable(leaf) else leaf for leaf, update in zip(leaves, matched)]
    result = pytree.unflatten(tree, new)
    if is_lazy():
        barrier()
    return result


def global_norm(updates):
    """The square root of the sum of squares of every leaf."""
    leaves, _ = pytree.flatten(updates)
    return snp.sqrt(sum(snp.sum(leaf * leaf) for leaf in leaves))


def identity() -> GradientTransformation:
    return _stateless(lambda updates, params: updates)


def chain(*transformations: GradientTransformation) -> GradientTransformation:
    """The transformations one after another; the state is the tuple of their states."""

    def init(params):
        return tuple(t.init(params) for t in transformations)

    def update(updates, state, params=None):
        if not isinstance(state, tuple) or len(state) != len(transformations):
            raise S4tfError(f"chain: expected the state returned by this chain's init (a tuple of {len(transformations)}), got {type(state).__name__}")
        new_state = []
        for t, s in zip(transformations, state):
            updates, s = t.update(updates, s, params)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformation(init, update)


def scale(step_size: float) -> GradientTransformation:
    return _stateless(lambda updates, params: map_leaves(lambda g: step_size * g, updates))


def scale_by_schedule(step_size_fn: Schedule) -> GradientTransformation:
    """Updates times ``step_size_fn(count)``, the count of updates before this one (0, 1, ...)."""

    def update(updates, state, params=None):
        step_size = step_size_fn(state.count)
        return map_leaves(lambda g: step_size * g, updates), ScaleByScheduleState(state.count + 1)

    return GradientTransformation(lambda params: ScaleByScheduleState(_zero_count()), update)


def scale_by_learning_rate(learning_rate: float | Schedule, flip_sign: bool = True) -> GradientTransformation:
    """Scale by ``-learning_rate`` (a number or a schedule); ``flip_sign=False`` keeps the sign."""
    sign = -1.0 if flip_sign else 1.0
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    return scale(sign * learning_rate)


def clip_by_global_norm(max_norm: float) -> GradientTransformation:
    """Updates scaled down to a global norm of ``max_norm`` where theirs is larger."""

    def clip(updates, params):
        norm = global_norm(updates)
        return map_leaves(lambda g: snp.where(norm < max_norm, g, g / norm * max_norm), updates)

    return _stateless(clip)


def add_decayed_weights(weight_decay: float = 0.0, mask=None) -> GradientTransformation:
    """``updates + weight_decay * params`` (where ``mask`` is True, if given)."""

    def decay(updates, params):
        _needs_params(params, "add_decayed_weights")
        return map_leaves(lambda g, p: g + weight_decay * p, updates, params, what="the parameters")

    return _stateless(decay) if mask is None else masked(_stateless(decay), mask)


def trace(decay: float, nesterov: bool = False) -> GradientTransformation:
    """Momentum: ``t = g + decay * t``; the update is ``t`` (``g + decay * t`` with ``nesterov``)."""

    def update(updates, state, params=None):
        new_trace = map_leaves(lambda g, t: g + decay * t, updates, state.trace)
        out = map_leaves(lambda g, t: g + decay * t, updates, new_trace) if nesterov else new_trace
        return out, TraceState(new_trace)

    return GradientTransformation(lambda params: TraceState(full_like_trainable(params)), update)


def _moment(updates, moment, decay: float, power: int):
    return map_leaves(lambda g, m: (1.0 - decay) * (g if power == 1 else g * g) + decay * m, updates, moment)


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0) -> GradientTransformation:
    """Adam's bias-corrected moments: ``m_hat / (sqrt(v_hat + eps_root) + eps)``."""

    def init(params):
        return ScaleByAdamState(_zero_count(), full_like_trainable(params), full_like_trainable(params))

    def update(updates, state, params=None):
        mu, nu = _moment(updates, state.mu, b1, 1), _moment(updates, state.nu, b2, 2)
        count = state.count + 1
        steps = snp.astype(count, np.float32)
        correction1, correction2 = 1.0 - b1**steps, 1.0 - b2**steps
        out = map_leaves(lambda m, v: (m / correction1) / (snp.sqrt(v / correction2 + eps_root) + eps), mu, nu)
        return out, ScaleByAdamState(count, mu, nu)

    return GradientTransformation(init, update)


def scale_by_rms(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0) -> GradientTransformation:
    """RMSProp's scaling: ``g / sqrt(v + eps)``, ``v`` the moving mean of ``g**2``."""

    def update(updates, state, params=None):
        nu = _moment(updates, state.nu, decay, 2)
        return map_leaves(lambda g, v: g * snp.rsqrt(v + eps), updates, nu), ScaleByRmsState(nu)

    return GradientTransformation(lambda params: ScaleByRmsState(full_like_trainable(params, initial_scale)), update)


def scale_by_stddev(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0) -> GradientTransformation:
    """Centered RMSProp's scaling: ``g / sqrt(v - m**2 + eps)`` with moving means ``m`` of ``g``, ``v`` of ``g**2``."""

    def init(params):
        return ScaleByRStdDevState(full_like_trainable(params), full_like_trainable(params, initial_scale))

    def update(updates, state, params=None):
        mu, nu = _moment(updates, state.mu, decay, 1), _moment(updates, state.nu, decay, 2)
        return map_leaves(lambda g, m, v: g * snp.rsqrt(v - m * m + eps), updates, mu, nu), ScaleByRStdDevState(mu, nu)

    return GradientTransformation(init, update)


def scale_by_rss(initial_accumulator_value: float = 0.1, eps: float = 1e-7) -> GradientTransformation:
    """Adagrad's scaling: ``g / sqrt(s + eps)``, ``s`` the sum of every ``g**2`` so far."""

    def update(updates, state, params=None):
        total = map_leaves(lambda g, s: g * g + s, updates, state.sum_of_squares)
        return map_leaves(lambda g, s: snp.where(s > 0, snp.rsqrt(s + eps), 0.0) * g, updates, total), ScaleByRssState(total)

    return GradientTransformation(lambda params: ScaleByRssState(full_like_trainable(params, initial_accumulator_value)), update)


def scale_by_lion(b1: float = 0.9, b2: float = 0.99) -> GradientTransformation:
    """Lion's update ``sign((1 - b1) g + b1 m)``, ``m`` a moving mean of ``g`` with rate ``b2``."""

    def update(updates, state, params=None):
        out = map_leaves(lambda g, m: snp.sign((1.0 - b1) * g + b1 * m), updates, state.mu)
        return out, ScaleByLionState(state.count + 1, _moment(updates, state.mu, b2, 1))

    return GradientTransformation(lambda params: ScaleByLionState(_zero_count(), full_like_trainable(params)), update)


def _mask_bits(mask, tree, what: str) -> list[bool]:
    """Per leaf of ``tree``, its mask bit; ``mask`` is a tree of bools shaped like ``tree``
    or a function of ``tree`` returning one. ``None`` in the mask (a static field's
    gradient) counts as False."""
    bits = leaves_like(pytree.flatten(tree)[1], mask(tree) if callable(mask) else mask, "the mask", what)
    wrong = [bit for bit in bits if not isinstance(bit, (bool, np.bool_)) and bit is not None]
    if wrong:
        raise S4tfError(f"masked: expected a mask of True and False leaves, got {type(wrong[0]).__name__} {wrong[0]!r}")
    return [bool(bit) for bit in bits]


def _kept(structure: pytree.TreeDef, leaves: list, bits: list[bool]):
    """The tree of ``leaves`` with those whose bit is False replaced by ``None``."""
    return pytree.unflatten(structure, [leaf if bit else None for leaf, bit in zip(leaves, bits)])


def masked(inner: GradientTransformation, mask) -> GradientTransformation:
    """``inner`` applied to the leaves where ``mask`` is True; the others pass through as
    they are. ``mask`` is a tree of bools shaped like the parameters (or the gradients), or
    a function of them returning one."""

    def init(params):
        leaves, structure = pytree.flatten(params)
        return MaskedState(inner.init(_kept(structure, leaves, _mask_bits(mask, params, "the parameters"))))

    def update(updates, state, params=None):
        leaves, structure = pytree.flatten(updates)
        bits = _mask_bits(mask, updates, "the updates")
        inner_params = None
        if params is not None:  # shaped like the updates, so the inner transformation matches them leaf for leaf
            inner_params = _kept(structure, leaves_like(structure, params, "the parameters", "the updates"), bits)
        chosen, inner_state = inner.update(_kept(structure, leaves, bits), state.inner_state, inner_params)
        chosen_leaves = iter(pytree.flatten(chosen)[0])
        return pytree.unflatten(structure, [next(chosen_leaves) if bit else leaf for leaf, bit in zip(leaves, bits)]), MaskedState(inner_state)

    return GradientTransformation(init, update)


def sgd(learning_rate: float | Schedule, momentum: float | None = None, nesterov: bool = False) -> GradientTransformation:
    """Stochastic gradient descent, with ``momentum`` (and ``nesterov``) if given."""
    return chain(identity() if momentum is None else trace(momentum, nesterov), scale_by_learning_rate(learning_rate))


def adam(learning_rate: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0) -> GradientTransformation:
    return chain(scale_by_adam(b1, b2, eps, eps_root), scale_by_learning_rate(learning_rate))


def adamw(learning_rate: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0, weight_decay: float = 1e-4, mask=None) -> GradientTransformation:
    """Adam with decoupled weight decay, applied where ``mask`` is True (everywhere without one)."""
    return chain(scale_by_adam(b1, b2, eps, eps_root), add_decayed_weights(weight_decay, mask), scale_by_learning_rate(learning_rate))


def rmsprop(learning_rate: float | Schedule, decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0, centered: bool = False, momentum: float | None = None, nesterov: bool = False) -> GradientTransformation:
    scaling = scale_by_stddev(decay, eps, initial_scale) if centered else scale_by_rms(decay, eps, initial_scale)
    return chain(scaling, scale_by_learning_rate(learning_rate), identity() if momentum is None else trace(momentum, nesterov))


def adagrad(learning_rate: float | Schedule, initial_accumulator_value: float = 0.1, eps: float = 1e-7) -> GradientTransformation:
    return chain(scale_by_rss(initial_accumulator_value, eps), scale_by_learning_rate(learning_rate))


def lion(learning_rate: float | Schedule, b1: float = 0.9, b2: float = 0.99, weight_decay: float = 1e-3, mask=None) -> GradientTransformation:
    return chain(scale_by_lion(b1, b2), add_decayed_weights(weight_decay, mask), scale_by_learning_rate(learning_rate))
