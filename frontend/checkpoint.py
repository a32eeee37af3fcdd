"""Checkpoints: a model and its optimizer state (any pytree) saved as ``.npz``.

```python
save_checkpoint("lenet.npz", {"model": model, "opt": opt_state}, epoch=3)
tree, info = load_checkpoint("lenet.npz", like={"model": model, "opt": opt_state})
```

The file is written to a temporary file beside the target and renamed over it, so an
interrupted save leaves the previous checkpoint intact. Loading takes a template of the
same structure (static fields such as strides come from it) and checks every array's
shape and dtype against it.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from s4tf import pytree
from s4tf.errors import S4tfError
from s4tf.tracing import Static, leaf_spec


def _array_positions(leaves) -> list[int]:
    return [i for i, leaf in enumerate(leaves) if not isinstance(leaf_spec(leaf), Static)]


def save_checkpoint(path, tree, **info) -> Path:
    """Write the array leaves of ``tree`` and the JSON-able ``info`` to ``path`` atomically."""
    path = Path(path)
    leaves, _ = pytree.flatten(tree)
    arrays = {f"leaf_{n}": np.asarray(leaves[i]) for n, i in enumerate(_array_positions(leaves))}
    arrays["info"] = np.frombuffer(json.dumps(info).encode(), np.uint8)
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
    try:
        with np.load(path) as archive:
            stored = {key: archive[key] for key in archive.files}
    except (OSError, ValueError) as error:
        raise S4tfError(f"cannot read checkpoint {path}: {error}") from None
    if len(stored) - 1 != len(positions):
        raise S4tfError(f"checkpoint {path} holds {len(stored) - 1} arrays; the template has {len(positions)}")
    leaves = list(leaves)
    for n, i in enumerate(positions):
        array, expected = stored[f"leaf_{n}"], np.asarray(leaves[i])
        if array.shape != expected.shape or array.dtype != expected.dtype:
            raise S4tfError(
                f"checkpoint {path}: array {n} is {array.dtype}{list(array.shape)}, the template's {expected.dtype}{list(expected.shape)}"
            )
        leaves[i] = array
    return pytree.unflatten(tree, leaves), json.loads(stored["info"].tobytes().decode())
