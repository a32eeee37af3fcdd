"""The one place s4tf imports MLIR's Python bindings from.

The bindings ship inside ``iree-base-compiler`` (``iree.compiler.ir``); every other
module imports ``ir``, ``passmanager`` and ``func`` from here so that the source of
MLIR can change in one place.
"""

from iree.compiler import ir, passmanager
from iree.compiler._mlir_libs import _mlir
from iree.compiler.dialects import func

__all__ = ["ir", "passmanager", "func", "new_context"]

_mlir.globals.append_dialect_search_prefix("s4tf.dialects")  # finds s4tf/dialects/s4tf.py: see there


def new_context() -> ir.Context:
    """A context where the generic-form ``s4tf.*`` ops are allowed.

    s4tf ops are unregistered (the wheel cannot define dialects from Python), so
    they are checked by the ``s4tf-verify`` pass rather than by MLIR itself.
    """
    context = ir.Context()
    context.allow_unregistered_dialects = True
    return context
