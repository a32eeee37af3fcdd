"""Transposition: from a linear function ``@f_lin(residuals..., dx...) -> dy...`` build
``@f_vjp_bwd(residuals..., ct_dy...) -> ct_dx...``.

Ops that do not touch the linear arguments are copied; the linear ops are walked in
reverse, each op's transpose rule turning its result's cotangent into cotangents for its
linear operands; contributions to one value are summed, except that reads of parts of a
value (``slice``) add into its one cotangent buffer in place (``transpose_into``); the
rows a ``scan``'s loop sets in its output stack keep their cotangent, which no other
iteration reads (``SCAN_OUTPUT`` in ``dialects/control_flow.py``), rather than clearing it.
A call of another linear function becomes a call of that function's transpose (its
``s4tf.transpose`` symbol).
"""

from __future__ import annotations

from s4tf.dialects import composition
from s4tf.dialects.control_flow import SCAN_OUTPUT
from s4tf.dialects.op_def import MissingDerivativeRule, lookup, read_attributes
from s4tf.dialects.types import TensorType, to_numpy_dtype
from s4tf.core.mlir import ir
from s4tf.passes.diagnostics import location_text
from s4tf.passes.autodiff.functions import (
    DifferentiationError,
    FunctionBuilder,
    MissingRuleError,
    body_operations,
    callee_of,
    entry_block,
    find_function,
    function_type,
    return_values,
)
from s4tf.passes.autodiff.naming import LINEAR_ARGS, TRANSPOSE, read_indices
from s4tf.passes.function_transform import FunctionTransform


class LinearOperand:
    """Stands for a linear operand in a transpose rule: only its type is known."""

    def __init__(self, value: ir.Value):
        self.tensor_type = TensorType.from_mlir(value.type)
        self.shape = self.tensor_type.shape
        self.dtype = to_numpy_dtype(self.tensor_type.dtype)


def transposed(module, lin_symbol: str, seeded: list[int] | None = None) -> str:
    """The symbol of ``lin_symbol``'s transpose, built if missing. ``seeded``: the results
    given a cotangent (default all); the others' are zero, and are left out rather than
    passed as zeros, which a rule's infinite factor would make NaN (``0 * inf``)."""
    lin = find_function(module, lin_symbol)
    name = ir.FlatSymbolRefAttr(lin.attributes[TRANSPOSE]).value
    every = list(range(len(function_type(lin).results)))
    seeded = every if seeded is None else list(seeded)
    if seeded != every:
        name = f"{name}_ct_{'_'.join(str(i) for i in seeded)}"
    if find_function(module, name) is None:
        _Transposer(module, lin).build(name, seeded)
    return name


class _Transposer(FunctionTransform):
    """The linear ops walked backwards, each handing its result's cotangent to its linear
    operands (``cotangents``); the others are copied first (``values``)."""

    def __init__(self, module, lin: ir.Operation):
        self.module = module
        self.lin = lin
        arguments = list(entry_block(lin).arguments)
        linear_indices = read_indices(lin, LINEAR_ARGS)
        self.linear_arguments = [arguments[i] for i in linear_indices]
        self.other_arguments = [a for i, a in enumerate(arguments) if i not in linear_indices]
        self.linear = set(self.linear_arguments)
        self.operations = body_operations(lin)
        for operation in self.operations:
            if any(v in self.linear for v in operation.operands):
                self.linear.update(operation.results)

    def build(self, name: str, seeded: list[int]) -> None:
        result_types = [TensorType.from_mlir(t) for t in function_type(self.lin).results]
        input_types = [TensorType.from_mlir(a.type) for a in self.other_arguments] + [result_types[i] for i in seeded]
        self.builder = builder = FunctionBuilder(self.module, name, input_types, self.lin.location)
        self.values = dict(zip(self.other_arguments, builder.arguments))
        self.cotangents = {}
        for operation in self.operations:
            if not self._is_linear(operation):
                builder.clone(operation, self.values)
        seeds = builder.arguments[len(self.other_arguments):]
        results = return_values(self.lin)
        for value, seed in zip([results[i] for i in seeded], seeds):
            if value in self.linear:
                self._accumulate(value, seed, self.lin.location)
        self.walk([operation for operation in reversed(self.operations) if self._is_linear(operation)])
        with builder.building():
            outputs = [composition.zeros_unless(self.cotangents.get(a), LinearOperand(a)) for a in self.linear_arguments]
        with self.lin.context:
            builder.finish(outputs)

    def _is_linear(self, operation) -> bool:
        return any(r in self.linear for r in operation.results)

    def _accumulate(self, value, contribution, location) -> None:
        if contribution is None:
            return
        target = LinearOperand(value)
        with self.builder.building(location):
            contribution = composition.astype(composition.broadcast_to(contribution, target.shape), target.dtype)
            previous = self.cotangents.get(value)
            self.cotangents[value] = contribution if previous is None else previous + contribution

    def _result_cotangents(self, operation) -> list | None:
        """The cotangents of ``operation``'s results; ``None`` where none reached it."""
        cotangents = [self.cotangents.get(r) for r in operation.results]
        return None if all(c is None for c in cotangents) else cotangents

    def _linear_flags(self, operation) -> list[bool]:
        return [v in self.linear for v in operation.operands]

    def call(self, index, operation):
        cotangents = self._result_cotangents(operation)
        if cotangents is not None:
            self._contribute(operation, self._transpose_call(operation, cotangents, self._linear_flags(operation)))

    def op(self, index, operation):
        cotangents = self._result_cotangents(operation)
        if cotangents is None:
            return
        linear_flags = self._linear_flags(operation)
        op = lookup(operation.name)
        operands = [LinearOperand(v) if flag else self.values[v] for v, flag in zip(operation.operands, linear_flags)]
        attributes = read_attributes(op, operation)
        if op.transpose_into is not None:
            self._transpose_into(op, operation, cotangents[0], operands, attributes)
            return
        kept = SCAN_OUTPUT in operation.attributes and linear_flags[0]  # rows no other iteration reads
        with self.builder.building(operation.location):
            try:
                contributions = op.transpose(composition, cotangents[0], operands,
                                             [False, *linear_flags[1:]] if kept else linear_flags, **attributes)
            except MissingDerivativeRule as error:
                raise MissingRuleError(error.message, location_text(operation.location), operation.location) from None
        if kept:
            contributions = [cotangents[0], *contributions[1:]]
        self._contribute(operation, contributions)

    def unsupported(self, operation):
        return DifferentiationError(f"'{operation.name}' cannot be transposed", location_text(operation.location), operation.location)

    def _contribute(self, operation, contributions) -> None:
        for value, flag, contribution in zip(operation.operands, self._linear_flags(operation), contributions):
            if flag:
                self._accumulate(value, contribution, operation.location)

    def _transpose_into(self, op, operation, cotangent, operands, attributes) -> None:
        """A read of part of its first operand (the others are indices, never linear): its
        contribution goes into that value's cotangent."""
        value = operation.operands[0]
        with self.builder.building(operation.location):
            self.cotangents[value] = op.transpose_into(composition, self.cotangents.get(value), cotangent, operands, **attributes)

    def _transpose_call(self, operation, cotangents, linear_flags):
        callee = find_function(self.module, callee_of(operation))
        if callee is None or TRANSPOSE not in callee.attributes:
            raise DifferentiationError(
                f"call of '@{callee_of(operation)}' is not a linear function that can be transposed",
                location_text(operation.location), operation.location,
            )
        if callee.regions[0].blocks:
            seeded = [i for i, c in enumerate(cotangents) if c is not None]
            name = transposed(self.module, callee_of(operation), seeded)
            seeds = [cotangents[i] for i in seeded]
        else:  # a declared linear map (custom rule, control flow): its transpose takes every cotangent
            name = transposed(self.module, callee_of(operation))
            with self.builder.building(operation.location):
                seeds = [composition.zeros_unless(c, LinearOperand(r)) for r, c in zip(operation.results, cotangents)]
        others = [self.values[v] for v, flag in zip(operation.operands, linear_flags) if not flag]
        linear_types = [TensorType.from_mlir(v.type) for v, flag in zip(operation.operands, linear_flags) if flag]
        outputs = iter(self.builder.call(name, others + seeds, linear_types, operation.location))
        return [next(outputs) if flag else None for flag in linear_flags]
