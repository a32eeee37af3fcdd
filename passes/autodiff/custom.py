"""Custom VJPs (S4TF's ``@derivative(of:)``): a user-written pullback replaces the
derivative of a function in reverse mode.

``@g`` carries ``s4tf.custom_vjp = @g_custom``, a function
``(x..., ct...) -> (y..., ct_x...)`` traced from the user's rule. Splitting it by what
depends on ``ct`` gives ``@g_custom_fwd(x...) -> (y..., residuals...)`` and
``@g_custom_bwd(residuals..., ct...) -> ct_x...``. In a linearization, a call of ``@g``
becomes a call of the forward half and of ``@g_custom_lin``, a linear function (``g``'s
own JVP) whose transpose is the user's backward half.
"""

from __future__ import annotations

from s4tf.dialects.types import TensorType
from s4tf.mlir import ir
from s4tf.passes.autodiff.functions import FunctionBuilder, find_function, function_type, symbol_of
from s4tf.passes.autodiff.naming import (
    CUSTOM_VJP,
    LINEAR_ARGS,
    TRANSPOSE,
    derivative_symbol,
    float_arguments,
    float_results,
    indices_attribute,
)


def has_custom_vjp(function: ir.Operation) -> bool:
    return CUSTOM_VJP in function.attributes


def _types(types) -> list[TensorType]:
    return [TensorType.from_mlir(t) for t in types]


def custom_halves(module, function: ir.Operation) -> tuple[str, str]:
    """``(fwd, bwd)`` symbols of ``function``'s custom VJP, split on first use."""
    from s4tf.passes.autodiff.linearize import Splitter  # linearize -> jvp -> this module

    symbol = symbol_of(function)
    fwd_name, bwd_name = f"{symbol}_custom_fwd", f"{symbol}_custom_bwd"
    if find_function(module, fwd_name) is None:
        combined = find_function(module, ir.FlatSymbolRefAttr(function.attributes[CUSTOM_VJP]).value)
        primal_results = len(list(function_type(function).results))
        Splitter(module, combined, primal_results).split(fwd_name, bwd_name, {})
    return fwd_name, bwd_name


def linearized_call(module, builder, function, wrt, primals, tangents, location):
    """Stage a linearized call of ``function`` (which has a custom VJP) into ``builder``."""
    from s4tf.passes.autodiff.jvp import jvp_function  # jvp -> this module

    fwd_name, bwd_name = custom_halves(module, function)
    fwd_results = _types(function_type(find_function(module, fwd_name)).results)
    primal_types = _types(function_type(function).results)
    outputs = builder.call(fwd_name, primals, fwd_results, location)
    residuals = outputs[len(primal_types):]
    symbol = symbol_of(function)
    lin_name = derivative_symbol(function, symbol, "custom_lin", wrt)
    if find_function(module, lin_name) is None:
        _build_lin(module, function, wrt, lin_name, jvp_function(module, symbol, wrt), bwd_name, fwd_results[len(primal_types):])
    tangent_types = [primal_types[i] for i in float_results(function)]
    tangent_outputs = builder.call(lin_name, primals + residuals + tangents, tangent_types, location)
    return outputs[: len(primal_types)] + tangent_outputs


def _build_lin(module, function, wrt, lin_name, jvp_name, bwd_name, residual_types):
    """``lin(x..., residuals..., dx...) = g_jvp(x, dx)[tangents]``, transposed by the user's pullback."""
    input_types = _types(function_type(function).inputs)
    primal_types = _types(function_type(function).results)
    tangent_types = [primal_types[i] for i in float_results(function)]
    location = function.location
    n_inputs, n_residuals = len(input_types), len(residual_types)
    transpose_name = f"{lin_name}_transpose"

    lin = FunctionBuilder(module, lin_name, input_types + residual_types + [input_types[i] for i in wrt], location)
    primals, tangents = lin.arguments[:n_inputs], lin.arguments[n_inputs + n_residuals:]
    jvp_outputs = lin.call(jvp_name, primals + tangents, primal_types + tangent_types, location)
    with location.context:
        lin.finish(jvp_outputs[len(primal_types):], {
            LINEAR_ARGS: indices_attribute(range(n_inputs + n_residuals, n_inputs + n_residuals + len(wrt))),
            TRANSPOSE: ir.FlatSymbolRefAttr.get(transpose_name),
        })

    transpose = FunctionBuilder(module, transpose_name, input_types + residual_types + tangent_types, location)
    residuals = transpose.arguments[n_inputs:n_inputs + n_residuals]
    cotangents = transpose.arguments[n_inputs + n_residuals:]
    floats = float_arguments(function)
    all_cts = transpose.call(bwd_name, residuals + cotangents, [input_types[i] for i in floats], location)
    with location.context:
        transpose.finish([all_cts[floats.index(i)] for i in wrt])
