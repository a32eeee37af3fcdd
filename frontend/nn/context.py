"""``nn.apply``: a call of a whole model in training, with no flags or state threaded by hand.

Inside ``nn.apply(model, x, training=True, key=k)`` every layer sees ``training`` (BatchNorm
normalizes with the batch's statistics, Dropout drops) and draws its random numbers from
``k`` (each draw from ``fold_in(k, n)``, ``n`` counting the draws); layers with state
record their updated state, and ``apply`` returns the model with it (Flax's
``mutable=["batch_stats"]``, Keras's propagated ``training``).

```python
logits, model = nn.apply(model, x, training=True, key=step)   # model: new running statistics
```
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from s4tf import pytree, random
from s4tf.nn.checks import layer_error
from s4tf.nn.random_keys import as_key
from s4tf.nn.state import rebuilt


@dataclass
class _Call:
    training: bool
    key: Any
    draws: int = 0
    updates: dict = field(default_factory=dict)  # id(layer) -> (layer, the layer with its new state)


_CALLS: ContextVar[tuple] = ContextVar("s4tf_nn_calls", default=())


def is_training(training: bool | None) -> bool:
    """``training`` if given, else whether the innermost ``nn.apply`` trains (False outside one)."""
    if training is not None:
        return bool(training)
    calls = _CALLS.get()
    return calls[-1].training if calls else False


def layer_key(key, layer: str):
    """``key`` (a seed or key) if given, else the next draw's key of the innermost ``nn.apply``."""
    if key is not None:
        return as_key(key)
    calls = _CALLS.get()
    if not calls or calls[-1].key is None:
        raise layer_error(f"{layer} in training needs an explicit key: layer(x, key=step, training=True), "
                          "or nn.apply(model, x, training=True, key=step)")
    call = calls[-1]
    call.draws += 1
    return random.fold_in(call.key, call.draws - 1)


def record_update(layer, updated) -> None:
    """Inside ``nn.apply``: ``layer`` is to be replaced by ``updated`` in the returned model."""
    calls = _CALLS.get()
    if calls:
        calls[-1].updates[id(layer)] = (layer, updated)


def apply(model, *args, training: bool = False, key=None, **kwargs):
    """``(model(*args, **kwargs), model with its layers' updated state)``; every layer inside
    sees ``training`` and draws from ``key`` (a seed, e.g. the step, or a ``s4tf.random`` key)."""
    call = _Call(bool(training), None if key is None else as_key(key))
    token = _CALLS.set(_CALLS.get() + (call,))
    try:
        output = model(*args, **kwargs)
    finally:
        _CALLS.reset(token)
    placed: set = set()
    updated = _replaced(model, call.updates, placed)
    missing = [type(layer).__name__ for key_, (layer, _) in call.updates.items() if key_ not in placed]
    if missing:
        raise layer_error(f"nn.apply: a {missing[0]} updated its state but is not a part of the model given to "
                          "nn.apply (reached through a closure?); pass the model that holds it")
    return output, updated


def _replaced(node, updates: dict, placed: set):
    """``node`` with each layer recorded in ``updates`` replaced by its updated self."""
    if id(node) in updates:
        placed.add(id(node))
        return updates[id(node)][1]
    kind, data, children = pytree.children_of(node)
    if not children or not updates:
        return node
    return rebuilt(kind, data, [_replaced(child, updates, placed) for child in children])
