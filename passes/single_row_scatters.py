"""``s4tf-single-row-scatters``: a ``set`` or ``add`` scatter of one row along the leading
axis becomes a write of that row (``s4tf.tape_write``: ``stablehlo.dynamic_update_slice``).

``scan`` writes each step's output into its stack with ``ys.at[i].set(y)``, and reverse
mode zeroes that row of the stack's cotangent with another such scatter. A general ``set``
scatter lowers to a copy of its whole operand first (IREE 3.13 writes a scatter into its
operand's buffer even when that is an argument: :func:`s4tf.dialects.hlo.unshared`) and
checks for colliding rows, so inside a host-stepped loop every step costs a pass over the
whole stack: ``T`` steps over a ``T``-row stack are ``T^2`` rows of traffic (the LSTM
language model of ``tools/bench/bench_loops_real.py``: a 1 MiB stack copied twice per
step). One row cannot collide with another; the scatter writes it when its coordinate is
in range and leaves ``x`` as it is otherwise, which the row write does by writing back the
row it would replace (an ``add`` writes the row plus the update; reverse mode of ``xs[i]``
adds each step's cotangent into a row of ``xs``'s):

```mlir
%y = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "set"} : (tensor<64x32xf32>, tensor<1xi32>, tensor<32xf32>) -> tensor<64x32xf32>
// becomes
%r = min(max(%i[0], 0), 63)                    // s4tf.reshape, s4tf.maximum, s4tf.minimum
%inside = %i[0] == %r                          // s4tf.eq
%row = select(%inside, %u, tape_read(%x, %r))
%y = "s4tf.tape_write"(%x, %r, %row)
```

A ``set`` marked a scan's output (``s4tf.scan_output``: its index is the loop's step, in
range) writes the update alone, reading no row.

The scatter's indices hold one coordinate row (``tensor<1xi32>``, ``tensor<1x1xi32>``)
along axis 0 and its updates one full row of ``x`` (with the indices' leading axes of 1).
Results are the same bits (an ``add`` of one row adds one update to each element, as the
scatter does). Runs on the s4tf dialect after differentiation (tape ops have
no transpose rule), before lowering.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from s4tf.core.mlir import ir
from s4tf.dialects.control_flow import SCAN_OUTPUT
from s4tf.dialects.op_def import build, lookup
from s4tf.dialects.types import TensorType
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register


def single_row(operation: ir.Operation) -> bool:
    """Whether ``operation`` is an ``s4tf.scatter`` of kind ``set`` or ``add`` writing one
    full row along axis 0 at one coordinate."""
    if operation.name != "s4tf.scatter" or ir.StringAttr(operation.attributes["kind"]).value not in ("set", "add"):
        return False
    if list(ir.DenseI64ArrayAttr(operation.attributes["axes"])) != [0]:
        return False
    x, indices, updates = (TensorType.from_mlir(v.type) for v in operation.operands)
    if not x.shape or None in x.shape or x.shape[0] == 0 or None in indices.shape or None in updates.shape:
        return False
    if indices.shape[-1:] != (1,) or int(np.prod(indices.shape[:-1], dtype=np.int64)) != 1:
        return False
    return tuple(updates.shape) == (*indices.shape[:-1], *x.shape[1:])


def _op(name: str, operands, location, **attrs) -> ir.Value:
    return build(lookup(name), list(operands), attrs, location).results[0]


def _rewrite(operation: ir.Operation) -> None:
    x, indices, updates = operation.operands
    x_type, index_type, update_type = (TensorType.from_mlir(v.type) for v in operation.operands)
    row_type = TensorType(tuple(x_type.shape[1:]), x_type.dtype)
    location = operation.location
    dtype = np.dtype({"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}.get(index_type.dtype, np.int32))
    with ir.InsertionPoint(operation):
        index = _op("reshape", [indices], location, shape=())
        low = _op("constant", [], location, value=np.zeros((), dtype))
        high = _op("constant", [], location, value=np.asarray(x_type.shape[0] - 1, dtype))
        row = _op("minimum", [_op("maximum", [index, low], location), high], location)
        update = updates if tuple(update_type.shape) == row_type.shape else _op("reshape", [updates], location,
                                                                               shape=row_type.shape)
        kind = ir.StringAttr(operation.attributes["kind"]).value
        if kind == "set" and SCAN_OUTPUT in operation.attributes:  # a scan's step index: in range
            written = _op("tape_write", [x, row, update], location)
        else:
            inside = _op("eq", [index, row], location)
            kept = _op("tape_read", [x, row], location)
            if kind == "add":
                update = _op("add", [kept, update], location)
            chosen = _op("select", [inside, update, kept], location)
            written = _op("tape_write", [x, row, chosen], location)
    operation.results[0].replace_all_uses_with(written)
    operation.erase()


def single_row_scatters(module: ir.Operation) -> int:
    """Rewrite every single-row ``set`` scatter in ``module``; returns how many."""
    found = collect(module, single_row)
    for operation in found:
        _rewrite(operation)
    return len(found)


@register
@dataclass(frozen=True)
class SingleRowScatters(ModulePass):
    name = "s4tf-single-row-scatters"
    description = "Write a set scatter of one full row along axis 0 as a row write (s4tf.tape_write)"

    def apply(self, module: ir.Operation) -> None:
        single_row_scatters(module)
