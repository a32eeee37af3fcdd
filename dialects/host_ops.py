"""Host ops: calls of Python functions, and the transfers between host and device.

A staged function may call back into Python (``s4tf.host(fn)(x)``): ``s4tf.host_call``
names the function by a symbol of the host-function table and declares its result types.
``s4tf-partition`` splits such a function into device functions and a host program; the
transfers it inserts are ``s4tf.recv`` (device to host) and ``s4tf.send`` (host to device).
These ops run in the host program and are never lowered to StableHLO.

```python
entry = register_host_function(np.sort)                     # entry.symbol == "sort"
call_host_function(entry.symbol, [x], [TensorType((4,), "f32")])  # checked NumPy results
```

The table holds its entries weakly: an entry lives as long as what calls it holds it
(the ``s4tf.host`` wrapper, the trace that staged the call, the staged module and its
compiled versions), then its symbol leaves the table. A symbol is given again only to
its own function, so IR naming a freed one never calls another function.
"""

from __future__ import annotations

import threading
import weakref
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

class HostEntry:
    """One registered host function: ``fn`` under ``symbol``; ``vectorized``: it maps over a
    leading batch axis of all its operands and results (``vmap`` calls it once per batch)."""

    __slots__ = ("symbol", "fn", "vectorized", "__weakref__")

    def __init__(self, symbol: str, fn: Callable):
        self.symbol, self.fn, self.vectorized = symbol, fn, False

    def __repr__(self):
        return f"<host function {self.symbol}>"


#: The live entries by symbol, held weakly (see the module docstring).
HOST_FUNCTIONS: "weakref.WeakValueDictionary[str, HostEntry]" = weakref.WeakValueDictionary()
#: The live entries by ``id(fn)`` (an entry holds ``fn``, so its id is not reused meanwhile).
_BY_ID: "weakref.WeakValueDictionary[int, HostEntry]" = weakref.WeakValueDictionary()
#: Every symbol given in this process -> a reference to its function (weak where it can be).
_GIVEN: dict[str, Callable] = {}
_LOCK = threading.Lock()


def display_name(fn: Callable) -> str:
    """How errors name a host function: its own name (symbols may carry a ``_1`` suffix)."""
    return getattr(fn, "__name__", None) or type(fn).__name__


def _reference(fn: Callable) -> Callable:
    try:
        return weakref.ref(fn)
    except TypeError:  # builtins and ufuncs: held, they live as long as their modules anyway
        return lambda: fn


class _GivenToOthers:
    """The symbols given to functions other than ``fn`` (all :func:`unique_symbol` asks is ``in``)."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __contains__(self, symbol: str) -> bool:
        return symbol in _GIVEN and _GIVEN[symbol]() is not self.fn


def register_host_function(fn: Callable, vectorized: bool = False) -> HostEntry:
    """The entry of ``fn`` (its symbol: its name, made unique; the same again once freed),
    registered where no entry of it is alive; ``vectorized`` declares that ``fn`` maps over a leading
    batch axis of all its operands. The caller holds the entry as long as IR may call it."""
    with _LOCK:
        entry = _BY_ID.get(id(fn))
        if entry is None:
            entry = HostEntry(unique_symbol(display_name(fn), _GivenToOthers(fn), empty="host_fn"), fn)
            _GIVEN[entry.symbol] = _reference(fn)
            HOST_FUNCTIONS[entry.symbol] = _BY_ID[id(fn)] = entry
        if vectorized:
            entry.vectorized = True
        return entry


def host_function(symbol: str) -> Callable:
    try:
        return HOST_FUNCTIONS[symbol].fn
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
        entry = HOST_FUNCTIONS.get(callee)
        if entry is None or not entry.vectorized:
            name = display_name(entry.fn) if entry is not None else callee
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
