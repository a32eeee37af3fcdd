"""Rematerialization (``s4tf.remat``, JAX's ``jax.checkpoint``): in reverse mode a function
marked ``s4tf.remat`` keeps none of its intermediates; its pullback recomputes them from
its inputs.

A marked ``@g`` is linearized as a call of itself and of a linear map whose only
residuals are ``g``'s inputs:

```mlir
func.func private @g_linearize(%x, %dx) {
  %y = call @g(%x)                           // the forward pass: nothing of it is kept
  %dy = call @g_remat_lin(%x, %dx)           // declared only: known by its transpose
  return %y, %dy
}
func.func private @g_remat_lin_transpose(%x, %ct) {
  %xa = "s4tf.after"(%x, %ct)                // not with s4tf.remat_allow_cse
  %y, %r... = call @g_remat_body_vjp_fwd(%xa)  // the forward pass again, keeping its residuals
  %ct_x = call @g_remat_body_vjp_bwd(%r..., %ct)
  return %ct_x
}
```

so that ``@g_vjp_fwd(%x) -> (%y, %x)``. ``@g_remat_body`` is an unmarked copy of ``g``,
differentiated like any function. ``s4tf.after`` keeps CSE, once the module is inlined,
from merging the recomputation with the forward pass, and IREE from running it before the
cotangent exists (either would keep its values alive after all). Forward mode ignores the
mark.
"""

from __future__ import annotations

from s4tf.dialects import composition
from s4tf.dialects.hlo import is_token_source
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.custom import declare_linear_map
from s4tf.passes.autodiff.functions import FunctionBuilder, find_function, function_type, module_body
from s4tf.passes.autodiff.naming import (
    CUSTOM_JVP,
    CUSTOM_VJP,
    JVP_OF,
    REMAT,
    REMAT_ALLOW_CSE,
    WRT,
    derivative_symbol,
    float_results,
    indices_attribute,
)


def is_remat(function: ir.Operation) -> bool:
    return REMAT in function.attributes


def build_linearization(module, function: ir.Operation, symbol: str, name: str, wrt: list[int]) -> None:
    """Build ``@name(x..., dx[wrt]...) -> (y..., dy...)`` for the marked ``function``: a
    call of ``function`` and of a linear map whose transpose recomputes it."""
    types = function_type(function)
    inputs = [TensorType.from_mlir(t) for t in types.inputs]
    results = [TensorType.from_mlir(t) for t in types.results]
    tangent_types = [results[i] for i in float_results(function)]
    location = function.location
    lin_name = derivative_symbol(function, symbol, "remat_lin", wrt)
    if find_function(module, lin_name) is None:
        transpose_name = f"{lin_name}_transpose"
        linear = range(len(inputs), len(inputs) + len(wrt))
        declare_linear_map(module, lin_name, inputs + [inputs[i] for i in wrt], tangent_types, linear, transpose_name, location)
        _build_recomputation(module, function, symbol, transpose_name, wrt)

    builder = FunctionBuilder(module, name, inputs + [inputs[i] for i in wrt], location)
    primals = builder.arguments[: len(inputs)]
    outputs = builder.call(symbol, primals, results, location)
    tangents = builder.call(lin_name, primals + builder.arguments[len(inputs):], tangent_types, location)
    with location.context:
        builder.finish(outputs + tangents, {JVP_OF: ir.FlatSymbolRefAttr.get(symbol), WRT: indices_attribute(wrt)})


def _build_recomputation(module, function: ir.Operation, symbol: str, name: str, wrt: list[int]) -> None:
    """``@name(x..., ct...) -> ct_x[wrt]...``: the forward pass of ``function`` run again
    (on its inputs, once a cotangent exists), then its pullback."""
    from s4tf.passes.autodiff.linearize import linearized  # linearize -> jvp -> this module
    from s4tf.passes.autodiff.transposition import transposed

    body = _unmarked_copy(module, function, f"{symbol}_remat_body")
    fwd, lin = linearized(module, body, wrt)
    bwd = transposed(module, lin)
    types = function_type(function)
    inputs = [TensorType.from_mlir(t) for t in types.inputs]
    result_count = len(list(types.results))
    cotangent_types = [TensorType.from_mlir(types.results[i]) for i in float_results(function)]
    location = function.location
    builder = FunctionBuilder(module, name, inputs + cotangent_types, location)
    primals = builder.arguments[: len(inputs)]
    cotangents = builder.arguments[len(inputs):]
    if REMAT_ALLOW_CSE not in function.attributes and cotangents:
        with builder.building():
            primals = [composition.op("after", x, _token(cotangents, cotangent_types)) for x in primals]
    fwd_types = [TensorType.from_mlir(t) for t in function_type(find_function(module, fwd)).results]
    residuals = builder.call(fwd, primals, fwd_types, location)[result_count:]
    cotangents = builder.call(bwd, residuals + cotangents, [inputs[i] for i in wrt], location)
    with location.context:
        builder.finish(cotangents)


def _token(cotangents, types):
    """The cotangent the recomputation waits for: the first that is static and non-empty
    (lowered through a wait token), else the first (lowered through a barrier)."""
    return next((c for c, t in zip(cotangents, types) if is_token_source(t)), cotangents[0])


def _unmarked_copy(module, function: ir.Operation, name: str) -> str:
    """``name``, a copy of ``function`` without the marks that would differentiate it
    otherwise than by its body (made once)."""
    if find_function(module, name) is None:
        with function.context, ir.InsertionPoint(module_body(module)):
            copy = function.clone()
        copy.attributes["sym_name"] = ir.StringAttr.get(name, function.context)
        copy.attributes["sym_visibility"] = ir.StringAttr.get("private", function.context)
        for mark in (REMAT, REMAT_ALLOW_CSE, WRT, CUSTOM_JVP, CUSTOM_VJP):
            if mark in copy.attributes:
                del copy.attributes[mark]
    return name
