"""Pytrees: nested tuples, lists, dicts, named tuples, dataclasses and registered classes
(``register_pytree_node``) of leaves.

``flatten`` gives the leaves in a fixed order and a ``TreeDef`` that rebuilds the
structure; dataclasses (models and optimizer states) are nodes, so ``grad`` can return
a tangent of the same structure.

>>> leaves, tree = flatten({"w": 1, "b": (2, 3)})
>>> leaves
[2, 3, 1]
>>> unflatten(tree, [20, 30, 10])
{'b': (20, 30), 'w': 10}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from s4tf.core.errors import S4tfError
from s4tf.staging.tensor import Tensor


class PytreeError(S4tfError):
    """A registered pytree class whose flattening cannot be used."""


@dataclass(frozen=True, eq=False)
class TreeDef:
    """The structure of a pytree: a node kind, its static data and its children.

    Its hash is computed once, when it is made (a staged call looks its tree up in a dict
    on every call)."""

    kind: str  # "leaf", "none", "function", "tuple", "list", "dict", "namedtuple", "dataclass", "registered"
    data: Any = None
    children: tuple["TreeDef", ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "_hash", hash((self.kind, self.data, self.children)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeDef):
            return NotImplemented
        return (self._hash == other._hash and self.kind == other.kind and self.data == other.data
                and self.children == other.children)

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(child.num_leaves for child in self.children)


LEAF = TreeDef("leaf")

#: Field names (those ``__init__`` takes) per dataclass type seen.
_DATACLASS_NAMES: dict[type, tuple[str, ...]] = {}

_REGISTERED: dict[type, tuple[Callable, Callable]] = {}

#: Leaves whose exact type is one of these are arrays (no node check can match them).
_ARRAY_TYPES = frozenset((Tensor, np.ndarray))


def register_pytree_node(cls: type, flatten_fn: Callable, unflatten_fn: Callable) -> None:
    """Make ``cls`` a pytree node (JAX's signature): ``flatten_fn(value)`` returns
    ``(children, aux_data)``, ``unflatten_fn(aux_data, children)`` rebuilds the value.
    ``aux_data`` is static (part of a staged function's signature): it must be hashable."""
    if not isinstance(cls, type):
        raise TypeError(f"register_pytree_node takes a class, got {cls!r}")
    _REGISTERED[cls] = (flatten_fn, unflatten_fn)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: ``cls`` is a node flattened by its ``tree_flatten()`` method and
    rebuilt by its ``tree_unflatten(aux_data, children)`` classmethod (as in JAX)."""
    register_pytree_node(cls, lambda value: value.tree_flatten(), cls.tree_unflatten)
    return cls


def _registered_children(value) -> tuple[str, Any, list]:
    cls = type(value)
    children, aux_data = _REGISTERED[cls][0](value)
    try:
        hash(aux_data)
    except TypeError:
        raise PytreeError(
            f"the aux_data of a {cls.__name__} ({type(aux_data).__name__}) is unhashable; it is static, part of "
            "a staged function's signature: make it hashable (a tuple instead of a list, say)"
        ) from None
    return "registered", (cls, aux_data), list(children)


def _dataclass_fields(value) -> tuple[str, ...]:
    cls = type(value)
    names = _DATACLASS_NAMES.get(cls)
    if names is None:
        names = _DATACLASS_NAMES[cls] = tuple(f.name for f in dataclasses.fields(value) if f.init)
    return names


def children_of(value) -> tuple[str, Any, list]:
    """``(kind, static data, children)`` of a node, or ``("leaf", None, [])``."""
    if value is None:
        return "none", None, []
    if type(value) in _REGISTERED:
        return _registered_children(value)
    if type(value) in _ARRAY_TYPES:  # the common leaves, before the checks for nodes
        return "leaf", None, []
    if type(value) in _DATACLASS_NAMES:  # models and optimizer states, seen before
        names = _DATACLASS_NAMES[type(value)]
        return "dataclass", (type(value), names), [getattr(value, n) for n in names]
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return "namedtuple", type(value), list(value)
    if isinstance(value, tuple):
        return "tuple", None, list(value)
    if isinstance(value, list):
        return "list", None, list(value)
    if isinstance(value, dict):
        keys = tuple(sorted(value, key=repr))
        return "dict", keys, [value[k] for k in keys]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _dataclass_fields(value)
        return "dataclass", (type(value), names), [getattr(value, n) for n in names]
    if callable(value) and not hasattr(value, "__array__"):
        return "function", value, []  # e.g. s4tf.relu in a layer: part of the structure, no leaves
    return "leaf", None, []


def flatten(tree) -> tuple[list, TreeDef]:
    leaves: list = []
    return leaves, _visit(tree, leaves)


def _visit(value, leaves: list) -> TreeDef:
    # Recursion through module-level functions, not closures: a closure that calls itself
    # is a reference cycle, which would keep every leaf (device buffers) alive until the
    # garbage collector happens to run.
    kind, data, children = children_of(value)
    if kind == "leaf":
        leaves.append(value)
        return LEAF
    return TreeDef(kind, data, tuple([_visit(child, leaves) for child in children]))


def leaf_paths(tree, root: str = "") -> list[str]:
    """Per leaf of ``flatten(tree)``, where it is: ``root[0]['w'].bias`` (for messages)."""
    paths: list[str] = []
    _visit_paths(tree, root, paths)
    return paths


def _visit_paths(value, path: str, paths: list[str]) -> None:
    kind, data, children = children_of(value)
    if kind == "leaf":
        paths.append(path)
        return
    if kind == "dict":
        steps = [f"[{key!r}]" for key in data]
    elif kind in ("dataclass", "namedtuple"):
        steps = [f".{name}" for name in (data[1] if kind == "dataclass" else data._fields)]
    else:
        steps = [f"[{index}]" for index in range(len(children))]
    for step, child in zip(steps, children):
        _visit_paths(child, path + step, paths)


def unflatten(tree: TreeDef, leaves) -> Any:
    return _build(tree, iter(leaves))


def _build(node: TreeDef, leaves):
    if node.kind == "leaf":
        return next(leaves)
    children = [_build(child, leaves) for child in node.children]
    if node.kind == "none":
        return None
    if node.kind == "function":
        return node.data
    if node.kind == "tuple":
        return tuple(children)
    if node.kind == "list":
        return children
    if node.kind == "namedtuple":
        return node.data(*children)
    if node.kind == "dict":
        return dict(zip(node.data, children))
    if node.kind == "registered":
        cls, aux_data = node.data
        return _REGISTERED[cls][1](aux_data, children)
    cls, names = node.data
    return cls(**dict(zip(names, children)))


def tree_map(function, tree, *others):
    """Apply ``function`` to corresponding leaves of ``tree`` and ``others``, which must
    have ``tree``'s structure (a :class:`PytreeError` names the first difference)."""
    leaves, structure = flatten(tree)
    other_leaves = []
    for position, other in enumerate(others, start=1):
        found, other_structure = flatten(other)
        if other_structure != structure:
            raise PytreeError(f"tree_map: tree {position} has another structure than tree 0: {_difference(tree, other)}")
        other_leaves.append(found)
    return unflatten(structure, [function(*args) for args in zip(leaves, *other_leaves)])


def _difference(tree, other) -> str:
    """Where ``other``'s leaves differ from ``tree``'s, as paths."""
    mine, theirs = leaf_paths(tree), leaf_paths(other)
    missing, extra = [p for p in mine if p not in theirs], [p for p in theirs if p not in mine]
    if missing or extra:
        return f"leaves only in tree 0: {missing or 'none'}; only in the other: {extra or 'none'}"
    return f"the same leaves {mine} under other node types"
