"""``s4tf-reverse-before-slice``: a ``stablehlo.reverse`` of a ``stablehlo.slice`` becomes a
slice of the reversed operand.

IREE-3.13-WORKAROUND: IREE 3.13 fails to compile a reverse whose operand is a slice with a
stride on the innermost axis ("LLVM Translation failed for operation:
builtin.unrealized_conversion_cast"; tests/lit/iree_reproducers/reverse_of_a_strided_slice.mlir):
``x[::2][::-1]``, ``s4tf.flip(x[::2])``, and reverse mode of ``x.at[::2, ::-2].set(v)``. The
other order compiles (it is how s4tf reads ``x[::-2]``). A reshape between them that only
adds or drops axes of 1 (an int index: ``x[0, ::2][::-1]``) stays after the new slice.
Along a reversed axis of size ``n``, the slice ``start:limit:stride`` of ``c`` elements,
whose last is ``start + stride (c - 1)``, is ``n - 1 - last : n - start : stride`` of the
reversed operand:

```mlir
%s = stablehlo.slice %x [0:5:2] : (tensor<5xf32>) -> tensor<3xf32>        // x[0], x[2], x[4]
%r = stablehlo.reverse %s, dims = [0] : tensor<3xf32>
// becomes
%v = stablehlo.reverse %x, dims = [0] : tensor<5xf32>
%r = stablehlo.slice %v [0:5:2] : (tensor<5xf32>) -> tensor<3xf32>        // x[4], x[2], x[0]
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.dialects.types import TensorType
from s4tf.passes.ir_walk import collect, defining_op, has_uses
from s4tf.passes.registry import ModulePass, register


@register
@dataclass(frozen=True)
class ReverseBeforeSlice(ModulePass):
    name = "s4tf-reverse-before-slice"
    description = "Write each reverse of a slice as a slice of the reversed operand"

    def apply(self, module: ir.Operation) -> None:
        for reverse in collect(module, lambda op: op.name == "stablehlo.reverse"):
            found = _reversed_slice(reverse)
            if found is None:
                continue
            piece, reshape = found
            with ir.InsertionPoint(reverse), reverse.location:
                result = _slice_of_reversed(reverse, piece, reshape)
            reverse.results[0].replace_all_uses_with(result)
            reverse.erase()
            for op in (reshape, piece):
                if op is not None and not has_uses(op.results[0]):
                    op.erase()


def _shape(value: ir.Value) -> tuple:
    return TensorType.from_mlir(value.type).shape


def _reversed_slice(reverse: ir.Operation):
    """``(slice, reshape)`` where ``reverse`` reverses a slice of static nonempty shapes,
    directly (``reshape``: ``None``) or through a reshape that only adds or drops axes of
    1 (how an int index reads: ``x[0, ::2]``); else ``None``."""
    source = defining_op(reverse.operands[0])
    reshape = None
    if source is not None and source.name == "stablehlo.reshape":
        reshape, source = source, defining_op(source.operands[0])
        if source is not None and [d for d in _shape(reshape.operands[0]) if d != 1] != [d for d in _shape(reshape.results[0]) if d != 1]:
            return None
    if source is None or source.name != "stablehlo.slice":
        return None
    shapes = [_shape(value) for value in (source.operands[0], source.results[0])]
    return (source, reshape) if all(None not in shape and 0 not in shape for shape in shapes) else None


def _sliced_axes(reverse: ir.Operation, reshape: ir.Operation | None) -> set[int]:
    """The slice's axes that ``reverse`` reverses (through ``reshape``'s axes of more than 1)."""
    axes = set(ir.DenseI64ArrayAttr(reverse.attributes["dimensions"]))
    if reshape is None:
        return axes
    outer = [a for a, d in enumerate(_shape(reshape.results[0])) if d != 1]
    inner = [a for a, d in enumerate(_shape(reshape.operands[0])) if d != 1]
    return {inner[outer.index(a)] for a in axes if a in outer}


def _slice_of_reversed(reverse: ir.Operation, piece: ir.Operation, reshape: ir.Operation | None) -> ir.Value:
    x = piece.operands[0]
    x_type = TensorType.from_mlir(x.type)
    axes = _sliced_axes(reverse, reshape)
    start, limit, stride = (list(ir.DenseI64ArrayAttr(piece.attributes[name]))
                            for name in ("start_indices", "limit_indices", "strides"))
    shape = _shape(piece.results[0])
    for axis in axes:
        last = start[axis] + stride[axis] * (shape[axis] - 1)
        start[axis], limit[axis] = x_type.shape[axis] - 1 - last, x_type.shape[axis] - start[axis]
    reversed_x = hlo.value("reverse", [x], x_type, dimensions=hlo.i64_array(sorted(axes))) if axes else x
    result = hlo.value("slice", [reversed_x], TensorType.from_mlir(piece.results[0].type),
                       start_indices=hlo.i64_array(start), limit_indices=hlo.i64_array(limit),
                       strides=hlo.i64_array(stride))
    return result if reshape is None else hlo.value("reshape", [result], TensorType.from_mlir(reshape.results[0].type))
