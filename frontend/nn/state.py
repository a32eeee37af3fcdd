"""Model state kept apart from parameters: a Flax-like split into ``params`` and ``state``.

Model state is a layer's ``s4tf.no_derivative`` fields that hold arrays (BatchNorm's running
statistics): ``s4tf.grad`` gives ``None`` there and optimizers keep no moments for them.
``partition`` splits a model into two trees shaped like it, ``merge`` joins them again.

```python
params, state = nn.partition(model)          # state: running statistics, None elsewhere
grads = s4tf.grad(loss)(params, state, x)    # shaped like params
model = nn.merge(params, state)
```
"""

from __future__ import annotations

from s4tf import pytree
from s4tf.core.errors import S4tfError
from s4tf.nn.checks import where
from s4tf.optim_trees import parameter_mask
from s4tf.staging.tracing import Static, leaf_spec


def partition(model) -> tuple:
    """``(params, state)``, both shaped like ``model``: ``params`` holds the parameters (float
    arrays outside ``no_derivative`` fields), ``state`` the other arrays; each has ``None``
    where the other has an array. Python scalars (sizes, strides) are in both."""
    leaves, tree = pytree.flatten(model)
    static = [isinstance(leaf_spec(leaf, "model leaf"), Static) for leaf in leaves]
    trained = parameter_mask(model)
    params = [leaf if t or s else None for leaf, t, s in zip(leaves, trained, static)]
    state = [leaf if not t else None for leaf, t in zip(leaves, trained)]
    return pytree.unflatten(tree, params), pytree.unflatten(tree, state)


def merge(params, state):
    """The model :func:`partition` split: each leaf from ``params``, or from ``state`` where
    ``params`` has ``None``. Trees of other structures are an error naming the two nodes."""
    if params is None:
        return state
    if state is None:
        return params
    kind, data, children = pytree.children_of(params)
    state_kind, state_data, state_children = pytree.children_of(state)
    if (kind, data, len(children)) != (state_kind, state_data, len(state_children)):
        raise S4tfError(f"nn.merge: the params have a {type(params).__name__} where the state has a "
                        f"{type(state).__name__}; pass the two trees nn.partition returned", where())
    if not children:
        return params
    return rebuilt(kind, data, [merge(p, s) for p, s in zip(children, state_children)])


def rebuilt(kind: str, data, children: list):
    """A pytree node from ``pytree.children_of``'s ``kind`` and ``data`` and new children."""
    return pytree.unflatten(pytree.TreeDef(kind, data, (pytree.LEAF,) * len(children)), children)
