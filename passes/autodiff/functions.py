"""Finding, creating and copying ``func.func``s: the plumbing the AD transforms share.

```python
builder = FunctionBuilder(module, "f_jvp", [x_type, dx_type], location)
with builder.building():
    y = composition.sin(builder.arguments[0])     # built into @f_jvp
builder.finish([y])
```
"""

from __future__ import annotations

from s4tf.dialects.ir_builder import IRBuilder, Value
from s4tf.dialects.op_def import MissingDerivativeRule
from s4tf.dialects.symbols import find_function, symbol_name as symbol_of  # noqa: F401  (the AD modules' names)
from s4tf.dialects.types import TensorType
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import func, ir
from s4tf.passes.diagnostics import location_text
from s4tf.passes.ir_walk import collect


class DifferentiationError(S4tfError):
    """Code that cannot be differentiated; ``mlir_location`` is the offending op's, and
    ``also`` holds further errors found in the same function (reported by the passes)."""

    def __init__(self, message: str, location: str | None = None, mlir_location: ir.Location | None = None):
        super().__init__(message, location)
        self.mlir_location = mlir_location
        self.also: list[DifferentiationError] = []

    def at(self, location):
        located = super().at(location)
        located.mlir_location, located.also = self.mlir_location, self.also
        return located

    @classmethod
    def at_operation(cls, message: str, operation: ir.Operation) -> "DifferentiationError":
        """The error, located at ``operation`` (a function, an op)."""
        return cls(message, location_text(operation.location), operation.location)


class MissingRuleError(DifferentiationError, MissingDerivativeRule):
    """A :class:`MissingDerivativeRule` met while differentiating an op, located at the op
    so that the passes report it there."""


def signature_problem(function: ir.Operation) -> str | None:
    """Why ``function`` cannot be differentiated as a whole (no body, types other than
    ranked tensors of static shape), or ``None``."""
    symbol = symbol_of(function)
    if len(function.regions[0].blocks) != 1:
        return f"cannot differentiate '@{symbol}': it has no body (or more than one block)"
    types = function_type(function)
    for kind, values in (("argument", types.inputs), ("result", types.results)):
        for index, value_type in enumerate(values):
            if not isinstance(value_type, ir.RankedTensorType) or not value_type.has_static_shape:
                return f"cannot differentiate '@{symbol}': its {kind} #{index} has type {value_type}; differentiation needs tensors of static shape"
    return None


def module_body(module: ir.Module | ir.Operation) -> ir.Block:
    return module.body if isinstance(module, ir.Module) else module.regions[0].blocks[0]


def function_type(function: ir.Operation) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)


def entry_block(function: ir.Operation) -> ir.Block:
    return function.regions[0].blocks[0]


def body_operations(function: ir.Operation) -> list[ir.Operation]:
    """The ops of a single-block function, terminator excluded."""
    return [op.operation for op in entry_block(function).operations][:-1]


def return_values(function: ir.Operation) -> list[ir.Value]:
    return list(list(entry_block(function).operations)[-1].operands)


def callee_of(call: ir.Operation) -> str:
    return ir.FlatSymbolRefAttr(call.attributes["callee"]).value


def holds_any(module, operations, names) -> bool:
    """Whether ``operations``, the ops nested in them or the functions of ``module`` they
    call (and those call) include an op named in ``names``."""
    for operation in operations:
        for inner in [operation, *collect(operation)]:
            if inner.name in names:
                return True
            if inner.name == "func.call":
                callee = find_function(module, callee_of(inner))
                if callee is not None and holds_any(module, body_operations(callee), names):
                    return True
    return False


class FunctionBuilder(IRBuilder):
    """A new private ``func.func`` in ``module``, filled with an IR builder."""

    def __init__(self, module: ir.Module | ir.Operation, name: str, input_types: list[TensorType], location: ir.Location):
        with location.context, location:
            with ir.InsertionPoint(module_body(module)):
                self.function = func.FuncOp(name, ir.FunctionType.get([t.to_mlir() for t in input_types], []))
            self.function.attributes["sym_visibility"] = ir.StringAttr.get("private")
            block = self.function.add_entry_block()
        super().__init__(block, location)
        self.arguments = [self.wrap(argument) for argument in block.arguments]
        self.symbol = name

    def finish(self, results: list[Value], attributes: dict | None = None) -> ir.Operation:
        """Return ``results`` and fix the function type; returns the ``func.func``."""
        with self.context, self.location, ir.InsertionPoint(self.block):
            values = [self.ir_value(r) for r in results]
            func.ReturnOp(values)
            inputs = list(function_type(self.function.operation).inputs)
            self.function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, [v.type for v in values]))
            for key, value in (attributes or {}).items():
                self.function.attributes[key] = value
        return self.function.operation
