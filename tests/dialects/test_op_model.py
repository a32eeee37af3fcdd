"""What the op classes declare and what is derived from it: the JVPs of linear and bilinear
ops, the batching rule of ops whose attributes all have roles, and the roles themselves
(their numbers checked numerically in tests/autodiff and tests/batching)."""

import pytest

from s4tf.core.mlir import new_context
from s4tf.dialects.attribute_roles import BATCH, Axes, Axis, PerAxis, Permutation, Shape
from s4tf.dialects.attributes import INT, INT_ARRAY
from s4tf.dialects.batching_helpers import leading_axis_batch
from s4tf.dialects.derivative_helpers import bilinear_jvp, linear_jvp
from s4tf.dialects.op_def import OPS, Op, lookup

#: Ops whose batching rule stays their own although their attributes have roles.
OWN_BATCHING_RULES = {"s4tf.transpose"}  # one transpose, not the derived rule's two


def _rule(op, name):
    return getattr(getattr(op, name), "__func__", None)


@pytest.mark.parametrize(
    "role, value, batched",
    [
        (Axes(INT_ARRAY), (0, 2), (1, 3)),
        (Axis(INT), 1, 2),
        (Shape(INT_ARRAY), (3, 4), (8, 3, 4)),
        (Permutation(INT_ARRAY), (1, 0), (0, 2, 1)),
        (PerAxis(INT_ARRAY, 1), (2, 3), (1, 2, 3)),
        (PerAxis(INT_ARRAY, BATCH), (2, 3), (8, 2, 3)),
    ],
)
def test_a_role_says_how_a_batch_of_8_changes_the_value(role, value, batched):
    assert role.batched(role.normalize(value), 8) == batched


def test_a_role_stores_and_checks_values_as_its_base_kind():
    role = Axes(INT_ARRAY)
    with new_context():
        assert role.from_mlir(role.to_mlir((2, 0))) == (2, 0)
        assert str(role.to_mlir((2, 0))) == str(INT_ARRAY.to_mlir((2, 0)))
    assert role.description == INT_ARRAY.description and role.irdl_base == INT_ARRAY.irdl_base
    with pytest.raises(Exception, match="sequence of integers"):
        role.normalize(1.5)


def test_linear_and_bilinear_ops_have_derived_jvps():
    for name, op in OPS.items():
        if op.linear and "jvp" not in vars(op):
            assert _rule(op, "jvp") is linear_jvp, name
        if op.bilinear:
            assert _rule(op, "jvp") is bilinear_jvp and len(op.operands) == 2, name
    assert {"s4tf.mul", "s4tf.dot_general", "s4tf.conv2d"} <= {name for name, op in OPS.items() if op.bilinear}


def test_ops_whose_attributes_all_have_roles_derive_their_batching_rule():
    derived = {name for name, op in OPS.items() if _rule(op, "batch") is leading_axis_batch}
    assert {"s4tf.reshape", "s4tf.reduce_sum", "s4tf.slice", "s4tf.sort", "s4tf.concatenate"} <= derived
    for name in derived:
        assert all(kind.batchable for kind in OPS[name].attributes.values()), name
    for name in OWN_BATCHING_RULES:
        assert _rule(lookup(name), "batch") is not leading_axis_batch


def test_plain_integer_attributes_have_no_role():
    assert not INT.batchable and not INT_ARRAY.batchable
    assert not any(
        _rule(op, "batch") is leading_axis_batch and not all(kind.batchable for kind in op.attributes.values())
        for op in OPS.values()
    )
    assert next(c for c in lookup("iota").__mro__ if "batch" in vars(c)) is Op  # no operands: never batched
