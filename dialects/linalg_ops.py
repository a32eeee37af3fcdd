"""Contractions: ``dot_general`` (matmul, batched matmul) and ``conv2d`` (NHWC input,
HWIO filter).

```mlir
%0 = "s4tf.dot_general"(%a, %b) {lhs_batch = array<i64>, rhs_batch = array<i64>, lhs_contract = array<i64: 1>, rhs_contract = array<i64: 0>} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
```
"""

from __future__ import annotations

import math

import numpy as np

from s4tf.dialects.batching_helpers import batch_size, shifted, to_front, with_batch
from s4tf.dialects import hlo
from s4tf.dialects.attributes import INT, INT_ARRAY
from s4tf.dialects.op_def import Op
from s4tf.dialects.shape_ops import Pad, check_axis
from s4tf.dialects.types import TensorType, is_float, is_integer, shape_str, to_numpy_dtype
from s4tf.core.errors import DTypeError, OpAttributeError, ShapeError
from s4tf.core.mlir import ir


def _computable(*operands: np.ndarray) -> tuple[np.ndarray, ...]:
    """``operands``, in float32 if bf16 (which NumPy's products do not support)."""
    if any(operand.dtype == to_numpy_dtype("bf16") for operand in operands):
        return tuple(operand.astype(np.float32) for operand in operands)
    return operands


def _einsum(subscripts: str, *operands: np.ndarray) -> np.ndarray:
    """``np.einsum``; bf16 is computed in float32."""
    return np.einsum(subscripts, *_computable(*operands))


def _check_number_operands(lhs: TensorType, rhs: TensorType) -> None:
    if lhs.dtype != rhs.dtype:
        raise DTypeError(f"operands must have one dtype, got {lhs.dtype} and {rhs.dtype}")
    if not (is_float(lhs.dtype) or is_integer(lhs.dtype)):
        raise DTypeError(f"operands must be numbers, got {lhs.dtype}")


class DotGeneral(Op):
    """Tensor contraction: result axes are the batch axes, then the free axes of ``lhs``,
    then those of ``rhs``. Matmul is ``lhs_contract = [1], rhs_contract = [0]``.

    ```mlir
    %0 = "s4tf.dot_general"(%a, %b) {lhs_batch = array<i64: 0>, rhs_batch = array<i64: 0>, lhs_contract = array<i64: 2>, rhs_contract = array<i64: 1>} : (tensor<5x4x3xf32>, tensor<5x3x2xf32>) -> tensor<5x4x2xf32>
    ```
    """

    name = "dot_general"
    operands = ("lhs", "rhs")
    attributes = {"lhs_batch": INT_ARRAY, "rhs_batch": INT_ARRAY, "lhs_contract": INT_ARRAY, "rhs_contract": INT_ARRAY}
    bilinear = True

    @staticmethod
    def infer(lhs, rhs, *, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
        _check_number_operands(lhs, rhs)
        if len(lhs_batch) != len(rhs_batch) or len(lhs_contract) != len(rhs_contract):
            raise OpAttributeError("lhs and rhs need as many batch and as many contracting axes")
        for axes, operand in ((lhs_batch + lhs_contract, lhs), (rhs_batch + rhs_contract, rhs)):
            for axis in axes:
                check_axis(axis, operand.rank)
            if len(set(axes)) != len(axes):
                raise OpAttributeError(f"axes {list(axes)} repeat an axis")
        for kind, lhs_axes, rhs_axes in (("batch", lhs_batch, rhs_batch), ("contracting", lhs_contract, rhs_contract)):
            for a, b in zip(lhs_axes, rhs_axes):
                if lhs.shape[a] != rhs.shape[b]:
                    raise ShapeError(
                        f"incompatible shapes {shape_str(lhs.shape)} and {shape_str(rhs.shape)}: "
                        f"{kind} axis {a} of lhs has size {lhs.shape[a]}, axis {b} of rhs has size {rhs.shape[b]}"
                    )
        batch = [lhs.shape[a] for a in lhs_batch]
        lhs_free = [d for i, d in enumerate(lhs.shape) if i not in lhs_batch + lhs_contract]
        rhs_free = [d for i, d in enumerate(rhs.shape) if i not in rhs_batch + rhs_contract]
        return TensorType(batch + lhs_free + rhs_free, lhs.dtype)

    @staticmethod
    def reference(lhs, rhs, *, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
        """As one ``np.matmul`` of ``(batch, lhs free, contracted)`` by ``(batch, contracted,
        rhs free)``, so float products run in BLAS (``np.einsum`` is 20 times slower)."""
        lhs_free = [i for i in range(lhs.ndim) if i not in lhs_batch + lhs_contract]
        rhs_free = [i for i in range(rhs.ndim) if i not in rhs_batch + rhs_contract]
        batch = [lhs.shape[a] for a in lhs_batch]
        sizes = [math.prod(lhs.shape[a] for a in axes) for axes in (lhs_batch, lhs_free, lhs_contract)]
        right = math.prod(rhs.shape[a] for a in rhs_free)
        lhs, rhs = _computable(lhs, rhs)
        product = np.matmul(
            lhs.transpose(*lhs_batch, *lhs_free, *lhs_contract).reshape(sizes),
            rhs.transpose(*rhs_batch, *rhs_contract, *rhs_free).reshape(sizes[0], sizes[2], right),
        )
        return product.reshape((*batch, *(lhs.shape[a] for a in lhs_free), *(rhs.shape[a] for a in rhs_free)))

    @staticmethod
    def lower(lowering, lhs, rhs, *, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
        result_type = lowering.result_type
        if any(0 in t.shape for t in lowering.operand_types):  # sums of no products (IREE refuses empty contractions)
            return hlo.splat(0, result_type)

        def dims(values):
            return "[" + ", ".join(str(v) for v in values) + "]"

        numbers = (
            f"#stablehlo.dot<lhs_batching_dimensions = {dims(lhs_batch)}, rhs_batching_dimensions = {dims(rhs_batch)}, "
            f"lhs_contracting_dimensions = {dims(lhs_contract)}, rhs_contracting_dimensions = {dims(rhs_contract)}>"
        )
        return hlo.value("dot_general", [lhs, rhs], result_type, dot_dimension_numbers=numbers)

    @staticmethod
    def batch(ops, operands, batch_dims, *, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
        """Both batched: the batch axis is one more batch axis (result axis 0). One batched:
        it is a free axis of that operand, the first of its free axes in the result.

        Where only ``rhs`` is batched and its own free axes all have size 1 (a matrix times
        a batch of vectors: a pullback over a basis, as in ``jacrev``), the operands swap, so
        that the product is one plain matrix product with the batch axis in front, not a
        product of transposed operands followed by a transpose of its result (the size-1
        axes go back behind ``lhs``'s free axes by a reshape)::

            dot_general(W: 3x4, v: Bx3x1, contract 0 with 1) -> 4xBx1
            becomes reshape(dot_general(v: Bx3x1, W: 3x4, contract 1 with 0): Bx1x4) -> Bx4x1
        """
        lhs, rhs = operands
        lhs_dim, rhs_dim = batch_dims
        if lhs_dim is not None:
            lhs, lhs_batch, lhs_contract = to_front(ops, lhs, lhs_dim), shifted(lhs_batch), shifted(lhs_contract)
        if rhs_dim is not None:
            rhs, rhs_batch, rhs_contract = to_front(ops, rhs, rhs_dim), shifted(rhs_batch), shifted(rhs_contract)
        if lhs_dim is None:
            rhs_free = [rhs.shape[a] for a in range(1, len(rhs.shape)) if a not in rhs_batch + rhs_contract]
            if all(size == 1 for size in rhs_free):
                dims = {"lhs_batch": rhs_batch, "rhs_batch": lhs_batch, "lhs_contract": rhs_contract, "rhs_contract": lhs_contract}
                product = ops.op("dot_general", rhs, lhs, **dims)  # (batch axes, B, 1..., lhs free)
                n = len(lhs_batch)
                if rhs_free:
                    product = ops.reshape(product, product.shape[: n + 1] + product.shape[n + 1 + len(rhs_free):] + (1,) * len(rhs_free))
                return [product], [n]
        if lhs_dim is not None and rhs_dim is not None:
            lhs_batch, rhs_batch, result_dim = (0, *lhs_batch), (0, *rhs_batch), 0
        elif lhs_dim is not None:
            result_dim = len(lhs_batch)
        else:
            result_dim = len(lhs_batch) + len(lhs.shape) - len(lhs_batch) - len(lhs_contract)
        dims = {"lhs_batch": lhs_batch, "rhs_batch": rhs_batch, "lhs_contract": lhs_contract, "rhs_contract": rhs_contract}
        return [ops.op("dot_general", lhs, rhs, **dims)], [result_dim]

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, lhs_batch, rhs_batch, lhs_contract, rhs_contract):
        lhs, rhs = operands
        return [
            _dot_cotangent(ops, cotangent, rhs, len(lhs.shape), lhs_batch, lhs_contract, rhs_batch, rhs_contract, True)
            if linear[0] else None,
            _dot_cotangent(ops, cotangent, lhs, len(rhs.shape), rhs_batch, rhs_contract, lhs_batch, lhs_contract, False)
            if linear[1] else None,
        ]


def _dot_cotangent(ops, cotangent, other, rank, batch, contract, other_batch, other_contract, is_lhs):
    """The cotangent of one dot_general operand (rank ``rank``): contract the result's
    cotangent with ``other`` over other's free axes, then put the axes back in place.

    The result axes are (batch, lhs free, rhs free); ``is_lhs`` says which free block is ours.
    The product's operands are ordered so that no transpose follows where one order allows
    it (``x @ w``: ``w``'s cotangent is ``x^T @ ct``, not ``(ct^T @ x)^T``).
    """
    other_rank = len(other.shape)
    free = [a for a in range(rank) if a not in batch + contract]
    other_free = [a for a in range(other_rank) if a not in other_batch + other_contract]
    n_batch = len(batch)
    other_block = n_batch + len(free) if is_lhs else n_batch
    cotangent_contract = tuple(other_block + i for i in range(len(other_free)))
    # product axes: batch, then our free axes and other's contracting axes (in increasing
    # order), in one order or the other
    remaining = sorted(other_contract)
    contracted = {axis: remaining.index(other_axis) for axis, other_axis in zip(contract, other_contract)}

    def permutation(free_first: bool) -> list[int]:
        position = {axis: i for i, axis in enumerate(batch)}
        for i, axis in enumerate(free):
            position[axis] = n_batch + i + (0 if free_first else len(contract))
        for axis, k in contracted.items():
            position[axis] = n_batch + k + (len(free) if free_first else 0)
        return [position[a] for a in range(rank)]

    if permutation(True) != list(range(rank)) and permutation(False) == list(range(rank)):
        return ops.op(
            "dot_general", other, cotangent, lhs_batch=tuple(other_batch), rhs_batch=tuple(range(n_batch)),
            lhs_contract=tuple(other_free), rhs_contract=cotangent_contract,
        )
    product = ops.op(
        "dot_general", cotangent, other, lhs_batch=tuple(range(n_batch)), rhs_batch=tuple(other_batch),
        lhs_contract=cotangent_contract, rhs_contract=tuple(other_free),
    )
    return ops.transpose(product, permutation(True))


def conv_output_size(size, kernel, stride, pad_low, pad_high, lhs_dilation, rhs_dilation) -> int:
    dilated_input = (size - 1) * lhs_dilation + 1 + pad_low + pad_high
    dilated_kernel = (kernel - 1) * rhs_dilation + 1
    return max(0, (dilated_input - dilated_kernel) // stride + 1)


def _windows(x, kernel_hw, strides, padding, lhs_dilation, rhs_dilation, pad_value):
    """Yield ``(i, j, patch)``: the input elements multiplied by kernel tap ``(i, j)``."""
    x = Pad.reference(
        x, np.asarray(pad_value, x.dtype), low=(0, padding[0], padding[2], 0), high=(0, padding[1], padding[3], 0),
        interior=(0, lhs_dilation[0] - 1, lhs_dilation[1] - 1, 0),
    )
    out_h = max(0, (x.shape[1] - (kernel_hw[0] - 1) * rhs_dilation[0] - 1) // strides[0] + 1)
    out_w = max(0, (x.shape[2] - (kernel_hw[1] - 1) * rhs_dilation[1] - 1) // strides[1] + 1)
    for i in range(kernel_hw[0]):
        for j in range(kernel_hw[1]):
            top, left = i * rhs_dilation[0], j * rhs_dilation[1]
            yield i, j, x[
                :,
                top : top + (out_h - 1) * strides[0] + 1 : strides[0],
                left : left + (out_w - 1) * strides[1] + 1 : strides[1],
            ]


def _check_pair(name, values, minimum=1):
    if len(values) != 2 or any(v < minimum for v in values):
        raise OpAttributeError(f"{name} needs two values >= {minimum}, got {list(values)}")


def _check_padding(padding):
    if len(padding) != 4 or any(p < 0 for p in padding):
        raise OpAttributeError(f"padding needs four values >= 0 (top, bottom, left, right), got {list(padding)}")


def _check_cropping(input_shape, padding, lhs_dilation):
    """Negative padding crops the (dilated) input; it may not crop more than all of it."""
    if len(padding) != 4:
        raise OpAttributeError(f"padding needs four values (top, bottom, left, right), got {list(padding)}")
    for axis, (size, dilation) in enumerate(zip(input_shape[1:3], lhs_dilation)):
        low, high = padding[2 * axis : 2 * axis + 2]
        dilated = (size - 1) * dilation + 1 if size else 0
        if dilated + low + high < 0:
            raise ShapeError(
                f"padding ({low}, {high}) crops more than the {dilated} rows of spatial axis {axis} "
                f"of input {shape_str(input_shape)}"
            )


def _padding_attr(padding):
    return [[padding[0], padding[1]], [padding[2], padding[3]]]


def _window_input(input, input_type, output_shape, spans, padding, lhs_dilation, pad_value):
    """``(input, padding, lhs_dilation)`` for a window op that IREE's CPU backend compiles.

    It cannot compile a convolution or ``reduce_window`` whose only window along a spatial
    axis leaves input or padding unread at the end, and negative padding (cropping) is not
    left to it. Then the padding and input dilation are applied by an explicit
    ``stablehlo.pad`` (which crops where the amounts are negative), and axes read by one
    window are cut to exactly the window.
    """
    sizes, lows, highs = input_type.shape[1:3], padding[0::2], padding[1::2]
    extents = [(n - 1) * d + 1 + lo + hi for n, d, lo, hi in zip(sizes, lhs_dilation, lows, highs)]
    unread = [out == 1 and extent > span for out, extent, span in zip(output_shape[1:3], extents, spans)]
    if min(padding) >= 0 and (not any(unread) or 0 in input_type.shape):
        return input, padding, lhs_dilation
    batch, channels = input_type.shape[0], input_type.shape[3]
    padded_type = input_type.with_shape((batch, *extents, channels))
    padded = hlo.value(
        "pad",
        [input, hlo.scalar(pad_value, input_type.dtype)],
        padded_type,
        edge_padding_low=hlo.i64_array((0, *lows, 0)),
        edge_padding_high=hlo.i64_array((0, *highs, 0)),
        interior_padding=hlo.i64_array((0, *(d - 1 for d in lhs_dilation), 0)),
    )
    if not any(unread):
        return padded, (0, 0, 0, 0), (1, 1)
    limit = (batch, *(span if cut else extent for cut, span, extent in zip(unread, spans, extents)), channels)
    window_input = hlo.value(
        "slice", [padded], input_type.with_shape(limit), start_indices=hlo.i64_array((0, 0, 0, 0)),
        limit_indices=hlo.i64_array(limit), strides=hlo.i64_array((1, 1, 1, 1)),
    )
    return window_input, (0, 0, 0, 0), (1, 1)


class Conv2D(Op):
    """2-D convolution of an NHWC input with an HWIO filter.

    ``padding`` is ``(top, bottom, left, right)``, applied to the dilated input; a negative
    amount crops that many rows or columns instead. ``lhs_dilation`` dilates the input
    (transposed convolution), ``rhs_dilation`` the filter (atrous convolution);
    ``feature_group_count`` splits channels into groups (``I = C / groups``; depthwise when
    ``groups = C``).

    ```mlir
    %0 = "s4tf.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, feature_group_count = 1 : i64} : (tensor<1x28x28x1xf32>, tensor<5x5x1x6xf32>) -> tensor<1x24x24x6xf32>
    ```
    """

    name = "conv2d"
    static_shapes = True
    operands = ("input", "filter")
    attributes = {
        "strides": INT_ARRAY,
        "padding": INT_ARRAY,
        "lhs_dilation": INT_ARRAY,
        "rhs_dilation": INT_ARRAY,
        "feature_group_count": INT,
    }
    bilinear = True

    @staticmethod
    def infer(input, filter, *, strides, padding, lhs_dilation, rhs_dilation, feature_group_count):
        _check_number_operands(input, filter)
        if input.rank != 4 or filter.rank != 4:
            raise ShapeError(
                f"conv2d needs a rank-4 NHWC input and HWIO filter, got {shape_str(input.shape)} and {shape_str(filter.shape)}"
            )
        for name, values in (("strides", strides), ("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
            _check_pair(name, values)
        _check_cropping(input.shape, padding, lhs_dilation)
        groups = feature_group_count
        n, h, w, c = input.shape
        kh, kw, i, o = filter.shape
        if groups < 1 or c % groups or o % groups or c // groups != i:
            raise ShapeError(
                f"input {shape_str(input.shape)} has {c} channels but filter {shape_str(filter.shape)} expects "
                f"{i} input channels" + (f" per group ({groups} groups)" if groups != 1 else "")
            )
        out_h = conv_output_size(h, kh, strides[0], padding[0], padding[1], lhs_dilation[0], rhs_dilation[0])
        out_w = conv_output_size(w, kw, strides[1], padding[2], padding[3], lhs_dilation[1], rhs_dilation[1])
        return TensorType((n, out_h, out_w, o), input.dtype)

    @staticmethod
    def batch(ops, operands, batch_dims, **attrs):
        if batch_dims[1] is None:
            return [_merged_into_images(ops, operands[0], batch_dims[0], lambda x: ops.op("conv2d", x, operands[1], **attrs))], [0]
        return [_grouped_over_batch(ops, operands, batch_dims, **attrs)], [3]

    @staticmethod
    def reference(input, filter, *, strides, padding, lhs_dilation, rhs_dilation, feature_group_count):
        groups = feature_group_count
        in_per_group, out_per_group = filter.shape[2], filter.shape[3] // groups
        result = None
        for i, j, patch in _windows(input, filter.shape[:2], strides, padding, lhs_dilation, rhs_dilation, 0):
            parts = [
                _einsum(
                    "nhwc,co->nhwo",
                    patch[..., g * in_per_group : (g + 1) * in_per_group],
                    filter[i, j, :, g * out_per_group : (g + 1) * out_per_group],
                )
                for g in range(groups)
            ]
            term = np.concatenate(parts, axis=-1)
            result = term if result is None else result + term
        return result

    @staticmethod
    def lower(lowering, input, filter, *, strides, padding, lhs_dilation, rhs_dilation, feature_group_count):
        spans = [(k - 1) * d + 1 for k, d in zip(lowering.operand_types[1].shape[:2], rhs_dilation)]
        input, padding, lhs_dilation = _window_input(
            input, lowering.operand_types[0], lowering.result_type.shape, spans, padding, lhs_dilation, 0
        )
        padding_attr = ir.DenseElementsAttr.get(np.asarray(_padding_attr(padding), dtype=np.int64))
        return hlo.value(
            "convolution",
            [input, filter],
            lowering.result_type,
            dimension_numbers="#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>",
            window_strides=hlo.i64_array(strides),
            padding=padding_attr,
            lhs_dilation=hlo.i64_array(lhs_dilation),
            rhs_dilation=hlo.i64_array(rhs_dilation),
            feature_group_count=INT.to_mlir(feature_group_count),
            batch_group_count=INT.to_mlir(1),
        )

    @staticmethod
    def transpose(ops, cotangent, operands, linear, **attrs):
        input, filter = operands
        if 0 in cotangent.shape:  # no output element: nothing depends on the operands
            return [ops.zeros(x.shape, x.dtype) if is_linear else None for x, is_linear in zip(operands, linear)]
        geometry = _ConvGeometry(input.shape, filter.shape, cotangent.shape, **attrs)
        return [
            geometry.input_cotangent(ops, cotangent, filter) if linear[0] else None,
            geometry.filter_cotangent(ops, cotangent, input) if linear[1] else None,
        ]


#: The largest stack of input windows a convolution's filter gradient contracts in one
#: product (:meth:`_ConvGeometry.filter_cotangent`); larger, each window has its own.
IM2COL_MAX_BYTES = 64 * 1024 * 1024


class _ConvGeometry:
    """The two transposes of a convolution (the padding arithmetic is that of JAX's
    ``lax.conv`` transposes)."""

    def __init__(
        self, input_shape, filter_shape, out_shape, *, strides, padding, lhs_dilation, rhs_dilation, feature_group_count
    ):
        self.input_shape, self.filter_shape, self.out_shape = input_shape, filter_shape, out_shape
        self.strides, self.lhs_dilation, self.rhs_dilation = tuple(strides), tuple(lhs_dilation), tuple(rhs_dilation)
        self.padding, self.groups = tuple(padding), feature_group_count

    def input_cotangent(self, ops, cotangent, filter):
        """The cotangent convolved with the flipped filter, whose input and output channels
        are swapped within each group: strides become input dilation and the other way
        round. Its padding is negative (crops) where the original padding is wider than
        the filter; the padding after adds the rows the original strides never reached."""
        pads = []
        for axis in range(2):
            stride, lhs_dilation, rhs_dilation = self.strides[axis], self.lhs_dilation[axis], self.rhs_dilation[axis]
            input_dilated = (self.input_shape[axis + 1] - 1) * lhs_dilation + 1
            filter_dilated = (self.filter_shape[axis] - 1) * rhs_dilation + 1
            out_dilated = (self.out_shape[axis + 1] - 1) * stride + 1
            before = filter_dilated - self.padding[2 * axis] - 1
            pads += [before, input_dilated + filter_dilated - 1 - out_dilated - before]
        height, width, per_group, out_channels = self.filter_shape
        flipped = ops.op("reverse", filter, axes=(0, 1))
        if self.groups == 1:
            swapped = ops.transpose(flipped, (0, 1, 3, 2))
        else:  # (H, W, I, G * O/G) -> (H, W, O/G, G * I)
            split = ops.reshape(flipped, (height, width, per_group, self.groups, out_channels // self.groups))
            swapped = ops.reshape(ops.transpose(split, (0, 1, 4, 3, 2)), (height, width, -1, self.groups * per_group))
        return ops.op(
            "conv2d", cotangent, swapped, strides=self.lhs_dilation, padding=pads,
            lhs_dilation=self.strides, rhs_dilation=self.rhs_dilation, feature_group_count=self.groups,
        )

    def filter_cotangent(self, ops, cotangent, input):
        """The input windows the filter taps see (strided slices of the padded, dilated
        input), stacked, contracted with the cotangent over batch and positions in one
        product, batched over the channel groups (im2col). The input is transposed once to
        channels first, so each window is a row-major (channels, positions) operand. Where
        the stacked windows would take more than :data:`IM2COL_MAX_BYTES`, each window has
        a product of its own instead (the windows need not all live at once).

        One product makes LeNet-5's step faster than 25 (50 dispatches fewer; figures in
        docs/benchmarks.md, "LeNet-5 training step"). IREE-3.13-WORKAROUND: a convolution for the
        filter gradient, whose kernel is as large as the output, is several times slower in
        IREE 3.13 than either."""
        top, bottom, left, right = self.padding
        if any(self.padding) or self.lhs_dilation != (1, 1):
            input = ops.op(
                "pad", input, ops.full((), 0, input.dtype), low=(0, top, left, 0), high=(0, bottom, right, 0),
                interior=(0, self.lhs_dilation[0] - 1, self.lhs_dilation[1] - 1, 0),
            )
        batch_axes = ((), ())
        if self.groups > 1:  # channels C as (G, C/G), cotangent's O as (G, O/G)
            input = ops.reshape(input, (*input.shape[:3], self.groups, -1))
            cotangent = ops.reshape(cotangent, (*cotangent.shape[:3], self.groups, -1))
            batch_axes = ((0,), (3,))
        batch, out_h, out_w = cotangent.shape[:3]
        channels = tuple(input.shape[3:])
        lead = len(channels)
        input = ops.transpose(input, (*range(3, 3 + lead), 0, 1, 2))  # (C, N, H, W) or (G, C/G, N, H, W)
        ones = (1,) * lead
        windows = []
        for row in range(self.filter_shape[0]):
            for column in range(self.filter_shape[1]):
                first_row, first_column = row * self.rhs_dilation[0], column * self.rhs_dilation[1]
                start = (*(0 for _ in channels), 0, first_row, first_column)
                limit = (
                    *channels, batch, first_row + (out_h - 1) * self.strides[0] + 1,
                    first_column + (out_w - 1) * self.strides[1] + 1,
                )
                windows.append(ops.slice(input, start, limit, (*ones, 1, *self.strides)))
        window_bytes = math.prod(windows[0].shape) * np.dtype(input.dtype).itemsize
        if len(windows) * window_bytes <= IM2COL_MAX_BYTES:  # (taps, C, N, h, w) or (taps, G, C/G, N, h, w)
            contract = (lead + 1, lead + 2, lead + 3), (0, 1, 2)
            stacked = ops.dot_general(ops.stack(windows), cotangent, contract, ((1,), (3,)) if self.groups > 1 else batch_axes)
            if self.groups > 1:  # (G, taps, C/G, O/G)
                stacked = ops.transpose(stacked, (1, 0, 2, 3))
        else:
            contract = (lead, lead + 1, lead + 2), (0, 1, 2)
            stacked = ops.stack([ops.dot_general(window, cotangent, contract, batch_axes) for window in windows])
        # (taps, C, O) or (taps, G, C/G, O/G)
        if self.groups > 1:
            stacked = ops.transpose(stacked, (0, 2, 1, 3))
        return ops.reshape(stacked, self.filter_shape)


def _merged_into_images(ops, x, batch_dim, apply):
    """``apply`` (an NHWC op) to a batched ``x``: the batch axis is merged into the
    images axis N and split out of the result again."""
    x = to_front(ops, x, batch_dim)
    size, images = x.shape[0], x.shape[1]
    result = apply(ops.reshape(x, (size * images, *x.shape[2:])))
    return ops.reshape(result, (size, images, *result.shape[1:]))


def _grouped_over_batch(ops, operands, batch_dims, *, feature_group_count, **attrs):
    """conv2d with a filter per example, as one grouped convolution (JAX's choice too):
    example ``b``'s channels become groups ``b * G ... b * G + G - 1`` of ``size * G``, the
    filters are laid side by side along the output channels, and the result's channels
    split back into ``(size, O)``: the batch axis is axis 3 of the result."""
    size = batch_size(operands, batch_dims)
    x, w = (with_batch(ops, v, d, size) for v, d in zip(operands, batch_dims))
    _, n, h, width, channels = x.shape
    _, kh, kw, per_group, out = w.shape
    x = ops.reshape(ops.transpose(x, (1, 2, 3, 0, 4)), (n, h, width, size * channels))
    w = ops.reshape(ops.transpose(w, (1, 2, 3, 0, 4)), (kh, kw, per_group, size * out))
    result = ops.op("conv2d", x, w, feature_group_count=size * feature_group_count, **attrs)
    return ops.reshape(result, (*result.shape[:3], size, out))


class PoolOp(Op):
    """2-D pooling of an NHWC input over ``window`` with ``strides`` and ``padding``
    ``(top, bottom, left, right)``.

    ```mlir
    %0 = "s4tf.{name}"(%x) {window = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x24x24x6xf32>) -> tensor<1x12x12x6xf32>
    ```
    """

    operands = ("input",)
    attributes = {"window": INT_ARRAY, "strides": INT_ARRAY, "padding": INT_ARRAY}
    static_shapes = True

    @classmethod
    def batch(cls, ops, operands, batch_dims, **attrs):
        return [_merged_into_images(ops, operands[0], batch_dims[0], lambda x: ops.op(cls.name, x, **attrs))], [0]

    @staticmethod
    def infer(input, *, window, strides, padding):
        if input.rank != 4:
            raise ShapeError(f"pooling needs a rank-4 NHWC input, got {shape_str(input.shape)}")
        if not is_float(input.dtype):
            raise DTypeError(f"pooling needs a float input, got {input.dtype}")
        _check_pair("window", window)
        _check_pair("strides", strides)
        _check_padding(padding)
        n, h, w, c = input.shape
        out_h = conv_output_size(h, window[0], strides[0], padding[0], padding[1], 1, 1)
        out_w = conv_output_size(w, window[1], strides[1], padding[2], padding[3], 1, 1)
        return TensorType((n, out_h, out_w, c), input.dtype)

    @staticmethod
    def window_sum(input, window, strides, padding, pad_value, combine):
        result = None
        for _, _, patch in _windows(input, window, strides, padding, (1, 1), (1, 1), pad_value):
            result = patch.copy() if result is None else combine(result, patch)
        return result

    @staticmethod
    def window_taps(ops, input, pad_value, output_shape, *, window, strides, padding):
        """Staged: for each window position ``(i, j)``, the input elements it covers."""
        if any(padding):
            fill = ops.full((), pad_value, input.dtype)
            input = ops.op("pad", input, fill, low=(0, padding[0], padding[2], 0), high=(0, padding[1], padding[3], 0), interior=(0, 0, 0, 0))
        n, out_h, out_w, c = output_shape
        for i in range(window[0]):
            for j in range(window[1]):
                limit = (n, i + (out_h - 1) * strides[0] + 1, j + (out_w - 1) * strides[1] + 1, c)
                yield ops.slice(input, (0, i, j, 0), limit, (1, strides[0], strides[1], 1))

    @staticmethod
    def lower_window(lowering, input, body, init, window, strides, padding):
        input_type = lowering.operand_types[0]
        input, padding, _ = _window_input(
            input, input_type, lowering.result_type.shape, window, padding, (1, 1), init
        )
        return hlo.reduce_window(
            input,
            input_type,
            hlo.scalar(init, input_type.dtype),
            body,
            lowering.result_type,
            (1, *window, 1),
            (1, *strides, 1),
            [(0, 0), tuple(padding[0:2]), tuple(padding[2:4]), (0, 0)],
        )


class MaxPool2D(PoolOp):
    """Maximum over each window; padding never wins."""

    name = "max_pool2d"

    @classmethod
    def reference(cls, input, *, window, strides, padding):
        return cls.window_sum(input, window, strides, padding, -np.inf, np.maximum)

    @classmethod
    def lower(cls, lowering, input, *, window, strides, padding):
        return cls.lower_window(lowering, input, "maximum", -np.inf, window, strides, padding)

    @classmethod
    def jvp(cls, ops, primals, tangents, result, **attrs):
        """The tangent of the first maximal element of each window (linear: selects only)."""
        values = list(cls.window_taps(ops, primals[0], -np.inf, result.shape, **attrs))
        tangents = list(cls.window_taps(ops, tangents[0], 0.0, result.shape, **attrs))
        chosen = tangents[-1]
        for value, tangent in zip(reversed(values[:-1]), reversed(tangents[:-1])):
            chosen = ops.where(value == result, tangent, chosen)
        return chosen


class AvgPool2D(PoolOp):
    """Mean over each window, counting only real (unpadded) elements."""

    name = "avg_pool2d"

    @classmethod
    def counts(cls, shape, window, strides, padding):
        ones = np.ones((1, shape[1], shape[2], 1))
        return cls.window_sum(ones, window, strides, padding, 0, np.add)

    @classmethod
    def reference(cls, input, *, window, strides, padding):
        total = cls.window_sum(input, window, strides, padding, 0, np.add)
        return total / cls.counts(input.shape, window, strides, padding)

    @classmethod
    def lower(cls, lowering, input, *, window, strides, padding):
        total = cls.lower_window(lowering, input, "add", 0, window, strides, padding)
        result_type = lowering.result_type
        counts = cls.counts(lowering.operand_types[0].shape, window, strides, padding)
        counts_type = TensorType(counts.shape, result_type.dtype)
        counts_value = hlo.constant(counts.astype(to_numpy_dtype(result_type.dtype)))
        return hlo.value("divide", [total, hlo.broadcast(counts_value, counts_type, result_type.shape)], result_type)

    @classmethod
    def jvp(cls, ops, primals, tangents, result, **attrs):
        """Linear: window sums of the tangent (slices and adds) over the constant counts."""
        total = None
        for tap in cls.window_taps(ops, tangents[0], 0.0, result.shape, **attrs):
            total = tap if total is None else total + tap
        counts = cls.counts(primals[0].shape, attrs["window"], attrs["strides"], attrs["padding"])
        return total / counts.astype(to_numpy_dtype(result.tensor_type.dtype))
