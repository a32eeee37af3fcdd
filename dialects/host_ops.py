"""Host ops: calls of Python functions, and the transfers between host and device.

A staged function may call back into Python (``s4tf.host(fn)(x)``): ``s4tf.host_call``
names the function by a symbol of the host-function table and declares its result types.
``s4tf-partition`` splits such a function into device functions and a host program; the
transfers it inserts are ``s4tf.recv`` (device to host) and ``s4tf.send`` (host to device).
These ops run in the host program and are never lowered to StableHLO.

```python
symbol = register_host_function(np.sort)              # "sort"
call_host_function(symbol, [x], [TensorType((4,), "f32")])  # checked NumPy results
```
"""

from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from s4tf.dialects.attributes import SYMBOL, TENSOR_TYPES
from s4tf.dialects.batching_helpers import batch_size, with_batch
from s4tf.dialects.op_def import MissingBatchingRule, Op
from s4tf.dialects.symbols import unique_symbol
from s4tf.dialects.types import TensorType, canonical_dtype, shape_str, to_numpy_dtype
from s4tf.core.errors import S4tfError


class HostFunctionError(S4tfError, RuntimeError):
    """A host function that failed, or returned results of the wrong number, shape or dtype."""


# -- the host-function table ------------------------------------------------------------

#: Python callables by the symbol ``s4tf.host_call`` names them with.
HOST_FUNCTIONS: dict[str, Callable] = {}
#: Symbols of host functions declared vectorized: given every operand with a leading
#: batch axis, they return every result with one (``vmap`` calls them once per batch).
VECTORIZED: set[str] = set()
_SYMBOLS: dict[int, str] = {}
_LOCK = threading.Lock()


def display_name(fn: Callable) -> str:
    """How errors name a host function: its own name (symbols may carry a ``_1`` suffix)."""
    return getattr(fn, "__name__", None) or type(fn).__name__


def register_host_function(fn: Callable, vectorized: bool = False) -> str:
    """The symbol of ``fn`` (its name, made unique), registering it on first use;
    ``vectorized`` declares that ``fn`` maps over a leading batch axis of all its operands."""
    with _LOCK:
        symbol = _SYMBOLS.get(id(fn))
        if symbol is None or HOST_FUNCTIONS[symbol] is not fn:
            symbol = unique_symbol(display_name(fn), HOST_FUNCTIONS, empty="host_fn")
            HOST_FUNCTIONS[symbol] = fn
            _SYMBOLS[id(fn)] = symbol
        if vectorized:
            VECTORIZED.add(symbol)
        return symbol


def host_function(symbol: str) -> Callable:
    try:
        return HOST_FUNCTIONS[symbol]
    except KeyError:
        raise HostFunctionError(
            f"no host function '{symbol}' is registered in this process (s4tf.host(fn) registers fn)"
        ) from None


def check_host_results(name: str, results, result_types) -> list[np.ndarray]:
    """``results`` (what host function ``name`` returned) as arrays of ``result_types``."""
    if not result_types:
        if results is not None and not (isinstance(results, tuple) and not results):
            raise HostFunctionError(f"host function '{name}' returned a value but declares no results (result=())")
        return []
    listed = list(results) if isinstance(results, (tuple, list)) and len(result_types) > 1 else [results]
    if len(listed) != len(result_types):
        raise HostFunctionError(f"host function '{name}' returned {len(listed)} results, it declares {len(result_types)}")
    arrays = []
    for index, (value, expected) in enumerate(zip(listed, result_types)):
        what = f"host function '{name}' result {index}" if len(result_types) > 1 else f"host function '{name}'"
        if value is None:
            raise HostFunctionError(f"{what} returned None, it declares {expected} (declare result=() for none)")
        array = np.asarray(value)
        try:
            dtype = canonical_dtype(array.dtype)
        except S4tfError:
            dtype = str(array.dtype)
        if array.shape != expected.shape or dtype != expected.dtype:
            raise HostFunctionError(
                f"{what} returned an array of shape {shape_str(array.shape)} and dtype {array.dtype}, "
                f"it declares shape {shape_str(expected.shape)} and dtype {to_numpy_dtype(expected.dtype)}"
            )
        arrays.append(array)
    return arrays


def call_host_function(symbol: str, arrays: list[np.ndarray], result_types) -> list[np.ndarray]:
    """Run host function ``symbol`` on NumPy arrays; its results are checked against ``result_types``."""
    fn = host_function(symbol)
    name = display_name(fn)
    try:
        results = fn(*arrays)
    except Exception as error:
        raise HostFunctionError(f"host function '{name}' raised {type(error).__name__}: {error}") from error
    return check_host_results(name, results, result_types)


# -- the ops ----------------------------------------------------------------------------


class HostOp(Op):
    """Ops of host programs: they run in Python, never on the device."""

    host = True
    pure = False

    @classmethod
    def is_differentiable(cls, operand_types, result_type, attrs) -> bool:
        return False


class HostCall(HostOp):
    """Call the host function ``callee`` on NumPy copies of ``args``; its results have
    the declared ``result_types`` (zero or more tensors).

    ```mlir
    %0 = "s4tf.host_call"(%x) {callee = "cpu_solver", result_types = [tensor<4xf32>]} : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "host_call"
    operands = ("args*",)
    attributes = {"callee": SYMBOL, "result_types": TENSOR_TYPES}
    variadic_results = True

    @staticmethod
    def infer(*operand_types, callee, result_types):
        return tuple(result_types)

    @staticmethod
    def reference(*arrays, callee, result_types):
        return tuple(call_host_function(callee, list(arrays), result_types))

    @staticmethod
    def batch(ops, operands, batch_dims, *, callee, result_types):
        """A vectorized host function is called once on the batch: every operand with the
        batch axis in front (shared ones broadcast), every result with one. Any other is
        an error: the batch would need one host call per example."""
        if callee not in VECTORIZED:
            name = display_name(host_function(callee)) if callee in HOST_FUNCTIONS else callee
            raise MissingBatchingRule(
                f"host function '{name}' is called on a batch (vmap): declare s4tf.host({name}, vectorized=True) "
                "if it takes and returns a leading batch axis on every operand and result"
            )
        size = batch_size(operands, batch_dims)
        args = [with_batch(ops, x, d, size) for x, d in zip(operands, batch_dims)]
        types = [TensorType((size, *t.shape), t.dtype) for t in result_types]
        results = ops.emit("host_call", args, {"callee": callee, "result_types": types})
        return results, [0] * len(results)


class Transfer(HostOp):
    """A copy of ``x`` between host and device; the value itself is unchanged."""

    operands = ("x",)

    @staticmethod
    def infer(x: TensorType):
        return x

    @staticmethod
    def reference(x):
        return x

    @classmethod
    def batch(cls, ops, operands, batch_dims):
        return [ops.op(cls.name, operands[0])], list(batch_dims)


class Send(Transfer):
    """Send ``x``, a host value (a host function's result), to the device.

    ```mlir
    %0 = "s4tf.send"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "send"


class Recv(Transfer):
    """Receive ``x``, a device value, on the host: waits until the device computed it.

    ```mlir
    %0 = "s4tf.recv"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "recv"
