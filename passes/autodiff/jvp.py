"""Forward mode: from ``@f`` build ``@f_jvp(x..., dx...) -> (y..., dy...)``.

Each active op is copied and followed by its JVP rule, staged right after it with the
op's own location; inactive ops are copied alone. A call of another function becomes a
call of that function's JVP, generated on demand (not inlined).

```mlir
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> { %0 = "s4tf.sin"(%x) ... }
// s4tf-jvp adds
func.func private @f_jvp(%x: tensor<3xf32>, %dx: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = "s4tf.sin"(%x)   %1 = "s4tf.cos"(%x)   %2 = "s4tf.mul"(%dx, %1)
  return %0, %2
}
```
"""

from __future__ import annotations

from s4tf.dialects import composition
from s4tf.dialects.control_flow import mark_scan_output_tangent
from s4tf.dialects.op_def import MissingDerivativeRule, lookup, read_attributes
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.autodiff import custom, rematerialize as remat
from s4tf.passes.autodiff.activity import analyze
from s4tf.passes.diagnostics import location_text
from s4tf.passes.autodiff.region_derivatives import region_jvp
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
    signature_problem,
)
from s4tf.passes.autodiff.naming import (
    JVP_OF, SEEDED, WRT, derivative_symbol, float_results, indices_attribute, is_marked, read_indices,
)
from s4tf.passes.function_transform import FunctionTransform
from s4tf.passes.registry import emit_warning


def jvp_function(module, symbol: str, wrt: list[int], linearizing: bool = False) -> str:
    """The symbol of ``symbol``'s JVP wrt arguments ``wrt``, built if missing.

    ``linearizing`` builds the variant used for reverse mode. A function with a custom
    derivative rule (``custom.py``) gets its JVP from the rule, not from its body.
    """
    primal = _lookup(module, symbol)
    name = derivative_symbol(primal, symbol, "linearize" if linearizing else "jvp", wrt)
    if find_function(module, name) is None:
        if custom.has_custom_rule(primal, linearizing):
            custom.build_jvp(module, primal, symbol, name, list(wrt), linearizing)
        elif linearizing and remat.is_remat(primal):
            remat.build_linearization(module, primal, symbol, name, list(wrt))
        else:
            _build(module, primal, symbol, name, list(wrt), linearizing)
    return name


def _lookup(module, symbol: str) -> ir.Operation:
    function = find_function(module, symbol)
    if function is None:
        raise DifferentiationError(f"cannot differentiate '@{symbol}': no such function in the module")
    problem = signature_problem(function)
    if problem:
        raise DifferentiationError.at_operation(problem, function)
    return function


def _build(module, primal, symbol, name, wrt, linearizing):
    types = function_type(primal)
    input_types = [TensorType.from_mlir(t) for t in types.inputs]
    results = float_results(primal)
    activity = analyze(primal, wrt, results)
    activity.warn_zero_derivatives()
    if is_marked(primal):  # a callee, a branch or a derivative function may well return a constant
        seeded = read_indices(primal, SEEDED) if SEEDED in primal.attributes else None
        for index in (i for i in activity.unvaried_results if seeded is None or i in seeded):
            emit_warning(
                primal.location,
                f"result #{index} of '@{symbol}' does not depend on any differentiated argument; its derivative is zero",
            )
    builder = FunctionBuilder(module, name, input_types + [input_types[i] for i in wrt], primal.location)
    arguments = entry_block(primal).arguments
    walker = _Forward(module, builder, activity, (symbol, name), linearizing)
    walker.values.update(zip(arguments, builder.arguments))
    walker.tangents.update({arguments[i]: builder.arguments[len(input_types) + k] for k, i in enumerate(wrt)})
    walker.walk(body_operations(primal))
    outputs = return_values(primal)
    with builder.building():
        result_tangents = [composition.zeros_unless(walker.tangents.get(outputs[i]), walker.values[outputs[i]]) for i in results]
    with primal.context:
        builder.finish(
            [walker.values[v] for v in outputs] + result_tangents,
            {JVP_OF: ir.FlatSymbolRefAttr.get(symbol), WRT: indices_attribute(wrt)},
        )


class _Forward(FunctionTransform):
    """Each active op copied and followed by its JVP rule; the others copied alone.
    ``values``: the primals, ``tangents``: the tangents (absent: zero)."""

    def __init__(self, module, builder, activity, symbols: tuple[str, str], linearizing: bool):
        self.module, self.builder, self.activity = module, builder, activity
        self.symbols, self.linearizing = symbols, linearizing
        self.values, self.tangents = {}, {}

    def _operand_tangents(self, operation) -> list:
        return [self.tangents.get(v) for v in operation.operands]

    def copied(self, operation):
        return not (
            any(t is not None for t in self._operand_tangents(operation))
            and any(self.activity.is_active(r) for r in operation.results)
        )

    def call(self, index, operation):
        _call_jvp(self.module, self.builder, operation, self._operand_tangents(operation), self.values, self.tangents, self.linearizing)

    def region(self, index, operation):
        prefixes = tuple(f"{symbol}_r{index}" for symbol in self.symbols)
        region_jvp(self.module, self.builder, operation, prefixes, self._operand_tangents(operation), self.values, self.tangents, self.linearizing)

    def op(self, index, operation):
        _op_jvp(self.builder, operation, self._operand_tangents(operation), self.values, self.tangents)

    def unsupported(self, operation):
        return DifferentiationError(f"'{operation.name}' cannot be differentiated", location_text(operation.location), operation.location)


def _op_jvp(builder, operation, tangents, primal_map, tangent_map):
    op = lookup(operation.name)
    attrs = read_attributes(op, operation)
    positions = [i for i in range(len(tangents)) if i not in op.nondifferentiable_operands]
    tangents = [t if i in positions else None for i, t in enumerate(tangents)]
    with builder.building(operation.location):
        (result,) = builder.emit(operation.name, [primal_map[v] for v in operation.operands], attrs)
        primal_map[operation.results[0]] = result
        try:
            tangent = op.jvp(composition, [primal_map[v] for v in operation.operands], tangents, result, **attrs)
        except MissingDerivativeRule as error:
            raise MissingRuleError(error.message, location_text(operation.location), operation.location) from None
        if tangent is not None:
            mark_scan_output_tangent(operation, tangent)
            tangent = composition.astype(composition.broadcast_to(tangent, result.shape), result.dtype)
    if tangent is not None:
        tangent_map[operation.results[0]] = tangent


def _call_jvp(module, builder, operation, tangents, primal_map, tangent_map, linearizing):
    callee = callee_of(operation)
    callee_wrt = [i for i, t in enumerate(tangents) if t is not None]
    primals = [primal_map[v] for v in operation.operands]
    active_tangents = [tangents[i] for i in callee_wrt]
    callee_function = _lookup(module, callee)
    result_types = [TensorType.from_mlir(r.type) for r in operation.results]
    differentiated = float_results(callee_function)
    tangent_types = [result_types[i] for i in differentiated]
    name = jvp_function(module, callee, callee_wrt, linearizing)
    outputs = builder.call(name, primals + active_tangents, result_types + tangent_types, operation.location)
    for old, new in zip(operation.results, outputs):
        primal_map[old] = new
    for index, tangent in zip(differentiated, outputs[len(result_types):]):
        tangent_map[operation.results[index]] = tangent
