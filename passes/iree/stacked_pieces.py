"""``s4tf-select-stacked-pieces``: a ``stablehlo.concatenate`` of pieces one element thick
along its axis (``stack`` of scalars or rows: a 3x3 rotation built from nine sines and
cosines) becomes a chain of ``select``s of the pieces broadcast to the result.

IREE 3.13 fuses no concatenation with the ops that produce its pieces: each piece is
computed by a dispatch of its own. The hand tracker of GradBench builds a rotation for each
of 22 bones from nine scalars, and under ``jacfwd`` each of its 26 tangent directions does
the same: hundreds of dispatches of one element each. Broadcasts and selects are
elementwise, and IREE fuses them with their producers and consumers.

```mlir
%m = stablehlo.concatenate %a, %b, %c, dim = 0 : (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
// becomes
%i = stablehlo.iota dim = 0 : tensor<3x3xi32>
%ba = stablehlo.broadcast_in_dim (reshape %a : tensor<3xf32>), dims = [1] : tensor<3x3xf32>   // likewise %bb, %bc
%m = select(%i == 0, %ba, select(%i == 1, %bb, %bc))
```

Only concatenations of at most ``max_pieces`` pieces and ``max_elements`` elements are
rewritten: the select chain reads every piece at every element, which for many or large
pieces costs more than the copies it saves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.dialects.types import TensorType
from s4tf.passes.iree.unroll_host_loops import in_dispatch_region
from s4tf.passes.ir_walk import collect
from s4tf.passes.pass_options import PipelineError
from s4tf.passes.registry import ModulePass, register

CONCATENATE = "stablehlo.concatenate"


@register
@dataclass(frozen=True)
class SelectStackedPieces(ModulePass):
    name = "s4tf-select-stacked-pieces"
    description = "Write each concatenation of pieces one element thick along its axis as selects of broadcasts"

    #: The most pieces and elements a concatenation rewritten may have.
    max_pieces: int = 16
    max_elements: int = 4096

    def __post_init__(self):
        super().__post_init__()
        for option in ("max_pieces", "max_elements"):
            if getattr(self, option) < 1:
                raise PipelineError(f"{self.name}: {option} must be at least 1, got {getattr(self, option)}")

    def apply(self, module: ir.Operation) -> None:
        for concatenate in collect(module, lambda op: op.name == CONCATENATE and self._stacks(op) and not in_dispatch_region(op)):
            with ir.InsertionPoint(concatenate), concatenate.location:
                result = _selects(concatenate)
            concatenate.results[0].replace_all_uses_with(result)
            concatenate.erase()

    def _stacks(self, concatenate: ir.Operation) -> bool:
        result = TensorType.from_mlir(concatenate.results[0].type)
        if None in result.shape or not 1 < int(np.prod(result.shape)) <= self.max_elements \
                or len(concatenate.operands) > self.max_pieces:
            return False
        axis = ir.IntegerAttr(concatenate.attributes["dimension"]).value
        return all(TensorType.from_mlir(piece.type).shape[axis] == 1 for piece in concatenate.operands)


def _selects(concatenate: ir.Operation) -> ir.Value:
    result_type = TensorType.from_mlir(concatenate.results[0].type)
    axis = ir.IntegerAttr(concatenate.attributes["dimension"]).value
    index_type = TensorType(result_type.shape, "i32")
    iota = hlo.value("iota", [], index_type, iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis))
    kept = [a for a in range(result_type.rank) if a != axis]
    pieces = []
    for piece in concatenate.operands:
        squeezed = TensorType(tuple(result_type.shape[a] for a in kept), result_type.dtype)
        flat = hlo.value("reshape", [piece], squeezed)
        pieces.append(hlo.value("broadcast_in_dim", [flat], result_type, broadcast_dimensions=hlo.i64_array(kept)))
    total = pieces[-1]
    for position in range(len(pieces) - 2, -1, -1):
        here = hlo.compare(iota, hlo.splat(position, index_type), "EQ", "i32", TensorType(result_type.shape, "i1"))
        total = hlo.value("select", [here, pieces[position], total], result_type)
    return total
