"""Parameter trees as optimizers see them: which leaves are trained, and other trees'
leaves matched to a tree's leaves (gradients to a model, states and masks to updates)."""

from __future__ import annotations

import numpy as np

from s4tf import pytree
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError
from s4tf.dialects.types import is_float, to_numpy_dtype
from s4tf.staging.tracing import Static, leaf_spec


def is_trainable(leaf) -> bool:
    """A float array leaf (a parameter an optimizer changes), not a static size or stride."""
    return not isinstance(leaf_spec(leaf), Static) and is_float(snp.dtype_of(leaf))


def trainable_positions(leaves) -> list[int]:
    """Indices of the float array leaves (the parameters an optimizer changes)."""
    return [i for i, leaf in enumerate(leaves) if is_trainable(leaf)]


def leaves_like(tree: pytree.TreeDef, value, what: str = "the gradients", like: str = "the model", path: str = "") -> list:
    """``value``'s subtrees at the leaf positions of ``tree`` (``None`` where a gradient
    has nothing for a static leaf); a structure that differs is an error naming where."""
    if tree.kind == "leaf":
        return [value]
    if tree.num_leaves == 0:  # None or a function: nothing to match
        return []
    kind, data, children = pytree.children_of(value)
    same_names = kind not in ("dict", "dataclass", "namedtuple") or data == tree.data
    if kind != tree.kind or len(children) != len(tree.children) or not same_names:
        where = f" at {path}" if path else ""
        raise S4tfError(
            f"optimizer: the structure of {what}{where} ({_describe(kind, data, children)}) differs from that of "
            f"{like} ({_describe(tree.kind, tree.data, tree.children)}); pass a tree shaped like {like}"
        )
    steps = _child_steps(kind, data, len(children))
    return [leaf for child_tree, child, step in zip(tree.children, children, steps) for leaf in leaves_like(child_tree, child, what, like, path + step)]


def _child_steps(kind: str, data, count: int) -> list[str]:
    if kind == "dict":
        return [f"[{key!r}]" for key in data]
    if kind in ("dataclass", "namedtuple"):
        return [f".{name}" for name in (data[1] if kind == "dataclass" else data._fields)]
    return [f"[{index}]" for index in range(count)]


def _describe(kind: str, data, children) -> str:
    if kind == "dict":
        return f"a dict of keys {list(data)}"
    if kind == "dataclass":
        return f"{data[0].__name__}"
    if kind == "namedtuple":
        return f"{data.__name__}"
    if kind in ("list", "tuple"):
        return f"a {kind} of {len(children)}"
    return kind


def full_like_trainable(params, value: float = 0.0):
    """``params`` with each float leaf replaced by an array of ``value`` (host memory) and
    every other leaf by ``None``: the structure of ``s4tf.grad``'s result for ``params``."""
    leaves, tree = pytree.flatten(params)
    full = [np.full(snp.shape_of(leaf), value, to_numpy_dtype(snp.dtype_of(leaf))) if is_trainable(leaf) else None for leaf in leaves]
    return pytree.unflatten(tree, full)


def map_leaves(function, tree, *others, what: str = "the optimizer state"):
    """``function`` of ``tree``'s leaves and the matching leaves of ``others`` (each shaped
    like ``tree``, or with more leaves where ``tree`` has ``None``), as a tree like ``tree``."""
    leaves, structure = pytree.flatten(tree)
    matched = [leaves_like(structure, other, what, "the updates") for other in others]
    return pytree.unflatten(structure, [function(*args) for args in zip(leaves, *matched)])
