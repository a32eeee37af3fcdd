"""Linearization: split a JVP into its primal part and its linear (tangent) part.

``@f_linearize(x..., dx...) -> (y..., dy...)`` becomes

- ``@f_vjp_fwd(x...) -> (y..., residuals...)``: every op that does not depend on a tangent;
- ``@f_lin(residuals..., dx...) -> (dy...)``: the ops that do; they are linear in ``dx``.

Residuals are the primal values the linear part reads (constants are copied rather than
passed). A call of another function's linearization is split the same way, recursively.
This is JAX's partial evaluation, done on MLIR functions.
"""

from __future__ import annotations

from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import (
    FunctionBuilder,
    body_operations,
    callee_of,
    entry_block,
    find_function,
    function_type,
    return_values,
)
from s4tf.passes.autodiff.jvp import jvp_function
from s4tf.passes.autodiff.naming import JVP_OF, LINEAR_ARGS, TRANSPOSE, WRT, derivative_symbol, indices_attribute, read_indices


def linearized(module, symbol: str, wrt: list[int]) -> tuple[str, str]:
    """``(fwd, lin)`` symbols for ``symbol`` wrt ``wrt``, built if either is missing (symbol-dce
    and inline drop ``lin``, which nothing calls: both are built again)."""
    primal = find_function(module, symbol)
    fwd_name = derivative_symbol(primal, symbol, "vjp_fwd", wrt)
    lin_name = derivative_symbol(primal, symbol, "lin", wrt)
    fwd, lin = find_function(module, fwd_name), find_function(module, lin_name)
    if fwd is None or lin is None:
        if fwd is not None:
            fwd.erase()
        jvp = find_function(module, jvp_function(module, symbol, wrt, linearizing=True))
        bwd_name = derivative_symbol(primal, symbol, "vjp_bwd", wrt)
        with primal.context:
            transpose = {TRANSPOSE: ir.FlatSymbolRefAttr.get(bwd_name)}
        Splitter(module, jvp, len(list(function_type(primal).results))).split(fwd_name, lin_name, transpose)
    return fwd_name, lin_name


def _is_constant_like(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.OpView) and len(owner.operation.operands) == 0 and owner.operation.name != "func.call"


class Splitter:
    def __init__(self, module, jvp: ir.Operation, primal_result_count: int, tangent_count: int | None = None):
        """``tangent_count``: how many trailing arguments are tangents (default: one per ``s4tf.wrt`` entry)."""
        self.module = module
        self.jvp = jvp
        self.primal_result_count = primal_result_count
        arguments = entry_block(jvp).arguments
        tangent_count = len(read_indices(jvp, WRT)) if tangent_count is None else tangent_count
        self.primal_arguments = list(arguments)[: len(arguments) - tangent_count]
        self.tangent_arguments = list(arguments)[len(self.primal_arguments):]
        self.operations = body_operations(jvp)

    def _split_call(self, operation):
        """For a call of another linearization: ``(callee fwd, callee lin, primal result count)``."""
        callee = find_function(self.module, callee_of(operation))
        if callee is None or JVP_OF not in callee.attributes:
            return None
        base = ir.FlatSymbolRefAttr(callee.attributes[JVP_OF]).value
        wrt = read_indices(callee, WRT)
        fwd, lin = linearized(self.module, base, wrt)
        primal_count = len(list(function_type(find_function(self.module, base)).results))
        return fwd, lin, primal_count, len(wrt)

    def split(self, fwd_name: str, lin_name: str, lin_attributes: dict) -> None:
        location = self.jvp.location
        primal_types = [TensorType.from_mlir(a.type) for a in self.primal_arguments]
        fwd = FunctionBuilder(self.module, fwd_name, primal_types, location)
        fwd_map = dict(zip(self.primal_arguments, fwd.arguments))
        linear = set(self.tangent_arguments)
        call_residuals = {}
        split_calls = {}
        for index, operation in enumerate(self.operations):
            touches_tangent = any(v in linear for v in operation.operands)
            split = self._split_call(operation) if operation.name == "func.call" and touches_tangent else None
            if split is not None:
                callee_fwd, callee_lin, primal_count, tangent_count = split
                split_calls[index] = split
                primal_operands = list(operation.operands)[: len(operation.operands) - tangent_count]
                callee_fwd_type = function_type(find_function(self.module, callee_fwd))
                outputs = fwd.call(
                    callee_fwd, [fwd_map[v] for v in primal_operands],
                    [TensorType.from_mlir(t) for t in callee_fwd_type.results], operation.location,
                )
                for old, new in zip(list(operation.results)[:primal_count], outputs):
                    fwd_map[old] = new
                call_residuals[index] = outputs[primal_count:]
                linear.update(list(operation.results)[primal_count:])
            elif touches_tangent:
                linear.update(operation.results)
            else:
                fwd.clone(operation, fwd_map)

        residuals = self._residuals(linear, split_calls, call_residuals)
        residual_values = [call_residuals[k[1]][k[2]] if isinstance(k, tuple) else fwd_map[k] for k in residuals]
        outputs = return_values(self.jvp)
        with location.context:
            fwd.finish([fwd_map[v] for v in outputs[: self.primal_result_count]] + residual_values)

        residual_types = [TensorType.from_mlir(v.value.type) for v in residual_values]
        tangent_types = [TensorType.from_mlir(a.type) for a in self.tangent_arguments]
        lin = FunctionBuilder(self.module, lin_name, residual_types + tangent_types, location)
        lin_map = dict(zip(self.tangent_arguments, lin.arguments[len(residuals):]))
        residual_args = dict(zip(residuals, lin.arguments[: len(residuals)]))
        lin_map.update({k: v for k, v in residual_args.items() if not isinstance(k, tuple)})
        for index, operation in enumerate(self.operations):
            if index in split_calls:
                callee_fwd, callee_lin, primal_count, tangent_count = split_calls[index]
                tangent_operands = list(operation.operands)[len(operation.operands) - tangent_count:]
                callee_residuals = [residual_args[("call", index, k)] for k in range(len(call_residuals[index]))]
                tangent_results = list(operation.results)[primal_count:]
                new = lin.call(
                    callee_lin, callee_residuals + [self._lin_value(lin, lin_map, v) for v in tangent_operands],
                    [TensorType.from_mlir(r.type) for r in tangent_results], operation.location,
                )
                lin_map.update(zip(tangent_results, new))
            elif any(r in linear for r in operation.results):
                for operand in operation.operands:
                    self._lin_value(lin, lin_map, operand)
                lin.clone(operation, lin_map)
        tangent_outputs = [self._lin_value(lin, lin_map, v) for v in outputs[self.primal_result_count:]]
        with location.context:
            linear_args = indices_attribute(range(len(residuals), len(residuals) + len(tangent_types)))
            lin.finish(tangent_outputs, {LINEAR_ARGS: linear_args, **lin_attributes})

    def _residuals(self, linear, split_calls, call_residuals) -> list:
        """Keys of the primal values the linear part reads, in first-use order."""
        keys = []

        def need(value):
            if value not in linear and not _is_constant_like(value) and value not in keys:
                keys.append(value)

        for index, operation in enumerate(self.operations):
            if index in split_calls:
                keys.extend(("call", index, k) for k in range(len(call_residuals[index])))
            elif any(r in linear for r in operation.results):
                for operand in operation.operands:
                    need(operand)
        for value in return_values(self.jvp)[self.primal_result_count:]:
            need(value)
        return keys

    def _lin_value(self, lin, lin_map, value):
        """``value`` inside the linear function: mapped, or a constant copied on first use."""
        if value not in lin_map:
            lin.clone(value.owner.operation, lin_map)
        return lin_map[value]
