"""The pass registry: every s4tf pass, a class, by kebab-case name.

A pass is a frozen dataclass deriving :class:`ModulePass`: the class attributes ``name``
(as a pipeline writes it) and ``description``, its options as typed fields, and
``apply(module)`` over a ``builtin.module`` operation. It reports problems with
:func:`emit_error` at the offending op's location and raises :class:`PassFailed`; the
registry turns that into MLIR's pass failure, so s4tf passes mix with upstream ones in
one ``PassManager``. Python builds a pass as an object (``CheckAvailability(target="vulkan")``);
a textual pipeline (``s4tf-check-availability{target=vulkan}``) builds the same object
with :meth:`ModulePass.from_options`, which converts each option's text to its field's
type (:mod:`s4tf.passes.pass_options`).

```python
@register
@dataclass(frozen=True)
class CheckAvailability(ModulePass):
    name = "s4tf-check-availability"
    description = "Report every op whose dtypes the target cannot run"

    target: Literal["cpu", "vulkan"]
    remarks: bool = False

    def apply(self, module): ...
```
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from typing import ClassVar, Mapping

from s4tf.dialects.ir_builder import only_builders
from s4tf.core.mlir import ir
from s4tf.passes.pass_options import PassOption, check_values, converted_options, pass_options


class PassFailed(Exception):
    """Raised by a pass after it emitted its diagnostics."""


class ModulePass:
    """The base of s4tf's passes (see the module docstring)."""

    name: ClassVar[str]
    description: ClassVar[str]
    #: The kinds of Python callables of this process the pass calls (``s4tf.needs`` keys,
    #: :mod:`s4tf.passes.needs`): ``s4tf-opt`` checks a module states none it lacks first.
    calls_python: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self):
        check_values(self)

    def apply(self, module: ir.Operation) -> None:
        raise NotImplementedError(f"pass '{self.name}' has no apply method")

    @classmethod
    def options(cls) -> dict[str, PassOption]:
        """The options text can set, by name (:func:`~s4tf.passes.pass_options.pass_options`)."""
        return pass_options(cls)

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> ModulePass:
        """The pass with ``options`` (name -> text, as a pipeline writes them) converted to
        its fields' types; a :class:`~s4tf.passes.pass_options.PipelineError` says what is wrong."""
        return cls(**converted_options(cls.name, cls.options(), options))

    def as_mlir_callback(self):
        """The ``(op, pass_)`` callable ``PassManager.add`` takes."""

        def callback(operation, mlir_pass):
            try:
                with operation.location, running(self.name):
                    self.apply(operation)
            except PassFailed:
                mlir_pass.signal_pass_failure()
            except Exception as error:  # a bug in the pass must not crash the host process
                operation.location.emit_error(f"internal error in pass '{self.name}': {type(error).__name__}: {error}")
                mlir_pass.signal_pass_failure()

        return callback


PASSES: dict[str, type[ModulePass]] = {}


@contextlib.contextmanager
def running(name: str):
    """While pass ``name`` runs, an op built outside an IR builder (``IRBuilder.building()``)
    raises an internal error instead of going to the frontend, which would stage it into
    whatever it is tracing or run it at once."""
    with only_builders(f"pass '{name}'"):
        yield


def register(cls: type[ModulePass]) -> type[ModulePass]:
    """Class decorator registering the pass ``cls`` (a frozen dataclass deriving
    :class:`ModulePass`) under ``cls.name``."""
    if not (isinstance(cls, type) and issubclass(cls, ModulePass)):
        raise TypeError(f"{cls!r} is not a ModulePass subclass")
    if not (dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen):
        raise TypeError(f"pass class {cls.__name__} must be a frozen dataclass: put @dataclass(frozen=True) under @register")
    if not isinstance(cls.__dict__.get("name"), str) or not isinstance(cls.__dict__.get("description"), str):
        raise TypeError(f"pass class {cls.__name__} needs the class attributes name and description (strings)")
    if cls.name in PASSES:
        raise RuntimeError(f"pass {cls.name} is registered twice")
    cls.options()  # its fields' types resolve
    PASSES[cls.name] = cls
    return cls


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

