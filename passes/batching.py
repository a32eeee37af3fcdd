"""Batching (``vmap``) as a pass: from ``@f`` build ``@f_batched``, ``f`` over a batch.

Chosen arguments get a leading batch axis of ``size``; every result of ``@f_batched`` has
one (an unbatched result is broadcast), except in a callee batched for a call: there a
result that does not depend on a batched argument stays unbatched (``s4tf.batched_results``
lists the batched ones), so a weight that ``vjp``'s forward half hands to its backward half
is not copied once per example. Each op with a batched operand is replaced by its op's batching rule
(``Op.batch``), which may leave the batch axis of its result anywhere; ops whose operands
are all unbatched are copied. A call of another function becomes a call of that
function's batched version, built on demand (by its custom batching rule where it has
one, ``s4tf.custom_batch``). The regions of ``s4tf.if`` and ``s4tf.while`` are outlined
and batched as functions; a loop whose condition differs per example runs until every
example is done. An op without a rule is an error at the op.

```mlir
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> { ... "s4tf.mul"(%x, %w) ... }
// s4tf-opt -p 's4tf-batch{function=f batched=0 size=8}' adds
func.func private @f_batched(%x: tensor<8x3xf32>, %w: tensor<3xf32>) -> tensor<8xf32>
```
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from s4tf.dialects import composition
from s4tf.dialects.batching_helpers import to_front, with_batch
from s4tf.dialects.control_flow import SHORTCUT, mark_shortcut, trip_count
from s4tf.dialects.ir_builder import IRBuilder
from s4tf.dialects.op_def import MissingBatchingRule, lookup, read_attributes
from s4tf.dialects.symbols import find_function, functions, unique_symbol
from s4tf.dialects.types import TensorType, is_float
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import (
    FunctionBuilder,
    body_operations,
    callee_of,
    entry_block,
    function_type,
    return_values,
)
from s4tf.passes.diagnostics import location_text
from s4tf.passes.autodiff.naming import CUSTOM_JVP, CUSTOM_VJP, REMAT, REMAT_ALLOW_CSE, indices_attribute, read_indices
from s4tf.passes.autodiff.outline import outlined
from s4tf.passes.function_transform import FunctionTransform
from s4tf.passes.registry import ModulePass, PassFailed, register

BATCHED_OF = "s4tf.batched_of"
BATCHED = "s4tf.batched"
BATCH_SIZE = "s4tf.batch_size"
#: The results of a function batched for a call that have the batch axis (the others do
#: not depend on a batched argument and stay unbatched); absent: every result has it.
BATCHED_RESULTS = "s4tf.batched_results"
#: A function's custom batching rule: the key (a string) of its builder in ``CUSTOM_RULES``.
CUSTOM_BATCH = "s4tf.custom_batch"
#: Builders of custom batching rules (``@s4tf.batching_rule``), by key:
#: ``builder(module, batched, size)`` adds a function of the batched signature (batched
#: arguments and every result with the batch axis in front) to ``module``, marked with
#: :func:`mark_batched`, and returns its symbol. Held weakly: whoever owns the module that
#: names a key holds its builder (a staged function's trace), so keys leave with their modules.
CUSTOM_RULES: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


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
    and the function lists its batched results in ``s4tf.batched_results`` (a custom rule's
    function has the batch axis on every result either way)."""
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
            and (
                batched_results(function) == every if every_result
                else BATCHED_RESULTS in function.attributes or CUSTOM_BATCH in primal.attributes
            )
        ):
            return name
    problem = _signature_problem(primal, symbol, batched)
    if problem:
        raise BatchingError(problem, location_text(primal.location), primal.location)
    if CUSTOM_BATCH in primal.attributes:
        return _custom(module, primal, symbol, list(batched), size)
    name = unique_symbol(f"{symbol}_batched", functions(module))
    _build(module, primal, symbol, name, list(batched), size, every_result)
    return name


def batched_results(function) -> list[int]:
    """The indices of the results of a batched function that have the batch axis (in front)."""
    if BATCHED_RESULTS in function.attributes:
        return read_indices(function, BATCHED_RESULTS)
    return list(range(len(function_type(function).results)))


def mark_batched(function, symbol: str, batched: list[int], size: int) -> None:
    """Record on ``function`` that it is ``@symbol`` batched along ``batched``."""
    with function.context:
        function.attributes[BATCHED_OF] = ir.FlatSymbolRefAttr.get(symbol)
        function.attributes[BATCHED] = indices_attribute(batched)
        function.attributes[BATCH_SIZE] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), size)


def _custom(module, primal, symbol, batched, size) -> str:
    """The function a custom batching rule's builder adds, checked against the signature
    ``@f_batched`` would have."""
    key = ir.StringAttr(primal.attributes[CUSTOM_BATCH]).value
    builder = CUSTOM_RULES.get(key)
    if builder is None:
        raise BatchingError(
            f"'@{symbol}' has a custom batching rule '{key}' that is not registered in this process",
            location_text(primal.location), primal.location,
        )
    name = builder(module, batched, size)
    inputs = [TensorType.from_mlir(t) for t in function_type(primal).inputs]
    expected = (
        [TensorType((size, *t.shape), t.dtype) if i in batched else t for i, t in enumerate(inputs)],
        [TensorType((size, *TensorType.from_mlir(t).shape), TensorType.from_mlir(t).dtype) for t in function_type(primal).results],
    )
    built = find_function(module, name)
    got = tuple([TensorType.from_mlir(t) for t in types] for types in (function_type(built).inputs, function_type(built).results))
    if got != expected:
        raise BatchingError(f"the custom batching rule of '@{symbol}' built '@{name}' of type {got}, expected {expected}")
    _batched_derivative_rules(module, primal, built, batched, size)
    return name


def _batched_derivative_rules(module, primal, built, batched, size) -> None:
    """A function with a custom batching rule and custom derivatives: the rule's function
    gets the derivative rules batched, so that ``grad(vmap(f))`` uses ``f``'s derivative,
    as ``vmap(grad(f))`` does. A JVP rule ``(x..., dx...)`` batches along the batched
    ``x`` and their ``dx``; a VJP rule ``(x..., ct...)`` along the batched ``x`` and every
    ``ct``, and the cotangents of unbatched arguments are summed over the batch."""
    inputs = [TensorType.from_mlir(t) for t in function_type(primal).inputs]
    floats = [i for i, t in enumerate(inputs) if is_float(t.dtype)]
    if CUSTOM_JVP in primal.attributes:
        rule = ir.FlatSymbolRefAttr(primal.attributes[CUSTOM_JVP]).value
        tangents = [len(inputs) + k for k, i in enumerate(floats) if i in batched]
        with built.context:
            built.attributes[CUSTOM_JVP] = ir.FlatSymbolRefAttr.get(batch_function(module, rule, batched + tangents, size))
    if CUSTOM_VJP in primal.attributes:
        rule = ir.FlatSymbolRefAttr(primal.attributes[CUSTOM_VJP]).value
        rule_inputs = function_type(find_function(module, rule)).inputs
        batched_rule = batch_function(module, rule, batched + list(range(len(inputs), len(rule_inputs))), size)
        batched_function = find_function(module, batched_rule)
        builder = FunctionBuilder(
            module, unique_symbol(f"{batched_rule}_summed", functions(module)),
            [TensorType.from_mlir(t) for t in function_type(batched_function).inputs], primal.location,
        )
        # a copy of the body, not a call: reverse mode splits a VJP rule at its cotangents
        copied = dict(zip(entry_block(batched_function).arguments, builder.arguments))
        for operation in body_operations(batched_function):
            builder.clone(operation, copied)
        outputs = [copied[v] for v in return_values(batched_function)]
        values = len(function_type(primal).results)
        with builder.building():
            cotangents = [
                ct if i in batched else composition.sum(ct, axis=0) for ct, i in zip(outputs[values:], floats)
            ]
        builder.finish(outputs[:values] + cotangents)
        with built.context:
            built.attributes[CUSTOM_VJP] = ir.FlatSymbolRefAttr.get(builder.symbol)


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
    walker = _Batching(module, builder, symbol, size)
    walker.values.update(zip(arguments, builder.arguments))
    walker.dims.update({arguments[i]: 0 for i in batched})
    walker.walk(body_operations(primal))
    values, dims = walker.values, walker.dims
    returned = return_values(primal)
    with builder.building():
        if every_result:
            results = [with_batch(composition, values[v], dims.get(v), size) for v in returned]
        else:
            results = [values[v] if dims.get(v) is None else to_front(composition, values[v], dims[v]) for v in returned]
    function = builder.finish(results)
    mark_batched(function, symbol, batched, size)
    with function.context:
        if not every_result:
            function.attributes[BATCHED_RESULTS] = indices_attribute([i for i, v in enumerate(returned) if v in dims])
        for mark in (REMAT, REMAT_ALLOW_CSE):  # s4tf.remat of a function is remat of its batched version
            if mark in primal.attributes:
                function.attributes[mark] = primal.attributes[mark]


class _Batching(FunctionTransform):
    """Each op with a batched operand replaced by its batching rule; the others copied.
    ``values``: the new values, ``dims``: the batch axis of each batched one."""

    def __init__(self, module, builder, symbol: str, size: int):
        self.module, self.builder, self.symbol, self.size = module, builder, symbol, size
        self.values, self.dims = {}, {}

    def _operand_dims(self, operation) -> list:
        return [self.dims.get(v) for v in operation.operands]

    def copied(self, operation):
        return all(d is None for d in self._operand_dims(operation))

    def call(self, index, operation):
        _call(self.module, self.builder, operation, self._operand_dims(operation), self.values, self.dims, self.size)

    def region(self, index, operation):
        batch_region = {"s4tf.if": _if, "s4tf.while": _while}.get(operation.name)
        if batch_region is None:
            raise self.unsupported(operation)
        prefix = f"{self.symbol}_r{index}"
        batch_region(self.module, self.builder, operation, prefix, self._operand_dims(operation), self.values, self.dims, self.size)

    def op(self, index, operation):
        _op(self.builder, operation, self._operand_dims(operation), self.values, self.dims)

    def unsupported(self, operation):
        return BatchingError(
            f"'{operation.name}' cannot be batched yet (no batching rule)", location_text(operation.location), operation.location
        )


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
    values.update(zip(operation.results, outputs))
    for index in batched_results(function):
        dims[operation.results[index]] = 0


def _if(module, builder, operation, prefix, operand_dims, values, dims, size):
    """``s4tf.if``: its branches, outlined, become functions batched on demand. With an
    unbatched predicate it stays an ``s4tf.if`` calling them; with a batched one both run
    and each result is a ``select`` (the ``select`` op's batching rule) between them, or,
    where the ``then`` branch is a :data:`SHORTCUT` to the ``else`` branch's results, the
    ``else`` branch alone runs."""
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
            mark_shortcut(results, like=operation)  # still one: a later vmap may batch its predicate
        elif SHORTCUT in operation.attributes:
            results = builder.call(branches[1], args, result_types, operation.location)
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


def _while(module, builder, operation, prefix, operand_dims, values, dims, size):
    """``s4tf.while``: its regions, outlined, become functions batched on demand. The
    carried values that depend on a batched one (iterated to a fixed point through the
    body) are batched. If the condition depends on none of them, the loop stays a loop
    with a batched body that keeps the other values unbatched, and an unbatched condition.
    Otherwise every carried value is batched and the loop runs while any example's
    condition holds; an example whose condition is false keeps its values
    (a ``select`` of the body's results and the carried ones), so each example's results
    are those of its own trip count. The body also runs on finished examples, whose
    results are discarded."""
    cond_name, body_name = outlined(module, operation, prefix)
    batched = {i for i, d in enumerate(operand_dims) if d is not None}
    while not (grown := batched | dependent_results(find_function(module, body_name), batched)) <= batched:
        batched = grown
    per_example = bool(dependent_results(find_function(module, cond_name), batched))
    if per_example:
        batched = set(range(len(operand_dims)))
    order = sorted(batched)
    # a loop stepped alike for every example keeps its unbatched values unbatched in the body
    # and the condition: IREE 3.13 fails on the broadcasts of host scalars that taking
    # example 0 of them leaves in nested loops (tests/lit/iree_reproducers/while_nested_batched_splat.mlir)
    cond, body = (batch_function(module, name, order, size, every_result=per_example) for name in (cond_name, body_name))
    with builder.building(operation.location):
        init = [
            with_batch(composition, values[v], d, size) if i in batched else values[v]
            for i, (v, d) in enumerate(zip(operation.operands, operand_dims))
        ]
    body_types = [TensorType.from_mlir(t) for t in function_type(find_function(module, body)).results]
    body_batched = set(batched_results(find_function(module, body)))
    (cond_type,) = [TensorType.from_mlir(t) for t in function_type(find_function(module, cond)).results]
    location = operation.location

    def alive(carried):
        return IRBuilder.current().call(cond, carried, [cond_type], location)[0]

    def as_carried(i, value):
        """The body's result ``i`` in the form the loop carries it (a custom batching rule
        batches every result; a result that reads no batched value comes out unbatched)."""
        if i in batched:
            return value if i in body_batched else with_batch(composition, value, None, size)
        return _first_example(value) if i in body_batched else value

    def step(carried):
        new = IRBuilder.current().call(body, carried, body_types, location)
        if not per_example:
            return [as_carried(i, v) for i, v in enumerate(new)]
        running = alive(carried)
        return [composition.where(composition.reshape(running, (size,) + (1,) * (len(v.shape) - 1)), v, old) for v, old in zip(new, carried)]

    def keep_going(carry):
        flags = alive(carry[0])
        if not per_example:
            return _first_example(flags) if cond_type.shape else flags
        # any(flags) on the booleans: IREE 3.13 fails the max of them converted to i32 in a loop's
        # condition for cuda (tests/lit/iree_reproducers/while_condition_any_as_i32_cuda.mlir)
        return composition.op("reduce_max", flags, axes=(0,), keepdims=False)

    with builder.building(location):  # a known trip count is every example's (static bounds): reverse mode keeps its one-loop tape
        (results,) = builder.while_loop(keep_going, lambda carry: (step(carry[0]),), (init,), trip_count(operation))
    for index, (old, new) in enumerate(zip(operation.results, results)):
        values[old] = new
        if index in batched:
            dims[old] = 0


def dependent_results(function, arguments: set[int]) -> set[int]:
    """The results of ``function`` that depend on its ``arguments`` (a result of an op
    depends on every operand of the op; regions read only their own arguments)."""
    reached = {a for i, a in enumerate(entry_block(function).arguments) if i in arguments}
    for operation in body_operations(function):
        if any(v in reached for v in operation.operands):
            reached.update(operation.results)
    return {i for i, v in enumerate(return_values(function)) if v in reached}


def _first_example(value):
    """Example 0 of a batched value that is the same for every example."""
    rank = len(value.shape)
    first = composition.slice(value, (0,) * rank, (1, *value.shape[1:]))
    return composition.reshape(first, tuple(value.shape[1:]))


@register
@dataclass(frozen=True)
class Batch(ModulePass):
    name = "s4tf-batch"
    description = "Add @f_batched: @f over a batch of its arguments 'batched' (a leading axis of 'size')"
    calls_python = ("custom_rules", "host_functions")  # custom rules' builders; host functions' vectorized flags

    function: str
    size: int
    batched: tuple[int, ...] = (0,)

    def apply(self, module: ir.Operation) -> None:
        batch_pass(module, self.function, self.size, self.batched)


def batch_pass(module: ir.Operation, function: str, size: int, batched: tuple[int, ...]) -> None:
    try:
        if size < 1:
            raise BatchingError(f"size={size}: the batch size is a positive integer")
        batch_function(module, function, list(batched), size)
    except BatchingError as error:
        (error.mlir_location or module.location).emit_error(error.message)
        raise PassFailed() from None
