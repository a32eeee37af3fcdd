"""Batching (``vmap``) as a pass: from ``@f`` build ``@f_batched``, ``f`` over a batch.

Chosen arguments get a leading batch axis of ``size``; every result of ``@f_batched`` has
one (an unbatched result is broadcast), except in a callee batched for a call: there a
result that does not depend on a batched argument stays unbatched (``s4tf.batched_results``
lists the batched ones), so a weight that ``vjp``'s forward half hands to its backward half
is not copied once per example. Each op with a batched operand is replaced by its op's batching rule
(``Op.batch``), which may leave the batch axis of its result anywhere; ops whose operands
are all unbatched are copied. A call of another function becomes a call of that
function's batched version, built on demand. An op without a rule is an error at the op.

```mlir
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> { ... "s4tf.mul"(%x, %w) ... }
// s4tf-opt -p 's4tf-batch{function=f batched=0 size=8}' adds
func.func private @f_batched(%x: tensor<8x3xf32>, %w: tensor<3xf32>) -> tensor<8xf32>
```
"""

from __future__ import annotations

from s4tf.dialects import composition
from s4tf.dialects.batching_helpers import to_front, with_batch
from s4tf.dialects.ir_builder import IRBuilder
from s4tf.dialects.op_def import OPS, MissingBatchingRule, lookup, read_attributes
from s4tf.dialects.symbols import find_function, functions, unique_symbol
from s4tf.dialects.types import TensorType
from s4tf.errors import S4tfError
from s4tf.mlir import ir
from s4tf.passes.autodiff.functions import (
    FunctionBuilder,
    body_operations,
    callee_of,
    entry_block,
    function_type,
    return_values,
)
from s4tf.passes.diagnostics import location_text
from s4tf.passes.autodiff.naming import indices_attribute, read_indices
from s4tf.passes.autodiff.outline import outlined
from s4tf.passes.registry import PassFailed, register

BATCHED_OF = "s4tf.batched_of"
BATCHED = "s4tf.batched"
BATCH_SIZE = "s4tf.batch_size"
BATCHED_RESULTS = "s4tf.batched_results"


class BatchingError(S4tfError):
    """Code that cannot be batched; ``mlir_location`` is the offending op's."""

    def __init__(self, message: str, location: str | None = None, mlir_location: ir.Location | None = None):
        super().__init__(message, location)
        self.mlir_location = mlir_location

    def at(self, location):
        located = super().at(location)
        located.mlir_location = self.mlir_location
        return located


def batch_function(module, symbol: str, batched: list[int], size: int, every_result: bool = True) -> str:
    """The symbol of ``symbol`` batched along its arguments ``batched`` (``size`` examples),
    built if missing: ``f_batched`` (``f_batched_1``... where that name is taken). With
    ``every_result`` false, results that do not depend on a batched argument stay unbatched
    and the function lists its batched results in ``s4tf.batched_results``."""
    primal = find_function(module, symbol)
    if primal is None:
        raise BatchingError(f"cannot batch '@{symbol}': no such function in the module")
    every = list(range(len(function_type(primal).results)))
    for name, function in functions(module).items():
        if (
            BATCHED_OF in function.attributes
            and ir.FlatSymbolRefAttr(function.attributes[BATCHED_OF]).value == symbol
            and read_indices(function, BATCHED) == list(batched)
            and ir.IntegerAttr(function.attributes[BATCH_SIZE]).value == size
            and (batched_results(function) == every if every_result else BATCHED_RESULTS in function.attributes)
        ):
            return name
    problem = _signature_problem(primal, symbol, batched)
    if problem:
        raise BatchingError(problem, location_text(primal.location), primal.location)
    name = unique_symbol(f"{symbol}_batched", functions(module))
    _build(module, primal, symbol, name, list(batched), size, every_result)
    return name


def batched_results(function) -> list[int]:
    """The indices of the results of a batched function that have the batch axis (in front)."""
    if BATCHED_RESULTS in function.attributes:
        return read_indices(function, BATCHED_RESULTS)
    return list(range(len(function_type(function).results)))


def _signature_problem(function, symbol: str, batched: list[int]) -> str | None:
    if len(function.regions[0].blocks) != 1:
        return f"cannot batch '@{symbol}': it has no body"
    inputs = list(function_type(function).inputs)
    for index in batched:
        if not 0 <= index < len(inputs):
            return f"cannot batch '@{symbol}' along argument {index}: it has {len(inputs)} argument(s)"
    for index, value_type in enumerate(inputs):
        if not isinstance(value_type, ir.RankedTensorType) or not value_type.has_static_shape:
            return f"cannot batch '@{symbol}': its argument #{index} has type {value_type}; batching needs tensors of static shape"
    return None


def _build(module, primal, symbol, name, batched, size, every_result):
    input_types = [TensorType.from_mlir(t) for t in function_type(primal).inputs]
    batched_types = [TensorType((size, *t.shape), t.dtype) if i in batched else t for i, t in enumerate(input_types)]
    builder = FunctionBuilder(module, name, batched_types, primal.location)
    arguments = entry_block(primal).arguments
    values = dict(zip(arguments, builder.arguments))
    dims = {arguments[i]: 0 for i in batched}  # the batch axis of each batched value
    for index, operation in enumerate(body_operations(primal)):
        operand_dims = [dims.get(v) for v in operation.operands]
        if all(d is None for d in operand_dims):
            builder.clone(operation, values)
        elif operation.name == "func.call":
            _call(module, builder, operation, operand_dims, values, dims, size)
        elif operation.name == "s4tf.if":
            _if(module, builder, operation, f"{symbol}_r{index}", operand_dims, values, dims, size)
        elif operation.name in OPS and not lookup(operation.name).regions:
            _op(builder, operation, operand_dims, values, dims)
        else:
            raise BatchingError(
                f"'{operation.name}' cannot be batched yet (no batching rule)",
                location_text(operation.location),
                operation.location,
            )
    returned = return_values(primal)
    with builder.building():
        if every_result:
            results = [with_batch(composition, values[v], dims.get(v), size) for v in returned]
        else:
            results = [values[v] if dims.get(v) is None else to_front(composition, values[v], dims[v]) for v in returned]
    with primal.context:
        attributes = {
            BATCHED_OF: ir.FlatSymbolRefAttr.get(symbol),
            BATCHED: indices_attribute(batched),
            BATCH_SIZE: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), size),
        }
        if not every_result:
            attributes[BATCHED_RESULTS] = indices_attribute([i for i, v in enumerate(returned) if dims.get(v) is not None])
        builder.finish(results, attributes)


def _op(builder, operation, operand_dims, values, dims):
    op = lookup(operation.name)
    attrs = read_attributes(op, operation)
    with builder.building(operation.location):
        try:
            results, result_dims = op.batch(composition, [values[v] for v in operation.operands], operand_dims, **attrs)
        except MissingBatchingRule as error:
            raise BatchingError(error.message, location_text(operation.location), operation.location) from None
    for old, new, dim in zip(operation.results, results, result_dims):
        values[old] = new
        if dim is not None:
            dims[old] = dim


def _call(module, builder, operation, operand_dims, values, dims, size):
    """The call of a callee's batched version: its batched operands get their axis in front;
    its results that do not depend on them stay unbatched."""
    callee = callee_of(operation)
    batched = [i for i, d in enumerate(operand_dims) if d is not None]
    name = batch_function(module, callee, batched, size, every_result=False)
    with builder.building(operation.location):
        operands = [values[v] if d is None else to_front(composition, values[v], d) for v, d in zip(operation.operands, operand_dims)]
    function = find_function(module, name)
    result_types = [TensorType.from_mlir(t) for t in function_type(function).results]
    outputs = builder.call(name, operands, result_types, operation.location)
    for index in batched_results(function):
        dims[operation.results[index]] = 0
    values.update(zip(operation.results, outputs))


def _if(module, builder, operation, prefix, operand_dims, values, dims, size):
    """``s4tf.if``: its branches, outlined, become functions batched on demand. With an
    unbatched predicate it stays an ``s4tf.if`` calling them; with a batched one both run
    and each result is a ``select`` (the ``select`` op's batching rule) between them."""
    branches = outlined(module, operation, prefix)
    pred, arg_dims = operand_dims[0], operand_dims[1:]
    batched = [i for i, d in enumerate(arg_dims) if d is not None]
    with builder.building(operation.location):
        args = [values[v] if d is None else to_front(composition, values[v], d) for v, d in zip(operation.operands[1:], arg_dims)]
    if batched:
        branches = [batch_function(module, name, batched, size) for name in branches]
    result_types = [TensorType.from_mlir(t) for t in function_type(find_function(module, branches[0])).results]
    result_dims = [0 if batched else None] * len(result_types)

    def calling(name):
        return lambda *operands: IRBuilder.current().call(name, list(operands), result_types, operation.location)

    with builder.building(operation.location):
        if pred is None:
            results = builder.cond(values[operation.operands[0]], calling(branches[0]), calling(branches[1]), args)
        else:
            taken = [builder.call(name, args, result_types, operation.location) for name in branches]
            select = lookup("select")
            results = []
            for on_true, on_false, dim in zip(*taken, result_dims):
                (result,), (result_dim,) = select.batch(composition, [values[operation.operands[0]], on_true, on_false], [pred, dim, dim])
                results.append(to_front(composition, result, result_dim))
            result_dims = [0] * len(results)
    for old, new, dim in zip(operation.results, results, result_dims):
        values[old] = new
        if dim is not None:
            dims[old] = dim


def _indices(text: str) -> list[int]:
    try:
        return [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise BatchingError(f"batched={text!r}: write argument indices separated by commas, e.g. batched=0,2") from None


@register("s4tf-batch", "Add @f_batched: @f over a batch of its arguments 'batched' (a leading axis of 'size')")
def batch_pass(module: ir.Operation, function: str, size: str, batched: str = "0") -> None:
    try:
        if not size.isdigit() or int(size) < 1:
            raise BatchingError(f"size={size!r}: the batch size is a positive integer")
        batch_function(module, function, _indices(batched), int(size))
    except BatchingError as error:
        (error.mlir_location or module.location).emit_error(error.message)
        raise PassFailed() from None
