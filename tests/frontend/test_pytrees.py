"""Pytrees of arrays and scalars in and out of staged functions."""

import gc
import weakref
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

import s4tf
from s4tf import pytree

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


@dataclass
class Params:
    weight: np.ndarray
    bias: np.ndarray


Pair = namedtuple("Pair", ["first", "second"])


def test_flatten_unflatten_round_trip():
    tree = {"b": [1, (2.0, None)], "a": Params(np.ones(2), np.zeros(1)), "c": Pair(3, "s")}
    leaves, treedef = pytree.flatten(tree)
    rebuilt = pytree.unflatten(treedef, leaves)
    assert rebuilt["b"] == [1, (2.0, None)]
    assert isinstance(rebuilt["a"], Params) and isinstance(rebuilt["c"], Pair)
    np.testing.assert_array_equal(rebuilt["a"].weight, tree["a"].weight)
    assert pytree.tree_map(lambda v: v * 2, {"x": [1, 2]}) == {"x": [2, 4]}


def test_dataclass_dict_and_list_arguments_and_results():
    @s4tf.function
    def apply(params, batch):
        out = batch["x"] @ params.weight + params.bias
        return {"out": out, "parts": [out.sum(), Pair(out.max(), 7)]}

    params = Params(np.eye(2, dtype=np.float32) * 2, np.ones(2, np.float32))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    result = apply(params, {"x": x})
    expected = x @ params.weight + params.bias
    np.testing.assert_allclose(np.asarray(result["out"]), expected)
    total, pair = result["parts"]
    assert float(total) == expected.sum()
    assert isinstance(pair, Pair) and pair.second == 7 and float(pair.first) == expected.max()


def test_returned_dataclass_of_tensors():
    @s4tf.function
    def step(params, lr):
        return Params(params.weight * lr, params.bias - lr)

    new = step(Params(np.ones(3, np.float32), np.zeros(3, np.float32)), 0.5)
    assert isinstance(new, Params)
    np.testing.assert_allclose(np.asarray(new.weight), 0.5)
    np.testing.assert_allclose(np.asarray(new.bias), -0.5)


def test_results_are_freed_when_dropped_without_waiting_for_the_garbage_collector():
    """Flattening and rebuilding pytrees makes no reference cycles: a training loop's old
    parameters leave the device as soon as the loop drops them."""
    step = s4tf.function(lambda params, g: [p - 0.5 * g for p in params])
    gradient = np.ones(3, np.float32)
    params = step([np.zeros(3, np.float32), np.ones(3, np.float32)], gradient)
    gc.disable()
    try:
        old = [weakref.ref(p) for p in params]
        params = step(params, gradient)
        assert [r() for r in old] == [None, None]
    finally:
        gc.enable()
    np.testing.assert_array_equal(np.asarray(params[1]), np.zeros(3))
