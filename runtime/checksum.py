"""SHA-256 sidecars for the files s4tf deploys (``model.vmfb.sha256`` beside ``model.vmfb``).

The sidecar is ``sha256sum``'s format (``sha256sum -c model.vmfb.sha256`` checks it), and
the file itself stays what IREE's own tools read. A file without a sidecar (built by
another tool) is accepted as it is; a file that does not match its sidecar is refused.

```python
write_sidecar("model.vmfb")      # after writing model.vmfb
verify_sidecar("model.vmfb")     # ChecksumError if the file changed since
```
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from s4tf.core.errors import S4tfError


class ChecksumError(S4tfError, ValueError):
    """A file whose contents do not match the checksum s4tf wrote for it."""


def sidecar(path) -> Path:
    path = Path(path)
    return path.with_name(path.name + ".sha256")


def file_digest(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_sidecar(path) -> Path:
    """Write the SHA-256 of the file at ``path`` beside it."""
    path = Path(path)
    side = sidecar(path)
    side.write_text(f"{file_digest(path)}  {path.name}\n", encoding="ascii")
    return side


def verify_sidecar(path, data: bytes | None = None) -> bool:
    """Whether ``path`` had a sidecar to check; a :class:`ChecksumError` if the file (or
    ``data``, its contents already read) does not match it."""
    side = sidecar(path)
    try:
        recorded = side.read_text(encoding="ascii").split(maxsplit=1)[0]
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, IndexError):
        raise ChecksumError(f"cannot read the checksum of {path} in {side}") from None
    try:
        actual = hashlib.sha256(data).hexdigest() if data is not None else file_digest(path)
    except OSError as error:
        raise ChecksumError(f"cannot read {path}: {error.strerror}") from None
    if actual != recorded:
        raise ChecksumError(
            f"{path} does not match its checksum in {side}: the file was damaged or changed after s4tf wrote it"
        )
    return True
