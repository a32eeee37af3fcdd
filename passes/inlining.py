"""Inlining ``func.call``: a copy of the callee's body in place of the call.

Shared by the passes that need a function's work in one block: ``s4tf-inline-host-calls``
(host calls must be at the top level of the function ``s4tf-partition`` splits) and
``s4tf-split-device-functions`` (a device function's parts follow its ops one by one).
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects.symbols import functions
from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import collect
from s4tf.passes.extraction.partition import body, callee, host_callers
from s4tf.passes.registry import ModulePass, register


def inline_calls(function: ir.Operation, table: dict[str, ir.Operation], which=lambda call: True) -> None:
    """Replace each top-level ``func.call`` in ``function`` for which ``which(call)`` holds
    by a copy of the callee's body (repeatedly, so calls in inlined bodies are inlined
    too); the callees stay as they are."""
    block = body(function)
    while True:
        calls = [op.operation for op in block.operations if op.operation.name == "func.call"]
        calls = [call for call in calls if len(table[callee(call)].regions[0].blocks) > 0 and which(call)]
        if not calls:
            return
        for call in calls:
            target = body(table[callee(call)])
            mapping = dict(zip(target.arguments, call.operands))
            returned = None
            for view in target.operations:
                operation = view.operation
                if operation.name == "func.return":
                    returned = [mapping.get(v, v) for v in operation.operands]
                    break
                copy = operation.clone(ip=ir.InsertionPoint(call))
                for index, value in enumerate(copy.operands):
                    if value in mapping:
                        copy.operands[index] = mapping[value]
                mapping.update(zip(operation.results, copy.results))
            for result, value in zip(call.results, returned):
                result.replace_all_uses_with(value)
            call.erase()


@register
@dataclass(frozen=True)
class InlineHostCalls(ModulePass):
    name = "s4tf-inline-host-calls"
    description = "Inline the calls of functions that call the host, for s4tf-partition"

    def apply(self, module: ir.Operation) -> None:
        inline_host_calls(module)


def inline_host_calls(module: ir.Operation) -> None:
    """Inline every top-level call of a function that calls the host (itself or through
    its callees), so that ``s4tf-partition`` finds the host calls at the top level of the
    function it splits: a staged helper, the batched function of ``vmap`` (always a call),
    a derivative function. Private functions that call the host and that nothing calls any
    more are erased: they could only run as host programs of their own, which nothing
    launches. Calls inside control flow and calls of recursive functions stay
    (``s4tf-partition`` reports them).

    ```mlir
    func.func @step(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %0 = call @f_batched(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
      return %0 : tensor<4x3xf32>
    }
    func.func private @f_batched(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %0 = "s4tf.host_call"(%x) {callee = "normalize", ...}
      ...
    // becomes @step with the host call and the rest of @f_batched's body in place of the call
    ```
    """
    table = functions(module)
    reached = host_callers(table)
    inlined = set(reached) - recursive(table)
    for function in table.values():
        if len(function.regions[0].blocks) > 0:
            inline_calls(function, table, lambda call: callee(call) in inlined)
    while True:
        called = {callee(call) for call in collect(module, lambda op: op.name == "func.call")}
        unused = [
            name for name, function in functions(module).items()
            if name in reached and name not in called and is_private(function)
        ]
        if not unused:
            return
        for name in unused:
            table[name].erase()


def recursive(table: dict[str, ir.Operation]) -> set[str]:
    """The functions that call themselves, directly or through others (inlining them would not end)."""
    callees = {name: {callee(call) for call in collect(f, lambda op: op.name == "func.call")} for name, f in table.items()}
    found = set()
    for name in table:
        seen, frontier = set(), set(callees[name])
        while frontier:
            seen |= frontier
            frontier = {c for f in frontier for c in callees.get(f, ())} - seen
        if name in seen:
            found.add(name)
    return found


def is_private(function: ir.Operation) -> bool:
    return "sym_visibility" in function.attributes and ir.StringAttr(function.attributes["sym_visibility"]).value == "private"
