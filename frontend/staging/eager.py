"""Eager execution: an op applied outside any staged function runs on the device at once.

Each (op, attributes, target, operand signature) becomes a one-op staged function,
compiled once and kept in memory in a least-recently-used cache of
:data:`CACHE_SIZE` entries (the disk cache keeps every compiled module, so a function
dropped from memory costs a load, not a compile, when it is needed again). It runs where
its first tensor operand lives (the CPU when none is a tensor), and results stay on that
device.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from s4tf.dialects.op_def import lookup
from s4tf.runtime.device import to_device
from s4tf.staging.function import Compiled, StagedFunction, flat_key
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import Static, current_scope, leaf_spec

#: How many one-op functions (each a loaded IREE module) eager execution keeps in memory.
CACHE_SIZE = 64

_one_op_functions: OrderedDict[tuple, StagedFunction] = OrderedDict()
_lock = threading.Lock()


def _trim(cache: OrderedDict, size: int) -> None:
    """Drop ``cache``'s oldest entries beyond ``size``."""
    while len(cache) > size:
        cache.popitem(last=False)


def _attrs_key(attrs: dict) -> tuple:
    return tuple(sorted(attrs.items()))


#: Attributes as given -> (normalized, their key), for the attributes eager code repeats
#: (``axes=(0,)``, ``dtype="f32"``): normalizing costs more than the op's call.
_normalized: OrderedDict[tuple, tuple[dict, tuple]] = OrderedDict()


def _normalized_attributes(op, attrs: dict) -> tuple[dict, tuple]:
    """``op``'s normalized ``attrs`` (checked: an error names the attribute) and their key."""
    try:
        given = (op.name, tuple(attrs.items()))
        found = _normalized.get(given)
    except TypeError:  # an array-valued attribute: not kept
        normalized = op.normalize_attributes(attrs)
        return normalized, _attrs_key(normalized)
    if found is None:
        normalized = op.normalize_attributes(attrs)
        found = _normalized[given] = (normalized, _attrs_key(normalized))
        _trim(_normalized, 4 * CACHE_SIZE)
    return found


def _operands_key(operands) -> tuple:
    key = flat_key(operands)  # tensors and NumPy arrays by type alone: one lookup each
    if key is not None:
        return key
    specs = (leaf_spec(operand) for operand in operands)
    return tuple(spec.key() if isinstance(spec, Static) else spec for spec in specs)


def one_op_function(op_name: str, attrs: dict, operands, target: str = "cpu", attrs_key: tuple | None = None) -> StagedFunction:
    """The staged function running ``op_name`` on operands like ``operands``, from the cache."""
    key = (op_name, _attrs_key(attrs) if attrs_key is None else attrs_key, target, _operands_key(operands))
    with _lock:
        function = _one_op_functions.get(key)
        if function is not None:
            _one_op_functions.move_to_end(key)
            return function

        def staged_op(*operands):
            results = current_scope().emit(op_name, operands, attrs)
            return results[0] if len(results) == 1 else tuple(results)

        staged_op.__name__ = op_name
        function = _one_op_functions[key] = StagedFunction(staged_op, target, trace_scalars=False)  # operands are arrays
        _trim(_one_op_functions, CACHE_SIZE)
        return function


def cached_functions() -> int:
    """How many one-op functions are in memory now."""
    return len(_one_op_functions)


#: (op name, attributes as given with their types, operand types) -> the one-op function's direct call
#: (:meth:`~s4tf.staging.function.Compiled.direct_call`), for operands that are all Tensors:
#: the common case of eager code, which then skips the op's lookup, the normalization of
#: its attributes and the staged function's call path.
_direct_calls: OrderedDict[tuple, object] = OrderedDict()


def _direct_key(op_name: str, operands, attrs: dict) -> tuple | None:
    """The key of :data:`_direct_calls` for these operands and attributes, or ``None`` when
    an operand is not a Tensor (an attribute that is not hashable, an array, makes the
    lookup raise ``TypeError``)."""
    types = []
    for operand in operands:
        if type(operand) is not Tensor:
            return None
        types.append(operand.tensor_type)
    return (op_name, tuple((name, type(value), value) for name, value in attrs.items()), tuple(types))  # 1 == 1.0 == True


def run_eagerly(op_name: str, operands, attrs: dict) -> list[Tensor]:
    key = _direct_key(op_name, operands, attrs)
    if key is not None:
        try:
            direct = _direct_calls.get(key)
        except TypeError:  # an attribute that is not hashable
            key = direct = None
        results = direct(operands) if direct is not None else None
        if results is not None:
            return results
    op = lookup(op_name)
    attrs, attrs_key = _normalized_attributes(op, attrs)  # checked before compiling; hashable (lists become tuples)
    if op.name == "constant":
        return [Tensor(to_device(attrs["value"]))]
    target = next((operand.target for operand in operands if isinstance(operand, Tensor)), "cpu")
    function = one_op_function(op_name, attrs, operands, target, attrs_key)
    results = function(*operands)
    if key is not None and operands:
        compiled = function.compiled_for(operands)  # a tiered first call's version: not yet (S4TF_FIRST_CALL)
        direct = compiled.direct_call() if isinstance(compiled, Compiled) else None
        if direct is not None:
            with _lock:
                _direct_calls[key] = direct
                _trim(_direct_calls, CACHE_SIZE)
    return list(results) if isinstance(results, tuple) else [results]
