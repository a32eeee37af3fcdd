"""Activity analysis: which values of a function need derivative code.

A value is *varied* if its derivative with respect to a differentiated (``wrt``) argument
can be nonzero, and *useful* if a differentiated result's derivative can depend on it;
only float values that are both are *active*. No derivative passes through
``stop_gradient``, through a piecewise-constant op (floor, round, sign) or into an
integer or boolean value (a comparison, argmax, a cast to an integer): their derivative
is zero almost everywhere, so their results are constants, as in JAX and PyTorch. The
masks of derivative rules (``abs``'s sign, ``maximum``'s comparison) are such constants,
which is what makes second derivatives through them work.

Such an op on a path from a ``wrt`` argument to a result is reported as a
:class:`~s4tf.core.errors.ZeroDerivativeWarning` (ignored unless enabled), or as an error in
strict mode (the passes' ``strict=true``). An op with no derivative at all (a host call)
on such a path is always an error.

```mlir
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.wrt = array<i64: 0>} {
  %0 = "s4tf.floor"(%x) ...    // zero derivative; with strict=true: error: 's4tf.floor' is piecewise constant ...
```
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from dataclasses import dataclass, field

from s4tf.dialects.op_def import OPS, lookup, read_attributes
from s4tf.dialects.types import TensorType, is_float
from s4tf.core.errors import ZeroDerivativeWarning
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import DifferentiationError, body_operations, entry_block, return_values
from s4tf.passes.diagnostics import location_text, parse_location

STOP_GRADIENT_HINT = "wrap the value in s4tf.stop_gradient(...) if no derivative should flow through it"
ZERO_HINT = "wrap its operand in s4tf.stop_gradient(...) to say that this is intended"

_STRICT = contextvars.ContextVar("s4tf_strict_derivatives", default=False)
_WARNING_REGISTRY: dict = {}  # shows each zero-derivative warning once per line, as warnings.warn does


@contextlib.contextmanager
def strict_derivatives(strict: bool = True):
    """Within this block, a piecewise-constant op on an active path is an error, not a zero."""
    token = _STRICT.set(strict)
    try:
        yield
    finally:
        _STRICT.reset(token)


def is_float_value(value: ir.Value) -> bool:
    return is_float(TensorType.from_mlir(value.type).dtype)


def _op_of(operation: ir.Operation):
    """The op's definition; ``None`` for ops of other dialects and for region ops."""
    if operation.name not in OPS:
        return None
    op = lookup(operation.name)
    return None if op.regions else op


def _dependent_operands(operation: ir.Operation) -> list[int]:
    """Operand positions the results depend on, except through ``stop_gradient``."""
    op = _op_of(operation)
    if op is None:
        return list(range(len(operation.operands)))
    if op.zero_derivative:
        return []
    return [i for i in range(len(operation.operands)) if i not in op.nondifferentiable_operands]


def _differentiable_operands(operation: ir.Operation) -> list[int]:
    """Operand positions whose derivative can reach the results."""
    op = _op_of(operation)
    return [] if op is not None and op.piecewise_constant else _dependent_operands(operation)


def _forward(operations, seeds, positions_of, floats_only: bool) -> set:
    reached = set(seeds)
    for operation in operations:
        if any(operation.operands[i] in reached for i in positions_of(operation)):
            reached.update(r for r in operation.results if not floats_only or is_float_value(r))
    return reached


def _backward(operations, seeds, positions_of, floats_only: bool) -> set:
    reached = set(seeds)
    for operation in reversed(operations):
        if any(r in reached for r in operation.results):
            operands = [operation.operands[i] for i in positions_of(operation)]
            reached.update(v for v in operands if not floats_only or is_float_value(v))
    return reached


@dataclass
class Activity:
    varied: set = field(default_factory=set)
    useful: set = field(default_factory=set)
    unvaried_results: list[int] = field(default_factory=list)
    #: Piecewise-constant ops on a path from a ``wrt`` argument to a result, as diagnostics.
    zeroed: list[DifferentiationError] = field(default_factory=list)

    def is_active(self, value: ir.Value) -> bool:
        return value in self.varied and value in self.useful and is_float_value(value)

    def warn_zero_derivatives(self) -> None:
        """A :class:`ZeroDerivativeWarning` at each op of ``zeroed``, whose text starts with
        the op's ``file:line`` (an error raised from it says where); ignored unless a filter
        names the category (its docstring says how)."""
        if not any(f[2] is ZeroDerivativeWarning for f in warnings.filters):
            warnings.filterwarnings("ignore", category=ZeroDerivativeWarning, append=True)
        for diagnostic in self.zeroed:
            file, line, _ = parse_location(diagnostic.mlir_location)
            warnings.warn_explicit(
                str(diagnostic), ZeroDerivativeWarning, file or "<unknown>", line or 0, registry=_WARNING_REGISTRY
            )


def analyze(function: ir.Operation, wrt: list[int], results: list[int]) -> Activity:
    """Activity of ``function``'s values for arguments ``wrt`` and results ``results``;
    raises :class:`DifferentiationError` at the first non-differentiable op on a path
    from one to the other (in strict mode also at a piecewise-constant one), with the
    errors of the others in its ``also``."""
    arguments = entry_block(function).arguments
    operations = body_operations(function)
    outputs = return_values(function)
    seeds, targets = [arguments[i] for i in wrt], [outputs[i] for i in results]
    activity = Activity(
        varied=_forward(operations, seeds, _differentiable_operands, floats_only=True),
        useful=_backward(operations, targets, _differentiable_operands, floats_only=True),
    )
    dependent = _forward(operations, seeds, _dependent_operands, floats_only=False)
    needed = _backward(operations, targets, _dependent_operands, floats_only=False)
    diagnostics = []  # (piecewise constant?, error), in the order of the ops
    for operation in operations:
        op = _op_of(operation)
        on_path = any(r in needed for r in operation.results) and any(
            v in dependent and is_float_value(v) for v in operation.operands
        )
        if op is None or op.zero_derivative or not on_path:
            continue
        if not _is_differentiable(op, operation):
            diagnostics.append((False, _located(operation, (
                f"'{operation.name}' is not differentiable, but its result is used to compute a "
                f"differentiated result from a differentiated argument; {STOP_GRADIENT_HINT}"
            ))))
        elif op.piecewise_constant or not all(is_float_value(r) for r in operation.results):
            diagnostics.append((True, _located(
                operation, f"'{operation.name}' is piecewise constant: the derivative through it is zero; {ZERO_HINT}"
            )))
    activity.zeroed = [error for zero, error in diagnostics if zero]
    strict = _STRICT.get()
    errors = [error for zero, error in diagnostics if strict or not zero]
    if errors:
        errors[0].also = errors[1:]
        raise errors[0]
    activity.unvaried_results = [i for i in results if outputs[i] not in dependent]
    return activity


def _is_differentiable(op, operation: ir.Operation) -> bool:
    operand_types = [TensorType.from_mlir(v.type) for v in operation.operands]
    result_type = TensorType.from_mlir(operation.results[0].type) if len(operation.results) else None
    return op.is_differentiable(operand_types, result_type, read_attributes(op, operation))


def _located(operation: ir.Operation, message: str) -> DifferentiationError:
    return DifferentiationError(message, location_text(operation.location), operation.location)
