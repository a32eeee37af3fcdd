"""Control flow: ``s4tf.if`` and ``s4tf.while``, ops whose bodies are regions.

Regions are isolated from above (they read only their block arguments) and end with
``stablehlo.return``. Each op checks its regions' argument and result types, evaluates
them with the ops' NumPy references, and lowers to ``stablehlo.if``/``stablehlo.while``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from s4tf.dialects.op_def import Op
from s4tf.dialects.regions import move_operations, region_problem, single_block, yielded_types
from s4tf.core.mlir import ir

PREDICATE = "tensor<i1>"
#: A unit attribute of an ``s4tf.if`` whose ``then`` branch computes what its ``else``
#: branch computes, faster where the predicate holds (reverse mode through a loop short
#: enough to read every state from its tape): with a predicate per example, ``vmap`` runs
#: the ``else`` branch alone.
SHORTCUT = "s4tf.shortcut"
#: An ``s4tf.while``'s exact number of iterations (an ``i64``), where the frontend knows it
#: when staging (``fori_loop`` with Python int bounds, ``scan`` over a static length):
#: reverse mode sizes its checkpoint tapes by it and need not count the iterations.
#: Discardable: a pass that rebuilds the loop may drop it.
TRIP_COUNT = "s4tf.trip_count"
#: How many iterations of the loop it was made from one trip of an ``s4tf.while`` runs, where
#: its body is copies of that loop's body (an ``i64``; reverse mode of a long ``scan``:
#: ``_copies`` in passes/autodiff/region_derivatives.py): ``s4tf-unroll-host-loops`` counts
#: them against its own ``copies``, so that a body is not copied twice over. Discardable.
COPIES = "s4tf.copies"
#: A unit attribute of the ``s4tf.scatter`` by which a ``scan``'s loop sets row ``i`` of an
#: output stack it carries (and of the scatter setting the same row of its tangent): every
#: iteration sets a row of its own, never the row the stack enters the loop with, and
#: nothing but the ``scan`` reads the stack the loop starts from (the first step's row). The
#: transpose of such a scatter leaves the rows it set in the cotangent as they are instead
#: of clearing them (``passes/autodiff/transposition.py``): no other iteration's transpose
#: reads them, so reverse mode's backward loop passes the stack's cotangent through
#: unchanged (IREE-3.13-WORKAROUND: IREE 3.13 copies every buffer a host-stepped loop
#: carries into a dispatch once a trip, 2 MiB a trip of the GRU language model's backward
#: loop of tools/bench/bench_loops_real.py; tests/lit/iree_reproducers/while_carried_update_copies.mlir).
#: Discardable: a pass that rebuilds the scatter drops it, and its rows are cleared as usual.
SCAN_OUTPUT = "s4tf.scan_output"


def trip_count(operation) -> int | None:
    """The :data:`TRIP_COUNT` of ``operation``, if it has one."""
    return ir.IntegerAttr(operation.attributes[TRIP_COUNT]).value if TRIP_COUNT in operation.attributes else None


def mark_trip_count(operation, count: int) -> None:
    operation.attributes[TRIP_COUNT] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64, operation.context), count)


def copies_a_trip(operation) -> int:
    """The :data:`COPIES` of ``operation`` (1 where it has none)."""
    return ir.IntegerAttr(operation.attributes[COPIES]).value if COPIES in operation.attributes else 1


def mark_copies(operation, copies: int) -> None:
    operation.attributes[COPIES] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64, operation.context), copies)


def iterations_a_trip(trips: int, most: int, peel: bool = True) -> int:
    """How many iterations a trip a counted loop of ``trips`` iterations runs, at most
    ``most``: the largest divisor of ``trips`` up to ``most`` where it is at least half of
    ``most``, or where fewer than two trips of ``most`` fit, or without ``peel``; else
    ``most``, the first ``trips % most`` iterations running before the loop. A 127-step
    ``scan`` (a prime) runs 7 steps first, then 8 a trip."""
    most = max(1, min(most, trips))
    divisor = max(k for k in range(1, most + 1) if trips % k == 0)
    return divisor if not peel or 2 * divisor >= most or trips < 2 * most else most


def mark_scan_output(operation) -> None:
    operation.attributes[SCAN_OUTPUT] = ir.UnitAttr.get(operation.context)


def mark_scan_output_tangent(primal: ir.Operation, tangent) -> None:
    """``tangent`` (a value with ``.value``) marked :data:`SCAN_OUTPUT` where ``primal`` is
    and a scatter made it: it sets the same row of the tangent stack."""
    if SCAN_OUTPUT not in primal.attributes or not isinstance(tangent.value, ir.OpResult):
        return
    owner = tangent.value.owner.operation
    if owner.name == "s4tf.scatter":
        mark_scan_output(owner)


def mark_shortcut(results: list, like=None) -> list:
    """``results`` (of an ``s4tf.if`` built by an IR builder: values with ``.value``), their
    ``if`` marked a :data:`SHORTCUT`, or only where ``like`` (an ``if`` it rebuilds:
    differentiated or batched) is one; results of an ``if`` without any stay as they are."""
    if results and (like is None or SHORTCUT in like.attributes):
        owner = results[0].value.owner
        owner.attributes[SHORTCUT] = ir.UnitAttr.get(owner.context)
    return results


class RegionOp(Op):
    """An op with regions. Rules take the whole operation: ``check(operation)`` says what
    is malformed (or ``None``), ``run(operation, operands, run_block)`` evaluates it with
    NumPy, ``lower_operation(operation)`` replaces it by StableHLO."""

    #: The names of the op's regions, in order.
    regions: ClassVar[tuple[str, ...]] = ()
    #: Canonicalization neither folds nor erases region ops.
    pure = False

    @classmethod
    def check(cls, operation: ir.Operation) -> str | None:
        raise NotImplementedError

    @classmethod
    def run(cls, operation: ir.Operation, operands: list[np.ndarray], run_block) -> list[np.ndarray]:
        raise NotImplementedError

    @classmethod
    def lower_operation(cls, operation: ir.Operation) -> None:
        raise NotImplementedError

    @classmethod
    def check_regions(cls, operation: ir.Operation, arguments: list[str]) -> str | None:
        if len(operation.regions) != len(cls.regions):
            return f"'{cls.full_name()}' needs {len(cls.regions)} regions ({', '.join(cls.regions)})"
        for name, region in zip(cls.regions, operation.regions):
            problem = region_problem(region, name, cls.full_name(), arguments)
            if problem:
                return problem
        return None


def _types(values) -> list[str]:
    return [str(v.type) for v in values]


class If(RegionOp):
    """Runs region ``then`` if ``pred`` (a ``tensor<i1>``) is true, else region ``else``;
    both take ``args`` and yield values of the same types, the op's results.

    ```mlir
    %0 = "s4tf.if"(%p, %x) ({
    ^bb0(%a: tensor<3xf32>):
      %1 = "s4tf.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
      stablehlo.return %1 : tensor<3xf32>
    }, {
    ^bb0(%a: tensor<3xf32>):
      %1 = "s4tf.mul"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      stablehlo.return %1 : tensor<3xf32>
    }) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
    ```
    """

    name = "if"
    operands = ("pred", "args*")
    regions = ("then", "else")
    nondifferentiable_operands = (0,)

    @classmethod
    def check(cls, operation):
        operands = _types(operation.operands)
        if not operands or operands[0] != PREDICATE:
            return f"'{cls.full_name()}' needs a {PREDICATE} predicate as its first operand"
        problem = cls.check_regions(operation, operands[1:])
        if problem:
            return problem
        results = _types(operation.results)
        for name, region in zip(cls.regions, operation.regions):
            yielded = yielded_types(single_block(region))
            if yielded != results:
                return (
                    f"'{cls.full_name()}' region '{name}' yields ({', '.join(yielded)}) but the op "
                    f"returns ({', '.join(results)}); both branches must yield the same types"
                )
        return None

    @classmethod
    def run(cls, operation, operands, run_block):
        region = operation.regions[0 if bool(operands[0]) else 1]
        return run_block(single_block(region), operands[1:])

    @classmethod
    def lower_operation(cls, operation):
        with ir.InsertionPoint(operation), operation.location:
            new = ir.Operation.create(
                "stablehlo.if", results=[r.type for r in operation.results], operands=[operation.operands[0]], regions=2
            )
        for old_region, new_region in zip(operation.regions, new.regions):
            block = new_region.blocks.append()
            move_operations(single_block(old_region), block, list(operation.operands)[1:])
        _replace(operation, new)


class While(RegionOp):
    """While region ``cond`` yields true (a ``tensor<i1>``) for the loop-carried values,
    replaces them by what region ``body`` yields; the results are their final values.
    The carried types never change: ``body`` yields exactly the operand types.

    ```mlir
    %0 = "s4tf.while"(%x) ({
    ^bb0(%a: tensor<f32>):
      %c = "s4tf.constant"() {value = dense<1.0e+02> : tensor<f32>} : () -> tensor<f32>
      %1 = "s4tf.lt"(%a, %c) : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }, {
    ^bb0(%a: tensor<f32>):
      %1 = "s4tf.add"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<f32>) -> tensor<f32>
    ```
    """

    name = "while"
    operands = ("init*",)
    regions = ("cond", "body")

    @classmethod
    def check(cls, operation):
        operands = _types(operation.operands)
        if not operands:
            return f"'{cls.full_name()}' needs at least one loop-carried value"
        problem = cls.check_regions(operation, operands)
        if problem:
            return problem
        cond, body = (single_block(r) for r in operation.regions)
        if yielded_types(cond) != [PREDICATE]:
            return f"'{cls.full_name()}' region 'cond' must yield one {PREDICATE}, not ({', '.join(yielded_types(cond))})"
        if yielded_types(body) != operands:
            return (
                f"'{cls.full_name()}' region 'body' yields ({', '.join(yielded_types(body))}) but the loop "
                f"carries ({', '.join(operands)}); loop-carried types must not change"
            )
        if _types(operation.results) != operands:
            return f"'{cls.full_name()}' results ({', '.join(_types(operation.results))}) must be the carried types ({', '.join(operands)})"
        return None

    @classmethod
    def run(cls, operation, operands, run_block):
        cond, body = (single_block(r) for r in operation.regions)
        values = list(operands)
        while bool(run_block(cond, values)[0]):
            values = run_block(body, values)
        return values

    @classmethod
    def lower_operation(cls, operation):
        types = [v.type for v in operation.operands]
        with ir.InsertionPoint(operation), operation.location:
            new = ir.Operation.create("stablehlo.while", results=types, operands=list(operation.operands), regions=2)
        for name in (TRIP_COUNT, COPIES):  # for s4tf-unroll-host-loops
            if name in operation.attributes:
                new.attributes[name] = operation.attributes[name]
        for old_region, new_region in zip(operation.regions, new.regions):
            block = new_region.blocks.append(*types)
            move_operations(single_block(old_region), block, list(block.arguments))
        _replace(operation, new)


def _replace(operation: ir.Operation, new: ir.Operation) -> None:
    for old, value in zip(operation.results, new.results):
        old.replace_all_uses_with(value)
    operation.erase()
