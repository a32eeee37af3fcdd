"""s4tf.tree_util against jax.tree_util on the same pytrees: leaves, structure, maps, paths."""

import dataclasses

import jax
import numpy as np
import pytest

import s4tf
from s4tf import tree_util


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray


TREE = {"layers": [Layer(np.ones((2, 2)), np.zeros(2)), Layer(np.full((2, 1), 2.0), np.ones(1))], "scale": (3.0, None)}
JAX_TREE = {"layers": [{"b": np.zeros(2), "w": np.ones((2, 2))}, {"b": np.ones(1), "w": np.full((2, 1), 2.0)}], "scale": (3.0, None)}


def test_leaves_and_maps_agree_with_jax():
    ours = tree_util.tree_leaves(TREE)
    assert len(ours) == len(jax.tree_util.tree_leaves(JAX_TREE)) == 5
    doubled = tree_util.tree_map(lambda x: x * 2, TREE)
    assert isinstance(doubled["layers"][1], Layer) and doubled["scale"][1] is None
    np.testing.assert_array_equal(doubled["layers"][1].w, np.full((2, 1), 4.0))
    assert sum(np.sum(x) for x in tree_util.tree_leaves(doubled)) == 2 * sum(np.sum(x) for x in ours)
    summed = tree_util.tree_map(lambda x, y: x + y, TREE, doubled)
    np.testing.assert_array_equal(summed["layers"][0].w, np.full((2, 2), 3.0))


def test_flatten_unflatten_and_paths():
    leaves, treedef = tree_util.tree_flatten(TREE)
    rebuilt = tree_util.tree_unflatten(treedef, leaves)
    assert tree_util.tree_structure(rebuilt) == treedef == tree_util.tree_structure(TREE)
    paths = [path for path, _ in tree_util.tree_flatten_with_path(TREE)[0]]
    assert "['layers'][0].w" in paths and "['scale'][0]" in paths
    named = tree_util.tree_map_with_path(lambda path, x: path, TREE)
    assert named["layers"][1].b == "['layers'][1].b"
    assert tree_util.tree_reduce(lambda a, b: a + float(np.sum(b)), TREE, 0.0) == pytest.approx(12.0)
    assert tree_util.tree_all({"a": True, "b": [1, 2]}) and not tree_util.tree_all([True, 0])


def test_mismatched_trees_name_the_difference():
    with pytest.raises(s4tf.S4tfError, match=r"tree 1 has another structure.*\['b'\]"):
        tree_util.tree_map(lambda x, y: x, {"a": 1}, {"b": 1})
    leaves, treedef = tree_util.tree_flatten(TREE)
    with pytest.raises(s4tf.S4tfError, match="has 5 leaves, 4 were given"):
        tree_util.tree_unflatten(treedef, leaves[:4])
