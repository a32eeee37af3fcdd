"""Weights apart from code: IREE parameter archives (``.irpa``) read when a module loads.

A module compiled with weights in an archive holds ``util.global``s initialized from
``#stream.parameter.named<"model"::"KEY">``; at load time an ``io_parameters`` module
serves those keys from the archive. Swapping the archive changes the weights without
recompiling.

```python
save_parameters("weights.irpa", {"w": w, "b": b})
module = parameters_module(vm_instance, "weights.irpa")   # register before the model
```
"""

from __future__ import annotations

from pathlib import Path

import iree.runtime as iree_runtime
import numpy as np

from s4tf.errors import S4tfError

#: The parameter scope s4tf's modules read their weights from.
SCOPE = "model"


class ParameterArchiveError(S4tfError, ValueError):
    """A parameter archive that cannot be read or written."""


def save_parameters(path, arrays: dict[str, np.ndarray]) -> Path:
    """Write ``arrays`` (key -> array) as an IREE parameter archive at ``path``."""
    index = iree_runtime.ParameterIndex()
    for key, array in arrays.items():
        iree_runtime.parameter_index_add_numpy_ndarray(index, key, np.asarray(array))
    try:
        index.create_archive_file(str(path))
    except (RuntimeError, ValueError) as error:
        raise ParameterArchiveError(f"cannot write parameter archive {path}: {error}") from None
    return Path(path)


def parameters_module(instance: iree_runtime.VmInstance, path) -> iree_runtime.VmModule:
    """The ``io_parameters`` module serving the archive at ``path`` under :data:`SCOPE`."""
    index = iree_runtime.ParameterIndex()
    try:
        index.load(str(path))
    except (RuntimeError, ValueError) as error:
        raise ParameterArchiveError(f"cannot read parameter archive {path}: {_last_line(error)}") from None
    return iree_runtime.create_io_parameters_module(instance, index.create_provider(scope=SCOPE))


def _last_line(error: Exception) -> str:
    """IREE's messages start with the C source position; keep what follows it."""
    return str(error).split("; ", 1)[-1].strip()
