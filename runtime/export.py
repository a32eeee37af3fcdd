"""Prepare a lowered (StableHLO) module for deployment.

- the entry points stay public, every other function becomes private (and is dropped
  when nothing calls it);
- weights, given as argument positions of the entry points, leave the signature and
  become ``util.global``s: embedded constants, or read at load time from a parameter
  archive (``#stream.parameter.named<"model"::"KEY">``);
- each entry point records the target, the CPU (for llvm-cpu code) and, with an archive,
  the parameters it reads in its ``iree.reflection`` (:mod:`s4tf.runtime.reflection`), so
  the runtime can tell a module built for another target or CPU, and an archive that
  does not hold the module's weights.

```python
text = export_module(stablehlo_text, "cpu", ["predict"], {0: Weight("w", w)}, archive=True, cpu=host_cpu())
```
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from s4tf.dialects.symbols import functions
from s4tf.dialects.types import TensorType, canonical_dtype
from s4tf.errors import S4tfError
from s4tf.mlir import ir, new_context, passmanager
from s4tf.runtime.cpu import Cpu
from s4tf.runtime.parameters import SCOPE
from s4tf.runtime.reflection import reflection


class ExportError(S4tfError, ValueError):
    """Entry points or weights that do not fit the module."""


@dataclass(frozen=True)
class Weight:
    """A weight: its key in the parameter archive and its value."""

    key: str
    value: np.ndarray

    @property
    def tensor_type(self) -> TensorType:
        return TensorType(self.value.shape, canonical_dtype(self.value.dtype))


def export_module(text: str, target: str, entry_points, weights: dict[int, Weight], archive: bool, cpu: Cpu | None = None) -> str:
    """``text`` with ``entry_points`` exported and the arguments at ``weights``' positions
    turned into globals (see the module docstring); ``cpu``: the CPU its code is built for."""
    context = new_context()
    with context, ir.Location.unknown():
        module = ir.Module.parse(text)
        found = functions(module)
        missing = [name for name in entry_points if name not in found]
        if missing:
            raise ExportError(
                f"no function {', '.join(repr(m) for m in missing)} in the module; its functions: {', '.join(found)}"
            )
        for name, operation in found.items():
            visibility = "public" if name in entry_points else "private"
            operation.attributes["sym_visibility"] = ir.StringAttr.get(visibility)
        globals_ = {position: _add_global(module, weight, archive) for position, weight in sorted(weights.items())}
        parameters = {weight.key: weight.tensor_type for weight in weights.values()} if archive else {}
        entries = {key: ir.StringAttr.get(value) for key, value in reflection(target, cpu, parameters).items()}
        for name in entry_points:
            _bind_weights(found[name], name, weights, globals_)
            found[name].attributes["iree.reflection"] = ir.DictAttr.get(entries)
        passmanager.PassManager.parse("builtin.module(symbol-dce)").run(module.operation)
        return str(module)


def _add_global(module: ir.Module, weight: Weight, archive: bool) -> str:
    symbol = f"weight_{weight.key}".replace(".", "_")
    mlir_type = weight.tensor_type.to_mlir()
    if archive:
        initial = ir.Attribute.parse(f'#stream.parameter.named<"{SCOPE}"::"{weight.key}"> : {mlir_type}')
    else:
        initial = ir.DenseElementsAttr.get(np.ascontiguousarray(weight.value), type=mlir_type)
    with ir.InsertionPoint.at_block_begin(module.body):
        ir.Operation.create(
            "util.global",
            attributes={
                "sym_name": ir.StringAttr.get(symbol),
                "sym_visibility": ir.StringAttr.get("private"),
                "type": ir.TypeAttr.get(mlir_type),
                "initial_value": initial,
            },
        )
    return symbol


def _bind_weights(function: ir.Operation, name: str, weights: dict[int, Weight], globals_: dict[int, str]) -> None:
    """Replace the weight arguments of ``function`` by loads of their globals."""
    block = function.regions[0].blocks[0]
    for position, weight in sorted(weights.items(), reverse=True):
        if position >= len(block.arguments) or block.arguments[position].type != weight.tensor_type.to_mlir():
            expected = block.arguments[position].type if position < len(block.arguments) else "nothing"
            raise ExportError(
                f"weight '{weight.key}' ({weight.tensor_type.mlir_text}) does not match argument {position} "
                f"of entry point '{name}' ({expected})"
            )
        with ir.InsertionPoint.at_block_begin(block):
            load = ir.Operation.create(
                "util.global.load",
                results=[weight.tensor_type.to_mlir()],
                attributes={"global": ir.FlatSymbolRefAttr.get(globals_[position])},
            )
        block.arguments[position].replace_all_uses_with(load.result)
        block.erase_argument(position)
    old_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    new_type = ir.FunctionType.get([argument.type for argument in block.arguments], list(old_type.results))
    function.attributes["function_type"] = ir.TypeAttr.get(new_type)
    if "arg_attrs" in function.attributes:
        del function.attributes["arg_attrs"]
