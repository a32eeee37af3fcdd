"""Apply one s4tf op to tensors: staged inside a trace, eagerly on the device outside
(or recorded into a lazy trace in lazy mode, :mod:`s4tf.lazy_trace`)."""

from __future__ import annotations

from s4tf import lazy_mode
from s4tf.eager import run_eagerly
from s4tf.errors import S4tfError, StagingError
from s4tf.lazy_trace import record_op
from s4tf.locations import user_location
from s4tf.tensor import Tensor, Tracer
from s4tf.tracing import current_scope


def apply(op_name: str, operands, **attrs) -> list[Tensor]:
    """The results of ``s4tf.<op_name>(*operands) {attrs}``."""
    scope = current_scope()
    if scope is not None:
        return scope.emit(op_name, operands, attrs)
    if any(isinstance(operand, Tracer) for operand in operands):
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


def apply1(op_name: str, *operands, **attrs) -> Tensor:
    """The single result of ``s4tf.<op_name>``."""
    return apply(op_name, operands, **attrs)[0]
