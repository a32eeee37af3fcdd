"""Eager execution: an op applied outside any staged function runs on the device at once.

Each (op, attributes, target) becomes a one-op staged function, compiled once per operand
signature and cached like any other; it runs where its first tensor operand lives (the
CPU when none is a tensor), and results stay on that device.
"""

from __future__ import annotations

import numpy as np

from s4tf.runtime.device import to_device
from s4tf.staging import StagedFunction
from s4tf.tensor import Tensor
from s4tf.tracing import current_scope

_one_op_functions: dict[tuple, StagedFunction] = {}


def _attrs_key(attrs: dict) -> tuple:
    return tuple(sorted(attrs.items()))


def one_op_function(op_name: str, attrs: dict, target: str = "cpu") -> StagedFunction:
    key = (op_name, _attrs_key(attrs), target)
    if key not in _one_op_functions:

        def staged_op(*operands):
            results = current_scope().emit(op_name, operands, attrs)
            return results[0] if len(results) == 1 else tuple(results)

        staged_op.__name__ = op_name
        _one_op_functions[key] = StagedFunction(staged_op, target)
    return _one_op_functions[key]


def run_eagerly(op_name: str, operands, attrs: dict) -> list[Tensor]:
    if op_name == "constant":
        return [Tensor(to_device(np.asarray(attrs["value"])))]
    target = next((operand.target for operand in operands if isinstance(operand, Tensor)), "cpu")
    results = one_op_function(op_name, attrs, target)(*operands)
    return list(results) if isinstance(results, tuple) else [results]
