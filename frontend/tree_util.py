"""``s4tf.tree_util``: JAX's pytree utilities under JAX's names (the machinery is
:mod:`s4tf.pytree`). Pytrees are nested tuples, lists, dicts, named tuples, dataclasses,
``None`` and classes registered with :func:`register_pytree_node`; every other value is a
leaf. Paths name a leaf as Python would reach it (``['layers'][0].w``).

```python
from s4tf import tree_util

params = {"w": np.ones((2, 2)), "b": (np.zeros(2), 1.0)}
tree_util.tree_leaves(params)                              # [zeros(2), 1.0, ones((2, 2))]: keys sorted
doubled = tree_util.tree_map(lambda x: x * 2, params)
leaves, treedef = tree_util.tree_flatten(params)
tree_util.tree_unflatten(treedef, leaves)                  # params again
dict(tree_util.tree_flatten_with_path(params)[0])          # {"['b'][0]": ..., "['b'][1]": 1.0, "['w']": ...}
```
"""

from __future__ import annotations

import functools

from s4tf.pytree import (
    PytreeError, TreeDef, flatten, leaf_paths, register_pytree_node, register_pytree_node_class, tree_map, unflatten,
)


def tree_flatten(tree) -> tuple[list, TreeDef]:
    """The leaves of ``tree`` in a fixed order (dict keys sorted) and the structure that
    rebuilds it."""
    return flatten(tree)


def tree_unflatten(treedef: TreeDef, leaves):
    """The pytree of ``treedef``'s structure with ``leaves`` in its leaves' places."""
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise PytreeError(f"tree_unflatten: the structure has {treedef.num_leaves} leaves, {len(leaves)} were given")
    return unflatten(treedef, leaves)


def tree_leaves(tree) -> list:
    return flatten(tree)[0]


def tree_structure(tree) -> TreeDef:
    return flatten(tree)[1]


def tree_flatten_with_path(tree) -> tuple[list[tuple[str, object]], TreeDef]:
    """``[(path, leaf), ...]`` in :func:`tree_flatten`'s order, and the structure."""
    leaves, treedef = flatten(tree)
    return list(zip(leaf_paths(tree), leaves)), treedef


def tree_map_with_path(function, tree, *others):
    """:func:`tree_map` whose ``function`` also receives each leaf's path first."""
    paths = iter(leaf_paths(tree))
    return tree_map(lambda *leaves: function(next(paths), *leaves), tree, *others)


def tree_reduce(function, tree, initializer=None):
    """``function`` folded over the leaves, from ``initializer`` when given (as
    :func:`functools.reduce`)."""
    leaves = tree_leaves(tree)
    return functools.reduce(function, leaves) if initializer is None else functools.reduce(function, leaves, initializer)


def tree_all(tree) -> bool:
    """Whether every leaf is true."""
    return all(bool(leaf) for leaf in tree_leaves(tree))


__all__ = [
    "PytreeError", "TreeDef", "register_pytree_node", "register_pytree_node_class", "tree_all", "tree_flatten",
    "tree_flatten_with_path", "tree_leaves", "tree_map", "tree_map_with_path", "tree_reduce", "tree_structure",
    "tree_unflatten",
]
