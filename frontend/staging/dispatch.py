"""Apply one s4tf op to tensors: staged inside a trace, eagerly on the device outside
(or recorded into a lazy trace in lazy mode, :mod:`s4tf.lazy_tensors.trace`).

Ops go through :func:`s4tf.dialects.composition.emit`: while a function is traced its
scope is the current builder (``scope.building()``); outside every builder, eager (or
lazy) execution is the default builder, registered here.
"""

from __future__ import annotations

from s4tf.lazy_tensors import mode as lazy_mode
from s4tf.dialects.composition import apply1, emit, set_default_builder
from s4tf.staging.eager import run_eagerly
from s4tf.core.errors import S4tfError, StagingError
from s4tf.lazy_tensors.trace import record_op
from s4tf.core.locations import user_location
from s4tf.staging.tensor import Tensor, Tracer

__all__ = ["apply", "apply1"]


def apply(op_name: str, operands, **attrs) -> list[Tensor]:
    """The results of ``s4tf.<op_name>(*operands) {attrs}``."""
    return emit(op_name, operands, attrs)


class _OutsideTrace:
    """The default builder: ops outside every trace run on the device (or are recorded in lazy mode)."""

    @staticmethod
    def emit(op_name: str, operands, attrs: dict) -> list[Tensor]:
        for operand in operands:
            if isinstance(operand, Tracer):
                raise StagingError(
                    "a traced tensor escaped the staged function that made it (was it stored in a global?)",
                    str(user_location() or ""),
                )
        try:
            if lazy_mode.mode_is_lazy():
                return record_op(op_name, operands, attrs)
            return run_eagerly(op_name, operands, attrs)
        except S4tfError as error:
            raise error.at(str(user_location() or "") or None) from None


set_default_builder(_OutsideTrace)
