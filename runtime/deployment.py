"""Prepare a lowered (StableHLO) module for deployment: the pass ``s4tf-export``
(:mod:`s4tf.passes.iree.export`) with the weights and reflection the runtime decides.

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

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from s4tf.dialects.types import TensorType, canonical_dtype
from s4tf.core.mlir import ir, new_context
from s4tf.passes.pipeline import PassPipelineError, run_pipeline
from s4tf.runtime.cpu import Cpu
from s4tf.runtime.parameters import SCOPE
from s4tf.runtime.reflection import reflection


class ExportError(PassPipelineError, ValueError):
    """Entry points or weights that do not fit the module."""


@dataclass(frozen=True)
class Weight:
    """A weight: its key in the parameter archive and its value."""

    key: str
    value: np.ndarray

    @property
    def tensor_type(self) -> TensorType:
        return TensorType(self.value.shape, canonical_dtype(self.value.dtype))


def export_pipeline(target: str, entry_points, weights: dict[int, Weight], archive: bool, cpu: Cpu | None = None,
                    values: str = "", driver: str | None = None) -> str:
    """The pipeline exporting ``entry_points`` (``s4tf-export``, then ``symbol-dce``), with
    the reflection for ``target`` and ``cpu``; ``values``: the ``.npz`` of the weights when
    they are embedded (``archive=False``); ``driver``: the CPU driver it runs best on."""
    declared = ",".join(f"{position}:{weight.key}:{weight.tensor_type.mlir_text}" for position, weight in sorted(weights.items()))
    parameters = {weight.key: weight.tensor_type for weight in weights.values()} if archive else {}
    options = [f"entry_points={','.join(entry_points)}", f"scope={SCOPE}", f"reflection={_dictionary(reflection(target, cpu, parameters, driver))}"]
    if declared:
        options.append(f"weights={declared}")
    if values:
        options.append(f"values={values}")
    return f"s4tf-export{{{' '.join(options)}}},symbol-dce"


def export_module(module, target: str, entry_points, weights: dict[int, Weight], archive: bool, cpu: Cpu | None = None,
                  driver: str | None = None) -> str:
    """``module`` (text, or a ``builtin.module`` changed in place) with ``entry_points``
    exported and the arguments at ``weights``' positions turned into globals (see the
    module docstring), as text; ``cpu``: the CPU its code is built for; ``driver``: the CPU
    driver it runs best on (recorded: :mod:`s4tf.runtime.reflection`)."""
    if isinstance(module, str):
        with new_context(), ir.Location.unknown():
            return export_module(ir.Module.parse(module).operation, target, entry_points, weights, archive, cpu, driver)
    with tempfile.TemporaryDirectory() as directory:
        values = ""
        if weights and not archive:
            values = str(Path(directory) / "weights.npz")
            np.savez(values, **{weight.key: weight.value for weight in weights.values()})
        pipeline = export_pipeline(target, entry_points, weights, archive, cpu, values, driver)
        run_pipeline(module, pipeline, failure="exporting the module failed:", error=ExportError)
    return str(module)


def _dictionary(entries: dict[str, str]) -> str:
    """``entries`` as an MLIR dictionary attribute without spaces (a pass option's value)."""
    return "{" + ",".join(f"{key}={_string(value)}" for key, value in entries.items()) + "}"


def _string(value: str) -> str:
    return '"' + "".join(c if (c.isascii() and c.isalnum()) or c in "_.+-:" else "".join(f"\\{b:02X}" for b in c.encode()) for c in value) + '"'
