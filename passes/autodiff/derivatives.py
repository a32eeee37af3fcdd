"""Derivative functions on demand, and the ``s4tf-jvp`` / ``s4tf-vjp`` passes.

```
s4tf-opt model.mlir -p s4tf-jvp   # @f_jvp(x..., dx...) -> (y..., dy...) for each function with s4tf.wrt
s4tf-opt model.mlir -p s4tf-vjp   # @f_vjp(x..., dy...) -> (y..., dx...), @f_vjp_fwd and @f_vjp_bwd
s4tf-opt model.mlir -p 's4tf-vjp{strict=true}'   # a piecewise-constant op on an active path is an error
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.activity import strict_derivatives
from s4tf.passes.autodiff.functions import (
    DifferentiationError,
    FunctionBuilder,
    find_function,
    function_type,
    module_body,
    signature_problem,
    symbol_of,
)
from s4tf.passes.autodiff.jvp import jvp_function
from s4tf.passes.autodiff.linearize import linearized
from s4tf.passes.autodiff.naming import WRT, derivative_symbol, float_arguments, float_results, is_marked, read_indices
from s4tf.passes.autodiff.transposition import transposed
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, register


def vjp_functions(module, symbol: str, wrt: list[int]) -> tuple[str, str, str]:
    """``(vjp, fwd, bwd)`` symbols for ``symbol`` wrt arguments ``wrt``, built if missing."""
    primal = find_function(module, symbol)
    fwd, lin = linearized(module, symbol, wrt)
    bwd = transposed(module, lin)
    name = derivative_symbol(primal, symbol, "vjp", wrt)
    if find_function(module, name) is None:
        types = function_type(primal)
        inputs = [TensorType.from_mlir(t) for t in types.inputs]
        results = [TensorType.from_mlir(t) for t in types.results]
        cotangent_types = [results[i] for i in float_results(primal)]
        builder = FunctionBuilder(module, name, inputs + cotangent_types, primal.location)
        fwd_types = [TensorType.from_mlir(t) for t in function_type(find_function(module, fwd)).results]
        forward = builder.call(fwd, builder.arguments[: len(inputs)], fwd_types, primal.location)
        backward = builder.call(
            bwd, forward[len(results):] + builder.arguments[len(inputs):], [inputs[i] for i in wrt], primal.location
        )
        with primal.context:
            builder.finish(forward[: len(results)] + backward)
    return name, fwd, bwd


def _marked(module: ir.Operation) -> list[ir.Operation]:
    return [op.operation for op in module_body(module).operations if op.operation.name == "func.func" and is_marked(op.operation)]


def marked_functions(module: ir.Operation) -> list[tuple[str, list[int]]]:
    return [(symbol_of(function), read_indices(function, WRT)) for function in _marked(module)]


def wrt_problem(function: ir.Operation) -> str | None:
    """Why ``function``'s ``s4tf.wrt`` does not name distinct float arguments, or ``None``."""
    symbol = symbol_of(function)
    try:
        indices = read_indices(function, WRT)
    except TypeError:  # array<ui8: ...>: the bindings cannot even read it (nor print it here)
        return f"'{WRT}' of '@{symbol}' must list argument indices as array<i64: ...>, not an array of another element type"
    except ValueError:
        return f"'{WRT}' of '@{symbol}' must list argument indices as array<i64: ...>, not {function.attributes[WRT]}"
    inputs = list(function_type(function).inputs)
    seen = set()
    for index in indices:
        if not 0 <= index < len(inputs):
            return f"'{WRT}' of '@{symbol}' names argument {index}, but '@{symbol}' has {len(inputs)} argument(s)"
        if index in seen:
            return f"'{WRT}' of '@{symbol}' names argument {index} twice"
        seen.add(index)
    problem = signature_problem(function)
    if problem is None and not set(indices) <= set(float_arguments(function)):
        index = min(set(indices) - set(float_arguments(function)))
        problem = f"'{WRT}' of '@{symbol}' names argument {index} of type {inputs[index]}: only float arguments have derivatives"
    return problem


def _run_on_marked(module, make, strict: bool) -> None:
    problems = [(function, problem) for function in _marked(module) for problem in [wrt_problem(function)] if problem]
    for function, problem in problems:
        emit_error(function, problem)
    if problems:
        raise PassFailed()
    try:
        with strict_derivatives(strict):
            for symbol, wrt in marked_functions(module):
                try:
                    make(module, symbol, wrt)
                except RecursionError:  # functions and regions nested thousands deep
                    raise DifferentiationError.at_operation(
                        f"'@{symbol}' nests calls and regions too deeply to differentiate (beyond Python's recursion limit)",
                        find_function(module, symbol),
                    ) from None
    except DifferentiationError as error:
        for each in (error, *error.also):
            (each.mlir_location or module.location).emit_error(each.message)
        raise PassFailed() from None


@dataclass(frozen=True)
class _DerivativePass(ModulePass):
    """Builds the derivatives ``make`` builds for every function marked with ``s4tf.wrt``;
    ``strict``: a piecewise-constant op on an active path is an error."""

    strict: bool = False

    def apply(self, module: ir.Operation) -> None:
        _run_on_marked(module, self.make, self.strict)


@register
@dataclass(frozen=True)
class Jvp(_DerivativePass):
    name = "s4tf-jvp"
    description = "Add @f_jvp (forward mode) for every function marked with s4tf.wrt"
    make = staticmethod(jvp_function)


@register
@dataclass(frozen=True)
class Vjp(_DerivativePass):
    name = "s4tf-vjp"
    description = "Add @f_vjp, @f_vjp_fwd and @f_vjp_bwd (reverse mode) for every function marked with s4tf.wrt"
    make = staticmethod(vjp_functions)
