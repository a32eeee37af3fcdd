"""Differentiable user types: which leaves of a pytree carry derivatives, and moving a
value along a tangent (S4TF's ``@noDerivative`` and ``move(along:)``).

```python
@dataclass
class Dense:
    w: np.ndarray
    b: np.ndarray
    scale: np.ndarray = s4tf.no_derivative(default_factory=lambda: np.float32(1))  # a constant

grads = s4tf.grad(loss)(model, x, y)      # Dense(w=dw, b=db, scale=None)
model = s4tf.move(model, grads, -0.1)     # w + (-0.1) * dw, b + (-0.1) * db, scale unchanged
```

A tangent has the structure of its value. Leaves without a derivative are ``None`` in it:
``no_derivative`` fields, integer and boolean arrays, Python scalars and strings. ``None``
in a tangent given to ``s4tf.jvp`` or ``s4tf.move`` stands for zero.
"""

from __future__ import annotations

import dataclasses

from s4tf import pytree
from s4tf.core.errors import S4tfError

NO_DERIVATIVE = "s4tf.no_derivative"


def no_derivative(**field_options):
    """A dataclass field that differentiation treats as a constant (its tangent is ``None``);
    takes ``dataclasses.field``'s options (``default``, ``default_factory``, ...)."""
    metadata = {**field_options.pop("metadata", {}), NO_DERIVATIVE: True}
    return dataclasses.field(metadata=metadata, **field_options)


def _constant_fields(value) -> set[str]:
    return {f.name for f in dataclasses.fields(value) if f.metadata.get(NO_DERIVATIVE)}


def differentiable_mask(tree) -> list[bool]:
    """Per leaf of ``pytree.flatten(tree)``: ``False`` inside a ``no_derivative`` field."""
    mask = []

    def visit(value, differentiable: bool) -> None:
        kind, data, children = pytree.children_of(value)
        if kind == "leaf":
            mask.append(differentiable)
            return
        names, constants = (data[1], _constant_fields(value)) if kind == "dataclass" else ([None] * len(children), set())
        for name, child in zip(names, children):
            visit(child, differentiable and name not in constants)

    visit(tree, True)
    return mask


def leaves_like(value, tangent, what: str) -> list:
    """``tangent``'s leaves matched to ``value``'s, one per leaf of ``pytree.flatten(value)``;
    ``None`` where ``tangent`` has ``None`` (at a leaf or above it)."""
    if tangent is None:
        return [None] * len(pytree.flatten(value)[0])
    kind, data, children = pytree.children_of(value)
    if kind == "leaf":
        return [tangent]
    tangent_kind, tangent_data, tangent_children = pytree.children_of(tangent)
    if (kind, data) != (tangent_kind, tangent_data) or len(children) != len(tangent_children):
        raise S4tfError(f"{what} is a {type(tangent).__name__} that does not have the structure of the {type(value).__name__} it goes with")
    return [leaf for v, t in zip(children, tangent_children) for leaf in leaves_like(v, t, what)]


def move(value, tangent, scale=1.0):
    """``value`` moved along ``tangent``: each leaf ``v + scale * t``; leaves whose tangent is
    ``None`` are kept as they are. ``tangent`` has ``value``'s structure (what ``grad`` returns)."""
    leaves, tree = pytree.flatten(value)
    steps = leaves_like(value, tangent, "the tangent given to s4tf.move")
    return pytree.unflatten(tree, [v if t is None else v + scale * t for v, t in zip(leaves, steps)])
