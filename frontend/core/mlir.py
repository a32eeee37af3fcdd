"""The one place s4tf imports MLIR's Python bindings from.

The bindings ship inside ``iree-base-compiler`` (``iree.compiler.ir``); every other
module imports ``ir``, ``passmanager`` and the dialects' op builders (``func``; ``arith``,
``math``, ``vector``, ``scf``, ``tensor`` and IREE's ``flow`` for the ops a pass builds)
from here so that the source of MLIR can change in one place. The builders other than
``func`` are imported when first asked for (``import s4tf`` does not pay for them; a pass
that builds such ops does, when it runs).
"""

import importlib
import re
import subprocess

from iree.compiler import ir, passmanager
from iree.compiler._mlir_libs import _mlir
from iree.compiler.dialects import func
from iree.compiler.tools.binaries import find_tool

__all__ = ["ir", "passmanager", "arith", "flow", "func", "math", "scf", "tensor", "vector", "new_context", "load_dialects", "parse_module",
           "registered_dialects", "UnsafeTextError"]

_LAZY_DIALECTS = ("arith", "flow", "math", "scf", "tensor", "vector")


def __getattr__(name: str):
    """``arith``, ``flow``, ``math``, ``scf``, ``tensor``, ``vector``: IREE's builder modules,
    imported on first use (they would otherwise be a noticeable part of ``import s4tf``)."""
    if name in _LAZY_DIALECTS:
        module = importlib.import_module(f"iree.compiler.dialects.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The dialects loaded into every new context: those whose ops s4tf creates by name
#: (``ir.Operation.create``), which MLIR would otherwise take for unregistered ops. Every
#: other registered dialect loads when parsed text names it or a pass depends on it.
#: Loading all of IREE's (MLIR's default) was a third of a new process's first call over a
#: warm cache (figures: docs/benchmarks.md). ``util`` (built by name in ``s4tf-export`` only)
#: loads there: loading it imports its Python op classes.
LOADED_DIALECTS = ("builtin", "func", "stablehlo", "chlo")

def load_dialects(context: ir.Context, names) -> None:
    """Load ``names`` into ``context`` (beyond :data:`LOADED_DIALECTS`) before building
    their ops: an op of a dialect not loaded would be built as an unregistered op."""
    for name in names:
        context.dialects[name]


_mlir.globals.append_dialect_search_prefix("s4tf.dialects")  # finds s4tf/dialects/s4tf.py: see there


def new_context() -> ir.Context:
    """A context where the generic-form ``s4tf.*`` ops are allowed.

    s4tf ops are unregistered (the wheel cannot define dialects from Python), so
    they are checked by the ``s4tf-verify`` pass rather than by MLIR itself.
    """
    context = ir.Context(load_on_create_dialects=LOADED_DIALECTS)
    context.allow_unregistered_dialects = True
    return context


_PARSED_LOCATION = re.compile(r'loc\("-":(\d+):(\d+)\)')


class UnsafeTextError(ValueError):
    """Text that MLIR's parser would spend minutes and gigabytes on, or abort the process
    over, rejected before it parses; ``line`` and ``column`` count from 1, as MLIR's do."""

    def __init__(self, message: str, line: int, column: int):
        self.message, self.line, self.column = message, line, column
        super().__init__(f"{line}:{column}: {message}")


#: StableHLO's pretty convolution layout, ``dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``:
#: its parser sizes a vector by the largest spatial index (2**31 takes tens of seconds and
#: gigabytes, docs/trust.md; 2**63 - 1 aborts in LLVM), so an index no layout can hold is
#: refused first.
_CONV_LAYOUT = re.compile(r"dim_numbers\s*=\s*(\[[^\]]*\])\s*x\s*(\[[^\]]*\])\s*->\s*(\[[^\]]*\])")
_INDEX = re.compile(r"\d+")


def screen_text(text: str) -> None:
    """Raise :class:`UnsafeTextError` on text that MLIR's parser cannot be trusted with:
    a convolution layout naming a spatial dimension beyond its own length."""
    if "dim_numbers" not in text:
        return
    for layout in _CONV_LAYOUT.finditer(text):
        for group in (1, 2, 3):
            entries = layout.group(group)
            for index in _INDEX.finditer(entries):
                if int(index.group()) >= entries.count(",") + 1:
                    offset = layout.start(group) + index.start()
                    line = text.count("\n", 0, offset) + 1
                    column = offset - text.rfind("\n", 0, offset)
                    raise UnsafeTextError(
                        f"custom op 'stablehlo.convolution' names spatial dimension {index.group()} in {entries},"
                        " a layout of fewer dimensions", line, column)


def parse_module(text: str, source_name: str) -> ir.Module:
    """``ir.Module.parse(text)`` with the locations the parser gives named ``source_name``
    (the bindings name every parsed string ``"-"``), as mlir-opt names them by the file.
    Locations written in the text stay as they are. Text :func:`screen_text` refuses
    raises :class:`UnsafeTextError`."""
    screen_text(text)
    module = ir.Module.parse(text)

    def named(location):
        match = _PARSED_LOCATION.fullmatch(str(location))
        return ir.Location.file(source_name, int(match.group(1)), int(match.group(2))) if match else None

    def rename(operation):
        if (location := named(operation.location)) is not None:
            operation.location = location
        for region in operation.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    if (location := named(argument.location)) is not None:
                        argument.set_location(location)
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(rename)
    return module


def registered_dialects() -> list[str]:
    """The dialects registered in s4tf's contexts, sorted.

    The bindings cannot list them, so the names come from ``iree-opt --show-dialects``
    (the same compiler library) and each is looked up in a context.
    """
    shown = subprocess.run([find_tool("iree-opt"), "--show-dialects"], capture_output=True, text=True, check=True)
    context = new_context()
    found = []
    for name in shown.stdout.partition(":")[2].strip().split(","):
        try:
            context.get_dialect_descriptor(name)
        except ValueError:
            continue
        found.append(name)
    return sorted(found)
