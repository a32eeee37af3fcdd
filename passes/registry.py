"""The pass registry: every s4tf pass by kebab-case name.

A pass is a function ``run(module, **options) -> None`` over a ``builtin.module``
operation. It reports problems with :func:`emit_error` at the offending op's location and
raises :class:`PassFailed`; the registry turns that into MLIR's pass failure, so s4tf
passes mix with upstream ones in one ``PassManager``. Options are the function's keyword
parameters (required unless they have a default), given in a pipeline as
``name{key=value}``; ``choices`` lists the values an option accepts, and an option whose
default is a bool takes ``true`` or ``false`` (as MLIR's do: also ``1``, ``0``, ``True``...).

```python
@register("s4tf-verify", "Check every s4tf op against its definition")
def verify(module): ...

@register("s4tf-check-availability", "...", choices={"target": ("cpu", "vulkan")})
def check(module, target): ...
```
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from dataclasses import dataclass, field
from typing import Callable

from s4tf.dialects.ir_builder import only_builders
from s4tf.core.mlir import ir


class PassFailed(Exception):
    """Raised by a pass after it emitted its diagnostics."""


@dataclass(frozen=True)
class PassInfo:
    name: str
    description: str
    run: Callable[..., None]
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def options(self) -> dict[str, bool]:
        """Option name -> whether it is required (the keyword parameters of ``run``)."""
        return {p.name: p.default is inspect.Parameter.empty for p in self._parameters()}

    def flags(self) -> set[str]:
        """The options that take ``true`` or ``false`` (their default is a bool)."""
        return {p.name for p in self._parameters() if isinstance(p.default, bool)}

    def _parameters(self) -> list[inspect.Parameter]:
        return list(inspect.signature(self.run).parameters.values())[1:]

    def as_mlir_callback(self, options: dict | None = None):
        """The ``(op, pass_)`` callable ``PassManager.add`` takes, with ``options`` bound."""
        options = options or {}

        def callback(operation, mlir_pass):
            try:
                with operation.location, running(self.name):
                    self.run(operation, **options)
            except PassFailed:
                mlir_pass.signal_pass_failure()
            except Exception as error:  # a bug in the pass must not crash the host process
                operation.location.emit_error(f"internal error in pass '{self.name}': {type(error).__name__}: {error}")
                mlir_pass.signal_pass_failure()

        return callback


PASSES: dict[str, PassInfo] = {}


@contextlib.contextmanager
def running(name: str):
    """While pass ``name`` runs, an op built outside an IR builder (``IRBuilder.building()``)
    raises an internal error instead of going to the frontend, which would stage it into
    whatever it is tracing or run it at once."""
    with only_builders(f"pass '{name}'"):
        yield


def register(name: str, description: str, choices: dict[str, tuple[str, ...]] | None = None):
    """Decorator registering ``run`` as the pass ``name``."""

    def decorate(run):
        if name in PASSES:
            raise RuntimeError(f"pass {name} is registered twice")
        PASSES[name] = PassInfo(name, description, run, dict(choices or {}))
        return run

    return decorate


def emit_error(operation: ir.Operation, message: str) -> None:
    operation.location.emit_error(message)


class DiagnosticWarning(UserWarning):
    """A warning from a pass, at an MLIR location (MLIR's Python API can only emit errors)."""

    severity = "warning"

    def __init__(self, message: str, location: ir.Location):
        super().__init__(message)
        self.message = message
        self.location = location


class DiagnosticRemark(DiagnosticWarning):
    """A remark from a pass (what it decided, when asked), at an MLIR location."""

    severity = "remark"


def emit_warning(location: ir.Location, message: str) -> None:
    """Warn through Python's ``warnings``; ``s4tf-opt`` shows these as MLIR-style warnings."""
    warnings.warn(DiagnosticWarning(message, location), stacklevel=2)


def emit_remark(location: ir.Location, message: str) -> None:
    """A remark, through Python's ``warnings`` as :func:`emit_warning`; ``s4tf-opt`` shows it as ``remark:``."""
    warnings.warn(DiagnosticRemark(message, location), stacklevel=2)

