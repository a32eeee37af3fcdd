"""Reference semantics of whole functions: run s4tf IR with the ops' NumPy rules.

Ops with regions (``s4tf.if``, ``s4tf.while``) run their regions through
:func:`run_block`; ``func.call`` runs the callee from the same module.

```python
results = run_function(module, "newton_sqrt", [np.array([2.0])])
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects.op_def import OPS, read_attributes
from s4tf.dialects.regions import TERMINATOR
from s4tf.dialects.symbols import functions
from s4tf.core.mlir import ir

RETURNS = ("func.return", TERMINATOR)


def _module_of(operation: ir.Operation) -> ir.Operation:
    while operation.name != "builtin.module":
        operation = operation.parent
    return operation


def run_block(block: ir.Block, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The values ``block`` returns (or yields) for ``inputs`` as its arguments."""
    values = dict(zip(block.arguments, (np.asarray(a) for a in inputs)))
    for view in block.operations:
        operation = view.operation
        operands = [values[v] for v in operation.operands]
        if operation.name in RETURNS:
            return operands
        if operation.name == "func.call":
            callee = ir.FlatSymbolRefAttr(operation.attributes["callee"]).value
            results = run_function(_module_of(operation), callee, operands)
        else:
            op = OPS[operation.name]
            if op.regions:
                results = op.run(operation, operands, run_block)
            else:
                results = op.evaluate(operands, read_attributes(op, operation))
        values.update(zip(operation.results, results))
    raise ValueError("block has no terminator")


def run_function(module: ir.Module | ir.Operation, symbol: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The results of ``func.func @symbol`` of ``module`` for ``inputs``."""
    function = functions(module)[symbol]
    return run_block(function.regions[0].blocks[0], inputs)
