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
load_parameters("weights.irpa")                     # {"w": array, "b": array}
module = parameters_module(vm_instance, "weights.irpa", {"w": TensorType((3, 2), "f32"), ...})
```

Each array is stored with IREE's metadata (``TENSORv0:{"dtype": "float32", "shape": [3, 2],
...}``), which IREE's own Python API writes and reads; s4tf writes it for ``bfloat16`` too,
which IREE's dtype table lacks.
"""

from __future__ import annotations

import json
from pathlib import Path

import iree.runtime as iree_runtime
import numpy as np

from s4tf.dialects.types import TensorType, canonical_dtype, to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.runtime.checksum import verify_sidecar, write_sidecar

#: The parameter scope s4tf's modules read their weights from.
SCOPE = "model"


class ParameterArchiveError(S4tfError, ValueError):
    """A parameter archive that cannot be read or written."""


class ParameterMismatchError(ParameterArchiveError):
    """An archive whose arrays are not the parameters the module reads."""


def save_parameters(path, arrays: dict[str, np.ndarray]) -> Path:
    """Write ``arrays`` (key -> array of an s4tf dtype) as an IREE parameter archive at
    ``path``, and its checksum beside it."""
    index = iree_runtime.ParameterIndex()
    for key, array in arrays.items():
        array = np.asarray(array)
        try:
            canonical_dtype(array.dtype)
        except S4tfError as error:
            raise ParameterArchiveError(f"cannot write parameter '{key}' to {path}: {error}") from None
        try:
            iree_runtime.parameter_index_add_numpy_ndarray(index, key, array)
        except KeyError:  # a dtype IREE's table lacks (bfloat16): the same metadata, written here
            index.add_buffer(key, np.ascontiguousarray(array).reshape(-1).view(np.uint8), metadata=_metadata(array))
    try:
        index.create_archive_file(str(path))
    except (RuntimeError, ValueError) as error:
        raise ParameterArchiveError(f"cannot write parameter archive {path}: {error}") from None
    write_sidecar(path)
    return Path(path)


def _metadata(array: np.ndarray) -> str:
    """IREE's ``TENSORv0`` metadata (see ``iree.runtime.io``) of ``array``, of a float dtype
    that IREE's table lacks (bfloat16)."""
    description = {
        "class_name": type(array.dtype).__name__,
        "is_complex": False,
        "is_floating_point": True,
        "is_signed": True,
        "itemsize": array.dtype.itemsize,
    }
    fields = {"type": "Tensor", "dtype": array.dtype.name, "shape": list(array.shape), "dtype_desc": description}
    return f"TENSORv0:{json.dumps(fields)}"


def load_parameters(path) -> dict[str, np.ndarray]:
    """The arrays of the archive at ``path``, by key, once its checksum (if any) matches."""
    arrays = {}
    for key, entry in _load_index(path)[1].items():
        stored = _stored_type(entry)
        if stored is None:
            raise ParameterArchiveError(
                f"parameter '{key}' in {path} has no shape and dtype recorded (written by another tool): "
                f"its {entry.length} bytes cannot be read as an array"
            )
        shape, dtype = stored
        data = iree_runtime.parameter_index_entry_as_numpy_flat_ndarray(entry)
        try:
            arrays[key] = data.view(np.dtype(dtype)).reshape(shape).copy()
        except (TypeError, ValueError) as error:
            raise ParameterArchiveError(f"parameter '{key}' in {path} cannot be read as {dtype}{list(shape)}: {error}") from None
    return arrays


def archive_contents(path) -> dict[str, tuple[tuple[int, ...] | None, str | None, int]]:
    """``key -> (shape, NumPy dtype name, bytes)`` of the archive at ``path``, read from its
    metadata (shape and dtype ``None`` for an entry written without it)."""
    contents = {}
    for key, entry in _load_index(path)[1].items():
        shape, dtype = _stored_type(entry) or (None, None)
        contents[key] = (shape, dtype, entry.length)
    return contents


def _load_index(path) -> tuple[iree_runtime.ParameterIndex, dict]:
    """The archive at ``path`` and its entries by key, once its checksum (if any) matches."""
    verify_sidecar(path)
    index = iree_runtime.ParameterIndex()
    try:
        index.load(str(path))
        return index, dict(index.items())
    except Exception as error:  # whatever IREE raises for a file it cannot read
        raise ParameterArchiveError(f"cannot read parameter archive {path}: {_last_line(error)}") from None


def parameters_module(instance: iree_runtime.VmInstance, path, declared: dict[str, TensorType], source: str = "the module") -> iree_runtime.VmModule:
    """The ``io_parameters`` module serving the archive at ``path`` under :data:`SCOPE`,
    once the archive is found to hold exactly the ``declared`` parameters of ``source``."""
    index = check_archive(path, declared, source)
    return iree_runtime.create_io_parameters_module(instance, index.create_provider(scope=SCOPE))


def check_archive(path, declared: dict[str, TensorType], source: str = "the module") -> iree_runtime.ParameterIndex:
    """The archive at ``path``, once its checksum matches and it holds exactly the
    ``declared`` parameters of ``source`` (see :func:`check_parameters`)."""
    index, entries = _load_index(path)
    check_parameters(path, entries, declared, source)
    return index


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
