"""Finding, creating and copying ``func.func``s: the plumbing the AD transforms share.

```python
builder = FunctionBuilder(module, "f_jvp", [x_type, dx_type], location)
with builder.staging() as scope:
    y = s4tf.sin(scope_args[0])            # staged into @f_jvp
builder.finish([y])
```
"""

from __future__ import annotations

import contextlib

from s4tf.dialects.op_def import MissingDerivativeRule
from s4tf.dialects.types import TensorType
from s4tf.errors import S4tfError
from s4tf.mlir import func, ir
from s4tf.passes.diagnostics import location_text
from s4tf.tensor import Tracer
from s4tf.tracing import FunctionScope, staging_into


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


def symbol_of(function: ir.Operation) -> str:
    return ir.StringAttr(function.attributes["sym_name"]).value


def find_function(module: ir.Module | ir.Operation, symbol: str) -> ir.Operation | None:
    body = module.body if isinstance(module, ir.Module) else module.regions[0].blocks[0]
    for operation in body.operations:
        if operation.operation.name == "func.func" and symbol_of(operation.operation) == symbol:
            return operation.operation
    return None


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


class FunctionBuilder:
    """A new private ``func.func`` in ``module``, filled by staging ``s4tf`` calls into it."""

    def __init__(self, module: ir.Module | ir.Operation, name: str, input_types: list[TensorType], location: ir.Location):
        self.context = location.context
        self.location = location
        with self.context, location:
            with ir.InsertionPoint(module_body(module)):
                self.function = func.FuncOp(name, ir.FunctionType.get([t.to_mlir() for t in input_types], []))
            self.function.attributes["sym_visibility"] = ir.StringAttr.get("private")
            self.block = self.function.add_entry_block()
        self.scope = FunctionScope(self.context, self.block, location=location)
        self.arguments = [self.scope.tracer(argument) for argument in self.block.arguments]
        self.symbol = name

    @contextlib.contextmanager
    def staging(self, location: ir.Location | None = None):
        """Stage s4tf calls into this function, with ``location`` on the new ops."""
        previous = self.scope.location
        self.scope.location = location or self.location
        try:
            with staging_into(self.scope):
                yield self.scope
        finally:
            self.scope.location = previous

    def clone(self, operation: ir.Operation, value_map: dict) -> ir.Operation:
        """Copy ``operation`` (no regions) to the end of this function, operands remapped."""
        with self.context, ir.InsertionPoint(self.block):
            copy = operation.clone()
        for index, operand in enumerate(operation.operands):
            copy.operands[index] = value_map[operand].value
        for old, new in zip(operation.results, copy.results):
            value_map[old] = self.scope.tracer(new)
        return copy

    def call(self, callee: str, operands: list[Tracer], result_types: list[TensorType], location: ir.Location) -> list[Tracer]:
        return self.scope.call(callee, operands, result_types, location)

    def finish(self, results: list[Tracer], attributes: dict | None = None) -> ir.Operation:
        """Return ``results`` and fix the function type; returns the ``func.func``."""
        with self.context, self.location, ir.InsertionPoint(self.block):
            func.ReturnOp([r.value for r in results])
            inputs = list(function_type(self.function.operation).inputs)
            self.function.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(inputs, [r.value.type for r in results])
            )
            for key, value in (attributes or {}).items():
                self.function.attributes[key] = value
        return self.function.operation
