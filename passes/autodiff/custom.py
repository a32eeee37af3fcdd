"""Custom derivatives (S4TF's ``@derivative(of:)``): a user's rule replaces the derivative
of a function, and differentiation does not look into the function's body.

A function ``@g`` may carry either attribute, or both:

- ``s4tf.custom_jvp = @rule``, ``(x..., dx...) -> (y..., dy...)`` (one ``dx`` per float
  argument, one ``dy`` per float result). ``@g_jvp`` is a copy of the rule's body, with
  zeros for the tangents of arguments not differentiated. Reverse mode linearizes and
  transposes that copy, so ``dy`` must be linear in ``dx``.
- ``s4tf.custom_vjp = @rule``, ``(x..., ct...) -> (y..., ct_x...)`` (one ``ct`` per float
  result, one ``ct_x`` per float argument). Split by what depends on ``ct``, it gives
  ``@g_custom_fwd(x...) -> (y..., residuals...)`` and
  ``@g_custom_bwd(residuals..., ct...) -> ct_x...``. Reverse mode linearizes ``g`` as

  ```mlir
  func.func private @g_linearize(%x, %dx) {
    %y, %r = call @g_custom_fwd(%x)
    %dy = call @g_custom_lin(%r, %dx)      // declared only: a linear map known by its transpose
    return %y, %dy
  }
  func.func private @g_custom_lin(...) attributes {s4tf.transpose = @g_custom_lin_transpose}
  func.func private @g_custom_lin_transpose(%r, %ct) { call @g_custom_bwd(%r, %ct) ... }
  ```

Forward mode uses the JVP rule, else differentiates the body; reverse mode uses the VJP
rule, else the JVP rule, else the body.
"""

from __future__ import annotations

from s4tf.dialects import composition
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import func, ir
from s4tf.passes.autodiff.functions import (
    DifferentiationError,
    FunctionBuilder,
    body_operations,
    entry_block,
    find_function,
    function_type,
    module_body,
    return_values,
    symbol_of,
)
from s4tf.passes.autodiff.naming import (
    CUSTOM_JVP,
    CUSTOM_VJP,
    JVP_OF,
    LINEAR_ARGS,
    TRANSPOSE,
    WRT,
    derivative_symbol,
    float_arguments,
    float_results,
    indices_attribute,
)


def has_custom_rule(function: ir.Operation, linearizing: bool) -> bool:
    """Whether ``function``'s JVP (``linearizing``: its linearization) comes from a custom rule."""
    return CUSTOM_JVP in function.attributes or (linearizing and CUSTOM_VJP in function.attributes)


def build_jvp(module, function: ir.Operation, symbol: str, name: str, wrt: list[int], linearizing: bool) -> None:
    """Build ``@name(x..., dx[wrt]...) -> (y..., dy...)`` for ``function`` from its custom rule."""
    if linearizing and CUSTOM_VJP in function.attributes:
        _linearize_with_vjp_rule(module, function, symbol, name, wrt)
    else:
        _copy_jvp_rule(module, function, symbol, name, wrt)


def _types(types) -> list[TensorType]:
    return [TensorType.from_mlir(t) for t in types]


def _rule(module, function: ir.Operation, attribute: str, tangent_inputs: list[int], tangent_outputs: list[int]):
    """The rule ``function`` names in ``attribute``, checked to have the type
    ``(inputs..., inputs[tangent_inputs]...) -> (results..., results[tangent_outputs]...)``
    where inputs and results are those of ``function``, or of ``function`` with them swapped
    for a VJP rule."""
    try:
        symbol = ir.FlatSymbolRefAttr(function.attributes[attribute]).value
    except ValueError:
        raise DifferentiationError.at_operation(
            f"'{attribute}' of '@{symbol_of(function)}' must name a function (@rule), not {function.attributes[attribute]}", function
        ) from None
    rule = find_function(module, symbol)
    if rule is None or not rule.regions[0].blocks:
        raise DifferentiationError.at_operation(
            f"'{attribute}' of '@{symbol_of(function)}' names '@{symbol}', which is not a defined function", function
        )
    types = function_type(function)
    inputs, results = list(types.inputs), list(types.results)
    is_vjp = attribute == CUSTOM_VJP
    expected = ir.FunctionType.get(
        inputs + [(results if is_vjp else inputs)[i] for i in tangent_inputs],
        results + [(inputs if is_vjp else results)[i] for i in tangent_outputs],
        context=function.context,
    )
    if function_type(rule) != expected:
        raise DifferentiationError.at_operation(
            f"the {'VJP' if is_vjp else 'JVP'} rule '@{symbol}' of '@{symbol_of(function)}' has type "
            f"{function_type(rule)}, expected {expected}",
            function,
        )
    return rule


def _finish_jvp(builder: FunctionBuilder, outputs, symbol: str, wrt: list[int]) -> None:
    with builder.context:
        builder.finish(outputs, {JVP_OF: ir.FlatSymbolRefAttr.get(symbol), WRT: indices_attribute(wrt)})


def _copy_jvp_rule(module, function, symbol, name, wrt) -> None:
    floats = float_arguments(function)
    rule = _rule(module, function, CUSTOM_JVP, floats, float_results(function))
    inputs = _types(function_type(function).inputs)
    builder = FunctionBuilder(module, name, inputs + [inputs[i] for i in wrt], function.location)
    rule_arguments = list(entry_block(rule).arguments)
    values = dict(zip(rule_arguments, builder.arguments[: len(inputs)]))
    with builder.building():
        for k, i in enumerate(floats):
            tangent = builder.arguments[len(inputs) + wrt.index(i)] if i in wrt else composition.zeros(inputs[i].shape, inputs[i].dtype)
            values[rule_arguments[len(inputs) + k]] = tangent
    for operation in body_operations(rule):
        builder.clone(operation, values)
    _finish_jvp(builder, [values[v] for v in return_values(rule)], symbol, wrt)


def custom_halves(module, function: ir.Operation) -> tuple[str, str]:
    """``(fwd, bwd)`` symbols of ``function``'s VJP rule, split on first use."""
    from s4tf.passes.autodiff.linearize import Splitter  # linearize -> jvp -> this module

    symbol = symbol_of(function)
    fwd_name, bwd_name = f"{symbol}_custom_fwd", f"{symbol}_custom_bwd"
    if find_function(module, fwd_name) is None:
        cotangents = float_results(function)
        rule = _rule(module, function, CUSTOM_VJP, cotangents, float_arguments(function))
        primal_results = len(list(function_type(function).results))
        Splitter(module, rule, primal_results, tangent_count=len(cotangents)).split(fwd_name, bwd_name, {})
    return fwd_name, bwd_name


def _linearize_with_vjp_rule(module, function, symbol, name, wrt) -> None:
    fwd_name, bwd_name = custom_halves(module, function)
    inputs = _types(function_type(function).inputs)
    results = _types(function_type(function).results)
    fwd_results = _types(function_type(find_function(module, fwd_name)).results)
    residual_types = fwd_results[len(results):]
    tangent_types = [results[i] for i in float_results(function)]
    location = function.location

    builder = FunctionBuilder(module, name, inputs + [inputs[i] for i in wrt], location)
    outputs = builder.call(fwd_name, builder.arguments[: len(inputs)], fwd_results, location)
    lin_name = derivative_symbol(function, symbol, "custom_lin", wrt)
    if find_function(module, lin_name) is None:
        _declare_linear_map(module, function, wrt, lin_name, bwd_name, residual_types, tangent_types)
    tangents = builder.call(lin_name, outputs[len(results):] + builder.arguments[len(inputs):], tangent_types, location)
    _finish_jvp(builder, outputs[: len(results)] + tangents, symbol, wrt)


def _declare_linear_map(module, function, wrt, lin_name, bwd_name, residual_types, tangent_types) -> None:
    """Declare ``@lin(residuals..., dx[wrt]...) -> dy...``, whose transpose is the rule's
    backward half restricted to ``wrt``."""
    inputs = _types(function_type(function).inputs)
    location = function.location
    transpose_name = f"{lin_name}_transpose"
    declare_linear_map(
        module, lin_name, residual_types + [inputs[i] for i in wrt], tangent_types,
        range(len(residual_types), len(residual_types) + len(wrt)), transpose_name, location,
    )

    transpose = FunctionBuilder(module, transpose_name, residual_types + tangent_types, location)
    floats = float_arguments(function)
    all_cotangents = transpose.call(
        bwd_name, transpose.arguments, [inputs[i] for i in floats], location
    )
    with location.context:
        transpose.finish([all_cotangents[floats.index(i)] for i in wrt])


def declare_linear_map(module, name: str, input_types, result_types, linear, transpose_name: str, location) -> None:
    """Declare ``@name(inputs...) -> results...``, linear in the inputs at positions
    ``linear``, known by its transpose ``@transpose_name`` (which the caller defines). It has
    no body: nothing calls it once split, the transposer only reads its ``s4tf.transpose``."""
    with location.context, location:
        with ir.InsertionPoint(module_body(module)):
            declaration = func.FuncOp(
                name, ir.FunctionType.get([t.to_mlir() for t in input_types], [t.to_mlir() for t in result_types])
            )
        declaration.attributes["sym_visibility"] = ir.StringAttr.get("private")
        declaration.attributes[LINEAR_ARGS] = indices_attribute(linear)
        declaration.attributes[TRANSPOSE] = ir.FlatSymbolRefAttr.get(transpose_name)
