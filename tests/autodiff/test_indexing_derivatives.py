"""Derivatives of gather, scatter and NumPy indexing against float64 finite differences,
forward and reverse, first and second order; the transpose of a gather is a scatter-add
into one buffer (the sparse adjoint), repeated indices included."""

import numpy as np
import pytest
from gradient_checks import directional_check, second_order_check

import s4tf
from s4tf.dialects.types import TensorType
from s4tf.passes.autodiff.functions import body_operations, find_function

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(5)
REPEATED = np.array([[1], [3], [1], [0], [1]], np.int32)  # row 1 read three times


def test_gather_with_repeated_rows():
    directional_check(lambda x: s4tf.gather(x, REPEATED), [RNG.standard_normal((5, 3))])


def test_gather_along_an_inner_axis_and_clamped_coordinates():
    indices = np.array([[[2], [-1]], [[9], [0]]], np.int32)  # -1 and 9 are clamped to 0 and 3
    directional_check(lambda x: s4tf.gather(x, indices, axes=(1,)), [RNG.standard_normal((2, 4, 3))])


def test_gather_second_order():
    second_order_check(lambda x: s4tf.sum(s4tf.gather(x, REPEATED) ** 3), RNG.standard_normal((5, 3)))


@pytest.mark.parametrize("kind", ["add", "set", "multiply", "min", "max"])
def test_scatter_first_order(kind):
    indices = np.array([[1], [3], [2], [0]], np.int32) if kind == "set" else REPEATED
    updates = RNG.standard_normal((len(indices), 3))
    directional_check(lambda x, u: s4tf.scatter(x, indices, u, kind=kind), [RNG.standard_normal((5, 3)), updates])


@pytest.mark.parametrize("kind", ["add", "set", "multiply", "max"])
def test_scatter_second_order(kind):
    indices = np.array([[1], [3], [2], [0]], np.int32) if kind == "set" else REPEATED
    x = RNG.standard_normal((5, 3))
    second_order_check(lambda u: s4tf.sum(s4tf.scatter(x, indices, u, kind=kind) ** 3), RNG.standard_normal((len(indices), 3)))


def test_scatter_multiply_with_a_zero_among_repeated_updates():
    """The product of the other updates at an element, computed without dividing by zero."""
    updates = RNG.standard_normal((5, 3))
    updates[0, 1] = 0.0  # row 1 gets updates 0, 2 and 4; one of them is zero in column 1
    directional_check(lambda u: s4tf.scatter(s4tf.ones((5, 3), np.float64), REPEATED, u, kind="multiply"), [updates])


def test_scatter_set_with_repeated_indices_differentiates_the_winner():
    x, updates = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))
    directional_check(lambda x, u: s4tf.scatter(x, REPEATED, u, kind="set"), [x, updates])


def test_scatter_add_drops_out_of_range_updates_and_their_derivative():
    indices = np.array([[1], [7], [-1], [2]], np.int32)
    gradient = s4tf.grad(lambda u: s4tf.sum(s4tf.scatter(s4tf.zeros((4, 2), np.float64), indices, u) ** 2))
    updates = RNG.standard_normal((4, 2))
    expected = 2 * updates * np.array([[1], [0], [0], [1]])
    np.testing.assert_allclose(np.asarray(gradient(updates)), expected, rtol=1e-12)


@pytest.mark.parametrize("index", [
    np.s_[[0, 2, 2]], np.s_[:, [1, -1]], np.s_[[1, 0], ::-1, [2, 2]], np.s_[3, 1:, [1, 3]], np.s_[None, ..., [0, 0]],
])
def test_numpy_indexing_both_modes_and_second_order(index):
    x = RNG.standard_normal((5, 3, 4))
    directional_check(lambda v: v[index], [x])
    second_order_check(lambda v: s4tf.sum(v[index] ** 3), x)


def test_take_along_axis_and_updates():
    x = RNG.standard_normal((3, 4))
    order = np.argsort(x, axis=1)
    directional_check(lambda v: s4tf.take_along_axis(v, order, axis=1), [x])
    directional_check(lambda v, u: v.at[[2, 0, 2]].add(u), [x, RNG.standard_normal((3, 4))])
    directional_check(lambda v, u: v.at[1:, ::-2].set(u), [x, RNG.standard_normal((2, 2))])
    directional_check(lambda v, u: v.at[:, [3, 0]].multiply(u), [x, RNG.standard_normal((3, 2))])
    second_order_check(lambda v: s4tf.sum(v.at[[2, 0, 2], 1:].max(v[0, 1:]) ** 3), x)


def test_embedding_lookups_accumulate_into_one_adjoint_buffer():
    """Three lookups of one table: the reverse pass creates one table-sized buffer and adds
    each lookup's cotangent into it with a scatter-add, repeated ids included."""
    ids = [np.array([1, 3, 1]), np.array([0, 0]), np.array([4])]

    def loss(table):
        total = s4tf.sum(table[ids[0]] ** 2)
        for chosen in ids[1:]:
            total = total + s4tf.sum(table[chosen] ** 2)
        return total

    table = RNG.standard_normal((5, 3))
    lowered = s4tf.function(lambda t: s4tf.grad(loss)(t)).lower(table)
    full_size = [
        op.name for op in body_operations(find_function(lowered.module, "loss_vjp_bwd"))
        if op.results and TensorType.from_mlir(op.results[0].type).shape == (5, 3)
    ]
    assert full_size == ["s4tf.constant"] + ["s4tf.scatter"] * 3
    expected = np.zeros_like(table)
    for chosen in ids:
        np.add.at(expected, chosen, 2 * table[chosen])
    np.testing.assert_allclose(np.asarray(s4tf.grad(loss)(table)), expected, rtol=1e-12)
