"""Custom pytree classes: s4tf.register_pytree_node and s4tf.register_pytree_node_class."""

import numpy as np
import pytest

import s4tf
from s4tf.core.errors import StagingError

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

A = np.random.default_rng(5).standard_normal((3,))
B = np.random.default_rng(6).standard_normal((3,))


class Pair:
    """Registered with register_pytree_node; ``scale`` is static (aux data)."""

    def __init__(self, a, b, scale=1.0):
        self.a, self.b, self.scale = a, b, scale


s4tf.register_pytree_node(Pair, lambda p: ((p.a, p.b), p.scale), lambda scale, children: Pair(*children, scale))


@s4tf.register_pytree_node_class
class Box:
    def __init__(self, items, label):
        self.items, self.label = items, label

    def tree_flatten(self):
        return list(self.items), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children, label)


class Unregistered:
    def __init__(self, a):
        self.a = a


def test_registered_class_as_argument_and_result():
    @s4tf.function
    def swap(p):
        return Pair(p.b * p.scale, p.a, p.scale + 1)

    out = swap(Pair(A, B, 2.0))
    assert isinstance(out, Pair) and out.scale == 3.0
    np.testing.assert_allclose(np.asarray(out.a), 2.0 * B)
    np.testing.assert_allclose(np.asarray(out.b), A)


def test_decorated_class_as_argument_and_result():
    @s4tf.function
    def double(box):
        return Box([2 * x for x in box.items], box.label + "!")

    out = double(Box([A, B], "x"))
    assert isinstance(out, Box) and out.label == "x!"
    np.testing.assert_allclose(np.asarray(out.items[1]), 2 * B)


def test_aux_data_is_static():
    @s4tf.function
    def scaled(p):
        return p.a * p.scale

    np.testing.assert_allclose(np.asarray(scaled(Pair(A, B, 2.0))), 2 * A)
    np.testing.assert_allclose(np.asarray(scaled(Pair(A, B, 3.0))), 3 * A)  # a new signature


@pytest.mark.parametrize("staged", [False, True])
def test_grad_wrt_a_registered_class(staged):
    def loss(p):
        return s4tf.sum(s4tf.sin(p.a) * p.b) * p.scale

    transform = s4tf.grad(loss)
    g = (s4tf.function(transform) if staged else transform)(Pair(A, B, 2.0))
    assert isinstance(g, Pair) and g.scale == 2.0
    np.testing.assert_allclose(np.asarray(g.a), 2.0 * np.cos(A) * B, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(g.b), 2.0 * np.sin(A), rtol=1e-12)


def test_tree_map_and_move_on_a_registered_class():
    moved = s4tf.move(Box([A, B], "l"), Box([A, None], "l"), -1.0)
    np.testing.assert_allclose(np.asarray(moved.items[0]), 0 * A)
    np.testing.assert_array_equal(np.asarray(moved.items[1]), B)


def test_unregistered_class_is_a_clear_error():
    with pytest.raises(StagingError, match="unsupported argument of type Unregistered.*register_pytree_node"):
        s4tf.function(lambda u: u.a * 2)(Unregistered(A))


def test_unhashable_aux_data_is_a_clear_error():
    with pytest.raises(s4tf.core.errors.S4tfError, match="aux_data of a Pair \\(list\\) is unhashable"):
        s4tf.function(lambda p: p.a)(Pair(A, B, ["not", "hashable"]))
