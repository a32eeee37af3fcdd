"""Operands an op does not accept: errors name the op and the offending shapes or dtypes,
and are located at the user's line; the verifier rejects the same ops written as IR."""

from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf.dialects.op_def import OPS, read_attributes
from s4tf.dialects.types import TensorType
from s4tf.core.errors import S4tfError, ShapeError
from s4tf.core.mlir import ir, new_context
from s4tf.passes.diagnostics import error_messages
from s4tf.passes.ir_walk import s4tf_ops
from s4tf.passes.pipeline import build_pass_manager


def f32(*shape):
    return np.ones(shape, np.float32)


def i32(*shape):
    return np.ones(shape, np.int32)


POOL = {"window": (2, 2), "strides": (2, 2), "padding": (0, 0, 0, 0)}
PAD = {"low": (1,), "high": (1,), "interior": (0,)}

# Each staged function is a one-line lambda: the error must be located at its line.
# id: (function, arguments, words the message must contain)
SHAPE_ERRORS = {
    "matmul": (lambda x, w: x @ w, [f32(4, 3), f32(2, 5)], ["matmul", "(4, 3)", "(2, 5)"]),
    "batched_matmul": (lambda x, w: x @ w, [f32(2, 3, 4), f32(3, 4, 5)], ["matmul", "(2, 3, 4)", "(3, 4, 5)"]),
    "add_broadcast": (lambda x, y: x + y, [f32(2, 3), f32(4)], ["s4tf.add", "(2, 3)", "(4,)"]),
    "select_broadcast": (
        lambda p, x: s4tf.where(p, x, 0.0), [np.ones(3, bool), f32(2)], ["s4tf.select", "(3,)", "(2,)"],
    ),
    "dot_general_contraction": (
        lambda x, w: s4tf.dot_general(x, w, ((1,), (1,))),
        [f32(4, 3), f32(2, 5)],
        ["s4tf.dot_general", "(4, 3)", "(2, 5)", "contracting"],
    ),
    "dot_general_batch": (
        lambda x, w: s4tf.dot_general(x, w, ((2,), (1,)), ((0,), (0,))),
        [f32(2, 3, 4), f32(3, 4, 5)],
        ["s4tf.dot_general", "(2, 3, 4)", "(3, 4, 5)", "batch"],
    ),
    "conv2d_channels": (
        lambda x, w: s4tf.conv2d(x, w),
        [f32(1, 5, 5, 3), f32(2, 2, 4, 6)],
        ["s4tf.conv2d", "(1, 5, 5, 3)", "(2, 2, 4, 6)", "3 channels"],
    ),
    "conv2d_groups": (
        lambda x, w: s4tf.conv2d(x, w, groups=2),
        [f32(1, 5, 5, 4), f32(2, 2, 4, 6)],
        ["s4tf.conv2d", "(1, 5, 5, 4)", "(2, 2, 4, 6)", "2 groups"],
    ),
    "concatenate": (
        lambda x, y: s4tf.concatenate([x, y], axis=1), [f32(2, 3), f32(3, 3)], ["s4tf.concatenate", "(2, 3)", "(3, 3)"],
    ),
    "reshape": (lambda x: s4tf.op("reshape", x, shape=(5,)), [f32(2, 3)], ["s4tf.reshape", "(2, 3)", "(5,)"]),
    "broadcast_to": (lambda x: s4tf.broadcast_to(x, (2, 4)), [f32(3)], ["s4tf.broadcast_in_dim", "(3,)", "(2, 4)"]),
    "slice": (lambda x: s4tf.slice(x, (0, 1), (2, 5)), [f32(2, 3)], ["s4tf.slice", "1:5:1", "(2, 3)"]),
    "pad_value": (lambda x, v: s4tf.op("pad", x, v, **PAD), [f32(3), f32(2)], ["s4tf.pad", "scalar", "(2,)"]),
    "pad_crop": (lambda x: s4tf.pad(x, ((0, 0), (-2, -2))), [f32(2, 3)], ["s4tf.pad", "crops", "axis 1", "(2, 3)"]),
    "conv2d_crop": (
        lambda x, w: s4tf.conv2d(x, w, padding=((0, 0), (-3, -3))), [f32(1, 4, 5, 1), f32(1, 1, 1, 1)],
        ["s4tf.conv2d", "crops", "(-3, -3)", "(1, 4, 5, 1)"],
    ),
    "pool_rank": (lambda x: s4tf.op("max_pool2d", x, **POOL), [f32(4, 4)], ["s4tf.max_pool2d", "(4, 4)"]),
    "add_slice_outside": (
        lambda x, u: s4tf.op("add_slice", x, u, start=(4,), stride=(2,)), [f32(6), f32(2)],
        ["s4tf.add_slice", "(2,)", "[4]", "[2]", "(6,)"],
    ),
    "negative_dimension": (lambda: s4tf.op("iota", shape=(-1,), dimension=0, dtype="f32"), [], ["s4tf.iota", "(-1,)"]),
}
DTYPE_ERRORS = {
    "add": (lambda x, y: s4tf.op("add", x, y), [f32(3), i32(3)], ["s4tf.add", "f32", "i32"]),
    "exp_of_int": (lambda x: s4tf.op("exp", x), [i32(3)], ["s4tf.exp", "i32", "float"]),
    "not_of_float": (lambda x: s4tf.op("not", x), [f32(3)], ["s4tf.not", "f32"]),
    "select_predicate": (lambda p, x: s4tf.op("select", p, x, x), [f32(3), f32(3)], ["s4tf.select", "i1", "f32"]),
    "concatenate": (lambda x, y: s4tf.op("concatenate", x, y, axis=0), [f32(2), i32(2)], ["concatenate", "f32", "i32"]),
    "dot_general": (
        lambda x, w: s4tf.dot_general(x, w, ((1,), (0,))), [f32(2, 3), i32(3, 2)], ["s4tf.dot_general", "f32", "i32"],
    ),
    "pad_value": (lambda x, v: s4tf.op("pad", x, v, **PAD), [f32(3), np.int32(0)], ["s4tf.pad", "i32", "f32"]),
    "sum_of_bool": (
        lambda p: s4tf.op("reduce_sum", p, axes=(0,), keepdims=False), [np.ones(3, bool)], ["s4tf.reduce_sum", "i1"],
    ),
    "mean_of_int": (lambda x: s4tf.op("reduce_mean", x, axes=(), keepdims=False), [i32(3)], ["s4tf.reduce_mean", "i32"]),
    "argmax_index": (lambda x: s4tf.argmax(x, dtype=np.float32), [f32(3)], ["s4tf.argmax", "f32"]),
    "iota_of_bool": (lambda: s4tf.iota((3,), dtype=bool), [], ["s4tf.iota", "i1"]),
    "pool_of_int": (lambda x: s4tf.op("avg_pool2d", x, **POOL), [i32(1, 4, 4, 1)], ["s4tf.avg_pool2d", "i32"]),
    "add_slice_update": (
        lambda x, u: s4tf.op("add_slice", x, u, start=(0,), stride=(1,)), [f32(3), i32(2)], ["s4tf.add_slice", "f32", "i32"],
    ),
}
ATTRIBUTE_ERRORS = {
    "permutation": (lambda x: s4tf.op("transpose", x, permutation=(0, 0)), [f32(2, 3)], ["s4tf.transpose", "[0, 0]"]),
    "axis": (lambda x: s4tf.op("reduce_max", x, axes=(2,), keepdims=False), [f32(2, 3)], ["s4tf.reduce_max", "axis 2"]),
    "unknown": (lambda x: s4tf.op("exp", x, axis=0), [f32(3)], ["s4tf.exp", "axis"]),
    "missing": (lambda x: s4tf.op("transpose", x), [f32(2, 3)], ["s4tf.transpose needs attribute(s) permutation"]),
    "string_for_ints": (
        lambda x: s4tf.op("transpose", x, permutation="10"), [f32(2, 3)], ["'permutation'", "sequence of integers", "'10'"],
    ),
    "floats_for_ints": (
        lambda x: s4tf.op("transpose", x, permutation=(1.5, 0)), [f32(2, 3)], ["'permutation'", "(1.5, 0)"],
    ),
    "bool_for_int": (lambda x: s4tf.op("concatenate", x, axis=True), [f32(2)], ["'axis'", "expected an integer", "True"]),
    "int_for_bool": (
        lambda x: s4tf.op("reduce_sum", x, axes=(0,), keepdims=1), [f32(2)], ["'keepdims'", "expected a bool", "1"],
    ),
    "ragged_constant": (lambda: s4tf.op("constant", value=[[1.0], [2.0, 3.0]]), [], ["s4tf.constant", "'value'", "dense elements"]),
    "types_not_a_sequence": (
        lambda x: s4tf.op("host_call", x, callee="f", result_types=3), [f32(2)], ["s4tf.host_call", "'result_types'", "3"],
    ),
}
ERROR_TABLES = {s4tf.ShapeError: SHAPE_ERRORS, s4tf.DTypeError: DTYPE_ERRORS, s4tf.OpAttributeError: ATTRIBUTE_ERRORS}
STAGED_ERRORS = {
    f"{kind.__name__}-{case}": (kind, *value) for kind, cases in ERROR_TABLES.items() for case, value in cases.items()
}


def _located_message(caught, fn) -> str:
    message = str(caught.value)
    assert message.startswith(f"{__file__}:{fn.__code__.co_firstlineno}: "), message
    return message


@pytest.mark.parametrize("case", sorted(STAGED_ERRORS))
def test_staged_error_names_the_op_and_operands_at_the_users_line(case):
    error_type, fn, args, words = STAGED_ERRORS[case]
    with pytest.raises(error_type) as caught:
        s4tf.function(fn)(*args)
    message = _located_message(caught, fn)
    missing = [word for word in words if word not in message]
    assert not missing, f"{missing} not in: {message}"


def test_eager_error_is_located_at_the_calling_line():
    add = lambda: s4tf.add(f32(2, 3), f32(4))  # noqa: E731  (its line is the location)
    with pytest.raises(s4tf.ShapeError) as caught:
        add()
    assert "s4tf.add" in _located_message(caught, add)


RAW_OP_ERRORS = {
    "unknown_op": (lambda x: s4tf.op("transpos", x), s4tf.S4tfError, "unknown op 's4tf.transpos'; did you mean 's4tf.transpose'?"),
    "op_name_not_a_string": (lambda x: s4tf.op(3, x), s4tf.S4tfError, "an op name is a string such as 'add', not 3"),
    "operand_count": (lambda x: s4tf.op("add", x), s4tf.ShapeError, "s4tf.add takes 2 operand(s) (lhs, rhs), got 1"),
    "list_attribute": (
        lambda x: s4tf.op("transpose", x, permutation=[[1], [0]]), s4tf.OpAttributeError,
        "s4tf.transpose attribute 'permutation': expected a sequence of integers, got [[1], [0]]",
    ),
    "object_constant": (
        lambda x: s4tf.op("constant", value=object()), s4tf.OpAttributeError, "s4tf.constant attribute 'value': dtype object",
    ),
}


@pytest.mark.parametrize("case", sorted(RAW_OP_ERRORS))
@pytest.mark.parametrize("mode", ["staged", "eager"])
def test_raw_op_errors_staged_and_eager(case, mode):
    fn, error_type, message = RAW_OP_ERRORS[case]
    with pytest.raises(error_type) as caught:
        (s4tf.function(fn) if mode == "staged" else fn)(f32(2, 3))
    assert message in _located_message(caught, fn)


def test_float_functions_accept_integers_by_converting_them():
    x = np.arange(4, dtype=np.int32)
    result = s4tf.function(lambda v: s4tf.exp(v))(x)
    assert result.dtype == np.float32
    np.testing.assert_allclose(np.asarray(result), np.exp(x.astype(np.float64)), rtol=2e-5)


def _verifier_errors(body: str) -> list[str]:
    """The ``s4tf-verify`` errors for ``body`` as the function ``@f(%x: tensor<3xi32>)``."""
    text = f"func.func @f(%x: tensor<3xi32>, %y: tensor<3xf32>) -> tensor<3xf32> {{\n{body}\n}}\n"
    with new_context() as context:
        module = ir.Module.parse(text)
        try:
            build_pass_manager("s4tf-verify", context).run(module.operation)
        except ir.MLIRError as error:
            return [str(message) for message in error_messages(error, "f.mlir")]
    return []


def test_verifier_rejects_exp_of_an_integer_written_as_ir():
    errors = _verifier_errors(
        '  %0 = "s4tf.exp"(%x) : (tensor<3xi32>) -> tensor<3xi32>\n'
        '  %1 = "s4tf.exp"(%y) : (tensor<3xf32>) -> tensor<3xf32>\n'
        "  return %1 : tensor<3xf32>"
    )
    assert len(errors) == 1, errors
    assert errors[0].startswith("f.mlir:2:") and "s4tf.exp" in errors[0] and "i32" in errors[0], errors


def test_verifier_rejects_a_result_type_that_differs_from_the_inferred_one():
    errors = _verifier_errors(
        '  %0 = "s4tf.add"(%y, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<4xf32>\n'
        '  %1 = "s4tf.add"(%y, %x) : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>\n'
        "  return %y : tensor<3xf32>"
    )
    assert len(errors) == 2, errors
    assert errors[0].startswith("f.mlir:2:") and "tensor<4xf32>" in errors[0] and "tensor<3xf32>" in errors[0], errors
    assert errors[1].startswith("f.mlir:3:") and "s4tf.add" in errors[1] and "f32, i32" in errors[1], errors


LOWERING_TEST = Path(__file__).resolve().parents[1] / "lit" / "passes" / "s4tf-lower-to-stablehlo.mlir"


def _lowering_test_ops():
    """``(op name, operand types, attributes)`` of every s4tf op in the lowering lit test
    (which has every op, see tests/tools/test_lit.py), regions aside."""
    found = []
    with new_context():
        for chunk in LOWERING_TEST.read_text().split("// -----"):
            module = ir.Module.parse(chunk)
            for operation in s4tf_ops(module.operation):
                op = OPS[operation.name]
                if not op.regions:
                    operands = [TensorType.from_mlir(v.type) for v in operation.operands]
                    found.append((operation.name, operands, read_attributes(op, operation)))
    return found


def test_shape_rules_accept_or_reject_dynamic_dimensions():
    """A ``?`` in any operand dimension gives a result type or a ShapeError, never a Python
    error inside the shape rule (``s4tf-opt`` would report it as an internal error)."""
    rejected = set()
    for name, operands, attrs in _lowering_test_ops():
        for position, operand in enumerate(operands):
            for axis in range(operand.rank):
                shape = tuple(None if i == axis else d for i, d in enumerate(operand.shape))
                dynamic = [*operands[:position], TensorType(shape, operand.dtype), *operands[position + 1 :]]
                try:
                    OPS[name].result_types(dynamic, attrs)
                except ShapeError as error:
                    assert name in error.message, error.message
                    if "does not take operands of dynamic shape" in error.message:
                        rejected.add(name)
                except S4tfError:
                    pass
    assert {"s4tf.reshape", "s4tf.slice", "s4tf.conv2d", "s4tf.max_pool2d"} <= rejected

