"""The functions of a module by symbol: find one, list them, name a new one.

The one place for these lookups, below every layer that needs them (passes, runtime,
frontend, tools and the tests).

```python
functions(module)                      # {"predict": <func.func>, ...}, in module order
find_function(module, "predict")       # that func.func, or None
symbol_name(function)                  # "predict"
unique_symbol("step.device", taken)    # "step_device", or "step_device_1", ... if that is taken
```
"""

from __future__ import annotations

from collections.abc import Container

from s4tf.core.mlir import ir


def symbol_name(function: ir.Operation) -> str:
    """The ``sym_name`` of ``function`` (a ``func.func``)."""
    return ir.StringAttr(function.attributes["sym_name"]).value


def functions(module: ir.Module | ir.Operation) -> dict[str, ir.Operation]:
    """The ``func.func`` ops of ``module`` (an ``ir.Module`` or its ``builtin.module``)
    by symbol, in module order."""
    body = module.operation.regions[0].blocks[0]
    return {
        symbol_name(operation.operation): operation.operation
        for operation in body.operations
        if operation.operation.name == "func.func"
    }


def find_function(module: ir.Module | ir.Operation, symbol: str) -> ir.Operation | None:
    """The ``func.func @symbol`` of ``module``, or ``None``."""
    try:
        found = ir.SymbolTable(module.operation)[symbol].operation  # MLIR's lookup: no Python loop over the module
    except KeyError:
        return None
    return found if found.name == "func.func" else None


def unique_symbol(name: str, taken: Container[str], empty: str = "fn") -> str:
    """A symbol from ``name`` (characters other than letters, digits and ``_`` become
    ``_``; ``empty`` for no name) that is not in ``taken``, numbered ``_1``, ``_2``, ... if
    it must be."""
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or empty
    symbol, counter = name, 1
    while symbol in taken:
        symbol, counter = f"{name}_{counter}", counter + 1
    return symbol
