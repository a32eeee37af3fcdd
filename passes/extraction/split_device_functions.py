"""``s4tf-split-device-functions``: let each host call wait only for the device work it needs.

After ``s4tf-partition`` a device function holds all the device work that depends on no
host result, and a host call that receives one of its results waits for all of it. This
pass splits such a device function, launched by a host program, into parts in the order
of the host calls that receive its results: part *j* computes what the *j*-th host call
needs (and was not computed before), a last part the rest. Each part is launched on its
own and signals its own fence, so the host works on part *j*'s results while the device
computes part *j + 1*. This is how a data-parallel step overlaps communication with the
backward pass: the gradients of the last layers are all-reduced while the device
differentiates the layers before them (:mod:`s4tf.distributed`).

```mlir
// the host program of a partitioned step: both host calls wait for all of @step_device_0
%0:2 = call @step_device_0(%w1, %w2, %x) : (...) -> (tensor<4xf32>, tensor<8xf32>)
%1 = "s4tf.recv"(%0#1) ...   %2 = "s4tf.host_call"(%1) {callee = "reduce_late_layer"} ...
%3 = "s4tf.recv"(%0#0) ...   %4 = "s4tf.host_call"(%3) {callee = "reduce_early_layer"} ...
// becomes: the first host call waits for @step_device_0_0 only
%0:2 = call @step_device_0_0(%w1, %w2, %x) : (...) -> (tensor<8xf32>, tensor<3x8xf32>)
%1 = call @step_device_0_1(%0#1, %w1, %x) : (...) -> tensor<4xf32>
%2 = "s4tf.recv"(%0#0) ...
```

The calls a device function makes are inlined first (the derivative functions the AD
passes build are calls), so that its parts can follow the backward pass op by op, and
repeated pure ops are merged (IREE would merge them in one function, not across parts).
Constants are copied into each part that uses them, as ``s4tf-partition`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects.op_def import OPS
from s4tf.dialects.symbols import functions, symbol_name, unique_symbol
from s4tf.core.mlir import func, ir
from s4tf.passes.inlining import inline_calls
from s4tf.passes.ir_walk import defining_op
from s4tf.passes.extraction.partition import CONSTANT, HOST_CALL, HOST_PROGRAM_ATTR, body, callee, outline_device_function
from s4tf.passes.registry import ModulePass, register


def merge_duplicates(function: ir.Operation) -> None:
    """Replace each pure region-free s4tf op that repeats an earlier one (same operands,
    attributes and result types) by that one: once the device code is split, IREE can no
    longer merge a computation made twice (a forward pass traced for the loss and again
    for the accuracy) across the parts."""
    seen: dict[tuple, ir.Operation] = {}
    for view in list(body(function).operations):
        operation = view.operation
        definition = OPS.get(operation.name)
        if definition is None or not definition.pure or len(operation.regions) > 0:
            continue
        key = (operation.name, tuple(operation.operands), tuple(str(r.type) for r in operation.results),
               tuple(sorted((str(name), str(operation.attributes[str(name)])) for name in operation.attributes)))
        if key in seen:
            for result, kept in zip(operation.results, seen[key].results):
                result.replace_all_uses_with(kept)
            operation.erase()
        else:
            seen[key] = operation


def host_call_groups(program: ir.Operation, call: ir.Operation) -> list[list[int]]:
    """Indices of ``call``'s results, grouped by the first host call that receives them, in
    the host calls' order."""
    results = list(call.results)
    groups, seen = [], set()
    for view in body(program).operations:
        operation = view.operation
        if operation.name != HOST_CALL:
            continue
        group = []
        for value in operation.operands:
            producer = defining_op(value)
            if producer is not None and producer.name == "s4tf.recv" and producer.operands[0] in results:
                index = results.index(producer.operands[0])
                if index not in seen:
                    seen.add(index)
                    group.append(index)
        if group:
            groups.append(group)
    return groups


class Split:
    """Splits the device function that ``call`` launches (see the module docstring)."""

    def __init__(self, program: ir.Operation, call: ir.Operation, table: dict[str, ir.Operation], symbols: set[str]):
        self.program = program
        self.call = call
        self.function = table[callee(call)]
        self.table = table
        self.symbols = symbols

    def run(self) -> None:
        groups = host_call_groups(self.program, self.call)
        if not groups:
            return
        inline_calls(self.function, self.table)
        merge_duplicates(self.function)
        block = body(self.function)
        operations = [op.operation for op in block.operations]
        self.returned = operations[-1]
        if any(getattr(defining_op(v), "name", None) == CONSTANT for v in self.returned.operands):
            return  # s4tf-partition never returns a constant; inlined bodies may: leave such a function whole
        self.ops = [op for op in operations[:-1] if op.name != CONSTANT]
        part_of = self.assign_parts(groups)
        count = max(part_of.values(), default=-1) + 1
        if count < 2:
            return
        parts = [[op for op in self.ops if part_of[op] == p] for p in range(count)]
        self.rewrite(parts, part_of)

    def assign_parts(self, groups: list[list[int]]) -> dict[ir.Operation, int]:
        """Part *j*: the ops the *j*-th group's results depend on, not in an earlier part;
        the ops left over form one more part."""
        part_of: dict[ir.Operation, int] = {}
        members = set(self.ops)
        parts = 0
        for group in groups:
            stack = [defining_op(self.returned.operands[i]) for i in group]
            added = False
            while stack:
                operation = stack.pop()
                if operation is None or operation not in members or operation in part_of:
                    continue
                part_of[operation] = parts
                added = True
                stack.extend(defining_op(v) for v in operation.operands)
            parts += added
        rest = [op for op in self.ops if op not in part_of]
        part_of.update((op, parts) for op in rest)
        return part_of

    def rewrite(self, parts: list[list[ir.Operation]], part_of: dict[ir.Operation, int]) -> None:
        arguments = list(body(self.function).arguments)
        inputs = [self.boundary_inputs(part, part_of, p) for p, part in enumerate(parts)]
        outputs: list[list[ir.Value]] = [[] for _ in parts]
        users = [*(v for p in inputs for v in p), *self.returned.operands]
        for value in users:
            producer = defining_op(value)
            if producer in part_of and value not in outputs[part_of[producer]]:
                outputs[part_of[producer]].append(value)
        for p, part in enumerate(parts):  # keep each part's outputs to what a later part or the return reads
            later = {v for q in inputs[p + 1:] for v in q} | set(self.returned.operands)
            outputs[p] = [v for v in outputs[p] if v in later]
        launched: dict[ir.Value, ir.Value] = dict(zip(arguments, self.call.operands))
        name = symbol_name(self.function)
        previous = self.function
        for p, part in enumerate(parts):
            function = self.build(f"{name}_{p}", part, inputs[p], outputs[p], previous)
            previous = function
            with self.call.location, ir.InsertionPoint(self.call):
                call = func.CallOp([v.type for v in outputs[p]], ir.FlatSymbolRefAttr.get(symbol_name(function)),
                                   [launched[v] for v in inputs[p]])
            launched.update(zip(outputs[p], call.results))
        for result, value in zip(self.call.results, self.returned.operands):
            result.replace_all_uses_with(launched[value])
        self.call.erase()
        self.function.erase()

    def boundary_inputs(self, part: list[ir.Operation], part_of: dict, index: int) -> list[ir.Value]:
        inputs = []
        for operation in part:
            for value in operation.operands:
                producer = defining_op(value)
                if producer is not None and (producer.name == CONSTANT or part_of.get(producer) == index):
                    continue
                if value not in inputs:
                    inputs.append(value)
        return inputs

    def build(self, name: str, part: list[ir.Operation], inputs: list[ir.Value], outputs: list[ir.Value],
              after: ir.Operation) -> ir.Operation:
        symbol = unique_symbol(name, self.symbols)
        self.symbols.add(symbol)
        return outline_device_function(self.function, symbol, part, inputs, outputs, after,
                                       lambda producer: producer.name == CONSTANT)


@register
@dataclass(frozen=True)
class SplitDeviceFunctions(ModulePass):
    name = "s4tf-split-device-functions"
    description = "Split the device functions of host programs so that each host call waits only for the device work it needs"

    def apply(self, module: ir.Operation) -> None:
        split_device_functions(module)


def split_device_functions(module: ir.Operation) -> None:
    table = functions(module)
    symbols = set(table)
    for program in [f for f in table.values() if HOST_PROGRAM_ATTR in f.attributes]:
        for call in [op.operation for op in body(program).operations if op.operation.name == "func.call"]:
            Split(program, call, table, symbols).run()
