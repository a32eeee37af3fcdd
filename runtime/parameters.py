"""Weights apart from code: IREE parameter archives (``.irpa``) read when a module loads.

A module compiled with weights in an archive holds ``util.global``s initialized from
``#stream.parameter.named<"model"::"KEY">``; at load time an ``io_parameters`` module
serves those keys from the archive. Swapping the archive changes the weights without
recompiling.

An archive is checked before IREE reads it: against its SHA-256 sidecar
(``weights.irpa.sha256``, see :mod:`s4tf.runtime.checksum`), and against the parameters the
module declares (key -> type): a missing, extra, or differently shaped, typed or sized
array is a :class:`ParameterMismatchError` naming it.

```python
save_parameters("weights.irpa", {"w": w, "b": b})   # and weights.irpa.sha256
module = parameters_module(vm_instance, "weights.irpa", {"w": TensorType((3, 2), "f32"), ...})
```
"""

from __future__ import annotations

import json
from pathlib import Path

import iree.runtime as iree_runtime
import numpy as np

from s4tf.dialects.types import TensorType, to_numpy_dtype
from s4tf.errors import S4tfError
from s4tf.runtime.checksum import verify_sidecar, write_sidecar

#: The parameter scope s4tf's modules read their weights from.
SCOPE = "model"


class ParameterArchiveError(S4tfError, ValueError):
    """A parameter archive that cannot be read or written."""


class ParameterMismatchError(ParameterArchiveError):
    """An archive whose arrays are not the parameters the module reads."""


def save_parameters(path, arrays: dict[str, np.ndarray]) -> Path:
    """Write ``arrays`` (key -> array) as an IREE parameter archive at ``path``, and its
    checksum beside it."""
    index = iree_runtime.ParameterIndex()
    for key, array in arrays.items():
        iree_runtime.parameter_index_add_numpy_ndarray(index, key, np.asarray(array))
    try:
        index.create_archive_file(str(path))
    except (RuntimeError, ValueError) as error:
        raise ParameterArchiveError(f"cannot write parameter archive {path}: {error}") from None
    write_sidecar(path)
    return Path(path)


def parameters_module(instance: iree_runtime.VmInstance, path, declared: dict[str, TensorType], source: str = "the module") -> iree_runtime.VmModule:
    """The ``io_parameters`` module serving the archive at ``path`` under :data:`SCOPE`,
    once the archive is found to hold exactly the ``declared`` parameters of ``source``."""
    verify_sidecar(path)
    index = iree_runtime.ParameterIndex()
    try:
        index.load(str(path))
        entries = dict(index.items())
    except Exception as error:  # whatever IREE raises for a file it cannot read
        raise ParameterArchiveError(f"cannot read parameter archive {path}: {_last_line(error)}") from None
    check_parameters(path, entries, declared, source)
    return iree_runtime.create_io_parameters_module(instance, index.create_provider(scope=SCOPE))


def check_parameters(path, entries: dict, declared: dict[str, TensorType], source: str) -> None:
    """A :class:`ParameterMismatchError` for the first archive entry that is not what
    ``source`` declares: missing, extra, another shape or dtype, another size in bytes."""
    reads = ", ".join(f"{key} {kind}" for key, kind in declared.items())
    for key, kind in declared.items():
        if key not in entries:
            raise ParameterMismatchError(f"{path} has no parameter '{key}', which {source} reads as {kind}")
    for key in entries:
        if key not in declared:
            raise ParameterMismatchError(f"{path} holds parameter '{key}', which {source} does not read; it reads {reads}")
    for key, kind in declared.items():
        expected = to_numpy_dtype(kind.dtype)
        stored = _stored_type(entries[key])
        if stored is not None and stored != (kind.shape, expected.name):
            shape, dtype = stored
            raise ParameterMismatchError(f"parameter '{key}' in {path} is {dtype}{list(shape)}, but {source} reads {kind}")
        size = kind.size * expected.itemsize
        if entries[key].length != size:
            raise ParameterMismatchError(
                f"parameter '{key}' in {path} holds {entries[key].length} bytes, but {source} reads {kind} ({size} bytes)"
            )


def _stored_type(entry) -> tuple[tuple[int, ...], str] | None:
    """``(shape, NumPy dtype name)`` from the entry's metadata (IREE's ``TENSORv0:{json}``
    written by ``parameter_index_add_numpy_ndarray``); ``None`` when it has none."""
    prefix, _, text = bytes(entry.metadata or b"").partition(b":")
    if prefix != b"TENSORv0":
        return None
    try:
        metadata = json.loads(text)
        return tuple(int(d) for d in metadata["shape"]), str(metadata["dtype"])
    except (ValueError, KeyError, TypeError):
        return None


def _last_line(error: Exception) -> str:
    """IREE's messages start with the C source position; keep what follows it."""
    return str(error).split("; ", 1)[-1].strip()
