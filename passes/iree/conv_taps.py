"""``s4tf-full-convs-to-matmul``: a stride-1 StableHLO convolution whose output is larger
than its input (a "full" convolution, such as the input gradient of a valid one) becomes
one product over the channels and a sum of shifted taps.

IREE-3.13-WORKAROUND: IREE 3.13 runs such a convolution on a CPU far below its matmul speed:
the input gradient of LeNet-5's second convolution (64x10x10x16 padded by 4, filter
5x5x16x6) was most of the step's dispatch time on a Zen 3 (AVX2), several times XLA's
(figures: docs/benchmarks.md, "LeNet-5 training step"). Written as ``X (n, h, w, c) . K (kh,
kw, c, o) -> M (n, h, w, kh, kw, o)``, a matmul over the channels, tap ``(i, j)`` of ``M``
lands at output row ``y = a + top - i`` for input row ``a``: each tap is padded (or cropped,
where the amount is negative) to the output and the taps are added. That also skips the
multiplications by the zero padding.

```mlir
%y = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
       window = {pad = [[4, 4], [4, 4]]} : (tensor<64x10x10x16xf32>, tensor<5x5x16x6xf32>) -> tensor<64x14x14x6xf32>
// becomes
%m = stablehlo.dot_general %x, %k, contracting_dims = [3] x [2] -> tensor<64x10x10x5x5x6xf32>
%t00 = stablehlo.slice %m [0:64, 0:10, 0:10, 0:1, 0:1, 0:6] ...   // then reshape to 64x10x10x6
%p00 = stablehlo.pad %r00, %zero, low = [0, 4, 4, 0], high = [0, 0, 0, 0] -> tensor<64x14x14x6xf32>
...                                                                  // 25 taps
%y = stablehlo.add %p00, %p01 ...
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects import hlo
from s4tf.core.mlir import ir
from s4tf.passes.iree.conv_channels import CONVOLUTION, NHWC_HWIO, zero_scalar
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register


def _window(convolution: ir.Operation, name: str, default: list[int]) -> list[int]:
    attributes = convolution.attributes
    if name not in attributes:
        return default
    if name == "padding":
        return [int(v) for v in ir.DenseIntElementsAttr(attributes[name])]
    return list(ir.DenseI64ArrayAttr(attributes[name]))


def _full_convolution(convolution: ir.Operation) -> tuple[int, int] | None:
    """``(top, left)`` padding of a convolution this pass rewrites, else ``None``: NHWC/HWIO,
    float, static shapes, no groups, strides or dilations, output larger than the input."""
    attributes = convolution.attributes
    if str(attributes["dimension_numbers"]) != NHWC_HWIO:
        return None
    if any(ir.IntegerAttr(attributes[name]).value != 1 for name in ("feature_group_count", "batch_group_count")):
        return None
    if any(_window(convolution, name, [1, 1]) != [1, 1] for name in ("window_strides", "lhs_dilation", "rhs_dilation")):
        return None
    input_type, filter_type = (ir.RankedTensorType(value.type) for value in convolution.operands[:2])
    result_type = ir.RankedTensorType(convolution.results[0].type)
    if not (input_type.has_static_shape and filter_type.has_static_shape and isinstance(input_type.element_type, ir.FloatType)):
        return None
    if result_type.shape[1] * result_type.shape[2] <= input_type.shape[1] * input_type.shape[2]:
        return None
    top, _, left, _ = _window(convolution, "padding", [0, 0, 0, 0])
    return top, left


def _create(name: str, operands, shape, element_type, **attributes) -> ir.Value:
    attributes = {k: v if isinstance(v, ir.Attribute) else ir.Attribute.parse(v) for k, v in attributes.items()}
    return ir.Operation.create(
        name, results=[ir.RankedTensorType.get(shape, element_type)], operands=list(operands), attributes=attributes,
    ).results[0]


def _taps_sum(convolution: ir.Operation, top: int, left: int) -> ir.Value:
    input_value, filter_value = convolution.operands[:2]
    n, h, w, _ = ir.RankedTensorType(input_value.type).shape
    kh, kw, _, o = ir.RankedTensorType(filter_value.type).shape
    out_h, out_w = ir.RankedTensorType(convolution.results[0].type).shape[1:3]
    element_type = ir.RankedTensorType(input_value.type).element_type
    products = _create(
        "stablehlo.dot_general", [input_value, filter_value], [n, h, w, kh, kw, o], element_type,
        dot_dimension_numbers="#stablehlo.dot<lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>",
    )
    zero = zero_scalar(element_type)
    total = None
    for i in range(kh):
        for j in range(kw):
            tap = _create(
                "stablehlo.slice", [products], [n, h, w, 1, 1, o], element_type,
                start_indices=hlo.i64_array([0, 0, 0, i, j, 0]), limit_indices=hlo.i64_array([n, h, w, i + 1, j + 1, o]),
                strides=hlo.i64_array([1] * 6),
            )
            tap = _create("stablehlo.reshape", [tap], [n, h, w, o], element_type)
            low = [0, top - i, left - j, 0]
            high = [0, out_h - h - low[1], out_w - w - low[2], 0]
            placed = _create(
                "stablehlo.pad", [tap, zero], [n, out_h, out_w, o], element_type,
                edge_padding_low=hlo.i64_array(low), edge_padding_high=hlo.i64_array(high),
                interior_padding=hlo.i64_array([0] * 4),
            )
            total = placed if total is None else _create("stablehlo.add", [total, placed], [n, out_h, out_w, o], element_type)
    return total


@register
@dataclass(frozen=True)
class FullConvsToMatmul(ModulePass):
    name = "s4tf-full-convs-to-matmul"
    description = "Write stride-1 convolutions whose output outgrows their input as a matmul and shifted taps"

    def apply(self, module: ir.Operation) -> None:
        full_convs_to_matmul(module)


def full_convs_to_matmul(module: ir.Operation) -> None:
    for convolution in collect(module, lambda op: op.name == CONVOLUTION):
        padding = _full_convolution(convolution)
        if padding is None:
            continue
        with ir.InsertionPoint(convolution), convolution.location:
            result = _taps_sum(convolution, *padding)
        convolution.results[0].replace_all_uses_with(result)
        convolution.erase()
