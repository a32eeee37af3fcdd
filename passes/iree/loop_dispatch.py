"""``s4tf-loops-to-dispatch{target=cpu}``: run small elementwise loops (and branches) inside one dispatch.

A ``stablehlo.while`` (what ``s4tf.while``/``s4tf.fori_loop`` lower to) runs on IREE's
host VM: one dispatch and one read of the condition per iteration. This pass rewrites a
loop that qualifies into ONE ``flow.dispatch.region`` holding an ``scf.while`` whose
carried values are ``vector``s (tensors of rank 0 become scalars; a vector of more than
16 elements has a power of two of lanes: :func:`~s4tf.passes.iree.loop_dispatch_criterion.lanes`),
read with ``vector.transfer_read``/``tensor.extract`` before the loop and written with
``vector.transfer_write``/``tensor.from_elements`` after it. ``stablehlo.if`` and
``stablehlo.while`` nested in the loop become ``scf.if``/``scf.while``. (Carrying tensors
that ops compute as a whole through the ``scf.while`` fails IREE's bufferization:
``/work/shared/probes``.) A *tape*, a tensor larger than :data:`MAX_DYNAMIC_VECTOR_BYTES`
that the loop only indexes with ``dynamic_slice``/``dynamic_update_slice`` (reverse mode's
checkpoints), is the exception: it stays a tensor in memory, read with
``vector.transfer_read`` and updated in place with ``vector.transfer_write``, which IREE
bufferizes in place into the dispatch's output buffer.

```mlir
%r:2 = stablehlo.while(%i = %c0, %x = %x0) : tensor<i32>, tensor<2xf32> cond {...} do {...}
// becomes
%r:2 = flow.dispatch.region -> (tensor<i32>, tensor<2xf32>) {
  %i0 = arith.constant 0 : i32
  %x1 = vector.transfer_read %x0[%c0_0], %pad : tensor<2xf32>, vector<2xf32>
  %w:2 = scf.while (%a = %i0, %b = %x1) : (i32, vector<2xf32>) -> (i32, vector<2xf32>) {...} do {...}
  ...
  flow.return %ri, %rx : tensor<i32>, tensor<2xf32>
}
```

**Criterion.** A loop qualifies when (1) the target compiles such dispatches: the
``llvm-cpu`` targets (``cpu``, ``android-arm64``, ``linux-arm64``); IREE-3.13-WORKAROUND: VMVX and
Vulkan reject vectors read from tensors inside a dispatch in IREE 3.13, CUDA was not tried; (2) every
carried value, every value the loop reads from outside and every value computed in it is a
statically shaped tensor of f16/f32/f64 or i1/i8/i16/i32/i64 of at most
:data:`MAX_VALUE_BYTES` bytes, the carried ones together at most :data:`MAX_CARRIED_BYTES`,
except a larger value read from outside and not written, which stays a tensor in memory
that only matrix products read, a tile at a time;
(3) every op in it is elementwise arithmetic, math, comparison, select or conversion, a
constant, a broadcast or reshape, a reduction with one of add/mul/max/min/and/or/xor, a
``dynamic_slice``/``dynamic_update_slice`` of at most :data:`MAX_SLICE` elements of a
vector of at most :data:`MAX_DYNAMIC_VECTOR_BYTES`, or of any row of a tape (a tape is used
by nothing else; one the loop writes starts from a splat constant, so its buffer is made
inside the dispatch), a ``gather`` of one slice at one start index vector (``xs[i]``, taken
as the ``dynamic_slice`` it equals), a ``clamp``, a float ``dot_general`` of at most
:data:`MAX_DOT_PRODUCTS` multiply-adds (:data:`MAX_MEMORY_PRODUCTS` reading a tensor in memory,
in tiles of :data:`MAX_TILE_BYTES`: :meth:`~s4tf.passes.iree.loop_dispatch_ops.OpRules.tiled_product`) (shuffles and multiply-adds, :meth:`~s4tf.passes.iree.loop_dispatch_ops.OpRules.op_dot_general`:
matrix-vector products, reverse mode's outer products and transposed products), or a
nested ``if``/``while`` of such ops (the tables ``FLOAT_OPS``, ``INTEGER_OPS`` and the ``op_*`` methods of ``OpRules`` in :mod:`s4tf.passes.iree.loop_dispatch_ops`);
(4) a value it reads that is computed outside it from constants alone, or by a widening
``convert``, is one the region can compute itself (IREE would clone its producer into the
dispatch, distribute that, and refuse the region's own writes:
:func:`~s4tf.passes.iree.loop_dispatch_criterion.from_constants`,
:func:`~s4tf.passes.iree.loop_dispatch_criterion.widening_convert`), and no tape is such a value;
(5) all its vector values together take at most :data:`MAX_STACK_BYTES` for the target
(LLVM keeps large vectors on a worker thread's stack), and the tapes it writes that nobody
reads after it, with the stack buffers of the tapes it makes
(:attr:`~s4tf.passes.iree.loop_dispatch_emitter.Emitter.made_stack_bytes`), at most
:data:`MAX_SCRATCH_TAPE_BYTES`. Other loops stay host-stepped;
with ``remarks=true`` the pass says at each such loop why (a warning at its location).

**Branches.** A ``stablehlo.if`` outside any loop that qualifies as a loop's body would
becomes one region holding an ``scf.if`` the same way: its predicate is read inside the
dispatch, where IREE would otherwise wait on the host for the device to read it. One that
does not qualify stays, without a remark.

**Runs.** Loops and branches one after the other in a block, with small ops between them
(no regions, no constants, results within :data:`MAX_VALUE_BYTES`), are tried as one
region first (the longest run, then shorter ones): a value one of them hands the next stays
inside, and only values used after the run are written out. The tapes handed on inside
and made inside may then take :data:`MAX_REGION_TAPE_BYTES` together.

**Modules.** The limits, :class:`Kind` and the analyses of a loop:
:mod:`s4tf.passes.iree.loop_dispatch_criterion`; the builder of the region:
:mod:`s4tf.passes.iree.loop_dispatch_emitter`; the op-by-op rules:
:mod:`s4tf.passes.iree.loop_dispatch_ops`. This module walks the loops and decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from s4tf.core.mlir import ir
from s4tf.passes.iree.availability import TARGET_NAMES
from s4tf.passes.iree.loop_dispatch_criterion import (  # noqa: F401  (the pass's public names)
    DISPATCH_TARGETS, MAX_CARRIED_BYTES, MAX_DOT_PRODUCTS, MAX_DYNAMIC_VECTOR_BYTES, MAX_MEMORY_PRODUCTS,
    MAX_REGION_TAPE_BYTES, MAX_SCRATCH_TAPE_BYTES, MAX_SHUFFLE, MAX_SLICE, MAX_STACK_BYTES, MAX_TAPE_BYTES,
    MAX_TILE_BYTES, MAX_VALUE_BYTES, Kind, Unsupported,
)
from s4tf.passes.registry import ModulePass, emit_warning, register

if TYPE_CHECKING:
    from s4tf.passes.iree.loop_dispatch_emitter import Emitter


def dispatch_problem(emitter: Emitter, target: str) -> str | None:
    """Why ``emitter``'s loop cannot run inside one dispatch on ``target`` (``None``: it can,
    and ``emitter`` has built its region: :meth:`Emitter.replace` puts it in place)."""
    if target not in DISPATCH_TARGETS:
        return f"target '{target}' does not compile loops inside a dispatch (IREE's llvm-cpu targets do)"
    try:
        for loop in (op for op in emitter.operations if op.name == "stablehlo.while"):
            carried = sum(kind.bytes for kind in map(emitter.kind, loop.operands) if not kind.memory)
            if carried > MAX_CARRIED_BYTES:
                return f"the loop carries {carried} bytes (at most {MAX_CARRIED_BYTES} run inside one dispatch)"
        emitter.dispatch()
        limit = MAX_STACK_BYTES.get(target, MAX_STACK_BYTES[None])
        if emitter.vector_bytes > limit:
            return (f"the loop's vectors take {emitter.vector_bytes} bytes (at most {limit} on target '{target}', "
                    "whose dispatches keep them on the stack of a worker thread)")
        scratch = MAX_SCRATCH_TAPE_BYTES.get(target, MAX_SCRATCH_TAPE_BYTES[None])
        if len(emitter.operations) > 1 and emitter.scratch_bytes + emitter.made_bytes > MAX_REGION_TAPE_BYTES:
            return (f"the loops' tapes take {emitter.scratch_bytes + emitter.made_bytes} bytes together (at most "
                    f"{MAX_REGION_TAPE_BYTES} in one region of several loops on target '{target}')")
        if emitter.scratch_bytes + emitter.made_stack_bytes > scratch:
            return (f"the tapes it makes take {emitter.made_bytes} bytes, {emitter.made_stack_bytes} in stack buffers (one "
                    f"for each and one for each loop starting from it), and the tapes nobody reads after it "
                    f"{emitter.scratch_bytes} more (at most {scratch} of stack on target '{target}')")
        if emitter.scratch_bytes > scratch:
            return (f"the tapes it writes and nobody reads after it take {emitter.scratch_bytes} bytes (at most "
                    f"{scratch} on target '{target}', whose dispatches keep them on the stack of a worker thread)")
    except Unsupported as problem:
        return f"the loop reads {problem.reason}" if problem.operation is None else f"the loop has {problem.reason}"
    return None


def _loops(root: ir.Operation) -> list[ir.Operation]:
    """The outermost ``stablehlo.while`` and ``stablehlo.if`` ops in ``root``."""
    found = []

    def visit(operation):
        operation = operation.operation
        if operation.name in ("stablehlo.while", "stablehlo.if"):
            found.append(operation)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    root.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


@register
@dataclass(frozen=True)
class LoopsToDispatch(ModulePass):
    name = "s4tf-loops-to-dispatch"
    description = "Run each stablehlo.while with small elementwise carried state, and each such stablehlo.if, inside one dispatch"

    target: Literal[TARGET_NAMES] = "cpu"
    #: Say why a loop stays host-stepped (a warning at the loop).
    remarks: bool = False

    def apply(self, module: ir.Operation) -> None:
        loops_to_dispatch(module, self.target, self.remarks)


def loops_to_dispatch(module: ir.Operation, target: str = "cpu", remarks: bool = False) -> None:
    pending = _loops(module)
    if pending:  # the emitter's op builders are imported only for a module with a loop
        from s4tf.passes.iree.loop_dispatch_emitter import Emitter
    while pending:
        loop = pending.pop(0)
        for operations in _runs(loop, pending):
            emitter = Emitter(operations)
            problem = dispatch_problem(emitter, target)
            if problem is None:
                pending = [other for other in pending if not any(other == op for op in operations)]
                emitter.replace()
                break
            emitter.discard()
        else:
            if remarks and loop.name == "stablehlo.while":  # a branch on the host is the common case: no remark
                emit_warning(loop.location, f"loop stays host-stepped: {problem}")
            pending[:0] = [inner for region in loop.regions for block in region.blocks
                           for op in block.operations for inner in _loops(op.operation)]


def _runs(loop: ir.Operation, pending: list[ir.Operation]) -> list[list[ir.Operation]]:
    """The op lists to try in one region, longest first: ``loop`` and the ops after it in its
    block up to each later loop or branch of ``pending`` reached through small ops (results
    of at most :data:`MAX_VALUE_BYTES`, no regions), and ``loop`` alone. One region for
    several saves a dispatch each, and the host's reads between them."""
    ops = list(loop.block.operations)
    start = next(i for i, op in enumerate(ops) if op.operation == loop)
    ends = [start]
    for index in range(start + 1, len(ops)):
        op = ops[index].operation
        if any(op == other for other in pending):
            ends.append(index)
        elif not _between(op):
            break
    return [[op.operation for op in ops[start:end + 1]] for end in reversed(ends)]


#: Ops that end a run: the block's end, and constants (a constant the region wrote out
#: would no longer fold into the ops after it).
_NOT_BETWEEN = ("stablehlo.return", "stablehlo.constant", "stablehlo.custom_call")


def _between(operation: ir.Operation) -> bool:
    """Whether ``operation`` may join a region between two loops or branches: a StableHLO op
    without regions whose results are small enough to hold in the region."""
    if operation.regions or not operation.name.startswith("stablehlo.") or operation.name in _NOT_BETWEEN:
        return False
    try:
        for result in operation.results:
            Kind(result.type)
    except Unsupported:
        return False
    return True
