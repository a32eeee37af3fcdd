"""``s4tf-unroll-host-loops``: a host-stepped ``stablehlo.while`` whose trip count is known
runs several iterations a trip.

IREE runs a ``stablehlo.while`` left outside a dispatch on its host VM: every trip submits
the body's dispatches and waits to read the condition, about 45 us on ``local-task`` (a
64-step loop of ``tanh(h @ w)`` on 32x128 by 128x512 takes 5.0 ms, 2.4 ms at 8 iterations a
trip, JAX's ``fori_loop`` 2.1-3.2 ms). A loop marked with its trip count ``n``
(``s4tf.trip_count``: a ``scan``, a ``fori_loop`` with Python int bounds) runs exactly
``n`` iterations, so its body may be copied ``k`` times, ``k`` the largest divisor of ``n``
up to ``copies`` where it is at least half of that (else ``copies`` where two trips or
more are left, the first ``n mod copies`` iterations copied before the loop, whose
condition then holds every ``k`` iterations until the last trip as before), and the
condition read once every ``k`` iterations:

```mlir
%r:2 = stablehlo.while(%i = %c0, %h = %x) ... cond { %i < 64 } do { %h' = f(%h); return %i + 1, %h' }
    {s4tf.trip_count = 64 : i64}
// becomes
%r:2 = stablehlo.while(%i = %c0, %h = %x) ... cond { %i < 64 } do {
    %h1 = f(%h); %h2 = f(%h1); ... %h8 = f(%h7); return %i + 8, %h8 }  {s4tf.trip_count = 8 : i64}
```

A loop whose body already holds ``c`` copies of the body it was made from (``s4tf.copies``:
reverse mode of a ``scan`` whose tapes IREE would copy every trip) is copied up to
``copies // c`` times, so that iterations a trip are counted once.

A loop of at most ``copies`` iterations (of none, too) becomes its body that many times,
straight-line code: a small ``scan``'s reverse mode has no loop left for IREE 3.13 to fail
at run time (the "indirect buffer reference slot 0" of a one-trip loop).
The copies start from the loop's constant initial carries behind one
``optimization_barrier``, so that IREE finds no constant expressions in them (below).

A loop counting to a bound known only at run time (its condition ``i < n`` or ``i > n``,
or a conjunction of such comparisons, the body adding or subtracting an integer constant
to each carried counter ``i`` and passing ``n`` on, or ``n`` from outside the loop) runs
``copies`` iterations a trip while all of them run (``i + (copies - 1) step < n``, and
that sum does not overflow), then the rest in a copy of the loop as it was, nested in a
host-stepped loop or not (reverse mode's segment replays and recordings of large states
are such loops: with the checkpoint registers of passes/autodiff/region_derivatives.py,
tools/bench/bench_while_grad.py's gradient at 262,144 floats and 1,000 iterations takes
0.47-0.58 s, JAX's 0.69-0.80 s):

```mlir
%r:3 = stablehlo.while(%i = %c0, %h = %x, %m = %n) ... cond { %i < %m } do { ...; return %i + 1, f(%h), %m }
// becomes
%a:3 = stablehlo.while(%i = %c0, %h = %x, %m = %n) ... cond { %i + 7 < %m and %i < %i + 7 } do { 8 copies of f }
%r:3 = stablehlo.while(%i = %a#0, %h = %a#1, %m = %a#2) ... cond { %i < %m } do { f }
```

With ``waiting=false`` (the GPU targets), loops whose bodies wait on the device (an
``optimization_barrier``, a row read or written at a run-time index) are left as they are.

Loops inside a dispatch (``s4tf-loops-to-dispatch``) step on the device and are left alone,
as are loops nested in a host-stepped loop that have a known trip count or wait on the
device (IREE-3.13-WORKAROUND: copies of the 3-step loop in the 40-step one of
``fori_loop`` holding ``fori_loop`` failed at run time, "transient buffer has not been
committed", in reverse mode on 10,000 floats; copies of the backward steps of an RNN's
``while``, reading its tapes, failed to compile, "failed to solve for timepoint
coverage"),
bodies of more than ``max_ops`` ops once copied, and loops holding control flow on
the host (a ``stablehlo.while``, ``if`` or ``case`` outside a dispatch). IREE-3.13-WORKAROUND:
IREE 3.13 fails on copies of such bodies. Copies of a body holding a loop, beside the tape
rows reverse mode writes at indices IREE does not fold, fail its stream partitioning
("circular dependency: input operation uses partition output"; the reduced case is
tests/lit/iree_reproducers/while_copies_tape_rows.mlir): the gradient of a ``fori_loop`` of
3 to 40 steps holding another failed on ``vmvx``, and on ``cpu`` once host-stepped. Four or
more copies of a ``scan`` step holding a ``cond``, in reverse mode, fail with "failed to
solve for timepoint coverage" (tests/lit/iree_reproducers/while_copies_of_an_if.mlir; scans
of 13 to 65 steps on ``vmvx``). Such loops gain little
from copies anyway, each trip of what they hold waiting on the host already (a 24-step loop
holding a 3-step one over 10,000 floats: 0.78 ms a call copied 8 times, 0.71 ms as it is).
IREE-3.13-WORKAROUND: loops holding a dispatch region of several results are left as they
are too: a copy can read one value where the body read two carries (the scan's first step
returned it to both), and IREE 3.13, finding two of the region's results equal, gives one of them another result's
elements (tests/lit/iree_reproducers/dispatch_region_duplicate_results.mlir; `jvp` of `jvp`
through a 7-step `scan` holding a `cond`, as straight-line code: 261.67 for JAX's 265.70).
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.dialects.control_flow import copies_a_trip, iterations_a_trip, mark_trip_count, trip_count
from s4tf.dialects.types import TensorType
from s4tf.passes.ir_walk import collect, defining_op, is_hlo_constant
from s4tf.passes.pass_options import PipelineError
from s4tf.passes.registry import ModulePass, register

WHILE = "stablehlo.while"
#: The ops that step on the host when outside a dispatch.
HOST_CONTROL_FLOW = (WHILE, "stablehlo.if", "stablehlo.case")
DISPATCH_REGION = "flow.dispatch.region"
UPDATE = "stablehlo.dynamic_update_slice"
BARRIER = "stablehlo.optimization_barrier"
#: The counters of loops to a run-time bound (:func:`_counted_at_run_time`).
SIGNED_COUNTERS = ("i8", "i16", "i32", "i64")
#: Row reads and writes, with where their index operands are.
ROW_INDICES = {"stablehlo.dynamic_slice": slice(1, None), UPDATE: slice(2, None), "stablehlo.gather": slice(1, 2),
               "stablehlo.scatter": None}


def in_dispatch_region(operation: ir.Operation) -> bool:
    """Whether ``operation`` is nested in a dispatch region (a loop s4tf's emitter built)."""
    parent = operation.parent
    while parent is not None and parent.name != DISPATCH_REGION:
        parent = parent.parent
    return parent is not None


#: ``max_ops`` on the GPU targets. IREE-3.13-WORKAROUND: at 1,024, ``hessian`` of a
#: ``fori_loop`` writing rows of its carry came back wrong on ``vulkan`` (13.04 read 2.0;
#: ``fori_rows`` of tests/control_flow/test_loop_sweep.py).
GPU_MAX_OPS = 4096


@register
@dataclass(frozen=True)
class UnrollHostLoops(ModulePass):
    name = "s4tf-unroll-host-loops"
    description = ("Copy the body of each host-stepped stablehlo.while with a known trip count, or counting to a "
                   "run-time bound, up to `copies` times")

    #: The most iterations a trip.
    copies: int = 8
    #: The most ops (nested ones counted) a body may have once copied. A body that large
    #: already runs long enough a trip that copies gain nothing, and IREE's compile time grows
    #: with them: the backward loop of reverse mode through a ``scan`` that runs 8 steps a
    #: trip (``_copies`` in passes/autodiff/region_derivatives.py) is about 600 ops, and at
    #: 4,096 its 6 copies (48 steps) doubled the first call of tools/bench/bench_loops_real.py's
    #: language models (10-11 s against 5) for the same step time. The GPU targets take
    #: :data:`GPU_MAX_OPS`.
    max_ops: int = 1024
    #: Whether a loop with few divisors of its trip count runs its first iterations before
    #: it (:func:`_peel`). IREE-3.13-WORKAROUND: off on the GPU targets, where such copies
    #: beside another loop failed to compile ("failed to solve for timepoint coverage": the
    #: gradients of a 40-step ``scan`` and of a ``while`` in one function, on ``vulkan``).
    peel: bool = True
    #: Whether a loop whose body waits for the device (:func:`_waits_for_device`) runs
    #: several iterations a trip. IREE-3.13-WORKAROUND: off on the GPU targets, where each
    #: such wait ends a submission, and 3 to 8 copies of a body waiting three times (a product
    #: behind a barrier, two row indices) gave IREE more than its analysis converges on
    #: ("failed to solve for timepoint coverage": ``jvp`` of ``grad`` through a ``scan`` of
    #: 11 to 26 steps on ``vulkan``); the waits, not the trips, pace such loops there.
    waiting: bool = True

    def __post_init__(self):
        super().__post_init__()
        for option in ("copies", "max_ops"):
            if getattr(self, option) < 1:
                raise PipelineError(f"UnrollHostLoops({option}={getattr(self, option)}): {option} must be at least 1")

    def apply(self, module: ir.Operation) -> None:
        unroll_host_loops(module, self.copies, self.max_ops, self.peel, self.waiting)


def unroll_host_loops(module: ir.Operation, copies: int = 8, max_ops: int = 1024, peel: bool = True,
                      waiting: bool = True) -> None:
    outermost = _outermost_on_host(module, (WHILE,))
    loops = [(loop, False) for loop in outermost] + [(inner, True) for outer in outermost for inner in _nested_on_host(outer)]
    for loop, nested in loops:
        trips = trip_count(loop)
        if _outermost_on_host(loop, HOST_CONTROL_FLOW) or _holds_multi_result_region(loop):
            continue  # IREE 3.13: see above
        most = min(copies // copies_a_trip(loop), max_ops // _body_size(loop))
        if nested and (trips is not None or _waits_for_device(loop)):
            continue  # IREE 3.13: see above
        if trips is None:
            counted = _counted_at_run_time(loop)
            if counted is not None and most > 1 and (waiting or not _waits_for_device(loop)):
                _remainder_after(loop)
                for compare, step in counted:
                    _shift_bound(compare, step, most)
                _unroll(loop, most)
            continue
        k = iterations_a_trip(trips, most, peel)
        if k == trips or trips == 0:  # no trip left to step: the loop becomes straight-line code
            _inline(loop, trips)
            continue
        if not waiting and _waits_for_device(loop):
            continue
        if trips % k:  # few divisors: the first trips % k run before the loop
            _peel(loop, trips % k)
            trips -= trips % k
        if k > 1:
            _unroll(loop, k)
            mark_trip_count(loop, trips // k)


def _counted_at_run_time(loop: ir.Operation) -> list[tuple[ir.Operation, int]] | None:
    """The comparisons of the condition of ``loop`` and their counters' steps where it
    counts to bounds known only at run time: its condition is ``counter < bound`` (``>``),
    or a conjunction of such comparisons (``i < n and j < m``), the body adds a positive
    (negative) integer constant to each counter, a carry, and each bound is a carry the
    body passes on unchanged or a value from outside the loop."""
    condition = loop.regions[0].blocks[0]
    counted = [_counted(loop, value) for value in _conjuncts(list(condition.operations)[-1].operands[0])]
    if None in counted:
        return None
    return [pair for index, pair in enumerate(counted) if all(pair[0] != other for other, _ in counted[:index])]


def _conjuncts(value: ir.Value) -> list[ir.Value]:
    """The operands of the ``stablehlo.and`` tree of booleans ``value`` is (``[value]``
    where it is no such ``and``)."""
    conjunction = defining_op(value)
    if conjunction is None or conjunction.name != "stablehlo.and" or TensorType.from_mlir(value.type).dtype != "i1":
        return [value]
    return [leaf for operand in conjunction.operands for leaf in _conjuncts(operand)]


def _counted(loop: ir.Operation, predicate: ir.Value) -> tuple[ir.Operation, int] | None:
    """The comparison ``predicate`` is and its counter's step, where it compares a counter
    with a bound (:func:`_counted_at_run_time`)."""
    condition, body = (region.blocks[0] for region in loop.regions)
    compare = defining_op(_picked(predicate))
    if compare is None or compare.name != "stablehlo.compare":
        return None
    counter, bound = compare.operands
    if "compare_type" in compare.attributes and "comparison_type SIGNED" not in str(compare.attributes["compare_type"]):
        return None
    if not isinstance(counter, ir.BlockArgument) or counter.owner != condition:
        return None
    if TensorType.from_mlir(counter.type).dtype not in SIGNED_COUNTERS:  # floats and unsigned counters are left
        return None
    yielded = list(list(body.operations)[-1].operands)
    if isinstance(bound, ir.BlockArgument) and bound.owner == condition:
        if yielded[bound.arg_number] != body.arguments[bound.arg_number]:
            return None
    elif not isinstance(bound, ir.BlockArgument) and _inside(bound.owner, loop) and not is_hlo_constant(bound):
        return None
    step = _added_constant(yielded[counter.arg_number], body.arguments[counter.arg_number])
    direction = hlo.direction_of(compare)
    if step is None or not ((direction == "LT" and step > 0) or (direction == "GT" and step < 0)):
        return None
    return compare, step


def _picked(value: ir.Value) -> ir.Value:
    """``value``, or where it is a ``select`` on a comparison of two integer constants, the
    operand that picks: the condition of a counted loop whose step is a tensor (``range(a,
    n, s)`` in a staged function, ``s`` traced) is ``select(s > 0, i < n, i > n)``, and
    ``s`` may fold to a constant."""
    select = defining_op(value)
    if select is None or select.name != "stablehlo.select":
        return value
    predicate = defining_op(select.operands[0])
    if predicate is None or predicate.name != "stablehlo.compare":
        return value
    lhs, rhs = (_constant_int(operand) for operand in predicate.operands)
    if lhs is None or rhs is None:
        return value
    holds = {"EQ": lhs == rhs, "NE": lhs != rhs, "LT": lhs < rhs, "LE": lhs <= rhs, "GT": lhs > rhs, "GE": lhs >= rhs}
    return select.operands[1] if holds[hlo.direction_of(predicate)] else select.operands[2]


def _constant_int(value: ir.Value) -> int | None:
    """The value of an integer ``stablehlo.constant`` of one repeated value, else ``None``."""
    if not is_hlo_constant(value) or TensorType.from_mlir(value.type).dtype not in SIGNED_COUNTERS:
        return None
    attribute = ir.DenseElementsAttr(value.owner.attributes["value"])
    return int(attribute.get_splat_value().value) if attribute.is_splat else None


def _added_constant(result: ir.Value, argument: ir.Value) -> int | None:
    """``c`` where ``result`` is ``argument + c`` (or ``argument - (-c)``), ``c`` an integer
    constant."""
    operation = defining_op(result)
    if operation is None or operation.name not in ("stablehlo.add", "stablehlo.subtract"):
        return None
    operands = list(operation.operands)
    if operation.name == "stablehlo.subtract":
        constant = _constant_int(operands[1]) if operands[0] == argument else None
        return None if constant is None else -constant
    if argument not in operands:
        return None
    return _constant_int(operands[1 - operands.index(argument)])


def _nested_on_host(loop: ir.Operation) -> list[ir.Operation]:
    """The ``stablehlo.while`` ops nested in ``loop`` outside dispatches, at any depth."""
    found = []
    for operation in _outermost_on_host(loop, HOST_CONTROL_FLOW):
        found += ([operation] if operation.name == WHILE else []) + _nested_on_host(operation)
    return found


def _inside(operation: ir.Operation, loop: ir.Operation) -> bool:
    """Whether ``operation`` is nested in ``loop``."""
    parent = operation.operation.parent
    while parent is not None:
        if parent == loop:
            return True
        parent = parent.parent
    return False


def _remainder_after(loop: ir.Operation) -> None:
    """A copy of ``loop`` after it, starting from its results, whose results take the place
    of ``loop``'s: the iterations ``loop`` leaves (below ``k``, once it runs ``k`` a trip)."""
    rest = loop.clone(ip=ir.InsertionPoint.after(loop))
    for index, result in enumerate(loop.results):
        result.replace_all_uses_with(rest.results[index])
        rest.operands[index] = result


def _shift_bound(compare: ir.Operation, step: int, k: int) -> None:
    """A loop's condition ``counter + (k - 1) step < bound`` (``>``) and ``counter <
    counter + (k - 1) step``: a trip of ``k`` iterations starts only where all of them run,
    and never where the shifted counter overflows (the copy after the loop runs those)."""
    counter = compare.operands[0]
    scalar, flag = TensorType.from_mlir(counter.type), TensorType((), "i1")
    with ir.InsertionPoint(compare), compare.location:
        shifted = hlo.value("add", [counter, hlo.scalar((k - 1) * step, scalar.dtype)], scalar)
    compare.operands[0] = shifted
    with ir.InsertionPoint.after(compare), compare.location:
        ahead = hlo.compare(counter, shifted, "LT" if step > 0 else "GT", scalar.dtype, flag)
        both = hlo.value("and", [ahead, compare.result], flag)
    compare.result.replace_all_uses_except(both, both.owner.operation)


def _waits_for_device(loop: ir.Operation) -> bool:
    """Whether ``loop``'s body, outside its dispatches, holds an ``optimization_barrier`` or
    reads rows at run-time indices (IREE reads such an index on the host): ops at which
    IREE waits for the device's work so far."""
    found = _outermost_on_host(loop, (BARRIER, *ROW_INDICES))
    return any(op.name == BARRIER or not all(map(is_hlo_constant, _row_indices(op))) for op in found)


def _row_indices(operation: ir.Operation) -> list[ir.Value]:
    """The index operands of a row read or write (:data:`ROW_INDICES`)."""
    operands = list(operation.operands)
    if operation.name == "stablehlo.scatter":  # inputs, indices, updates
        return [operands[len(operands) // 2]]
    return operands[ROW_INDICES[operation.name]]


def _holds_multi_result_region(loop: ir.Operation) -> bool:
    return any(len(region.results) > 1 for region in collect(loop, lambda op: op.name == DISPATCH_REGION))


def _body_size(loop: ir.Operation) -> int:
    """The ops in ``loop``'s body, nested ones included."""
    return sum(1 + len(collect(op.operation)) for op in loop.regions[1].blocks[0].operations)


def _outermost_on_host(root: ir.Operation, names: tuple[str, ...]) -> list[ir.Operation]:
    """The ops named in ``names`` nested in ``root`` (not ``root`` itself) outside dispatches,
    and outside one another."""
    found = []

    def visit(operation):
        operation = operation.operation
        if operation.name in names and operation != root:
            found.append(operation)
            return ir.WalkResult.SKIP
        if operation.name == DISPATCH_REGION:
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    root.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


def _inline(loop: ir.Operation, trips: int) -> None:
    """Replace ``loop`` by ``trips`` copies of its body before it (:func:`_straight_line`)."""
    values, copies = _straight_line(loop, trips)
    for result, value in zip(loop.results, values):
        result.replace_all_uses_with(value)
    loop.erase()
    _unshare_updates(copies)


def _peel(loop: ir.Operation, count: int) -> None:
    """Run ``loop``'s first ``count`` iterations before it (:func:`_straight_line`), the loop
    starting from their results. Its condition, tested every ``k`` iterations from there,
    holds until the last trip as before. A 128-step ``scan`` (127 steps in its loop, a
    prime) runs 8 a trip after 7 before the loop instead of one a trip."""
    values, copies = _straight_line(loop, count)
    for index, value in enumerate(values):
        loop.operands[index] = value
    _unshare_updates(copies)


def _straight_line(loop: ir.Operation, count: int) -> tuple[list[ir.Value], list[ir.Operation]]:
    """``count`` copies of ``loop``'s body before it, starting from its initial carries with
    the constants among them made opaque (:func:`_opaque_starts`): the carries after them,
    and the copied ops, whose row updates the caller makes safe from IREE 3.13's in-place
    writes and merged fills (:func:`_unshare_updates`) once the carries are used."""
    body = loop.regions[1].blocks[0]
    operations = [op.operation for op in body.operations]
    current, copies = _opaque_starts(loop), []
    for _ in range(count):
        current = _copy(operations[:-1], operations[-1].operands, dict(zip(body.arguments, current)), loop, copies)
    return current, copies


def _opaque_starts(loop: ir.Operation) -> list[ir.Value]:
    """``loop``'s initial carries, the constants among them from behind one
    ``optimization_barrier``, so that nothing the copies compute from them is a constant
    expression to IREE. IREE-3.13-WORKAROUND: straight-line copies of a body starting from
    constants (the counter, a zero accumulator, the tangents of constants) compute many
    values from constants alone; IREE 3.13 hoists such constant expressions into globals
    and, beside its fusion of producers with several uses, got a module of them wrong
    (tests/lit/iree_reproducers/fuse_multi_use_wrong_result.mlir): ``jvp`` of ``jvp`` of a
    6-step ``fori_loop`` of ``acc + prod(tanh(x[i:i+3])) * cos(acc)`` gave 1.97835 for
    JAX's 1.97489. (One barrier: a barrier for each constant failed to compile there,
    "'linalg.generic' op expected type of bb argument ... to match".)"""
    starts = list(loop.operands)
    constants = [i for i, start in enumerate(starts) if is_hlo_constant(start)]
    if constants:
        with ir.InsertionPoint(loop), loop.location:
            barrier = hlo.op("optimization_barrier", [starts[i] for i in constants],
                             [TensorType.from_mlir(starts[i].type) for i in constants])
        for i, opaque in zip(constants, barrier.results):
            starts[i] = opaque
    return starts


def _unshare_updates(operations) -> None:
    """IREE-3.13-WORKAROUND: two bugs of IREE 3.13 in row updates
    (``stablehlo.dynamic_update_slice``) meet copies that are straight-line code, where
    the loop's counter becomes constants:

    - IREE writes an update into its tensor's buffer even where another op reads that
      tensor, or where the tensor is a constant behind an ``optimization_barrier`` (its buffer
      then the constant's, which other ops read too;
      tests/lit/iree_reproducers/update_of_a_barrier_constant.mlir). Inside the loop the tensor
      was a block argument, which IREE copies every trip. Such updates write into a copy
      (:func:`s4tf.dialects.hlo.unshared`). Found: the transpose of ``stack.at[i].set(h)``
      cleared rows of a constant the forward pass read (``value_and_grad`` with ``has_aux``
      of a 4-step ``fori_loop`` setting two rows a step, beside an update: 0 for the value).
    - IREE turns updates whose rows fold to constants into fills, and merges fills of
      adjacent rows in descending order with a wrong range
      (tests/lit/iree_reproducers/descending_splat_updates_fail.mlir). Reverse mode clears a
      stack's rows last first: the gradient of a 7-step ``scan`` with pytree ``xs``, with
      ``has_aux``, beside an update, was 6.1 off in its last element. Each row updated comes
      from behind an ``optimization_barrier`` (a fill no more; rows are small)."""
    for operation in operations:
        updates = collect(operation, lambda op: op.name == UPDATE) + ([operation] if operation.name == UPDATE else [])
        for update in updates:
            target, row = update.operands[0], update.operands[1]
            with ir.InsertionPoint(update), update.location:
                if not isinstance(row.owner, ir.Block) and row.owner.name != BARRIER:
                    update.operands[1] = hlo.barrier(row)
                if isinstance(target.owner, ir.Block) or (len(list(target.uses)) < 2 and target.owner.name != BARRIER):
                    continue
                update.operands[0] = hlo.unshared(target, TensorType.from_mlir(target.type))


def _copy(operations, yielded, mapping: dict, before: ir.Operation, copies: list | None = None) -> list:
    """Clone ``operations`` before ``before`` with operands renamed by ``mapping`` (grown
    by the clones' results), adding the clones to ``copies``; the values ``yielded`` stands
    for in the copy."""
    for operation in operations:
        copy = operation.clone(ip=ir.InsertionPoint(before))
        _remap(copy, mapping)
        mapping.update(zip(operation.results, copy.results))
        if copies is not None:
            copies.append(copy)
    return [mapping.get(value, value) for value in yielded]


def _unroll(loop: ir.Operation, k: int) -> None:
    """Copy the body of ``loop`` ``k - 1`` more times before its ``stablehlo.return``, each
    copy reading the last one's results."""
    body = loop.regions[1].blocks[0]
    operations = [op.operation for op in body.operations]
    terminator, original = operations[-1], operations[:-1]
    yielded = list(terminator.operands)
    current = yielded
    for _ in range(k - 1):
        current = _copy(original, yielded, dict(zip(body.arguments, current)), terminator)
    for index, value in enumerate(current):
        terminator.operands[index] = value


def _remap(copy: ir.Operation, mapping: dict) -> None:
    """Operands of ``copy`` and the ops nested in it that are keys of ``mapping`` become
    their values (a clone still reads the original's operands)."""

    def visit(operation):
        operation = operation.operation
        for index, operand in enumerate(operation.operands):
            if operand in mapping:
                operation.operands[index] = mapping[operand]
        return ir.WalkResult.ADVANCE

    copy.walk(visit)
