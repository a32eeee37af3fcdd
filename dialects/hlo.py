"""Small builders for StableHLO ops, used by the ops' ``lower`` rules.

StableHLO has no Python op classes in the IREE wheel, so ops are created in generic
form; they are registered, so MLIR verifies them. Builders use the active insertion
point and location.

```mlir
%0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from s4tf.dialects.attributes import ELEMENTS
from s4tf.dialects.types import BOOL_DTYPE, FLOAT_DTYPES, TensorType, canonical_dtype, is_float, to_numpy_dtype
from s4tf.core.mlir import ir


@dataclass(frozen=True)
class Lowering:
    """What a ``lower`` rule knows besides operand values: operand and result types."""

    operand_types: tuple[TensorType, ...]
    result_types: tuple[TensorType, ...]

    @property
    def result_type(self) -> TensorType:
        return self.result_types[0]


def op(name: str, operands, result_types, regions: int = 0, **attributes) -> ir.Operation:
    """Create ``stablehlo.<name>`` (or ``<dialect>.<name>``, e.g. ``chlo.erf``, which IREE's
    input pipeline expands); attribute values are MLIR attributes or attribute text."""
    if isinstance(result_types, TensorType):
        result_types = [result_types]
    return ir.Operation.create(
        name if "." in name else f"stablehlo.{name}",
        results=[t.to_mlir() for t in result_types],
        operands=list(operands),
        attributes={k: v if isinstance(v, ir.Attribute) else ir.Attribute.parse(v) for k, v in attributes.items()},
        regions=regions,
    )


def value(name: str, operands, result_type: TensorType, **attributes) -> ir.Value:
    """The single result of a new ``stablehlo.<name>``."""
    return op(name, operands, result_type, **attributes).result


def barrier(operand: ir.Value) -> ir.Value:
    """``operand`` through a new ``stablehlo.optimization_barrier`` (its own buffer to IREE)."""
    return value("optimization_barrier", [operand], TensorType.from_mlir(operand.type))


def barrier_of_all(operands) -> list[ir.Value]:
    """``operands`` through one new ``stablehlo.optimization_barrier``."""
    return list(op("optimization_barrier", operands, [TensorType.from_mlir(v.type) for v in operands]).results)


def read_through_barrier(produced: ir.Value) -> None:
    """Every reader of ``produced`` (an op's result) reads it through one barrier placed after
    its producer."""
    producer = produced.owner
    with ir.InsertionPoint.after(producer), producer.location:
        barred = barrier(produced)
    produced.replace_all_uses_except(barred, barred.owner.operation)


def direction_of(comparison: ir.Operation) -> str:
    """A ``stablehlo.compare``'s direction: ``EQ``, ``NE``, ``LT``, ``LE``, ``GT`` or ``GE``."""
    return str(comparison.attributes["comparison_direction"]).split()[-1].rstrip(">")


def compare(lhs: ir.Value, rhs: ir.Value, direction: str, dtype: str, result_type: TensorType) -> ir.Value:
    """``stablehlo.compare`` (``direction``: ``EQ``, ``NE``, ``LT``, ...) of two operands of
    ``dtype`` and one shape: floats as floats, booleans unsigned, other integers signed."""
    kind = "FLOAT" if is_float(dtype) else ("UNSIGNED" if dtype == BOOL_DTYPE else "SIGNED")
    return value(
        "compare",
        [lhs, rhs],
        result_type,
        comparison_direction=f"#stablehlo<comparison_direction {direction}>",
        compare_type=f"#stablehlo<comparison_type {kind}>",
    )


def dot_dimensions(product: ir.Operation) -> dict[str, list[int]]:
    """A ``stablehlo.dot_general``'s dimension numbers by name (``lhs_batching_dimensions``,
    ``rhs_batching_dimensions``, ``lhs_contracting_dimensions``,
    ``rhs_contracting_dimensions``; empty where absent), read from the attribute's text:
    the IREE wheel has no Python class for it."""
    text = str(product.attributes["dot_dimension_numbers"]) if "dot_dimension_numbers" in product.attributes else ""
    return {
        name: [int(n) for n in re.findall(r"\d+", found.group(1))] if (found := re.search(rf"{name} = \[([^\]]*)\]", text)) else []
        for name in ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                     "rhs_contracting_dimensions")
    }


def i64_array(values) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def constant(array: np.ndarray) -> ir.Value:
    array = np.asarray(array)
    tensor_type = TensorType(array.shape, canonical_dtype(array.dtype))
    return value("constant", [], tensor_type, value=ELEMENTS.to_mlir(array))


def scalar(number, dtype: str) -> ir.Value:
    return constant(np.array(number, dtype=to_numpy_dtype(dtype)))


def convert(operand: ir.Value, operand_type: TensorType, result_type: TensorType) -> ir.Value:
    """``stablehlo.convert``. Integers reach bf16 through f32 rounded to bf16 precision: IREE's
    CPU backend cannot link integer-to-bf16 conversions (no ``__truncsfbf2``), and folds a
    plain integer-to-f32-to-bf16 pair back into one."""
    if result_type.dtype == "bf16" and operand_type.dtype not in FLOAT_DTYPES:
        f32 = result_type.with_dtype("f32")
        as_f32 = value("convert", [operand], f32)
        rounded = value("reduce_precision", [as_f32], f32, exponent_bits="8 : i32", mantissa_bits="7 : i32")
        return value("convert", [rounded], result_type)
    return value("convert", [operand], result_type)


def splat(number, tensor_type: TensorType) -> ir.Value:
    """``number`` broadcast to ``tensor_type`` (its dtype and shape)."""
    return broadcast(scalar(number, tensor_type.dtype), TensorType((), tensor_type.dtype), tensor_type.shape)


def broadcast(operand: ir.Value, operand_type: TensorType, shape) -> ir.Value:
    """NumPy-style broadcast of ``operand`` to ``shape`` (trailing dimensions aligned)."""
    shape = tuple(shape)
    if operand_type.shape == shape:
        return operand
    offset = len(shape) - operand_type.rank
    return value(
        "broadcast_in_dim",
        [operand],
        TensorType(shape, operand_type.dtype),
        broadcast_dimensions=i64_array(range(offset, len(shape))),
    )


def is_token_source(value_type: TensorType) -> bool:
    """Whether one element of a value of this type can feed a wait token (:func:`after`):
    a static, non-empty tensor."""
    return None not in value_type.shape and 0 not in value_type.shape


def after(x: ir.Value, x_type: TensorType, sources) -> ir.Value:
    """``x``, computed only once every value of ``sources`` exists, through a *wait
    token*: one element of each source, summed into ``t``, gives ``one = select(
    is_finite(t), (t - t) + 1, 1)``, exactly 1 whatever ``t`` is, which no compiler can
    compute before the sources; floats are multiplied by it, integers by it converted,
    booleans ``and``-ed with it converted (true), so ``x`` keeps every bit (``-0.0``, NaN;
    not subnormals, which IREE's CPU worker threads flush to zero in any float arithmetic).
    (A ``stablehlo.optimization_barrier`` also orders them, but IREE waits for one on the
    host: the submission ends and the calling thread submits the rest.) An ``x`` of
    dynamic shape, or a source that is not static and non-empty, goes through the barrier.

    ```mlir
    %t = stablehlo.reshape (stablehlo.slice %ct [0:1, 0:1]) : tensor<f32>
    %one = stablehlo.select %finite, %near_one, %c1 : tensor<i1>, tensor<f32>
    %y = stablehlo.multiply %x, %one_broadcast : tensor<1024x256xf32>
    ```
    """
    sources = list(sources)
    source_types = [TensorType.from_mlir(s.type) for s in sources]
    if None in x_type.shape or not all(is_token_source(t) for t in source_types):
        barrier = op("optimization_barrier", [x, *sources], [x_type, *source_types])
        return barrier.results[0]
    scalar_type = TensorType((), x_type.dtype if is_float(x_type.dtype) else "f32")
    total = None
    for source, source_type in zip(sources, source_types):
        element = source
        if source_type.rank:
            ones = [1] * source_type.rank
            element = value("slice", [source], source_type.with_shape(ones), start_indices=i64_array([0] * source_type.rank),
                            limit_indices=i64_array(ones), strides=i64_array(ones))
            element = value("reshape", [element], source_type.with_shape(()))
        if source_type.dtype != scalar_type.dtype:
            element = convert(element, source_type.with_shape(()), scalar_type)
        total = element if total is None else value("add", [total, element], scalar_type)
    one = scalar(1, scalar_type.dtype)
    near_one = value("add", [value("subtract", [total, total], scalar_type), one], scalar_type)
    finite = value("is_finite", [total], TensorType((), BOOL_DTYPE))
    exactly_one = value("select", [finite, near_one, one], scalar_type)
    if scalar_type.dtype != x_type.dtype:
        exactly_one = convert(exactly_one, scalar_type, TensorType((), x_type.dtype))
    ones = broadcast(exactly_one, TensorType((), x_type.dtype), x_type.shape)
    return value("and" if x_type.dtype == BOOL_DTYPE else "multiply", [x, ones], x_type)


def reduce(operand: ir.Value, operand_type: TensorType, init: ir.Value, body: str, axes) -> ir.Value:
    """``stablehlo.reduce`` of ``operand`` over ``axes`` with a binary ``body`` op (e.g. ``"add"``)."""
    axes = tuple(sorted(axes))
    result_type = TensorType(
        [d for i, d in enumerate(operand_type.shape) if i not in axes], operand_type.dtype
    )
    reduce_op = op("reduce", [operand, init], result_type, regions=1, dimensions=i64_array(axes))
    _binary_region(reduce_op.regions[0], body, operand_type.dtype)
    return reduce_op.result


def reduce_window(operand, operand_type, init, body, result_type, window, strides, padding) -> ir.Value:
    """``stablehlo.reduce_window`` with a binary ``body`` op; ``padding`` is ``[(lo, hi), ...]``."""
    padding_attr = ir.DenseElementsAttr.get(np.asarray(padding, dtype=np.int64).reshape(-1, 2))
    window_op = op(
        "reduce_window",
        [operand, init],
        result_type,
        regions=1,
        window_dimensions=i64_array(window),
        window_strides=i64_array(strides),
        padding=padding_attr,
    )
    _binary_region(window_op.regions[0], body, operand_type.dtype)
    return window_op.result


def unshared(x, x_type: TensorType) -> ir.Value:
    """``x``, safe to scatter into. IREE-3.13-WORKAROUND: IREE 3.13 writes a scatter into its operand's buffer
    even when that is a function argument (the caller's array changes, and a returned
    ``x`` shows the update) or a constant (a later call sees the update; two scatters into
    one splat f64 constant do not compile: 'stream.yield' op used resource not listed in
    explicit captures). So unless ``x`` is the result of another scatter that nothing else
    reads (an accumulation, a buffer of its own; its one use is the op being lowered, since
    the lowering replaces an op's results in every use before the next op), it is copied
    first by a ``select`` that nothing folds (``iota > -1``), a constant behind a
    ``stablehlo.optimization_barrier``; a splat constant is broadcast from its scalar behind
    a barrier instead. (A scatter result read elsewhere too was written in place: the
    gradient of the sum of a ``vmap`` of a 4-step ``fori_loop`` setting two rows a step,
    its backward loop inlined, read rows another scatter had already cleared.)"""
    owner = x.owner
    name = None if isinstance(owner, ir.Block) else owner.name
    if name == "stablehlo.scatter" and len(list(x.uses)) == 1:
        return x
    if name == "stablehlo.constant":
        dense = ir.DenseElementsAttr(owner.attributes["value"])
        if dense.is_splat:  # a fill from one scalar: one pass, as a zeroed gradient buffer costs anyway
            element = value("optimization_barrier", [constant(ELEMENTS.from_mlir(dense).reshape(-1)[:1].reshape(()))],
                            TensorType((), x_type.dtype))
            return value("broadcast_in_dim", [element], x_type, broadcast_dimensions=i64_array([]))
        x = value("optimization_barrier", [x], x_type)
    counted = TensorType(x_type.shape, "i32")
    iota = value("iota", [], counted, iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0))
    minus_one = value("broadcast_in_dim", [scalar(-1, "i32")], counted, broadcast_dimensions=i64_array([]))
    always = compare(iota, minus_one, "GT", "i32", x_type.with_dtype(BOOL_DTYPE))
    zero = value("broadcast_in_dim", [scalar(0, x_type.dtype)], x_type, broadcast_dimensions=i64_array([]))
    return value("select", [always, x, zero], x_type)


def scatter_add(operand, indices, updates, result_type: TensorType, index_vector_dim: int) -> ir.Value:
    """``stablehlo.scatter`` adding each element of ``updates`` into ``operand`` at its own
    index in ``indices`` (unique and sorted; ``index_vector_dim`` holds the coordinates)."""
    axes = list(range(result_type.rank))
    numbers = (
        f"#stablehlo.scatter<inserted_window_dims = {axes}, scatter_dims_to_operand_dims = {axes}, "
        f"index_vector_dim = {index_vector_dim}>"
    )
    scatter = op(
        "scatter", [unshared(operand, result_type), indices, updates], result_type, regions=1,
        scatter_dimension_numbers=numbers, indices_are_sorted="true", unique_indices="true",
    )
    _binary_region(scatter.regions[0], "add", result_type.dtype)
    return scatter.result


def _binary_region(region: ir.Region, body: str, dtype: str) -> None:
    scalar_type = TensorType((), dtype)
    block = region.blocks.append(scalar_type.to_mlir(), scalar_type.to_mlir())
    with ir.InsertionPoint(block):
        combined = value(body, list(block.arguments), scalar_type)
        op("return", [combined], [])



def take_along_axis(operand: ir.Value, operand_type: TensorType, indices: ir.Value, index_dtype: str, axis: int) -> ir.Value:
    """``np.take_along_axis(operand, indices, axis)`` for ``indices`` of ``operand``'s shape:
    a ``stablehlo.gather`` of single elements at the coordinates (iotas, ``indices`` at ``axis``)."""
    rank, shape = operand_type.rank, operand_type.shape
    column = TensorType((*shape, 1), index_dtype)
    coordinates = [
        value("reshape", [indices], column) if a == axis else value("iota", [], column, iota_dimension=f"{a} : i64")
        for a in range(rank)
    ]
    index_type = TensorType((*shape, rank), index_dtype)
    stacked = value("concatenate", coordinates, index_type, dimension=f"{rank} : i64") if rank > 1 else coordinates[0]
    axes = list(range(rank))
    numbers = (
        f"#stablehlo.gather<collapsed_slice_dims = {axes}, start_index_map = {axes}, index_vector_dim = {rank}>"
    )
    return value(
        "gather", [operand, stacked], operand_type,
        dimension_numbers=numbers, slice_sizes=i64_array([1] * rank), indices_are_sorted="false",
    )
