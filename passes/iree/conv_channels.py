"""``s4tf-pad-conv-channels``: a StableHLO convolution with one input channel reads its
input and filter padded with zero channels to :data:`CHANNELS`.

IREE-3.13-WORKAROUND: IREE 3.13 drops the unit channel dimension of such a convolution, and what is
left is a generic loop nest that its CPU backend does not run as a convolution (LeNet-5's
first layer: 28x28 images, one channel). With four channels, three of them zeros, the
convolution keeps its named form and runs faster despite the extra multiply-adds (figures:
docs/benchmarks.md, "LeNet-5 training step"). The zero channels add nothing to any output element.

```mlir
%y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], ...
    : (tensor<64x28x28x1xf32>, tensor<5x5x1x6xf32>) -> tensor<64x28x28x6xf32>
// becomes
%xp = stablehlo.pad %x, %zero, low = [0, 0, 0, 0], high = [0, 0, 0, 3], ... -> tensor<64x28x28x4xf32>
%wp = stablehlo.pad %w, %zero, low = [0, 0, 0, 0], high = [0, 0, 3, 0], ... -> tensor<5x5x4x6xf32>
%y = stablehlo.convolution(%xp, %wp) ...
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register

CONVOLUTION = "stablehlo.convolution"
#: The layout s4tf's ``conv2d`` lowers to: NHWC input and output, HWIO filter.
NHWC_HWIO = "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"
#: Channels a one-channel convolution is padded to.
CHANNELS = 4


def zero_scalar(element_type: ir.Type) -> ir.Value:
    """A new ``stablehlo.constant`` float zero of rank 0 (a ``stablehlo.pad`` value)."""
    scalar_type = ir.RankedTensorType.get([], element_type)
    return ir.Operation.create(
        "stablehlo.constant", results=[scalar_type],
        attributes={"value": ir.DenseElementsAttr.get_splat(scalar_type, ir.FloatAttr.get(element_type, 0.0))},
    ).results[0]


def _one_channel(convolution: ir.Operation) -> bool:
    attributes = convolution.attributes
    if str(attributes["dimension_numbers"]) != NHWC_HWIO:
        return False
    if any(ir.IntegerAttr(attributes[name]).value != 1 for name in ("feature_group_count", "batch_group_count")):
        return False
    input_type, filter_type = (ir.RankedTensorType(value.type) for value in convolution.operands[:2])
    return (
        input_type.has_static_shape and filter_type.has_static_shape and isinstance(input_type.element_type, ir.FloatType)
        and input_type.shape[3] == 1 and filter_type.shape[2] == 1
    )


def _pad_axis(value: ir.Value, zero: ir.Value, axis: int) -> ir.Value:
    """``value`` padded at the end of ``axis`` to :data:`CHANNELS`, with ``zero``."""
    tensor_type = ir.RankedTensorType(value.type)
    shape = list(tensor_type.shape)
    high = [0] * len(shape)
    high[axis] = CHANNELS - shape[axis]
    shape[axis] = CHANNELS

    def array(values):
        return ir.Attribute.parse(f"array<i64: {', '.join(map(str, values))}>")

    return ir.Operation.create(
        "stablehlo.pad", results=[ir.RankedTensorType.get(shape, tensor_type.element_type)], operands=[value, zero],
        attributes={"edge_padding_low": array([0] * len(shape)), "edge_padding_high": array(high),
                    "interior_padding": array([0] * len(shape))},
    ).results[0]


@register
@dataclass(frozen=True)
class PadConvChannels(ModulePass):
    name = "s4tf-pad-conv-channels"
    description = "Pad one-channel convolutions' input and filter with zero channels"

    def apply(self, module: ir.Operation) -> None:
        pad_conv_channels(module)


def pad_conv_channels(module: ir.Operation) -> None:
    for convolution in collect(module, lambda op: op.name == CONVOLUTION):
        if not _one_channel(convolution):
            continue
        input_value, filter_value = convolution.operands[:2]
        element_type = ir.RankedTensorType(input_value.type).element_type
        with ir.InsertionPoint(convolution), convolution.location:
            zero = zero_scalar(element_type)
            convolution.operands[0] = _pad_axis(input_value, zero, 3)
            convolution.operands[1] = _pad_axis(filter_value, zero, 2)
