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

from dataclasses import dataclass

import numpy as np

from s4tf.dialects.types import TensorType, canonical_dtype
from s4tf.core.mlir import ir, new_context
from s4tf.passes.iree.export import Export, ExportedWeight
from s4tf.passes.pipeline import PassPipelineError, Pipeline, run_pipeline
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
                    driver: str | None = None) -> Pipeline:
    """The pipeline exporting ``entry_points`` (``s4tf-export``, then ``symbol-dce``), with
    the reflection for ``target`` and ``cpu``; the weights' values are embedded unless
    ``archive``; ``driver``: the CPU driver it runs best on."""
    exported = tuple(
        ExportedWeight(position, weight.key, weight.tensor_type.mlir_text, None if archive else weight.value)
        for position, weight in sorted(weights.items())
    )
    parameters = {weight.key: weight.tensor_type for weight in weights.values()} if archive else {}
    export = Export(entry_points=tuple(entry_points), weights=exported, scope=SCOPE,
                    reflection=reflection(target, cpu, parameters, driver))
    return Pipeline([export, "symbol-dce"])


def export_module(module, target: str, entry_points, weights: dict[int, Weight], archive: bool, cpu: Cpu | None = None,
                  driver: str | None = None) -> str:
    """``module`` (text, or a ``builtin.module`` changed in place) with ``entry_points``
    exported and the arguments at ``weights``' positions turned into globals (see the
    module docstring), as text; ``cpu``: the CPU its code is built for; ``driver``: the CPU
    driver it runs best on (recorded: :mod:`s4tf.runtime.reflection`)."""
    if isinstance(module, str):
        with new_context(), ir.Location.unknown():
            return export_module(ir.Module.parse(module).operation, target, entry_points, weights, archive, cpu, driver)
    pipeline = export_pipeline(target, entry_points, weights, archive, cpu, driver)
    run_pipeline(module, pipeline, failure="exporting the module failed:", error=ExportError)
    return str(module)
