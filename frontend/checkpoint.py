"""Checkpoints: a model and its optimizer state (any pytree) saved as ``.npz``.

```python
save_checkpoint("lenet.npz", {"model": model, "opt": opt_state}, epoch=3)
tree, info = load_checkpoint("lenet.npz", like={"model": model, "opt": opt_state})
```

The file is written to a temporary file beside the target and renamed over it, so an
interrupted save leaves the previous checkpoint intact; the next save removes the
temporary files that a killed save left behind (one writer per checkpoint path). The file
holds the SHA-256 of its arrays and info, checked on loading. Loading takes a template of
the same structure (static fields such as strides come from it) and checks every array's
shape and dtype against it. A file that cannot be read, is damaged, or does not fit the
template is a :class:`CheckpointError` of one line.

This module is not JAX's ``jax.checkpoint`` (recomputing values in reverse mode instead of
storing them): that is :func:`s4tf.remat`, and calling ``s4tf.checkpoint(fn)`` says so.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import sys
import tempfile
import types
import zipfile
from pathlib import Path

import numpy as np

from s4tf import pytree
from s4tf.core.errors import S4tfError
from s4tf.core.locations import user_location
from s4tf.staging.tracing import Static, leaf_spec

#: The member holding the SHA-256 of the others (see :func:`_digest`).
_CHECKSUM = "sha256"


class CheckpointError(S4tfError, ValueError):
    """A checkpoint that cannot be read, is damaged, or does not fit the template."""


def _array_positions(leaves) -> list[int]:
    return [i for i, leaf in enumerate(leaves) if not isinstance(leaf_spec(leaf), Static)]


def _digest(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The SHA-256 of the members' names, dtypes, shapes and bytes, as ``uint8[32]``."""
    digest = hashlib.sha256()
    for key in sorted(arrays):
        array = np.ascontiguousarray(arrays[key])
        digest.update(f"{key}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.tobytes())
    return np.frombuffer(digest.digest(), np.uint8)


def _remove_stale_temporaries(path: Path) -> None:
    """Delete the temporary files of saves to ``path`` that were killed before renaming."""
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        stale.unlink(missing_ok=True)


def save_checkpoint(path, tree, **info) -> Path:
    """Write the array leaves of ``tree`` and the JSON-able ``info`` to ``path`` atomically."""
    path = Path(path)
    leaves, _ = pytree.flatten(tree)
    arrays = {f"leaf_{n}": np.asarray(leaves[i]) for n, i in enumerate(_array_positions(leaves))}
    arrays["info"] = np.frombuffer(json.dumps(info).encode(), np.uint8)
    arrays[_CHECKSUM] = _digest(arrays)
    _remove_stale_temporaries(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's file is private; a checkpoint is an ordinary file
        with os.fdopen(descriptor, "wb") as file:
            np.savez(file, **arrays)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def load_checkpoint(path, like):
    """``(tree, info)``: the arrays of ``path`` in the structure of ``like``."""
    leaves, tree = pytree.flatten(like)
    positions = _array_positions(leaves)
    stored = _read(path)
    arrays = len([key for key in stored if key.startswith("leaf_")])
    if arrays != len(positions):
        raise CheckpointError(f"checkpoint {path} holds {arrays} arrays; the template has {len(positions)}")
    keys = {f"leaf_{n}" for n in range(len(positions))} | {"info"}
    missing, extra = sorted(keys - set(stored)), sorted(set(stored) - keys - {_CHECKSUM})
    if missing or extra:
        which = f"has no member '{missing[0]}'" if missing else f"holds a member '{extra[0]}' that s4tf does not write"
        raise CheckpointError(f"checkpoint {path} {which}")
    if _CHECKSUM in stored and not np.array_equal(stored.pop(_CHECKSUM), _digest(stored)):
        raise CheckpointError(f"checkpoint {path} does not match its checksum: the file was damaged or changed after s4tf wrote it")
    leaves = list(leaves)
    for n, i in enumerate(positions):
        array, expected = stored[f"leaf_{n}"], np.asarray(leaves[i])
        if array.shape != expected.shape or array.dtype != expected.dtype:
            raise CheckpointError(
                f"checkpoint {path}: array {n} is {array.dtype}{list(array.shape)}, the template's {expected.dtype}{list(expected.shape)}"
            )
        leaves[i] = array
    try:
        info = json.loads(stored["info"].tobytes().decode())
    except ValueError as error:
        raise CheckpointError(f"checkpoint {path}: its info cannot be read: {error}") from None
    if not isinstance(info, dict):
        raise CheckpointError(f"checkpoint {path}: its info is not a JSON object")
    return pytree.unflatten(tree, leaves), info


def _read(path) -> dict[str, np.ndarray]:
    """Every member of the ``.npz`` at ``path``, read in full (so a bad CRC shows here)."""
    try:
        with open(path, "rb") as file:
            if not zipfile.is_zipfile(file):
                raise ValueError("it is not a whole .npz (zip) file")
            with np.load(file, allow_pickle=False) as archive:
                return {key: archive[key] for key in archive.files}
    except OSError as error:
        raise CheckpointError(f"cannot read checkpoint {path}: {error.strerror or error}") from None
    except Exception as error:  # a damaged zip or .npy raises many kinds (BadZipFile, EOFError, zlib.error, ...)
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CheckpointError(f"cannot read checkpoint {path}: {reason}") from None


class _CheckpointModule(types.ModuleType):
    """This module, which a JAX user may call as ``jax.checkpoint``: the call says where that is."""

    def __call__(self, *args, **kwargs):
        raise S4tfError(
            "s4tf.checkpoint is the module that saves models to files (save_checkpoint, load_checkpoint); "
            "to recompute a function's values in reverse mode instead of storing them (JAX's jax.checkpoint), "
            "use s4tf.remat(fn)",
            str(user_location() or "") or None,
        )


sys.modules[__name__].__class__ = _CheckpointModule
