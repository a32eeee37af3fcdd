"""The derivative functions of a traced function, built by the AD passes on a finished module.

``grad``, ``jvp`` and ``vjp`` (:mod:`s4tf.transforms.autodiff`) trace the function to differentiate
into the module of the function being traced around them, which is still under
construction: the caller has no terminator yet. The function to differentiate is finished,
and so are its callees. They, with every other finished function of the trace (so that
derivatives built before are reused), are copied into a side module; the code of the
``s4tf-jvp``/``s4tf-vjp`` passes (``jvp_function``, ``vjp_functions``) runs on that
finished module, under the passes' guard (an op built outside the passes' IR builder is an
internal error); the functions it added are appended to the trace's module, and only then
does the caller call them. So the passes never see a function being traced, and ``vjp``'s
forward half is called with the residual types its linearization found.

```python
vjp, fwd, bwd = derivative_functions(trace, "loss", [0], vjp_functions, "s4tf-vjp")
```
"""

from __future__ import annotations

from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import module_body, symbol_of
from s4tf.passes.registry import running


def is_finished(function: ir.Operation) -> bool:
    """A declaration, or a function whose body ends with its return (not one being traced)."""
    blocks = list(function.regions[0].blocks)
    if not blocks:
        return True
    operations = list(blocks[-1].operations)
    return bool(operations) and operations[-1].operation.name == "func.return"


def derivative_functions(trace, symbol: str, wrt: list[int], build, pass_name: str):
    """``build(module, symbol, wrt)`` (an AD pass's entry point) run on a side module holding
    the finished functions of ``trace``; returns what it returns, once the functions it
    added are in ``trace.module``."""
    functions = [op.operation for op in module_body(trace.module).operations if op.operation.name == "func.func"]
    finished = [function for function in functions if is_finished(function)]
    with trace.context, ir.Location.unknown():
        side = ir.Module.create()
        with ir.InsertionPoint(side.body):
            for function in finished:
                function.clone()
    with running(pass_name):
        result = build(side.operation, symbol, wrt)
    # functions traced while building (custom batching rules) are in both modules already
    known = {symbol_of(op.operation) for op in module_body(trace.module).operations if op.operation.name == "func.func"}
    added = [op.operation for op in side.body.operations if symbol_of(op.operation) not in known]
    with trace.context, ir.InsertionPoint(trace.module.body):
        for function in added:
            function.clone()
    trace.reserve_symbols(symbol_of(function) for function in added)
    return result
