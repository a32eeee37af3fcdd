"""The op-by-op rules of ``s4tf-loops-to-dispatch``: each StableHLO op of a loop body as
``arith``/``math``/``vector``/``scf`` ops on the scalars and vectors that hold its values
inside the dispatch (:class:`OpRules`, mixed into the emitter of
:mod:`s4tf.passes.iree.loop_dispatch_emitter`). An op without a rule raises
:class:`~s4tf.passes.iree.loop_dispatch_criterion.Unsupported`, and its loop stays host-stepped.

```mlir
%y = stablehlo.sine %x : tensor<2xf32>     // becomes
%y = math.sin %x : vector<2xf32>
```
"""

from __future__ import annotations

import re

import numpy as np

from s4tf.core.mlir import arith, ir, math, scf, tensor, vector
from s4tf.dialects import hlo
from s4tf.passes.iree.loop_dispatch_criterion import ELEMENT_BYTES, MAX_DOT_PRODUCTS, MAX_DYNAMIC_VECTOR_BYTES, \
    MAX_MEMORY_PRODUCTS, MAX_SHUFFLE, MAX_SLICE, MAX_TILE_BYTES, Kind, Unsupported, constant_starts, lanes

#: StableHLO elementwise op -> the arith/math op computing it on float scalars or vectors.
FLOAT_OPS = {
    "add": arith.AddFOp, "subtract": arith.SubFOp, "multiply": arith.MulFOp, "divide": arith.DivFOp,
    "remainder": arith.RemFOp, "maximum": arith.MaximumFOp, "minimum": arith.MinimumFOp, "power": math.PowFOp,
    "atan2": math.Atan2Op, "negate": arith.NegFOp, "abs": math.AbsFOp, "sine": math.SinOp, "cosine": math.CosOp,
    "tan": math.TanOp, "tanh": math.TanhOp, "exponential": math.ExpOp, "exponential_minus_one": math.ExpM1Op,
    "log": math.LogOp, "log_plus_one": math.Log1pOp, "sqrt": math.SqrtOp, "rsqrt": math.RsqrtOp, "cbrt": math.CbrtOp,
    "floor": math.FloorOp, "ceil": math.CeilOp, "round_nearest_even": math.RoundEvenOp,
    "round_nearest_afz": math.RoundOp,
}
#: StableHLO elementwise op -> the arith/math op computing it on (signless, signed) integers.
INTEGER_OPS = {
    "add": arith.AddIOp, "subtract": arith.SubIOp, "multiply": arith.MulIOp, "divide": arith.DivSIOp,
    "remainder": arith.RemSIOp, "maximum": arith.MaxSIOp, "minimum": arith.MinSIOp, "abs": math.AbsIOp,
    "and": arith.AndIOp, "or": arith.OrIOp, "xor": arith.XOrIOp, "shift_left": arith.ShLIOp,
    "shift_right_arithmetic": arith.ShRSIOp, "shift_right_logical": arith.ShRUIOp,
}
_FLOAT_COMPARE = {"EQ": arith.CmpFPredicate.OEQ, "NE": arith.CmpFPredicate.UNE, "LT": arith.CmpFPredicate.OLT,
                  "LE": arith.CmpFPredicate.OLE, "GT": arith.CmpFPredicate.OGT, "GE": arith.CmpFPredicate.OGE}
_SIGNED_COMPARE = {"EQ": arith.CmpIPredicate.eq, "NE": arith.CmpIPredicate.ne, "LT": arith.CmpIPredicate.slt,
                   "LE": arith.CmpIPredicate.sle, "GT": arith.CmpIPredicate.sgt, "GE": arith.CmpIPredicate.sge}
_UNSIGNED_COMPARE = {"EQ": arith.CmpIPredicate.eq, "NE": arith.CmpIPredicate.ne, "LT": arith.CmpIPredicate.ult,
                     "LE": arith.CmpIPredicate.ule, "GT": arith.CmpIPredicate.ugt, "GE": arith.CmpIPredicate.uge}
#: StableHLO's ops on booleans (``i1``) as logical ones (its spec): add and maximum are
#: "or", multiply and minimum "and" (arith's integer add on ``i1`` is "xor", and its signed
#: maximum ranks true, all ones, below false).
BOOLEAN_NAMES = {"add": "or", "maximum": "or", "multiply": "and", "minimum": "and"}
#: Reduction body op -> vector combining kind, for floats and integers.
_FLOAT_REDUCTIONS = {"add": vector.CombiningKind.ADD, "multiply": vector.CombiningKind.MUL,
                     "maximum": vector.CombiningKind.MAXIMUMF, "minimum": vector.CombiningKind.MINIMUMF}
_INTEGER_REDUCTIONS = {"add": vector.CombiningKind.ADD, "multiply": vector.CombiningKind.MUL,
                       "maximum": vector.CombiningKind.MAXSI, "minimum": vector.CombiningKind.MINSI,
                       "and": vector.CombiningKind.AND, "or": vector.CombiningKind.OR, "xor": vector.CombiningKind.XOR}
#: A dynamic ``vector.extract``/``vector.insert`` position (MLIR's ``kDynamic``).
_DYNAMIC = ir.ShapedType.get_dynamic_size()


def short_name(operation: ir.Operation) -> str:
    return operation.name.removeprefix("stablehlo.")


def minor_identity(source_rank: int, vector_rank: int) -> ir.AffineMap:
    """The permutation map of a transfer of a ``vector_rank`` vector at the innermost axes of
    a ``source_rank`` tensor (what ``vector.transfer_read``'s text form leaves out)."""
    return ir.AffineMap.get_minor_identity(source_rank, vector_rank)


def flat_positions(shape, slices) -> np.ndarray:
    """The row-major flat positions of the elements ``slices`` (one per axis) select from a
    tensor of ``shape``: the shuffle indices of a static slice of its vector."""
    return np.arange(int(np.prod(shape))).reshape(shape)[tuple(slices)].ravel()


class OpRules:
    """:meth:`elementwise` for the ops of :data:`FLOAT_OPS`/:data:`INTEGER_OPS`, an
    ``op_<name>`` method for each other StableHLO op, and the helpers they share. Each takes
    the op and returns the values of its results; the emitter provides ``value``, ``kind``,
    the constants (``splat``, ``zero``, ...) and the regions (``block``, ``while_loop``)."""

    def elementwise(self, op):
        """One op of :data:`FLOAT_OPS` or :data:`INTEGER_OPS`, on the operands' values."""
        if len(op.results) != 1:
            raise Unsupported(f"'{op.name}'", op)
        kind = Kind(op.results[0].type)
        operands = [self.value(v) for v in op.operands]
        table = FLOAT_OPS if operands and operands[0][1].is_float else INTEGER_OPS
        name = short_name(op)
        if operands and operands[0][1].element == "i1":
            name = BOOLEAN_NAMES.get(name, name)
        if name not in table or (name == "abs" and operands[0][1].element == "i1"):
            raise Unsupported(f"'{op.name}' on {operands[0][1].element if operands else kind.element} "
                              "(not an elementwise op this pass knows)", op)
        values = [v for v, _ in operands]
        if table is INTEGER_OPS and name in ("divide", "remainder") and kind.padded:
            values[1] = self.past_elements(values[1], kind, self.splat(1, kind))  # no division by zero past them
        return [table[name](*values, loc=op.location).result]

    def past_elements(self, value: ir.Value, kind: Kind, fill: ir.Value) -> ir.Value:
        """``value`` (``kind.type``) with the lanes past the elements taken from ``fill``."""
        mask_type = ir.VectorType.get([kind.lanes], ir.IntegerType.get_signless(1))
        mask = ir.DenseElementsAttr.get(np.arange(kind.lanes) < kind.count, type=mask_type)
        return arith.SelectOp(arith.ConstantOp(mask_type, mask).result, value, fill).result

    def reduced(self, value: ir.Value, kind: Kind, combiner: str, location) -> ir.Value:
        """``value`` with lanes past the elements that do not change its reduction by
        ``combiner``: the identity of add, or, xor and multiply, the first element for the
        others (maximum, minimum, and)."""
        if not kind.padded:
            return value
        if combiner in ("add", "or", "xor", "multiply"):
            fill = self.splat(1 if combiner == "multiply" else 0, kind)
        else:
            fill = vector.BroadcastOp(kind.type, vector.ExtractOp(value, [], [0], loc=location).result).result
        return self.past_elements(value, kind, fill)

    def op_optimization_barrier(self, op):
        """The identity: its operands' vectors. (Reverse mode's barriers shape IREE's host-side
        allocations of a host-stepped loop; inside a dispatch there are none.)"""
        return [self.value(v)[0] for v in op.operands]

    # -- ops needing more than one arith/math op -----------------------------------------
    def op_constant(self, op):
        return [self.constant(op.attributes["value"], Kind(op.results[0].type), op.location)]

    def op_negate(self, op):
        (value, kind) = self.value(op.operands[0])
        if kind.is_float:
            return [arith.NegFOp(value, loc=op.location).result]
        return [arith.SubIOp(self.zero(kind), value, loc=op.location).result]

    def op_sign(self, op):
        """-1, 0 or 1 (floats: NaN and the zeros' signs kept, as StableHLO says)."""
        (value, kind) = self.value(op.operands[0])
        if kind.element == "i1":
            return [value]
        zero, one, minus_one = self.zero(kind), self.splat(1, kind), self.splat(-1, kind)
        if kind.is_float:
            positive = arith.CmpFOp(arith.CmpFPredicate.OGT, value, zero, loc=op.location).result
            negative = arith.CmpFOp(arith.CmpFPredicate.OGT, zero, value, loc=op.location).result
        else:
            positive = arith.CmpIOp(arith.CmpIPredicate.sgt, value, zero, loc=op.location).result
            negative = arith.CmpIOp(arith.CmpIPredicate.sgt, zero, value, loc=op.location).result
        low = arith.SelectOp(negative, minus_one, value, loc=op.location).result
        return [arith.SelectOp(positive, one, low, loc=op.location).result]

    def op_not(self, op):
        (value, kind) = self.value(op.operands[0])
        return [arith.XOrIOp(value, self.all_ones(kind), loc=op.location).result]

    def op_compare(self, op):
        (left, kind), (right, _) = (self.value(v) for v in op.operands)
        direction = hlo.direction_of(op)
        compare_type = str(op.attributes["compare_type"]) if "compare_type" in op.attributes else ""
        if kind.is_float:
            return [arith.CmpFOp(_FLOAT_COMPARE[direction], left, right, loc=op.location).result]
        table = _UNSIGNED_COMPARE if "UNSIGNED" in compare_type or kind.element == "i1" else _SIGNED_COMPARE
        return [arith.CmpIOp(table[direction], left, right, loc=op.location).result]

    def op_select(self, op):
        (predicate, _), (left, _), (right, _) = (self.value(v) for v in op.operands)
        return [arith.SelectOp(predicate, left, right, loc=op.location).result]

    def op_clamp(self, op):
        """``min(max(x, low), high)``; a scalar bound is broadcast to ``x``'s shape."""
        (low, low_kind), (value, kind), (high, high_kind) = (self.value(v) for v in op.operands)
        bounds = []
        for bound, bound_kind in ((low, low_kind), (high, high_kind)):
            if bound_kind.scalar and not kind.scalar:
                bound = vector.BroadcastOp(kind.type, bound, loc=op.location).result
            bounds.append(bound)
        table = FLOAT_OPS if kind.is_float else INTEGER_OPS
        raised = table["maximum"](value, bounds[0], loc=op.location).result
        return [table["minimum"](raised, bounds[1], loc=op.location).result]

    def op_dot_general(self, op):
        """Unrolled over the contracted positions (:meth:`product`), at most
        :data:`MAX_DOT_PRODUCTS` multiply-adds, floats only; a product reading a tensor in
        memory (a large operand read from outside the loop) goes tile by tile
        (:meth:`tiled_product`)."""
        (left, left_kind), (right, right_kind) = (self.value(v) for v in op.operands)
        target = Kind(op.results[0].type)
        if not (left_kind.is_float and left_kind.element == right_kind.element == target.element):
            raise Unsupported(f"a matrix product of {left_kind.element} and {right_kind.element} into "
                              f"{target.element} (floats of one type only)", op)
        if left_kind.scalar or right_kind.scalar:
            raise Unsupported("a matrix product of a scalar", op)
        dims = hlo.dot_dimensions(op)
        batch = list(zip(dims["lhs_batching_dimensions"], dims["rhs_batching_dimensions"]))
        contracting = list(zip(dims["lhs_contracting_dimensions"], dims["rhs_contracting_dimensions"]))
        depth = int(np.prod([left_kind.shape[a] for a, _ in contracting] or [1]))
        if left_kind.memory or right_kind.memory:
            return [self.tiled_product((left, left_kind), (right, right_kind), target, batch, contracting, op)]
        if target.count * depth > MAX_DOT_PRODUCTS:
            raise Unsupported(f"a matrix product of {target.count * depth} multiply-adds (at most {MAX_DOT_PRODUCTS})", op)
        return [self.product((left, left_kind), (right, right_kind), target, batch, contracting, op.location)]

    def product(self, left, right, target: Kind, batch, contracting, location) -> ir.Value:
        """The product of two vectors: for each contracted position, the operands' elements
        in the result's layout (``vector.shuffle``s; a matrix the loop does not change gives
        the same ones every iteration, which LLVM hoists out of the loop) multiplied and
        added (``math.fma``). A product with a scalar result is a multiply and a
        ``vector.reduction``.

        ``W h`` (``32x32`` by ``32x1``, contracting ``[1] x [0]``): 32 columns of ``W``,
        each times a broadcast element of ``h``, summed. (A ``vector.contract`` instead ran
        the RNN of ``tools/bench/bench_loops.py`` several times slower: figures in
        ``docs/control-flow.md``.)"""
        (left, left_kind), (right, right_kind) = left, right
        left_free = [a for a in range(len(left_kind.shape)) if a not in dict(batch) and a not in dict(contracting)]
        right_used = {b for _, b in batch} | {b for _, b in contracting}
        right_free = [a for a in range(len(right_kind.shape)) if a not in right_used]
        # iteration space: batch, left free, right free (the result's order), then contracting
        left_map, right_map = [None] * len(left_kind.shape), [None] * len(right_kind.shape)
        position = 0
        for a, b in batch:
            left_map[a] = right_map[b] = position
            position += 1
        for a in left_free:
            left_map[a] = position
            position += 1
        for b in right_free:
            right_map[b] = position
            position += 1
        for a, b in contracting:
            left_map[a] = right_map[b] = position
            position += 1
        depth = int(np.prod([left_kind.shape[a] for a, _ in contracting] or [1]))
        # the flat position in each operand of every (result element, contracted position)
        sizes = [0] * position
        for axis, at in enumerate(left_map):
            sizes[at] = left_kind.shape[axis]
        for axis, at in enumerate(right_map):
            sizes[at] = right_kind.shape[axis]
        grid = np.indices(sizes).reshape(position, target.count, depth)
        left_at = np.ravel_multi_index([grid[at] for at in left_map], left_kind.shape)
        right_at = np.ravel_multi_index([grid[at] for at in right_map], right_kind.shape)
        if target.scalar:  # one dot product: the elements in contraction order, multiplied and summed
            row = Kind(ir.RankedTensorType.get([depth], target.element_type))
            product = arith.MulFOp(self.shuffle(left, left_kind, left_at[0], row, location),
                                   self.shuffle(right, right_kind, right_at[0], row, location), loc=location)
            return vector.ReductionOp(target.element_type, vector.CombiningKind.ADD,
                                      self.reduced(product.result, row, "add", location), loc=location).result
        total = None
        for column in range(depth):
            left_part = self.shuffle(left, left_kind, left_at[:, column], target, location)
            right_part = self.shuffle(right, right_kind, right_at[:, column], target, location)
            if total is None:
                total = arith.MulFOp(left_part, right_part, loc=location).result
            else:
                total = math.FmaOp(left_part, right_part, total, loc=location).result
        self.vector_bytes += 2 * depth * target.vector_bytes
        return total

    def tiled_product(self, left, right, target: Kind, batch, contracting, op) -> ir.Value:
        """A product of a tensor in memory (a large operand read from outside the loop) and
        a vector, tile by tile in an ``scf.for`` (:meth:`over_tiles`; a last, shorter tile
        after it): a tile is the tensor's rows (its first axis) from the loop's row, at most
        :data:`MAX_TILE_BYTES`, read with one ``vector.transfer_read`` and multiplied as a
        vector (:meth:`product`; a matrix times a vector: the tile times the vector repeated on
        each row, :meth:`row_sums`). Along a contracted first axis the vector is written to
        memory once, each tile multiplies its rows read back, and the products are summed;
        along a free one (the result's first axis) each tile's product is written into the
        result's rows in memory, read whole after the loop. At most
        :data:`MAX_MEMORY_PRODUCTS` multiply-adds; one tile's vectors are live at a time."""
        side = 0 if left[1].memory else 1
        (matrix, matrix_kind), (other, other_kind) = (left, right) if side == 0 else (right, left)
        work = target.count * int(np.prod([left[1].shape[a] for a, _ in contracting] or [1]))
        if other_kind.memory:
            raise Unsupported("a matrix product of two tensors in memory", op)
        if batch:
            raise Unsupported("a batched matrix product of a tensor in memory", op)
        if work > MAX_MEMORY_PRODUCTS:
            raise Unsupported(f"a matrix product of {work} multiply-adds reading a tensor in memory "
                              f"(at most {MAX_MEMORY_PRODUCTS})", op)
        paired = {pair[side]: pair[1 - side] for pair in contracting}  # the tensor's axis -> the vector's
        if 0 not in paired and side == 1:
            raise Unsupported("a matrix product whose right operand, in memory, has a first axis it does not contract", op)
        extent = matrix_kind.shape[0]
        row_bytes = matrix_kind.bytes // extent
        if row_bytes > MAX_TILE_BYTES:
            raise Unsupported(f"a matrix product reading rows of {row_bytes} bytes from memory (at most "
                              f"{MAX_TILE_BYTES})", op)
        rows = MAX_TILE_BYTES // row_bytes
        before = self.vector_bytes
        if 0 in paired:
            value = self.contracted_tiles(matrix, matrix_kind, other, other_kind, side, paired[0], rows, target, batch,
                                          contracting, op)
        else:
            value = self.free_tiles(matrix, matrix_kind, other, other_kind, rows, target, batch, contracting, op)
        self.vector_bytes = before + 2 * (self.vector_bytes - before) + 2 * target.vector_bytes
        return value

    def contracted_tiles(self, matrix, matrix_kind, other, other_kind, side: int, axis: int, rows: int, target: Kind,
                         batch, contracting, op) -> ir.Value:
        """:meth:`tiled_product` along the tensor's contracted first axis (the vector's
        ``axis``): the vector is written to memory once, each tile multiplies its rows read
        back, and the tiles' products are summed."""
        full, rest = divmod(matrix_kind.shape[0], rows)
        stored = self.write_tensor(other, other_kind)
        total = self.zero(target)
        tiles = [(None, rows)] * bool(full) + [(full * rows, rest)] * bool(rest)
        for start, count in tiles:
            shape = list(other_kind.shape)
            shape[axis] = count
            piece_kind = other_kind.with_element(other_kind.element_type, shape)

            def add_tile(row, total, count=count, piece_kind=piece_kind):
                tile = self.read_rows(matrix, matrix_kind, row, count, 0, op)
                piece = self.read_rows(stored, other_kind, row, count, axis, op)
                part = self.product(*((tile, piece) if side == 0 else (piece, tile)), target, batch, contracting,
                                    op.location)
                return arith.AddFOp(total, part, loc=op.location).result

            total = self.over_tiles(full, rows, total, add_tile, op) if start is None \
                else add_tile(self.index_constant(start), total)
        return total

    def free_tiles(self, matrix, matrix_kind, other, other_kind, rows: int, target: Kind, batch, contracting,
                   op) -> ir.Value:
        """:meth:`tiled_product` along the tensor's free first axis (the result's first):
        each tile's product is written into the result's rows in memory, read whole at the
        end. A matrix times a vector multiplies the tile by the vector repeated on each row
        and sums its rows (:meth:`row_sums`)."""
        extent = matrix_kind.shape[0]
        full, rest = divmod(extent, rows)
        result = tensor.EmptyOp(target.shape, target.element_type, loc=op.location).result
        depth = matrix_kind.count // extent
        row_products = [a for a, _ in contracting] == list(range(1, len(matrix_kind.shape))) and \
            [b for _, b in contracting] == sorted(b for _, b in contracting) and other_kind.count == depth

        def write_tile(row, result, count=rows):
            part_kind = target.with_element(target.element_type, [count] + target.shape[1:])
            tile = self.read_rows(matrix, matrix_kind, row, count, 0, op)
            if row_products:
                part = self.row_sums(arith.MulFOp(tile[0], self.shuffle(
                    other, other_kind, np.tile(np.arange(depth), count), tile[1], op.location), loc=op.location).result,
                    count, depth, part_kind, op.location)
                self.vector_bytes += 3 * tile[1].vector_bytes
            else:
                part = self.product(tile, (other, other_kind), part_kind, batch, contracting, op.location)
            rank = len(target.shape)
            return vector.TransferWriteOp(target.tensor, self.unflatten(part, part_kind), result,
                                          [row] + [self.index_constant(0) for _ in range(rank - 1)],
                                          minor_identity(rank, rank), [True] * rank, loc=op.location).result

        if full:
            result = self.over_tiles(full, rows, result, write_tile, op)
        if rest:
            result = write_tile(self.index_constant(full * rows), result, rest)
        value, _ = self.read_tensor(result, target)
        return value

    def row_sums(self, value: ir.Value, count: int, width: int, target: Kind, location) -> ir.Value:
        """The sums of the ``count`` rows of ``width`` elements of the vector ``value``, all
        rows at once: each step adds the rows' second halves to their first halves (a
        shuffle each), a last odd column aside."""
        rows = np.arange(count)[:, None]
        odd = None
        while width > 1:
            half = width // 2
            kind = target.with_element(target.element_type, [count * half])
            value_kind = target.with_element(target.element_type, [count * width])
            first = (rows * width + np.arange(half)[None, :]).ravel()
            if width % 2:
                last = self.shuffle(value, value_kind, (rows[:, 0] + 1) * width - 1, target, location)
                odd = last if odd is None else arith.AddFOp(odd, last, loc=location).result
            value = arith.AddFOp(self.shuffle(value, value_kind, first, kind, location),
                                 self.shuffle(value, value_kind, first + half, kind, location), loc=location).result
            width = half
        return value if odd is None else arith.AddFOp(value, odd, loc=location).result

    def read_rows(self, tensor_value: ir.Value, kind: Kind, row: ir.Value, count: int, axis: int, op):
        """``count`` rows along ``axis`` of the tensor ``tensor_value`` from ``row`` (an
        ``index``): one ``vector.transfer_read``, as a vector with its :class:`Kind`."""
        shape = list(kind.shape)
        shape[axis] = count
        part = kind.with_element(kind.element_type, shape)
        rank = len(shape)
        indices = [row if a == axis else self.index_constant(0) for a in range(rank)]
        shaped = vector.TransferReadOp(part.shaped, tensor_value, indices, minor_identity(rank, rank),
                                       self.zero(kind.element_kind), [True] * rank, loc=op.location).result
        return self.flatten(shaped, part), part

    def over_tiles(self, count: int, rows: int, initial: ir.Value, step, op) -> ir.Value:
        """An ``scf.for`` over ``count`` tiles of ``rows`` rows carrying ``initial``: each
        iteration ``step(first row, carried)`` (not unrolled: the code is one tile's)."""
        loop = scf.ForOp(self.index_constant(0), self.index_constant(count), self.index_constant(1), [initial],
                         loc=op.location)
        with ir.InsertionPoint(loop.body):
            row = arith.MulIOp(loop.induction_variable, self.index_constant(rows)).result
            scf.YieldOp([step(row, loop.inner_iter_args[0])], loc=op.location)
        return loop.results[0]

    def op_convert(self, op):
        (value, source) = self.value(op.operands[0])
        target = Kind(op.results[0].type)
        if source.element == target.element:
            return [value]
        to, fro = target.element, source.element
        if to == "i1":  # x != 0
            if source.is_float:
                return [arith.CmpFOp(arith.CmpFPredicate.UNE, value, self.zero(source), loc=op.location).result]
            return [arith.CmpIOp(arith.CmpIPredicate.ne, value, self.zero(source), loc=op.location).result]
        wider = fro == "i1" or ELEMENT_BYTES[to] > ELEMENT_BYTES[fro]  # i1 takes a byte, as i8 does
        if source.is_float and target.is_float:
            cast = arith.ExtFOp if wider else arith.TruncFOp
        elif target.is_float:
            cast = arith.UIToFPOp if fro == "i1" else arith.SIToFPOp
        elif source.is_float:
            cast = arith.FPToSIOp
        elif wider:
            cast = arith.ExtUIOp if fro == "i1" else arith.ExtSIOp
        else:
            cast = arith.TruncIOp
        return [cast(target.type, value, loc=op.location).result]

    def op_broadcast_in_dim(self, op):
        (value, source) = self.value(op.operands[0])
        target = Kind(op.results[0].type)
        dimensions = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        if source.shape == target.shape and dimensions == sorted(dimensions):
            return [value]
        if source.scalar:
            return [vector.BroadcastOp(target.type, value, loc=op.location).result]
        # which source element each result element is, in row-major order
        order = np.argsort(dimensions)
        expanded = [1] * len(target.shape)
        for axis in order:
            expanded[dimensions[axis]] = source.shape[axis]
        indices = np.arange(source.count).reshape(source.shape).transpose(order).reshape(expanded)
        return [self.shuffle(value, source, np.broadcast_to(indices, target.shape).ravel(), target, op.location)]

    def shuffle(self, value: ir.Value, source: Kind, indices, target: Kind, location) -> ir.Value:
        """The elements ``indices`` of the vector ``value``, as ``target``."""
        if target.scalar:
            return vector.ExtractOp(value, [], [int(indices[0])], loc=location).result
        if len(set(int(i) for i in indices)) == 1:  # one element, repeated: a broadcast of any size
            element = vector.ExtractOp(value, [], [int(indices[0])], loc=location).result
            return vector.BroadcastOp(target.type, element, loc=location).result
        if len(indices) > MAX_SHUFFLE:
            raise Unsupported(f"a broadcast or reduction making {len(indices)} elements (at most {MAX_SHUFFLE})")
        return vector.ShuffleOp(value, value, [int(i) for i in np.resize(indices, target.lanes)], loc=location).result

    def op_slice(self, op):
        """The elements a static slice keeps, by one shuffle."""
        (value, source) = self.value(op.operands[0])
        starts, limits, strides = (list(ir.DenseI64ArrayAttr(op.attributes[name])) for name in
                                   ("start_indices", "limit_indices", "strides"))
        kept = flat_positions(source.shape, (slice(*bounds) for bounds in zip(starts, limits, strides)))
        return [self.shuffle(value, source, kept, Kind(op.results[0].type), op.location)]

    def op_transpose(self, op):
        (value, source) = self.value(op.operands[0])
        permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        order = np.arange(source.count).reshape(source.shape).transpose(permutation).ravel()
        if source.scalar or np.array_equal(order, np.arange(source.count)):
            return [value]
        return [self.shuffle(value, source, order, Kind(op.results[0].type), op.location)]

    def op_concatenate(self, op):
        """The operands' vectors joined end to end (a shuffle per operand), then put in the
        result's order along the axis (one shuffle, none along the first axis)."""
        operands = [self.value(v) for v in op.operands]
        target = Kind(op.results[0].type)
        if target.count > MAX_SHUFFLE:
            raise Unsupported(f"a concatenation making {target.count} elements (at most {MAX_SHUFFLE})", op)
        axis = ir.IntegerAttr(op.attributes["dimension"]).value
        joined, offset, parts = None, 0, []
        for value, kind in operands:
            if kind.scalar:
                raise Unsupported("a concatenation of scalars", op)
            parts.append(offset + np.arange(kind.count).reshape(kind.shape))
            if joined is None:
                joined = value
            else:  # the elements so far, then these (the second vector's lanes start at the first's length)
                width = ir.VectorType(joined.type).shape[0]
                order = list(range(offset)) + list(range(width, width + kind.count))
                joined = vector.ShuffleOp(joined, value, np.resize(order, lanes(offset + kind.count)).tolist(),
                                          loc=op.location).result
            offset += kind.count
        order = np.concatenate(parts, axis=axis).ravel()
        if np.array_equal(order, np.arange(target.count)):
            return [joined]
        return [vector.ShuffleOp(joined, joined, [int(i) for i in np.resize(order, target.lanes)],
                                 loc=op.location).result]

    def op_reshape(self, op):
        (value, source) = self.value(op.operands[0])
        target = Kind(op.results[0].type)
        if source.type == target.type:  # the same elements, in the same order
            return [value]
        if source.scalar:
            return [vector.BroadcastOp(target.type, value, loc=op.location).result]
        return [vector.ExtractOp(value, [], [0], loc=op.location).result]

    def op_reduce(self, op):
        if len(op.operands) != 2:
            raise Unsupported("a reduction of several operands", op)
        (value, source), (initial, _) = (self.value(v) for v in op.operands)
        body = list(op.regions[0].blocks[0].operations)
        combiner = short_name(body[0].operation) if len(body) == 2 else None
        if source.element == "i1":
            combiner = BOOLEAN_NAMES.get(combiner, combiner)
        table = _FLOAT_REDUCTIONS if source.is_float else _INTEGER_REDUCTIONS
        if combiner not in table:
            raise Unsupported(f"a reduction by {combiner or 'several ops'}", op)
        dimensions = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        target = Kind(op.results[0].type)
        combine = (FLOAT_OPS if source.is_float else INTEGER_OPS)[combiner]
        if source.scalar:  # a 0-d tensor reduced over no axes: its one element combined with the initial value
            return [combine(initial, value, loc=op.location).result]
        if target.scalar:
            elements = self.reduced(value, source, combiner, op.location)
            return [vector.ReductionOp(source.element_type, table[combiner], elements, acc=initial,
                                       loc=op.location).result]
        # a reduction over some axes: one shuffle per position along them, combined in turn
        kept = [axis for axis in range(len(source.shape)) if axis not in dimensions]
        indices = np.arange(source.count).reshape(source.shape).transpose(kept + dimensions).reshape(target.count, -1)
        if indices.shape[1] > MAX_SHUFFLE:
            raise Unsupported(f"a reduction over {indices.shape[1]} elements per result (at most {MAX_SHUFFLE})", op)
        result = vector.BroadcastOp(target.type, initial).result
        for column in indices.T:
            part = self.shuffle(value, source, column, target, op.location)
            result = combine(result, part, loc=op.location).result
        return [result]

    def op_dynamic_slice(self, op):
        (value, source), *starts = (self.value(v) for v in op.operands)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        static = constant_starts(op)
        if static is not None and not source.memory and not source.scalar:  # a static slice: one shuffle
            kept = flat_positions(source.shape, (slice(a, a + n) for a, n in zip(static, sizes)))
            return [self.shuffle(value, source, kept, Kind(op.results[0].type), op.location)]
        return self.dynamic_slice(value, source, starts, sizes, Kind(op.results[0].type), op)

    def op_gather(self, op):
        """A gather of one slice at one start index vector (``xs[i]``: a row at a scalar
        index) is a ``dynamic_slice`` of the same sizes (StableHLO clamps both alike),
        starting at 0 along the axes the index does not name; other gathers are not."""
        (value, source), (indices, index_kind) = (self.value(v) for v in op.operands)
        numbers = str(op.attributes["dimension_numbers"])
        fields = {name: [int(n) for n in re.findall(r"-?\d+", items)]
                  for name, items in re.findall(r"(\w+) = \[([^\]]*)\]", numbers)}
        vector_dim = re.search(r"index_vector_dim = (\d+)", numbers)
        target = Kind(op.results[0].type)
        if index_kind.scalar or len(index_kind.shape) != 1 or (vector_dim and int(vector_dim.group(1)) != 0) \
                or fields.get("operand_batching_dims") or fields.get("offset_dims", []) != list(range(len(target.shape))):
            raise Unsupported("a gather of more than one slice (one start index vector only)", op)
        starts, zero = [], None
        positions = fields.get("start_index_map", [])
        for axis in range(len(source.shape)):
            if axis in positions:
                element = vector.ExtractOp(indices, [], [positions.index(axis)], loc=op.location).result
                starts.append((element, index_kind.element_kind))
            else:
                zero = zero or (self.zero(index_kind.element_kind), index_kind.element_kind)
                starts.append(zero)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        return self.dynamic_slice(value, source, starts, sizes, target, op)

    def dynamic_slice(self, value: ir.Value, source: Kind, starts, sizes, target: Kind, op) -> list[ir.Value]:
        """The slice of ``sizes`` of ``value`` at ``starts`` (clamped), as ``target``."""
        if source.memory:  # read from the tape in memory
            indices = self.clamped_starts(source, sizes, starts)
            pad = self.zero(source.element_kind)
            padded_row = target.padded and all(size == 1 for size in sizes[:-1])
            row = ir.VectorType.get(sizes[:-1] + [target.lanes] if padded_row else sizes, source.element_type)
            in_bounds = [True] * (len(sizes) - 1) + [not padded_row]  # a row's lanes past it read the pad
            shaped = vector.TransferReadOp(row, value, indices, minor_identity(len(source.shape), len(sizes)), pad,
                                           in_bounds, loc=op.location).result
            if target.scalar:
                return [vector.ExtractOp(shaped, [], [0] * len(sizes), loc=op.location).result]
            if padded_row:
                return [vector.ShapeCastOp(target.type, shaped, loc=op.location).result]
            return [self.flatten(shaped, target)]
        positions = self.slice_positions(source, sizes, starts, op)
        elements = [vector.ExtractOp(value, [position], [_DYNAMIC], loc=op.location).result for position in positions]
        if target.scalar:
            return elements
        return [vector.FromElementsOp(target.type, (elements * target.lanes)[:target.lanes], loc=op.location).result]

    def op_dynamic_update_slice(self, op):
        (value, source), (update, update_kind), *starts = (self.value(v) for v in op.operands)
        if source.memory:  # written in place into the tape in memory
            sizes = update_kind.shape
            padded_row = update_kind.padded and all(size == 1 for size in sizes[:-1])
            if padded_row:  # the row's lanes, those past it not written
                row = ir.VectorType.get(sizes[:-1] + [update_kind.lanes], source.element_type)
                shaped = vector.ShapeCastOp(row, update, loc=op.location).result
            else:
                row = ir.VectorType.get(sizes, source.element_type)
                shaped = vector.BroadcastOp(row, update, loc=op.location).result if update_kind.scalar \
                    else self.unflatten(update, update_kind)
            indices = self.clamped_starts(source, sizes, starts)
            return [vector.TransferWriteOp(source.tensor, shaped, value, indices,
                                           minor_identity(len(source.shape), len(sizes)),
                                           [True] * (len(sizes) - 1) + [not padded_row], loc=op.location).result]
        static = constant_starts(op)
        if static is not None and not source.scalar:  # a static update: one shuffle of both vectors
            return [self.static_update(value, source, update, update_kind, static, op)]
        positions = self.slice_positions(source, update_kind.shape, starts, op)
        result = value
        for offset, position in enumerate(positions):
            element = update
            if not update_kind.scalar:
                element = vector.ExtractOp(update, [], [offset]).result
            self.vector_bytes += source.vector_bytes
            result = vector.InsertOp(element, result, [position], [_DYNAMIC], loc=op.location).result
        return [result]

    def static_update(self, value: ir.Value, source: Kind, update: ir.Value, update_kind: Kind, starts, op) -> ir.Value:
        """``value`` with the window at ``starts`` replaced by ``update``: element ``j`` of
        the result is ``value[j]``, or ``update[k]`` (position ``count + k`` of the two
        vectors joined) inside the window."""
        if source.count > MAX_SHUFFLE:
            raise Unsupported(f"an update of a {source.count}-element vector (at most {MAX_SHUFFLE})", op)
        order = np.arange(source.lanes)  # position k of update is lanes + k of the two vectors joined
        order[flat_positions(source.shape, (slice(a, a + n) for a, n in zip(starts, update_kind.shape)))] = \
            source.lanes + np.arange(update_kind.count)
        return vector.ShuffleOp(value, update, [int(i) for i in order], loc=op.location).result

    def clamped_starts(self, source: Kind, sizes, starts) -> list[ir.Value]:
        """``index`` values of the starts of a slice of ``sizes``, clamped into ``source`` as
        StableHLO says (``0 <= start <= extent - size``)."""
        indices = []
        for (start, kind), size, extent in zip(starts, sizes, source.shape):
            low, high = self.splat(0, kind), self.splat(extent - size, kind)
            clamped = arith.MinSIOp(arith.MaxSIOp(start, low).result, high).result
            indices.append(arith.IndexCastOp(ir.IndexType.get(), clamped).result)
        return indices

    def slice_positions(self, source: Kind, sizes, starts, op) -> list[ir.Value]:
        """Index values of the flat positions of a slice of ``sizes`` at ``starts`` (clamped
        into ``source`` as StableHLO says), in row-major order."""
        count = int(np.prod(sizes)) if sizes else 1
        if source.scalar or count > MAX_SLICE:
            raise Unsupported(f"a dynamic slice of {count} elements (at most {MAX_SLICE})", op)
        if source.bytes > MAX_DYNAMIC_VECTOR_BYTES:
            raise Unsupported(f"a dynamic slice of a {source.bytes}-byte tensor {source.tensor} "
                              f"(at most {MAX_DYNAMIC_VECTOR_BYTES} bytes compile quickly)", op)
        strides = [int(np.prod(source.shape[axis + 1:])) for axis in range(len(source.shape))]
        base = None
        for index, stride in zip(self.clamped_starts(source, sizes, starts), strides):
            term = arith.MulIOp(index, self.index_constant(stride)).result
            base = term if base is None else arith.AddIOp(base, term).result
        offsets = np.arange(int(np.prod(source.shape))).reshape(source.shape)[tuple(slice(0, n) for n in sizes)].ravel()
        return [arith.AddIOp(base, self.index_constant(int(offset))).result for offset in offsets]

    def op_if(self, op):
        (predicate, _) = self.value(op.operands[0])
        kinds = [self.kind(r) for r in op.results]
        branches = scf.IfOp(predicate, [k.type for k in kinds], has_else=True, loc=op.location)
        yields = []
        for region, block in zip(op.regions, (branches.then_block, branches.else_block)):
            with ir.InsertionPoint(block):
                yields.append([v for v, _ in self.block(region.blocks[0])])
                scf.YieldOp(yields[-1])
        first = {}  # (then, else) yielded -> the first result yielding them: a branch's results, each once
        return [branches.results[first.setdefault(pair, index)] for index, pair in enumerate(zip(*yields))]

    def op_while(self, op):
        return [value for value, _ in self.while_loop(op, [self.value(v) for v in op.operands])]
