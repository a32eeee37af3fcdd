"""On-disk cache of compiled modules, so a second process does not recompile.

Entries are keyed by a hash of everything that decides the output (IR text, target,
flags, s4tf and IREE versions). Each file starts with the SHA-256 of its payload; an
entry whose checksum does not match is deleted and reported as missing, never trusted.
Writes go to a temporary file that is renamed into place, so readers never see half
an entry. The folder is ``$S4TF_CACHE_DIR`` or ``~/.cache/s4tf``.

Processes that would make the same entry at once (the ranks of an MPI job on one machine,
test workers) make it once: the maker holds a lock on the key, and the others wait for it
and read the entry::

    with cache.making(key):
        payload = cache.get(key) or make_and_put(key)
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on a POSIX system: entries are made without the lock
    fcntl = None

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

    @contextmanager
    def making(self, key: str):
        """Holds a cross-process lock on ``key`` while its entry is made: the lock file
        ``locks/<first two characters of the key>.lock``, shared by the keys that start
        alike (at most 256 files for hex keys, never deleted: deleting a lock file that
        others wait on breaks the lock). An unwritable folder or a system without
        ``fcntl`` makes the entry without the lock."""
        try:
            locks = self.directory / "locks"
            locks.mkdir(parents=True, exist_ok=True)
            handle = os.open(locks / f"{key[:2]}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            handle = None
        try:
            if handle is not None and fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            if handle is not None:
                os.close(handle)  # closing releases the lock
