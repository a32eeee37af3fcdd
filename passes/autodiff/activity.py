"""Activity analysis: which values of a function need derivative code.

A value is *varied* if it depends on a differentiated (``wrt``) argument and *useful*
if a differentiated result depends on it; only float values that are both are *active*.
The analysis also finds what cannot be differentiated: a non-differentiable op (argmax,
round, a comparison, a cast to an integer) on a path from a ``wrt`` argument to a
result, and results that do not depend on any ``wrt`` argument.

```mlir
func.func @f(%x: tensor<3xf32>) -> tensor<f32> attributes {s4tf.wrt = array<i64: 0>} {
  %i = "s4tf.argmax"(%x) ...    // error: 's4tf.argmax' is not differentiable ...
```
"""

from __future__ import annotations

from dataclasses import dataclass, field

from s4tf.dialects.op_def import OPS, lookup, read_attributes
from s4tf.dialects.types import TensorType, is_float
from s4tf.mlir import ir
from s4tf.passes.autodiff.functions import DifferentiationError, body_operations, entry_block, return_values
from s4tf.passes.diagnostics import location_text

STOP_GRADIENT_HINT = "wrap the value in s4tf.stop_gradient(...) if no derivative should flow through it"


def is_float_value(value: ir.Value) -> bool:
    return is_float(TensorType.from_mlir(value.type).dtype)


def _differentiable_operands(operation: ir.Operation) -> list[int]:
    if operation.name in OPS:
        op = lookup(operation.name)
        if op.zero_derivative:
            return []
        return [i for i in range(len(operation.operands)) if i not in op.nondifferentiable_operands]
    return list(range(len(operation.operands)))


@dataclass
class Activity:
    varied: set = field(default_factory=set)
    useful: set = field(default_factory=set)
    unvaried_results: list[int] = field(default_factory=list)

    def is_active(self, value: ir.Value) -> bool:
        return value in self.varied and value in self.useful and is_float_value(value)


def analyze(function: ir.Operation, wrt: list[int], results: list[int]) -> Activity:
    """Activity of ``function``'s values for arguments ``wrt`` and results ``results``;
    raises :class:`DifferentiationError` at the first non-differentiable op on an active
    path, with the errors of the others in its ``also``."""
    activity = Activity()
    arguments = entry_block(function).arguments
    activity.varied.update(arguments[i] for i in wrt)
    operations = body_operations(function)
    for operation in operations:
        positions = _differentiable_operands(operation)
        if any(operation.operands[i] in activity.varied for i in positions):
            activity.varied.update(operation.results)
    outputs = return_values(function)
    activity.useful.update(outputs[i] for i in results)
    for operation in reversed(operations):
        if any(r in activity.useful for r in operation.results):
            positions = _differentiable_operands(operation)
            activity.useful.update(operation.operands[i] for i in positions)
    errors = [error for error in (_differentiability_error(op, activity) for op in operations) if error]
    if errors:
        errors[0].also = errors[1:]
        raise errors[0]
    activity.unvaried_results = [i for i in results if outputs[i] not in activity.varied]
    return activity


def _differentiability_error(operation: ir.Operation, activity: Activity) -> DifferentiationError | None:
    """The error for ``operation`` if it is a non-differentiable op on an active path."""
    if operation.name not in OPS:
        return None
    op = lookup(operation.name)
    if op.zero_derivative or not any(r in activity.useful for r in operation.results):
        return None
    varied_floats = [v for v in operation.operands if v in activity.varied and is_float_value(v)]
    if not varied_floats:
        return None
    operand_types = [TensorType.from_mlir(v.type) for v in operation.operands]
    result_type = TensorType.from_mlir(operation.results[0].type)
    if op.is_differentiable(operand_types, result_type, read_attributes(op, operation)):
        return None
    return DifferentiationError(
        f"'{operation.name}' is not differentiable, but its result is used to compute a "
        f"differentiated result from a differentiated argument; {STOP_GRADIENT_HINT}",
        location_text(operation.location),
        operation.location,
    )
