"""Where in the user's code an op comes from: ``file:line:col`` and name scopes.

Every staged op carries the location of the first stack frame outside the s4tf
package; ``with name_scope("layer1"):`` wraps it in MLIR's named location.

```mlir
%0 = "s4tf.tanh"(%x) : (tensor<4x2xf32>) -> tensor<4x2xf32> loc(#loc3)
#loc3 = loc("layer1"("model.py":12:11))
```
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from dataclasses import dataclass

from s4tf.core.errors import ShapeError
from s4tf.core.mlir import ir

_state = threading.local()


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@functools.lru_cache(maxsize=1)
def _package_dirs() -> tuple[str, ...]:
    """The folders of s4tf's own packages (they may lie apart: see pyproject's package-dir)."""
    return tuple(
        os.path.join(os.path.abspath(path), "")
        for name, module in list(sys.modules.items())
        if (name == "s4tf" or name.startswith("s4tf.")) and hasattr(module, "__path__")
        for path in module.__path__
    )


@functools.lru_cache(maxsize=4096)
def _is_internal(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_package_dirs()) or filename.startswith("<frozen")


def user_location() -> SourceLocation | None:
    """The innermost frame of the caller that is not s4tf's own code."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not _is_internal(filename):
            column = 0
            positions = list(frame.f_code.co_positions()) if hasattr(frame.f_code, "co_positions") else []
            index = frame.f_lasti // 2
            if 0 <= index < len(positions) and positions[index][2] is not None:
                column = positions[index][2] + 1
            return SourceLocation(filename, frame.f_lineno, column)
        frame = frame.f_back
    return None


def user_line() -> SourceLocation | None:
    """:func:`user_location` without the column: cheap enough to take for every op that
    lazy mode records."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _is_internal(frame.f_code.co_filename):
            return SourceLocation(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


def scopes() -> list[str]:
    if not hasattr(_state, "scopes"):
        _state.scopes = []
    return _state.scopes


@contextlib.contextmanager
def name_scope(name: str):
    """Prefix the locations of ops staged inside with ``name`` (nested scopes join with ``/``)."""
    scopes().append(name)
    try:
        yield
    finally:
        scopes().pop()


def mlir_location(source: SourceLocation | None) -> ir.Location:
    """The MLIR location for ``source`` inside the current name scopes (needs a context)."""
    location = ir.Location.file(source.file, source.line, source.column) if source else ir.Location.unknown()
    if scopes():
        location = ir.Location.name("/".join(scopes()), childLoc=location)
    return location


def innermost_user_location(traceback) -> SourceLocation | None:
    """The innermost user (non-s4tf) frame of ``traceback``: where a user's call went wrong."""
    found = None
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if not _is_internal(code.co_filename):
            found = SourceLocation(code.co_filename, traceback.tb_lineno)
        traceback = traceback.tb_next
    return found


def shape_error(message: str) -> ShapeError:
    """A :class:`ShapeError` located at the user's line."""
    return ShapeError(message, str(user_location() or "") or None)
