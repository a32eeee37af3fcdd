"""``s4tf.example_libraries.optimizers``: ``jax.example_libraries.optimizers``' optimizers,
each a triple ``(opt_init, opt_update, get_params)`` over a pytree of parameters:
``state = opt_init(params)``, ``state = opt_update(i, grads, state)`` at step ``i``,
``params = get_params(state)``. The same numbers as JAX's for the same inputs.

```python
import numpy as np, s4tf
from s4tf.example_libraries import optimizers

opt_init, opt_update, get_params = optimizers.adam(1e-2)
state = opt_init({"w": np.ones(3, np.float32)})
state = opt_update(0, {"w": np.full(3, 0.5, np.float32)}, state)
get_params(state)["w"]
```
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from s4tf.arrays import numpy_api as snp
from s4tf.core.locations import shape_error
from s4tf.pytree import flatten, register_pytree_node, unflatten


class Optimizer(NamedTuple):
    init_fn: object
    update_fn: object
    params_fn: object


class OptimizerState(NamedTuple):
    """Each parameter's state, flattened (the leaves), and the structures (static)."""
    packed_state: list
    tree_def: object
    subtree_defs: tuple


register_pytree_node(OptimizerState, lambda state: ((state.packed_state,), (state.tree_def, state.subtree_defs)),
                     lambda data, children: OptimizerState(children[0], data[0], data[1]))


def make_schedule(scalar_or_schedule):
    """A step size as a function of the step: ``scalar_or_schedule`` itself if callable."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    return lambda i: scalar_or_schedule


def optimizer(opt_maker):
    """Lift ``opt_maker``, whose functions handle one array, to pytrees of them."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        def tree_init(x0_tree):
            x0_flat, tree = flatten(x0_tree)
            flat_states = [flatten(init(snp.asarray(x0))) for x0 in x0_flat]
            return OptimizerState([leaves for leaves, _ in flat_states], tree, tuple(sub for _, sub in flat_states))

        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = flatten(grad_tree)
            if grad_tree_def != tree:
                raise shape_error(f"optimizer update: the gradients' structure {grad_tree_def} is not the parameters' {tree}")
            states = [unflatten(sub, leaves) for sub, leaves in zip(subtrees, states_flat)]
            new = [flatten(update(i, g, state)) for g, state in zip(grad_flat, states)]
            return OptimizerState([leaves for leaves, _ in new], tree, tuple(sub for _, sub in new))

        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            return unflatten(tree, [get_params(unflatten(sub, leaves)) for sub, leaves in zip(subtrees, states_flat)])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


@optimizer
def sgd(step_size):
    """``x - step_size(i) * g``."""
    step_size = make_schedule(step_size)
    return (lambda x0: x0), (lambda i, g, x: x - step_size(i) * g), (lambda x: x)


@optimizer
def momentum(step_size, mass):
    """Heavy-ball momentum: ``v = mass * v + g``, ``x - step_size(i) * v``."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return (lambda x0: (x0, snp.zeros_like(x0))), update, (lambda state: state[0])


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """``x - step_size(i) * g / sqrt(avg(g**2) + eps)``, the average decaying by ``gamma``."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + snp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / snp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return (lambda x0: (x0, snp.zeros_like(x0))), update, (lambda state: state[0])


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam with bias-corrected moments (``i`` counts from 0)."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * snp.square(g) + b2 * v
        mhat = m / (1 - snp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - snp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (snp.sqrt(vhat) + eps), m, v

    return (lambda x0: (x0, snp.zeros_like(x0), snp.zeros_like(x0))), update, (lambda state: state[0])


__all__ = ["Optimizer", "OptimizerState", "adam", "make_schedule", "momentum", "optimizer", "rmsprop", "sgd"]
