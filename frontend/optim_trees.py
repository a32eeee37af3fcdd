"""Parameter trees as optimizers see them: which leaves are trained, and other trees'
leaves matched to a tree's leaves (gradients to a model, states and masks to updates).

Model state (``s4tf.no_derivative`` fields such as BatchNorm's running statistics) is not
trained: ``s4tf.grad`` gives ``None`` there, and optimizers keep no moments for it."""

from __future__ import annotations

import numpy as np

from s4tf import pytree
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError
from s4tf.dialects.types import is_float, to_numpy_dtype
from s4tf.staging.tracing import Static, leaf_spec
from s4tf.transforms.differentiable import differentiable_mask


def is_trainable(leaf) -> bool:
    """A float array leaf (a parameter an optimizer changes), not a static size or stride."""
    return not isinstance(leaf_spec(leaf), Static) and is_float(snp.dtype_of(leaf))


def parameter_mask(tree) -> list[bool]:
    """Per leaf of ``pytree.flatten(tree)``: a float array outside ``no_derivative`` fields
    (a parameter an optimizer changes), not model state, a static size or stride."""
    leaves, _ = pytree.flatten(tree)
    return [is_trainable(leaf) and differentiable for leaf, differentiable in zip(leaves, differentiable_mask(tree))]


def trainable_positions(tree) -> list[int]:
    """Indices, among ``tree``'s leaves, of its parameters (see :func:`parameter_mask`)."""
    return [i for i, trained in enumerate(parameter_mask(tree)) if trained]


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
    """``params`` with each parameter replaced by an array of ``value`` (host memory) and
    every other leaf by ``None``: the structure of ``s4tf.grad``'s result for ``params``."""
    leaves, tree = pytree.flatten(params)
    mask = parameter_mask(params)
    full = [np.full(snp.shape_of(leaf), value, to_numpy_dtype(snp.dtype_of(leaf))) if trained else None for leaf, trained in zip(leaves, mask)]
    return pytree.unflatten(tree, full)


def map_leaves(function, tree, *others, what: str = "the optimizer state"):
    """``function`` of ``tree``'s leaves and the matching leaves of ``others`` (each shaped
    like ``tree``, or with more leaves where ``tree`` has ``None``), as a tree like ``tree``."""
    leaves, structure = pytree.flatten(tree)
    matched = [leaves_like(structure, other, what, "the updates") for other in others]
    return pytree.unflatten(structure, [function(*args) for args in zip(leaves, *matched)])
