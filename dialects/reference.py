"""Reference semantics of whole functions: run s4tf IR with the ops' NumPy rules.

Ops with regions (``s4tf.if``, ``s4tf.while``) run their regions through the
interpreter's ``run_block``; ``func.call`` runs the callee from the same module. Each
block is read from the IR once per :func:`run_function` call (its ops, their attributes,
where each value lives), however often a loop runs it.

```python
results = run_function(module, "newton_sqrt", [np.array([2.0])])
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects.op_def import OPS, read_attributes
from s4tf.dialects.regions import TERMINATOR
from s4tf.dialects.symbols import find_function
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir

RETURNS = ("func.return", TERMINATOR)


class _Block:
    """A block read once: ``steps`` of (run, operand slots, first result slot, result
    count) over a list of value slots, the arguments first; ``returned``: the slots it
    returns or yields."""

    def __init__(self, arguments: int, slots: int, steps: list, returned: tuple[int, ...]):
        self.arguments, self.slots, self.steps, self.returned = arguments, slots, steps, returned


class _Interpreter:
    """One evaluation of ``module``: blocks and callees looked up once."""

    def __init__(self, module: ir.Module | ir.Operation):
        self.module = module
        self._blocks: dict[ir.Block, _Block] = {}
        self._functions: dict[str, ir.Block] = {}

    def run_function(self, symbol: str, inputs: list) -> list[np.ndarray]:
        body = self._functions.get(symbol)
        if body is None:
            function = find_function(self.module, symbol)
            if function is None:
                raise KeyError(symbol)
            body = self._functions[symbol] = function.regions[0].blocks[0]
        return self.run_block(body, inputs)

    def run_block(self, block: ir.Block, inputs: list) -> list[np.ndarray]:
        """The values ``block`` returns (or yields) for ``inputs`` as its arguments."""
        plan = self._blocks.get(block)
        if plan is None:
            plan = self._blocks[block] = self._read(block)
        if len(inputs) != plan.arguments:
            raise ValueError(f"the block takes {plan.arguments} values, not {len(inputs)}")
        slots = [None] * plan.slots
        slots[: plan.arguments] = [np.asarray(a) for a in inputs]
        for run, operand_slots, first, count in plan.steps:
            results = run([slots[i] for i in operand_slots])
            if len(results) != count:
                raise ValueError(f"a reference gave {len(results)} results for {count}")
            slots[first : first + count] = results
        return [slots[i] for i in plan.returned]

    def _read(self, block: ir.Block) -> _Block:
        slot = {argument: i for i, argument in enumerate(block.arguments)}
        steps = []
        for view in block.operations:
            operation = view.operation
            operand_slots = tuple(slot[v] for v in operation.operands)
            if operation.name in RETURNS:
                return _Block(len(block.arguments), len(slot), steps, operand_slots)
            first = len(slot)
            steps.append((self._runner(operation), operand_slots, first, len(operation.results)))
            slot.update((result, first + i) for i, result in enumerate(operation.results))
        raise ValueError("block has no terminator")

    def _runner(self, operation: ir.Operation):
        """The function from an op's operands to its results."""
        if operation.name == "func.call":
            callee = ir.FlatSymbolRefAttr(operation.attributes["callee"]).value
            return lambda operands: self.run_function(callee, operands)
        op = OPS[operation.name]
        if op.regions:
            return lambda operands: op.run(operation, operands, self.run_block)
        attributes = read_attributes(op, operation)
        types = _static_types(operation)
        return lambda operands: op.evaluate(operands, attributes, types)


def _static_types(operation: ir.Operation) -> list[TensorType] | None:
    """The result types ``operation`` declares, if all are tensors of static shapes (else its
    reference's results take the types inferred from the operands)."""
    types = []
    for result in operation.results:
        if not isinstance(result.type, ir.RankedTensorType):
            return None
        found = TensorType.from_mlir(result.type)
        if None in found.shape:
            return None
        types.append(found)
    return types


def run_function(module: ir.Module | ir.Operation, symbol: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The results of ``func.func @symbol`` of ``module`` for ``inputs``."""
    return _Interpreter(module).run_function(symbol, inputs)
