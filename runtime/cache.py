"""On-disk cache of compiled modules, so a second process does not recompile.

Entries are keyed by a hash of everything that decides the output (IR text, target,
flags, s4tf and IREE versions). Each file starts with the SHA-256 of its payload; an
entry whose checksum does not match is deleted and reported as missing, never trusted.
Writes go to a temporary file that is renamed into place, so readers never see half
an entry. The folder is ``$S4TF_CACHE_DIR`` or ``~/.cache/s4tf``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

_DIGEST_SIZE = 32


def default_cache_dir() -> Path:
    return Path(os.environ.get("S4TF_CACHE_DIR") or Path.home() / ".cache" / "s4tf")


def cache_key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


class DiskCache:
    """Entries ``<key><suffix>`` in ``directory`` (compiled modules: ``.vmfb``)."""

    def __init__(self, directory: Path | None = None, suffix: str = ".vmfb"):
        self.directory = Path(directory) if directory else default_cache_dir()
        self.suffix = suffix

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{self.suffix}"

    def get(self, key: str) -> bytes | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        payload = data[_DIGEST_SIZE:]
        if len(data) < _DIGEST_SIZE or hashlib.sha256(payload).digest() != data[:_DIGEST_SIZE]:
            self.discard(key)
            return None
        return payload

    def put(self, key: str, payload: bytes) -> None:
        temporary = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(handle, "wb") as file:
                file.write(hashlib.sha256(payload).digest() + payload)
            os.replace(temporary, self.path(key))
        except OSError:  # an unwritable cache only costs a recompile next time
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)

    def discard(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)
