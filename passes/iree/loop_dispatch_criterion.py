"""What decides whether a ``stablehlo.while`` runs inside one dispatch: the limits, how each
tensor value is held there (:class:`Kind`), and the analyses of the loop the emitter needs
(its tapes, the values it passes through unchanged, the values it reads from outside).

The criterion itself is written out in :mod:`s4tf.passes.iree.loop_dispatch`; an op the emitter
(:mod:`s4tf.passes.iree.loop_dispatch_emitter`) cannot build raises :class:`Unsupported`.
"""

from __future__ import annotations

import numpy as np

from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import defining_op

#: Bytes of all carried values together, tapes aside (Newton's method on 1,000 float64s
#: carries 16,000).
MAX_CARRIED_BYTES = 64 * 1024
#: Bytes of any one value in the loop (LLVM keeps each vector in registers or on the stack).
MAX_VALUE_BYTES = 32 * 1024
#: Elements one ``vector.shuffle`` (a broadcast, or a step of a partial reduction) may make.
MAX_SHUFFLE = 1024
#: The bytes of all vector values in a loop (each SSA value, block arguments included):
#: LLVM keeps large vectors on the stack, and IREE's worker threads have 128 KiB stacks by
#: default. s4tf's own runtime gives them 2 MiB (s4tf.runtime.device), so the host target
#: allows more; modules for other machines must fit the default. The count is an upper
#: bound: 540 KB counted took 83 KB of stack frame (Newton's gradient below), 312 KB 62 KB
#: (GradBench's ODE gradient over 1,000 float32s, whose backward loop needs more than 256
#: KiB). IREE-3.13-WORKAROUND: Newton's two-level backward loop (476 KB counted) inside a
#: dispatch fails at run time ("indirect buffer reference slot 0 is out range of the declared
#: binding capacity"), so the bound stays below it. Big vectors cost compile time, and bound
#: run time (docs/control-flow.md, "Loops inside one dispatch", has the figures).
MAX_STACK_BYTES = {"cpu": 320 * 1024, None: 48 * 1024}
#: The bytes of the tapes a loop writes but nobody reads after it (the backward pass's
#: second tape): IREE drops such results of a dispatch, and the tape becomes a
#: ``memref.alloca`` on the worker's stack. IREE allows 32 KiB of those by default; the
#: ``cpu`` target raises it to 1 MiB (``--iree-llvmcpu-stack-allocation-limit``,
#: :mod:`s4tf.runtime.targets`) and s4tf's runtime gives workers 2 MiB of stack. (Measured:
#: the backward loop of Newton's method on 1,000 float64s, counted as 540 KB of vectors
#: and a 264,000-byte scratch tape here, has a stack frame of 347,264 bytes.) With 512 KiB,
#: the recording loop of the gradient of a loop over 1,000 float32s (a 264,000-byte
#: checkpoint tape, twice in stack buffers) stayed host-stepped: 46 ms a gradient against
#: 0.8 ms inside dispatches (tools/bench/bench_while_grad.py).
MAX_SCRATCH_TAPE_BYTES = {"cpu": 1024 * 1024, None: 32 * 1024}
#: The tapes of a region holding several loops (those handed from one loop to the next and
#: those made inside) together. IREE-3.13-WORKAROUND: iree-compile crashed (signal 11,
#: reporting an error) on a region whose tapes took 512 KiB together.
MAX_REGION_TAPE_BYTES = 256 * 1024
#: Elements one dynamic slice or update of a vector may have, and the bytes of the vector it
#: indexes: LLVM lowers each element's dynamic ``insertelement`` through a stack copy of the
#: whole vector. Reverse mode's 1,025-row tapes as vectors ran faster but compiled many
#: times slower (figures: docs/control-flow.md); larger tensors indexed dynamically are tapes
#: in memory instead.
MAX_SLICE = 64
#: Multiply-adds one ``dot_general`` in the loop may make (a 32x32 matrix times a vector:
#: 1,024), unrolled over its contracted positions into vector multiply-adds. Compile time
#: grows fast with the count (the RNN of ``tools/bench/bench_loops.py`` at 32 and 64 hidden
#: units: docs/control-flow.md).
MAX_DOT_PRODUCTS = 2048
#: Bytes of one tile of a tensor in memory that a matrix product reads into a vector at a
#: time (:meth:`~s4tf.passes.iree.loop_dispatch_ops.OpRules.tiled_product`): tiles of 512
#: to 2,048 bytes ran the spline fit of tools/bench/spline_fit.py alike; the code grows
#: with the tile (docs/control-flow.md, "Large operands").
MAX_TILE_BYTES = 1024
#: Multiply-adds of one matrix product reading a tensor in memory: inside the dispatch it
#: runs on one thread; a loop of such products ran 2.3-2.4 times faster there than
#: host-stepped at 512,000, and at 1,024,000 as fast in one run of two, where IREE's kernels
#: spread over the workers catch up (docs/control-flow.md, "Large operands").
MAX_MEMORY_PRODUCTS = 524288
MAX_DYNAMIC_VECTOR_BYTES = 1024
#: A tensor indexed by a dynamic slice or update that is larger than
#: :data:`MAX_DYNAMIC_VECTOR_BYTES` is a *tape*: held as a tensor in memory inside the
#: dispatch (an output buffer of the dispatch, written in place with
#: ``vector.transfer_write`` and read with ``vector.transfer_read``), never a vector. Reverse
#: mode's checkpoint tapes are such tensors (1,025 rows of the changing carried values).
MAX_TAPE_BYTES = 64 * 1024 * 1024
#: The targets whose dispatches compile an ``scf.while`` over vectors: IREE's ``llvm-cpu``
#: ones (:mod:`s4tf.runtime.targets`).
DISPATCH_TARGETS = ("cpu", "android-arm64", "linux-arm64")

#: Vectors of more elements than this have a power of two of lanes inside a dispatch, the
#: elements first (:func:`lanes`): the LLVM of IREE 3.13 splits a longer vector of another
#: length into pieces it then shuffles together, element by element (a loop on 1,000
#: float32s: 0.53 us an iteration, on 1,024: 0.056 us).
MAX_UNPADDED_LANES = 16
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
FLOATS = ("f16", "f32", "f64")


def lanes(count: int) -> int:
    """The length of a vector holding ``count`` elements inside a dispatch: ``count``, or past
    :data:`MAX_UNPADDED_LANES` the next power of two. The lanes past the elements hold
    anything (the pad of a read, what ops made of it), never read as elements. It depends on
    the count alone, so a comparison's booleans and the values a select picks between have
    the same lanes."""
    return count if count <= MAX_UNPADDED_LANES else 1 << (count - 1).bit_length()


class Unsupported(Exception):
    """Why a loop stays host-stepped, and the op that decided it."""

    def __init__(self, reason: str, operation: ir.Operation | None = None):
        super().__init__(reason)
        self.reason = reason
        self.operation = operation


class Kind:
    """How a tensor value is held inside the dispatch: its scalar or vector type, or, for a
    tape (``memory``), the tensor itself, in memory."""

    def __init__(self, tensor_type: ir.Type, memory: bool = False):
        try:
            shaped = ir.RankedTensorType(tensor_type)
        except ValueError:
            raise Unsupported(f"a value of type {tensor_type} (not a ranked tensor)") from None
        if not shaped.has_static_shape:
            raise Unsupported(f"a value of dynamic shape {tensor_type}")
        self.element_type = shaped.element_type
        self.element = str(self.element_type)
        if self.element not in ELEMENT_BYTES or self.element == "bf16":
            raise Unsupported(f"a value of element type {self.element}")
        self.shape = list(shaped.shape)
        self.tensor = shaped
        self.count = int(np.prod(self.shape))
        self.bytes = self.count * ELEMENT_BYTES[self.element]
        self.memory = memory
        if memory and self.bytes > MAX_TAPE_BYTES:
            raise Unsupported(f"a tape of {self.bytes} bytes ({tensor_type}; at most {MAX_TAPE_BYTES})")
        if not memory and self.lanes * ELEMENT_BYTES[self.element] > MAX_VALUE_BYTES:
            raise Unsupported(f"a value of {self.bytes} bytes ({tensor_type}; at most {MAX_VALUE_BYTES}, "
                              f"{self.lanes} elements in a vector)")
        if self.count == 0:
            raise Unsupported(f"an empty tensor {tensor_type}")

    @property
    def scalar(self) -> bool:
        return not self.shape

    @property
    def lanes(self) -> int:
        """The length of the vector holding the elements (:func:`lanes`)."""
        return lanes(self.count)

    @property
    def padded(self) -> bool:
        """Whether the vector has lanes past the elements (:attr:`lanes`)."""
        return not self.scalar and not self.memory and self.lanes != self.count

    @property
    def type(self) -> ir.Type:
        """A scalar, or a 1-D vector of all elements (:attr:`lanes` long): LLVM cannot carry
        n-D vectors through ``scf.while`` (an unrealized cast remains), and elementwise ops
        ignore the shape; a tape is its tensor type."""
        if self.memory:
            return self.tensor
        return self.element_type if self.scalar else ir.VectorType.get([self.lanes], self.element_type)

    @property
    def flat(self) -> ir.Type:
        """The 1-D vector of the elements alone (``count`` long)."""
        return ir.VectorType.get([self.count], self.element_type)

    @property
    def shaped(self) -> ir.Type:
        """The n-D vector type, for ops that need the shape (broadcast, reduction, reads)."""
        return self.element_type if self.scalar else ir.VectorType.get(self.shape, self.element_type)

    def with_element(self, element_type: ir.Type, shape=None) -> "Kind":
        """Elements of type ``element_type``, of this shape or ``shape``."""
        return Kind(ir.RankedTensorType.get(self.shape if shape is None else shape, element_type))

    @property
    def element_kind(self) -> "Kind":
        """One element of this kind: a scalar."""
        return self.with_element(self.element_type, shape=[])

    @property
    def vector_bytes(self) -> int:
        return 0 if self.scalar or self.memory else self.lanes * ELEMENT_BYTES[self.element]

    @property
    def is_float(self) -> bool:
        return self.element in FLOATS


def constant_starts(operation: ir.Operation) -> list[int] | None:
    """The start indices of a ``dynamic_slice`` or ``dynamic_update_slice`` when every one
    is a constant (reverse mode's transposes of static slices: ``add_slice``), clamped as
    StableHLO clamps them; ``None`` otherwise (and for other ops)."""
    first = {"stablehlo.dynamic_slice": 1, "stablehlo.dynamic_update_slice": 2}.get(operation.name)
    if first is None:
        return None
    source = ir.RankedTensorType(operation.operands[0].type)
    sizes = (list(ir.DenseI64ArrayAttr(operation.attributes["slice_sizes"])) if first == 1
             else list(ir.RankedTensorType(operation.operands[1].type).shape))
    starts = []
    for value, size, extent in zip(list(operation.operands)[first:], sizes, source.shape):
        producer = defining_op(value)
        if producer is None or producer.name != "stablehlo.constant":
            return None
        start = ir.DenseIntElementsAttr(producer.attributes["value"])[0]
        starts.append(min(max(start, 0), extent - size))
    return starts


def tapes(operations: list[ir.Operation]) -> tuple[set, set]:
    """``(tapes, written)``: the values ``operations`` (consecutive ops of one block) hold
    as tensors in memory, and those of them that they write. A tape is the tensor a ``dynamic_slice`` or ``dynamic_update_slice``
    indexes at run time (:func:`constant_starts` are static) when it has more than
    :data:`MAX_DYNAMIC_VECTOR_BYTES` (and is not boolean),
    together with every value it flows to or from through the update, a loop's carried
    values, and an ``if``'s results."""
    parent: dict = {}

    def find(value):
        parent.setdefault(value, value)
        while parent[value] != value:
            parent[value] = parent[parent[value]]
            value = parent[value]
        return value

    def union(*values):
        roots = [find(v) for v in values]
        for root in roots[1:]:
            parent[root] = roots[0]

    seeds, updates = [], []

    def visit(operation):
        operation = operation.operation
        name = operation.name
        if name == "stablehlo.while":
            cond, body = (region.blocks[0] for region in operation.regions)
            returned = list(body.operations)[-1].operands
            for index, initial in enumerate(operation.operands):
                union(initial, cond.arguments[index], body.arguments[index], returned[index], operation.results[index])
        elif name == "stablehlo.if":
            for region in operation.regions:
                returned = list(region.blocks[0].operations)[-1].operands
                for result, value in zip(operation.results, returned):
                    union(result, value)
        elif name in ("stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.gather"):
            source = ir.RankedTensorType(operation.operands[0].type)
            element = str(source.element_type)
            if source.has_static_shape and element in ELEMENT_BYTES and element != "i1" and \
                    int(np.prod(source.shape)) * ELEMENT_BYTES[element] > MAX_DYNAMIC_VECTOR_BYTES and \
                    constant_starts(operation) is None:
                seeds.append(operation.operands[0])
                if name == "stablehlo.dynamic_update_slice":
                    union(operation.operands[0], operation.results[0])
                    updates.append(operation.operands[0])
        return ir.WalkResult.ADVANCE

    for operation in operations:
        operation.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    roots = {find(v) for v in seeds}
    written_roots = {find(v) for v in updates}
    tape_values = {v for v in parent if find(v) in roots} | set(seeds)
    return tape_values, {v for v in tape_values if find(v) in written_roots}


def read_only(operations: list[ir.Operation], outside: list[ir.Value]) -> set:
    """The values of ``outside`` (read by ``operations`` from before them) over
    :data:`MAX_VALUE_BYTES`, and the values of the loops that pass them on unchanged: the
    emitter holds them as tensors in memory, read where they are used, never as vectors."""
    found = set()
    for value in outside:
        try:
            shaped = ir.RankedTensorType(value.type)
        except ValueError:
            continue
        element = str(shaped.element_type)
        if shaped.has_static_shape and element in ELEMENT_BYTES and element != "i1" and \
                int(np.prod(shaped.shape)) * ELEMENT_BYTES[element] > MAX_VALUE_BYTES:
            found.add(value)

    def visit(operation):
        operation = operation.operation
        if operation.name == "stablehlo.while":
            cond, body = (region.blocks[0] for region in operation.regions)
            for index in unchanged(operation):
                if operation.operands[index] in found:
                    found.update((cond.arguments[index], body.arguments[index], operation.results[index]))
        return ir.WalkResult.ADVANCE

    for operation in operations:
        operation.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


def unchanged(loop: ir.Operation) -> set[int]:
    """The positions of the values ``loop``'s body passes through unchanged."""
    body = loop.regions[1].blocks[0]
    returned = list(body.operations)[-1].operands
    return {i for i, argument in enumerate(body.arguments) if returned[i] == argument}


def outside_values(operations: list[ir.Operation]) -> list[ir.Value]:
    """Values defined outside ``operations`` (consecutive ops of one block) that they and
    the ops inside them read, in the order first read."""
    inside: set = set()
    found: list[ir.Value] = []

    def visit(operation):
        operation = operation.operation
        for value in operation.operands:
            if value not in inside and value not in found:
                found.append(value)
        for region in operation.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        inside.update(operation.results)
        return ir.WalkResult.ADVANCE

    for operation in operations:
        operation.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


#: Ops whose result, computed from constants alone, is not recomputed inside the region:
#: regions with their own values (loops, branches), and ops without operands (``iota``,
#: random numbers), which IREE folds into constants that are not one value repeated.
_NOT_RECOMPUTED = ("stablehlo.while", "stablehlo.if", "stablehlo.case", "stablehlo.custom_call",
                   "stablehlo.rng", "stablehlo.rng_bit_generator", "stablehlo.optimization_barrier")


def from_constants(value: ir.Value, memo: dict | None = None) -> bool:
    """Whether ``value`` is computed by StableHLO ops from ``stablehlo.constant``s alone (a
    constant itself included). IREE folds such a value into a constant; one that is a single
    value repeated becomes a ``linalg.fill``, which IREE clones into the dispatch region
    that reads it, where it is the op IREE distributes over workgroups. IREE-3.13-WORKAROUND: every other
    write of the region fails in IREE 3.13 ("'vector.transfer_write' op write affecting
    operations on global resources are restricted to workgroup distributed contexts"), so the
    emitter computes such values inside the region instead of reading them."""
    memo = {} if memo is None else memo
    pending = [value]
    while pending:  # iterative: a chain of constants may be long
        current = pending[-1]
        if current in memo:
            pending.pop()
            continue
        producer = defining_op(current)
        if producer is None or not producer.name.startswith("stablehlo.") or producer.name in _NOT_RECOMPUTED \
                or (producer.name != "stablehlo.constant" and not producer.operands) \
                or (producer.regions and producer.name != "stablehlo.reduce"):
            memo[current] = False
            pending.pop()
            continue
        unknown = [v for v in producer.operands if v not in memo]
        if unknown:
            pending.extend(unknown)
            continue
        memo[current] = all(memo[v] for v in producer.operands)
        pending.pop()
    return memo[value]


def widening_convert(operation: ir.Operation | None) -> bool:
    """Whether ``operation`` is a ``stablehlo.convert`` to a wider element type (f32 to f64,
    i8 to i32, i1 to f32, ...): IREE clones such a conversion (a "dequantization-like"
    ``linalg.generic``) into the dispatch region that reads its result, where it is the op
    IREE distributes over workgroups. IREE-3.13-WORKAROUND: every other write of the region fails in
    IREE 3.13 ("'vector.store' op write affecting operations on global resources are
    restricted to workgroup distributed contexts"), so the emitter converts inside the region
    instead."""
    if operation is None or operation.name != "stablehlo.convert":
        return False
    try:
        source, target = (str(ir.RankedTensorType(v.type).element_type)
                          for v in (operation.operands[0], operation.results[0]))
    except ValueError:  # not ranked tensors: the loop is refused on their kind
        return False
    if source not in ELEMENT_BYTES or target not in ELEMENT_BYTES:
        return False
    bits = {name: (1 if name == "i1" else 8 * size) for name, size in ELEMENT_BYTES.items()}
    return bits[source] < bits[target]
