"""The compiler's IR builder (dialects/ir_builder.py): ops with inferred types, the
compositions the derivative rules use, region ops from callbacks capturing outer values;
and a pass that builds an op outside a builder fails instead of running it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import s4tf
from s4tf.staging import eager
from s4tf.dialects import composition
from s4tf.dialects.ir_builder import IRBuilder, OpOutsideBuilderError, only_builders
from s4tf.dialects.reference import run_function
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import func, ir, new_context
from s4tf.passes.pipeline import build_pass_manager
from s4tf.passes.registry import PASSES, ModulePass

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)


def _function(context, input_types, body):
    """A module with ``@f(inputs...)`` whose results ``body(builder, *arguments)`` builds."""
    with context, ir.Location.unknown() as location:
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = func.FuncOp("f", ir.FunctionType.get([t.to_mlir() for t in input_types], []))
        block = function.add_entry_block()
    builder = IRBuilder(block, location)
    with builder.building():
        results = body(builder, *[builder.wrap(a) for a in block.arguments])
    with context, location, ir.InsertionPoint(block):
        values = [builder.ir_value(r) for r in results]
        func.ReturnOp(values)
        function.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([t.to_mlir() for t in input_types], [v.type for v in values])
        )
    build_pass_manager("s4tf-verify", context).run(module.operation)
    return module


def test_values_compose_with_numpy_promotion_and_inferred_types():
    def body(builder, x):
        total = composition.sum(x * 2.0 - 1, axis=0, keepdims=True)  # weak scalars keep f32
        mask = composition.astype(x > 0, x.dtype)
        return [composition.broadcast_to(total, x.shape) * mask, composition.reshape(x, -1)]

    module = _function(new_context(), [TensorType((2, 3), "f32")], body)
    text = str(module)
    assert '"s4tf.reduce_sum"' in text and '"s4tf.select"' not in text and "f64" not in text
    scaled, flat = run_function(module, "f", [X])
    np.testing.assert_allclose(scaled, np.broadcast_to((X * 2 - 1).sum(0, keepdims=True), X.shape) * (X > 0))
    np.testing.assert_array_equal(flat, X.reshape(-1))


def test_region_ops_from_callbacks_capture_values_of_enclosing_blocks():
    def body(builder, x, limit):
        scale = composition.sum(x)  # used inside both regions: captured as an operand
        (chosen,) = builder.cond(scale > 0, lambda v: [v * scale], lambda v: [-v], [x])

        def step(carry):
            count, (value,) = carry
            return count + 1, [value * 2.0 + scale]

        count, (grown,) = builder.while_loop(lambda c: composition.sum(c[1][0]) < limit, step, (composition.zeros((), "i32"), [x]))
        return [chosen, count, grown]

    module = _function(new_context(), [TensorType((2, 3), "f32"), TensorType((), "f32")], body)
    assert '"s4tf.if"' in str(module) and '"s4tf.while"' in str(module)
    chosen, count, grown = run_function(module, "f", [X, np.float32(100.0)])
    np.testing.assert_allclose(chosen, X * X.sum())
    value, steps = X.copy(), 0
    while value.sum() < 100.0:
        value, steps = value * 2 + X.sum(), steps + 1
    assert int(count) == steps > 1
    np.testing.assert_allclose(grown, value)


def test_a_value_of_an_unrelated_builder_is_refused():
    context = new_context()
    others = []
    _function(context, [TensorType((3,), "f32")], lambda builder, x: others.append(x) or [x])
    with pytest.raises(OpOutsideBuilderError, match="does not enclose"):
        _function(context, [TensorType((3,), "f32")], lambda builder, x: [x + others[0]])


def test_ops_outside_a_builder_fail_where_only_builders_may_build():
    with only_builders("the test"), pytest.raises(OpOutsideBuilderError, match="the test built 's4tf.sin' outside an IR builder"):
        s4tf.sin(X)


def test_a_pass_that_builds_an_op_outside_a_builder_fails_instead_of_running_it(monkeypatch):
    """Before the IR builder, ``s4tf.sin`` inside a pass ran eagerly (compiled a one-op
    function and ran it) in the middle of compilation, and the pass went on."""
    ran = []

    @dataclass(frozen=True)
    class Careless(ModulePass):
        name = "test-careless"
        description = "builds an op the wrong way"

        def apply(self, module):
            ran.append(s4tf.sin(X))  # neither staged into the module nor run: an internal error

    monkeypatch.setitem(PASSES, "test-careless", Careless)
    context = new_context()
    with context:
        module = ir.Module.parse("func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> { return %x : tensor<3xf32> }")
    before = eager.cached_functions()
    with pytest.raises(ir.MLIRError) as caught:
        build_pass_manager("test-careless", context).run(module.operation)
    message = str(caught.value)
    assert "internal error in pass 'test-careless': OpOutsideBuilderError: pass 'test-careless' built 's4tf.sin'" in message
    assert not ran and eager.cached_functions() == before
    np.testing.assert_allclose(np.asarray(s4tf.sin(X)), np.sin(X), rtol=1e-6)  # eager mode is back after the pass
