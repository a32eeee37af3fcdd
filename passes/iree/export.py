"""``s4tf-export``: prepare a lowered (StableHLO) module for deployment.

```python
Export(entry_points=("predict",), weights=(ExportedWeight(0, "w", "tensor<3x2xf32>"),), reflection={"s4tf.target": "cpu"})
```
```
s4tf-opt predict.mlir -p 's4tf-export{entry_points=predict weights=0:w:tensor<3x2xf32> reflection={s4tf.target="cpu"}},symbol-dce'
```

- the functions ``entry_points`` stay public, every other function becomes private
  (``symbol-dce`` after the pass drops those nothing calls);
- ``weights``: :class:`ExportedWeight` s (in text, comma-separated ``position:key:type``
  items); the argument at each position of every entry point, which must have that type,
  leaves the signature and becomes a ``util.global`` holding the weight's value as a
  constant or, without a value, read at load time from a parameter archive
  (``#stream.parameter.named<"SCOPE"::"key">``, ``scope`` defaults to ``model``); in
  text, ``values=file.npz`` gives the values (that file's array ``key``);
- ``reflection``: string entries recorded as each entry point's ``iree.reflection``
  (in text, an MLIR dictionary attribute, spaces escaped as ``\\20``; what it holds is
  the runtime's business: :mod:`s4tf.runtime.reflection`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from s4tf.core.mlir import ir, load_dialects
from s4tf.dialects.symbols import functions
from s4tf.passes.pass_options import text_option
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, register


@dataclass(frozen=True)
class ExportedWeight:
    """The weight argument at ``position``: ``key`` in the parameter archive, its MLIR
    ``type`` (``tensor<3x2xf32>``), and its ``value`` when the module embeds it."""

    position: int
    key: str
    type: str
    value: np.ndarray | None = field(default=None, compare=False)


def parse_weights(text: str) -> tuple[ExportedWeight, ...]:
    """``position:key:type,...`` -> weights without values."""
    weights = []
    for item in filter(None, text.split(",")):
        position, _, rest = item.partition(":")
        key, _, kind = rest.rpartition(":")
        if not (position.isdigit() and key and kind):
            raise ValueError(f"weights item '{item}' must be position:key:type, as 0:w:tensor<3x2xf32>")
        weights.append(ExportedWeight(int(position), key, kind))
    return tuple(weights)


def parse_reflection(text: str) -> dict[str, str]:
    """An MLIR dictionary attribute of strings -> its entries."""
    problem = f"reflection={text} is not an MLIR dictionary attribute of strings, as {{s4tf.target=\"cpu\"}}"
    with ir.Context():
        try:
            dictionary = ir.DictAttr(ir.Attribute.parse(text))
            return {dictionary[i].name: ir.StringAttr(dictionary[i].attr).value for i in range(len(dictionary))}
        except (ValueError, ir.MLIRError):
            raise ValueError(problem) from None


@register
@dataclass(frozen=True)
class Export(ModulePass):
    name = "s4tf-export"
    description = "Make entry points public, others private; weight arguments become globals; record reflection"

    entry_points: tuple[str, ...]
    weights: tuple[ExportedWeight, ...] = text_option(parse_weights, "POSITION:KEY:TYPE,...", default=())
    #: The parameter archive's scope the weights without a value are read from.
    scope: str = "model"
    #: An ``.npz`` file with the weights' values, by key (for text pipelines: Python gives
    #: the values in ``weights``).
    values: str = ""
    reflection: Mapping[str, str] = text_option(parse_reflection, "{KEY=\"VALUE\",...}", default_factory=dict)

    def apply(self, module: ir.Operation) -> None:
        export(module, self.entry_points, self.weights, self.scope, self.values, self.reflection)


def export(module: ir.Operation, entry_points: tuple[str, ...], weights: tuple[ExportedWeight, ...], scope: str, values: str,
           reflection: Mapping[str, str]) -> None:
    found = functions(module)
    names = list(entry_points)
    missing = [name for name in names if name not in found]
    if missing:
        emit_error(module, f"no function {', '.join(repr(m) for m in missing)} in the module; its functions: {', '.join(found)}")
        raise PassFailed()
    bodiless = [name for name in names if not found[name].regions[0].blocks]
    if bodiless:
        emit_error(found[bodiless[0]], f"entry point '{bodiless[0]}' is a declaration: it has no body to export")
        raise PassFailed()
    declared = _weights(module, weights)
    entries = ir.DictAttr.get({key: ir.StringAttr.get(value) for key, value in reflection.items()}) if reflection else None
    arrays = {weight.key: weight.value for weight in weights if weight.value is not None}
    if values:
        arrays.update(_arrays(module, values, declared))
    for name, function in found.items():
        function.attributes["sym_visibility"] = ir.StringAttr.get("public" if name in names else "private")
    for name in names:
        _check_weights(found[name], name, declared)
    if declared:
        load_dialects(module.context, ("util",))  # util.global and util.global.load are built by name
    globals_ = {position: _add_global(module, key, kind, scope, arrays) for position, (key, kind) in sorted(declared.items())}
    for name in names:
        _bind_weights(found[name], declared, globals_)
        if entries is not None:
            found[name].attributes["iree.reflection"] = entries


def _weights(module: ir.Operation, weights: tuple[ExportedWeight, ...]) -> dict[int, tuple[str, ir.Type]]:
    """{position: (key, type)}."""
    declared = {}
    for weight in weights:
        try:
            declared[weight.position] = (weight.key, ir.Type.parse(weight.type))
        except (ValueError, ir.MLIRError):
            emit_error(module, f"weight '{weight.key}' has the type '{weight.type}', which is not an MLIR type (as tensor<3x2xf32>)")
            raise PassFailed() from None
    return declared


def _arrays(module: ir.Operation, path: str, declared) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key, _ in declared.values() if key in archive}
    except (OSError, ValueError) as error:
        emit_error(module, f"cannot read the weights' values from {path}: {error}")
        raise PassFailed() from None
    missing = [key for key, _ in declared.values() if key not in arrays]
    if missing:
        emit_error(module, f"{path} holds no array {', '.join(repr(m) for m in missing)}")
        raise PassFailed()
    return arrays


def _check_weights(function: ir.Operation, name: str, declared) -> None:
    arguments = function.regions[0].blocks[0].arguments
    for position, (key, kind) in sorted(declared.items()):
        if position >= len(arguments) or arguments[position].type != kind:
            expected = arguments[position].type if 0 <= position < len(arguments) else "nothing"
            emit_error(function, f"weight '{key}' ({kind}) does not match argument {position} of entry point '{name}' ({expected})")
            raise PassFailed()


def _add_global(module: ir.Operation, key: str, kind: ir.Type, scope: str, arrays) -> str:
    symbol = f"weight_{key}".replace(".", "_")
    if key not in arrays:
        initial = ir.Attribute.parse(f'#stream.parameter.named<"{scope}"::"{key}"> : {kind}')
    else:
        initial = ir.DenseElementsAttr.get(np.ascontiguousarray(arrays[key]), type=kind)
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]):
        ir.Operation.create(
            "util.global",
            attributes={
                "sym_name": ir.StringAttr.get(symbol),
                "sym_visibility": ir.StringAttr.get("private"),
                "type": ir.TypeAttr.get(kind),
                "initial_value": initial,
            },
        )
    return symbol


def _bind_weights(function: ir.Operation, declared, globals_: dict[int, str]) -> None:
    """Replace the weight arguments of ``function`` by loads of their globals."""
    block = function.regions[0].blocks[0]
    for position, (_, kind) in sorted(declared.items(), reverse=True):
        with ir.InsertionPoint.at_block_begin(block):
            load = ir.Operation.create(
                "util.global.load", results=[kind], attributes={"global": ir.FlatSymbolRefAttr.get(globals_[position])}
            )
        block.arguments[position].replace_all_uses_with(load.result)
        block.erase_argument(position)
    old_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    new_type = ir.FunctionType.get([argument.type for argument in block.arguments], list(old_type.results))
    function.attributes["function_type"] = ir.TypeAttr.get(new_type)
    if "arg_attrs" in function.attributes:
        del function.attributes["arg_attrs"]
