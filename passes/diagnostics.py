"""MLIR diagnostics as ``file:line:col: error: message`` lines, the way compilers print them.

```python
try:
    ir.Module.parse(text)
except ir.MLIRError as error:
    print(format_mlir_error(error, "model.mlir"))
# model.mlir:3:9: error: use of value '%0' expects different type than prior uses: ...
# model.mlir:2:3: note: prior use here
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s4tf.core.mlir import UnsafeTextError, ir

_FILE_LINE_COL = re.compile(r'"([^"]*)":(\d+):(\d+)')
_SEVERITIES = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


@dataclass(frozen=True)
class Message:
    """One diagnostic, detached from MLIR: where, how severe, what."""

    file: str | None
    line: int | None
    column: int | None
    severity: str
    text: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}: " if self.line is not None else ""
        return f"{where}{self.severity}: {self.text}"


def parse_location(location, buffer_name: str | None = None) -> tuple[str | None, int | None, int | None]:
    """``(file, line, column)`` of the innermost file location in ``location``.

    MLIR names a parsed string ``"-"``; ``buffer_name`` replaces that name.
    """
    match = _FILE_LINE_COL.search(str(location))
    if not match:
        return None, None, None
    file = match.group(1)
    if buffer_name and file in ("-", ""):
        file = buffer_name
    return file, int(match.group(2)), int(match.group(3))


def location_text(location) -> str | None:
    """``file:line`` of ``location``, or ``None`` without a file location."""
    file, line, _ = parse_location(location)
    return f"{file}:{line}" if file else None


def messages(diagnostic, buffer_name: str | None = None) -> list[Message]:
    """``diagnostic`` and its notes as :class:`Message`s."""
    result = [
        Message(*parse_location(diagnostic.location, buffer_name), _SEVERITIES[diagnostic.severity], diagnostic.message)
    ]
    for note in diagnostic.notes:
        result.extend(messages(note, buffer_name))
    return result


def error_messages(error: ir.MLIRError | UnsafeTextError, buffer_name: str | None = None) -> list[Message]:
    """The messages of text that did not parse: MLIR's, or :func:`s4tf.core.mlir.screen_text`'s."""
    if isinstance(error, UnsafeTextError):
        return [Message(buffer_name, error.line, error.column, "error", error.message)]
    found = [m for d in error.error_diagnostics for m in messages(d, buffer_name)]
    return found or [Message(None, None, None, "error", str(error).strip())]


def format_mlir_error(error: ir.MLIRError | UnsafeTextError, buffer_name: str | None = None) -> str:
    return "\n".join(str(m) for m in error_messages(error, buffer_name))
