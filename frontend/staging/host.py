"""``s4tf.host(fn)``: call a Python function on tensors from a staged function.

```python
def cpu_solver(logits):                      # gets and returns NumPy arrays
    return np.linalg.solve(A, logits.T).T.astype(np.float32)

@s4tf.function(extract=True)
def step(w, x):
    logits = x @ w
    plan = s4tf.host(cpu_solver)(logits)      # result: logits' shape and dtype
    s4tf.host(print_stats, result=())(logits)  # no result
    return logits + plan
```

Inside a staged function the call becomes ``s4tf.host_call`` (see
:mod:`s4tf.dialects.host_ops`); ``@s4tf.function(extract=True)`` partitions the function
so the call runs on the host while the device works. Outside one, ``fn`` runs at once.
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects.host_ops import call_host_function, register_host_function
from s4tf.dialects.types import TensorType, canonical_dtype
from s4tf.core.errors import S4tfError, StagingError
from s4tf.core.locations import user_location
from s4tf.runtime.device import to_device
from s4tf.staging.tensor import Tensor, Tracer
from s4tf.staging.tracing import current_scope

#: ``result=`` default: one result of the first operand's shape and dtype.
FIRST_OPERAND = object()


def _operand_type(operand) -> TensorType:
    if isinstance(operand, (Tensor, Tracer)):
        return operand.tensor_type
    array = np.asarray(operand)
    return TensorType(array.shape, canonical_dtype(array.dtype))


def _spec_type(spec) -> TensorType:
    if isinstance(spec, TensorType):
        return spec
    if hasattr(spec, "shape") and hasattr(spec, "dtype"):
        return TensorType(tuple(spec.shape), canonical_dtype(spec.dtype))
    raise StagingError(
        f"s4tf.host(..., result=...) takes arrays or objects with .shape and .dtype (or a tuple of them, "
        f"or () for no result), got {type(spec).__name__}"
    )


def result_types(result, operands) -> list[TensorType]:
    """The declared result types of a host call."""
    if result is FIRST_OPERAND:
        if not operands:
            raise StagingError("s4tf.host(fn) with no operands needs result=... (or result=() for none)")
        return [_operand_type(operands[0])]
    if isinstance(result, (tuple, list)):
        return [_spec_type(spec) for spec in result]
    return [_spec_type(result)]


class HostFunction:
    """``fn`` wrapped for calls on tensors: staged as ``s4tf.host_call`` or run at once."""

    def __init__(self, fn, result=FIRST_OPERAND, vectorized=False):
        if not callable(fn):
            raise StagingError(f"s4tf.host takes a callable, got {type(fn).__name__}")
        self.fn = fn
        self.result = result
        #: The host-function table's entry of ``fn``: held here and by each trace that stages a call.
        self.entry = register_host_function(fn, vectorized)
        self.single = not isinstance(result, (tuple, list))

    def __call__(self, *operands):
        try:
            types = result_types(self.result, operands)
        except S4tfError as error:
            raise error.at(str(user_location() or "") or None) from None
        scope = current_scope()
        if scope is not None:
            scope.trace.own(self.entry)
            results = scope.emit("host_call", operands, {"callee": self.entry.symbol, "result_types": types})
        else:
            arrays = call_host_function(self.entry.symbol, [np.asarray(o) for o in operands], types)
            results = [Tensor(to_device(array)) for array in arrays]
        return results[0] if self.single else tuple(results)

    def __repr__(self):
        return f"<s4tf.host {self.entry.symbol}>"


def host(fn, result=FIRST_OPERAND, vectorized=False) -> HostFunction:
    """``fn`` callable on tensors from staged code; it receives and returns NumPy arrays.

    ``result``: the result's shape and dtype (an array, or anything with ``.shape`` and
    ``.dtype``), a tuple of them for several results, ``()`` for none; by default one
    result like the first operand. A result of another shape or dtype is an error naming
    the host function. ``vectorized=True`` declares that ``fn`` also takes every operand
    with a leading batch axis and returns every result with one: under ``s4tf.vmap`` it
    is called once on the whole batch (otherwise batching the call is an error).
    """
    return HostFunction(fn, result, vectorized)
