"""Derivatives of ``s4tf.if`` and ``s4tf.while``.

Each region is outlined into a function (``outline.py``) and differentiated as one, so
ops, calls, custom rules and region ops nested inside regions need nothing more. The
derivative code is built with ``s4tf.if``/``s4tf.while`` (``IRBuilder.cond``/``while_loop``),
whose regions call the outlined functions' derivatives.

Forward mode (``@f_jvp``):

```mlir
"s4tf.if"(%p, %x, %dx)   ({ call @f_r0_then_jvp(%x, %dx) }, { call @f_r0_else_jvp(%x, %dx) })
"s4tf.while"(%x, %dx)    ({ call @f_r0_cond(%x) }, { call @f_r0_body_jvp(%x, %dx) })
```

A loop carries the tangents of the carried values that depend on a differentiated one
(found by iterating activity analysis of the body to a fixed point); the condition sees
primals only.

Reverse mode (``@f_linearize``, split into ``@f_vjp_fwd`` and ``@f_lin``) emits the
primal op, then a call of a linear map known only by its transpose:

- ``if``: the linear map takes the predicate and the branch inputs as residuals. Its
  transpose is an ``s4tf.if`` on the same predicate whose branches call
  ``@f_r0_then_vjp``/``@f_r0_else_vjp``: the branch taken is recomputed in the backward
  pass. Keeping branch residuals instead would need one residual type list for both
  branches (zeros for the other branch's); recomputation keeps only the inputs.
- ``while``: the forward pass runs the loop once, counting its iterations ``n`` and
  writing the carried values before every ``stride``-th iteration into a tape of ``K``
  checkpoints (``dialects/tape.py``; ``K`` at most ``CHECKPOINTS`` and within
  ``TAPE_BYTES``): ``stride`` starts at 1 and doubles whenever the tape is full, every
  second checkpoint dropped (``_thinned_recording``), so it ends the least power of two
  with ``n <= K * stride``. Where ``MIN_CHECKPOINTS`` rows take more than ``TAPE_BYTES``
  the checkpoints are shift registers instead, loop-carried values stacked into the tape
  once the loops are done (``_nested``, ``_thinned_registers``). A loop marked with its ``TRIP_COUNT``, a
  ``fori_loop`` or ``scan`` of static length, keeps every state (up to
  ``STATIC_TAPE_BYTES``), counts with a loop of the counter alone, and may run several
  iterations a trip (``_copies``) unless its body holds control flow.
  Values the body passes through unchanged (a
  bound, a captured tensor) are kept once. While ``stride`` is 1 (``n <= K``) the tape
  holds every iteration's state, and the transpose is one ``s4tf.while``, last iteration
  first, feeding each state and the cotangents to the body's VJP ``@f_r0_body_vjp``
  (which recomputes that iteration's linearization); an ``s4tf.if`` on ``stride == 1``
  chooses it, marked ``SHORTCUT`` so that ``vmap`` runs the general branch alone.
  Otherwise the transpose is an ``s4tf.while`` over the segments between
  checkpoints, last first: it re-records the segment's states from its
  checkpoint into a second tape (every ``ceil(stride / K)``-th of them: all while
  ``stride <= K``), then runs the segment's iterations backwards, each state read from that
  tape (or recomputed from the nearest one) and fed with the cotangents to the body's VJP;
  an ``s4tf.if`` on "every state on the tape" (also ``SHORTCUT``) takes a loop without the
  recomputation, whose loop-carried state cost copies of the state at every iteration
  even where it ran no iteration (a loop inside one dispatch: 30 % of the backward pass).
  Memory: ``2 (K + 1)`` rows of the changing carried values, whatever ``n``; time: one
  forward run of the body per iteration and one body VJP up to ``K`` iterations, two and
  one while ``stride <= K``, more beyond.
  IREE-3.13-WORKAROUND: tapes are static because IREE 3.13 got loop-carried ``tensor<?x...>`` tapes wrong.
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import composition
from s4tf.dialects.control_flow import iterations_a_trip, mark_shortcut, trip_count
from s4tf.dialects.ir_builder import IRBuilder
from s4tf.dialects.types import TensorType, is_float, to_numpy_dtype
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.activity import analyze
from s4tf.passes.autodiff.custom import declare_linear_map
from s4tf.passes.autodiff.functions import FunctionBuilder, body_operations, entry_block, find_function, holds_any, return_values
from s4tf.passes.autodiff.outline import outlined

#: The type of a loop's iteration counter.
COUNT = TensorType((), "i32")
#: Checkpoints of a loop's state: as many as fit in ``TAPE_BYTES``, within these bounds.
#: Small tapes are faster: IREE copies the tapes the backward loops carry (1,000 steps of
#: 1,000 floats: 4 MiB tapes made the gradient 72 forward passes, 256 KiB ones 11).
MIN_CHECKPOINTS, CHECKPOINTS = 16, 1024
TAPE_BYTES = 256 * 2**10
#: A counted loop with a trip count known when compiling (``scan``, ``fori_loop`` with Python
#: bounds) keeps every iteration's state when they take at most this many bytes: no segment
#: replays, a count by the counter alone (what JAX's ``scan`` keeps is more: every residual
#: of the body).
STATIC_TAPE_BYTES = 64 * 2**20
#: Such a loop whose tapes and carried values take more than ``UNROLL_BYTES`` runs up to
#: ``MAX_COPIES`` iterations a trip in reverse mode (recording and backward loops): IREE
#: 3.13 copies every buffer a host-stepped loop updates once a trip (the LSTM language
#: model of tools/bench/bench_loops_real.py: 3 MiB a step), so k iterations a trip copy
#: k times less; its compile time grows with k.
UNROLL_BYTES, MAX_COPIES = 256 * 2**10, 8
PREDICATE = TensorType((), "i1")


def region_jvp(module, builder, operation, prefixes, tangents, primal_map, tangent_map, linearizing) -> None:
    """Stage the JVP of region op ``operation`` into ``builder``; ``prefixes``: the names
    of its outlined regions and of its linear map (unique per op and derivative)."""
    outline_prefix, lin_prefix = prefixes
    names = outlined(module, operation, outline_prefix)
    rule = _if_jvp if operation.name == "s4tf.if" else _while_jvp
    primals, result_tangents = rule(module, builder, operation, names, lin_prefix, tangents, primal_map, linearizing)
    primal_map.update(zip(operation.results, primals))
    tangent_map.update(result_tangents)


def _types(values) -> list[TensorType]:
    return [TensorType.from_mlir(v.type) for v in values]


def _floats(types) -> list[int]:
    return [i for i, t in enumerate(types) if is_float(t.dtype)]


def _caller(callee: str, result_types, location, first: int = 0):
    """A function that builds ``call @callee(values...)`` and returns results ``first...``."""

    def call(*values):
        return IRBuilder.current().call(callee, list(values), result_types, location)[first:]

    return call


def _cond(predicate, true_fn, false_fn, operands):
    """``s4tf.if`` at the current builder (:meth:`IRBuilder.cond`)."""
    return IRBuilder.current().cond(predicate, true_fn, false_fn, list(operands))


def _while(cond_fn, body_fn, init, trips: int | None = None, copies: int = 1):
    """``s4tf.while`` at the current builder (:meth:`IRBuilder.while_loop`), marked with its
    ``trips`` (:data:`TRIP_COUNT`) where they are known and the ``copies`` of the differentiated
    loop's body its body holds (:data:`~s4tf.dialects.control_flow.COPIES`)."""
    return IRBuilder.current().while_loop(cond_fn, body_fn, init, trips, copies)


# -- if --------------------------------------------------------------------------------


def _if_jvp(module, builder, operation, names, lin_prefix, tangents, primal_map, linearizing):
    from s4tf.passes.autodiff.jvp import jvp_function  # jvp dispatches region ops here

    location = operation.location
    pred, *args = [primal_map[v] for v in operation.operands]
    wrt = [i for i, t in enumerate(tangents[1:]) if t is not None]
    arg_tangents = [tangents[1 + i] for i in wrt]
    types = _types(operation.results)
    floats = _floats(types)
    float_types = [types[i] for i in floats]
    # a shortcut stays one (derivatives of branches computing the same values compute the same
    # values), so a later vmap runs the general branch alone: jacfwd of grad through a while
    with builder.building(location):
        if linearizing:
            primals = mark_shortcut(_cond(pred, *(_caller(n, types, location) for n in names), tuple(args)), like=operation)
            lin = _if_linear_map(module, lin_prefix, names, operation, wrt)
            result_tangents = builder.call(lin, [pred, *args, *arg_tangents], float_types, location)
        else:
            jvps = [jvp_function(module, n, wrt) for n in names]
            outputs = _cond(pred, *(_caller(j, types + float_types, location) for j in jvps), tuple(args + arg_tangents))
            primals, result_tangents = mark_shortcut(outputs, like=operation)[: len(types)], outputs[len(types):]
    return primals, {operation.results[i]: t for i, t in zip(floats, result_tangents)}


def _if_linear_map(module, prefix: str, names, operation, wrt) -> str:
    """``@<prefix>_lin(p, x..., dx[wrt]...) -> dy...`` and its transpose
    ``(p, x..., ct...) -> ct_x[wrt]...``: ``s4tf.if`` on ``p`` of the branches' VJPs."""
    from s4tf.passes.autodiff.derivatives import vjp_functions  # derivatives -> jvp -> this module

    name, transpose = f"{prefix}_lin", f"{prefix}_lin_transpose"
    if find_function(module, name) is not None:
        return name
    location = operation.location
    arg_types = _types(operation.operands)[1:]
    types = _types(operation.results)
    float_types = [types[i] for i in _floats(types)]
    inputs = [PREDICATE, *arg_types, *(arg_types[i] for i in wrt)]
    declare_linear_map(module, name, inputs, float_types, range(1 + len(arg_types), len(inputs)), transpose, location)

    backward = FunctionBuilder(module, transpose, [PREDICATE, *arg_types, *float_types], location)
    vjps = [vjp_functions(module, n, wrt)[0] for n in names]
    vjp_types = types + [arg_types[i] for i in wrt]
    with backward.building(location):
        cotangents = mark_shortcut(_cond(
            backward.arguments[0], *(_caller(v, vjp_types, location, first=len(types)) for v in vjps),
            tuple(backward.arguments[1:]),
        ), like=operation)
    with location.context:
        backward.finish(list(cotangents))
    return name


# -- while -----------------------------------------------------------------------------


def _while_jvp(module, builder, operation, names, lin_prefix, tangents, primal_map, linearizing):
    from s4tf.passes.autodiff.jvp import jvp_function  # jvp dispatches region ops here

    location = operation.location
    cond_name, body_name = names
    init = [primal_map[v] for v in operation.operands]
    types = _types(operation.operands)
    floats = _floats(types)
    given = [i for i, t in enumerate(tangents) if t is not None]
    active = _carried_tangents(find_function(module, body_name), floats, given)
    condition = _caller(cond_name, [PREDICATE], location)

    with builder.building(location):
        if linearizing:
            recorded = _recorded(find_function(module, body_name))
            row_types = [types[i] for i in recorded]
            trips = trip_count(operation)
            row_bytes = _row_bytes(row_types)
            every = trips is not None and (trips + 1) * row_bytes <= STATIC_TAPE_BYTES
            if every:  # k bodies a trip (one function, differentiated as one): IREE copies carried buffers every trip
                copies = 1 if _holds_control_flow(module, body_name) else _copies(trips, (trips + 1) * row_bytes + _row_bytes(types))
                if trips % copies:  # the first trips % copies iterations run before the loop, as one call
                    init, tangents = _peeled(module, builder, body_name, types, trips % copies, init, tangents, active, location)
                    given = [i for i, t in enumerate(tangents) if t is not None]
                body_name, trips = _unrolled(module, body_name, types, copies, location), trips // copies
            rows = max(trips, 1) if every else _checkpoint_rows(row_types, trips)
            body = _caller(body_name, types, location)
            keep_going = lambda carry: condition(*carry[0])[0]  # noqa: E731
            if every:  # every state fits on the tape: stride 1, and the count known
                count, stride = composition.asarray(np.int32(trips)), composition.asarray(np.int32(1))
                marked = trips  # s4tf-unroll-host-loops may copy its body up to 8 // copies times
                primals, tapes, _ = _recording_loop(keep_going, body, init, _empty_tapes(row_types, rows), recorded, stride, rows,
                                                    marked, copies=copies)
            else:
                marked, copies = None, 1
                primals, tapes, count, stride = _thinned_recording(keep_going, body, init, row_types, recorded, rows)
            kept = [primals[i] for i in range(len(types)) if i not in recorded]
            lin = _while_linear_map(module, lin_prefix, body_name, types, recorded, rows, active, given, location, every, marked,
                                    copies)
            residuals = [*tapes, *kept, count, stride]
            result_tangents = builder.call(lin, residuals + [tangents[i] for i in given], [types[i] for i in active], location)
        else:
            body_jvp = _caller(jvp_function(module, body_name, active), types + [types[i] for i in floats], location)
            tangent_init = [tangents[i] if tangents[i] is not None else composition.zeros_like(init[i]) for i in active]

            def body(carry):
                outputs = body_jvp(*carry[0], *carry[1])
                by_index = dict(zip(floats, outputs[len(types):]))
                return outputs[: len(types)], [by_index[i] for i in active]

            primals, result_tangents = _while(lambda carry: condition(*carry[0])[0], body, (init, tangent_init),
                                              trip_count(operation))
    return primals, {operation.results[i]: t for i, t in zip(active, result_tangents)}


def _carried_tangents(body: ir.Operation, floats: list[int], given: list[int]) -> list[int]:
    """The carried values that need tangents: those given one, and every float whose next
    value depends on one that has a tangent (to a fixed point)."""
    outputs = return_values(body)
    active = sorted(set(given) & set(floats))
    while True:
        varied = analyze(body, active, floats).varied
        grown = sorted(set(active) | {i for i in floats if outputs[i] in varied})
        if grown == active:
            return active
        active = grown


def _recorded(body: ir.Operation) -> list[int]:
    """The carried values that change from one iteration to the next (the body does not
    yield its argument unchanged) and that the body reads: only they are recorded; the
    others are kept once (:func:`_written_only`)."""
    arguments = list(entry_block(body).arguments)
    written = _written_only(body)
    return [i for i, value in enumerate(return_values(body)) if value != arguments[i] and i not in written]


def _written_only(body: ir.Operation) -> set[int]:
    """The carried values the body only writes rows of (``scan``'s stacked outputs: the
    argument's one use sets rows, ``stack.at[i].set(y)``, whose result is yielded in its
    place). The body's derivatives never read them, so reverse mode records none of their
    states (a stack of ``T`` rows would take ``T`` rows in every checkpoint)."""
    returned = return_values(body)
    written = set()
    for i, argument in enumerate(entry_block(body).arguments):
        uses = list(argument.uses)
        if len(uses) != 1 or uses[0].operand_number != 0:
            continue
        update = uses[0].owner.operation if hasattr(uses[0].owner, "operation") else uses[0].owner
        if update.name != "s4tf.scatter" or ir.StringAttr(update.attributes["kind"]).value != "set":
            continue
        result_uses = list(update.results[0].uses)
        if len(result_uses) == 1 and returned[i] == update.results[0] and result_uses[0].owner == list(entry_block(body).operations)[-1]:
            written.add(i)
    return written


def _copies(trips: int, carried_bytes: int) -> int:
    """How many iterations one trip of a loop's reverse mode runs when the loop and its tapes
    carry more than :data:`UNROLL_BYTES` (IREE copies every carried buffer it updates once
    a trip of a host-stepped loop), else 1: up to :data:`MAX_COPIES`
    (:func:`~s4tf.dialects.control_flow.iterations_a_trip`; the ``trips % copies``
    iterations left run before the loop: :func:`_peeled`). A ``scan`` of 200 steps of an
    LSTM (hidden 256, batch 64): one a trip, its gradient took 2.5x JAX's; 8 a trip,
    1.1-1.25x (tools/bench/bench_loops_real.py)."""
    return 1 if carried_bytes <= UNROLL_BYTES else iterations_a_trip(trips, MAX_COPIES)


def _peeled(module, builder, body_name: str, types, count: int, init, tangents, active, location):
    """The loop's first ``count`` iterations as one call of ``count`` bodies (straight-line
    code, differentiated as one function: its JVP's primal part runs in the forward pass,
    its transpose in the backward pass after the loop's). A counted loop tests its
    condition at every ``k``-th state from there, each true until the last, as before.
    Returns the state after them and the tangents of its ``active`` values (the others'
    are zero: they depend on no given tangent)."""
    from s4tf.passes.autodiff.jvp import jvp_function  # jvp dispatches region ops here

    name = _unrolled(module, body_name, types, count, location)
    given = [i for i, t in enumerate(tangents) if t is not None]
    if not given:
        return builder.call(name, init, types, location), tangents
    floats = _floats(types)
    outputs = builder.call(jvp_function(module, name, given, linearizing=True), init + [tangents[i] for i in given],
                           types + [types[i] for i in floats], location)
    by_index = dict(zip(floats, outputs[len(types):]))
    return outputs[: len(types)], [by_index[i] if i in active else None for i in range(len(types))]


def _holds_control_flow(module, name: str) -> bool:
    """Whether function ``name``, or a function it calls, holds an ``s4tf.if`` or ``s4tf.while``.
    IREE-3.13-WORKAROUND: copies of such a body in one trip fail IREE 3.13 once what it holds
    steps on the host (passes/iree/unroll_host_loops.py says how), so its loop runs one
    iteration a trip."""
    return holds_any(module, body_operations(find_function(module, name)), ("s4tf.if", "s4tf.while"))


def _unrolled(module, body_name: str, types, copies: int, location) -> str:
    """``@<body>_x<copies>``: ``copies`` calls of ``@body``, each on the last one's results
    (``body_name`` itself for one copy)."""
    if copies == 1:
        return body_name
    name = f"{body_name}_x{copies}"
    if find_function(module, name) is None:
        builder = FunctionBuilder(module, name, types, location)
        body = _caller(body_name, types, location)
        with builder.building(location):
            values = list(builder.arguments)
            for _ in range(copies):
                values = body(*values)
        with location.context:
            builder.finish(values, {"s4tf.outlined": ir.UnitAttr.get(location.context)})
    return name


def _row_bytes(row_types) -> int:
    return sum(int(np.prod(t.shape, dtype=np.int64)) * to_numpy_dtype(t.dtype).itemsize for t in row_types)


def _checkpoint_rows(row_types, known_count: int | None = None) -> int:
    """How many checkpoints a loop keeps: ``TAPE_BYTES`` of them, within ``CHECKPOINTS``, and
    no more than its iterations where those are known (:data:`TRIP_COUNT`)."""
    rows = int(np.clip(TAPE_BYTES // max(_row_bytes(row_types), 1), MIN_CHECKPOINTS, CHECKPOINTS))
    return rows if known_count is None else max(1, min(rows, known_count))


def _stride(count, rows: int):
    """``ceil(count / rows)``, at least 1: the iterations from one checkpoint to the next."""
    return composition.maximum(composition.op("div", count + (rows - 1), composition.asarray(np.int32(rows))), 1)


def _nested(row_types) -> bool:
    """Whether a loop's checkpoints are kept in registers (:func:`_registers`): where their
    :data:`MIN_CHECKPOINTS` rows take more than :data:`TAPE_BYTES`. Such loops are
    host-stepped, and IREE 3.13 copies the tapes a host-stepped loop updates once a trip
    (tests/lit/iree_reproducers/while_carried_update_copies.mlir): the gradient of 1,000
    iterations of ``x * 0.9999 + 0.001 x^2`` on 262,144 floats (17 rows of 1 MiB) took
    3.5-4.7 s written a row an iteration, 0.92 s written a checkpoint a trip (about 6 GiB of
    tape copies), 0.47-0.58 s in registers (JAX's ``grad`` of a ``fori_loop`` 0.69-0.80 s)."""
    return _row_bytes(row_types) * MIN_CHECKPOINTS > TAPE_BYTES


def _registers(rows: int, like) -> list:
    """Shift registers of ``rows`` checkpoints of each value of ``like``, each row that
    value at first, as one list (the rows of ``like[0]``, then of ``like[1]``...): a loop
    carries the rows apart and shifts a checkpoint in by passing each row on to the one
    before it (:func:`_shifted_in`), which copies one row, where writing a row of a
    carried tape copies the tape (:func:`_nested`)."""
    return [value for value in like for _ in range(rows)]


def _split(registers: list, rows: int) -> list[list]:
    """The rows of each value in ``registers`` (:func:`_registers`)."""
    return [registers[i: i + rows] for i in range(0, len(registers), rows)]


def _shifted_in(registers: list, values, rows: int, first: int = 0) -> list:
    """``registers`` with ``values`` shifted into their rows ``first...``, as the last: the
    rows before ``first`` stay, row ``first`` drops out."""
    return [row for kept, value in zip(_split(registers, rows), values) for row in (*kept[:first], *kept[first + 1:], value)]


def _register_tapes(registers: list, row_types, slot=None):
    """Tapes of the checkpoints in ``registers`` and a spare row (:func:`_tape_type`), row
    ``j`` read from row ``slot(j)`` of the registers (row ``j`` without ``slot``)."""
    tapes = []
    for rows, row in zip(_split(registers, len(registers) // len(row_types)), row_types):
        if row.dtype == "i1":
            rows = [composition.astype(value, np.int8) for value in rows]
        if slot is not None:
            stacked = composition.stack(rows)
            rows = [composition.op("tape_read", stacked, slot(j)) for j in range(len(rows))]
        tapes.append(composition.stack([*rows, composition.zeros_like(rows[0])]))
    return tapes


def _shifted(row, shift):
    """``row + shift``; ``row`` where ``shift`` is ``None``."""
    return row if shift is None else row + shift


def _tape_type(value_type: TensorType, rows: int) -> TensorType:
    """The tape of ``rows`` checkpoints and a spare row of ``value_type``'s values, booleans
    kept as bytes: the loop-dispatch pass holds a boolean tensor indexed at run time as a
    vector of at most 1 KiB, a byte tensor as a tape in memory (1,025 rows of a flag would
    keep the loop host-stepped)."""
    return TensorType((rows + 1, *value_type.shape), "i8" if value_type.dtype == "i1" else value_type.dtype)


def _empty_tapes(row_types, rows: int):
    """Tapes of ``rows`` checkpoints and a spare row (:func:`_tape_type`)."""
    return [composition.zeros(t.shape, t.dtype) for t in (_tape_type(row, rows) for row in row_types)]


def _tape_write(tape, row, value):
    if value.dtype == np.bool_:
        value = composition.astype(value, np.int8)
    return composition.op("tape_write", tape, row, value)


def _tape_read(tape, row, value_type: TensorType):
    value = composition.op("tape_read", tape, row)
    return composition.astype(value, np.bool_) if value_type.dtype == "i1" else value


def _recording_loop(keep_going, body, init, tapes, recorded, stride, rows: int, trips: int | None = None, start=None,
                    copies: int = 1):
    """Run ``body`` from ``init`` while ``keep_going((values, tapes, index))``, writing the
    values ``recorded`` before every ``stride``-th iteration into checkpoint row
    ``index // stride`` of ``tapes`` (the others into the spare last row); ``index`` counts
    from ``start`` (0). Returns the final values, the tapes and the last ``index``;
    ``trips``: the loop's known iterations; ``copies``: the iterations of the differentiated
    loop one call of ``body`` runs."""

    def record(carry):
        values, tapes, index = carry
        checkpoint = composition.op("div", index, stride)
        row = composition.where(index - checkpoint * stride == 0, checkpoint, np.int32(rows))
        tapes = [_tape_write(tape, row, values[i]) for tape, i in zip(tapes, recorded)]
        return body(*values), tapes, index + 1

    start = composition.zeros((), COUNT.dtype) if start is None else start
    return _while(keep_going, record, (init, tapes, start), trips, copies)


def _running(body, values, index, end, keep_going=None):
    """Run ``body`` from ``values`` while ``index < end`` (and ``keep_going(values)``, where
    given): a loop counting to a bound from outside it, which ``s4tf-unroll-host-loops``
    runs several iterations a trip where ``keep_going`` is ``None``. Returns the values and
    ``index``."""

    def more(carry):
        counted = carry[1] < end
        return counted if keep_going is None else composition.logical_and(counted, keep_going(carry[0]))

    return _while(more, lambda carry: (body(*carry[0]), carry[1] + 1), (values, index))


def _thinned_recording(keep_going, body, init, row_types, recorded, rows: int):
    """Run ``body`` from ``init`` while ``keep_going``, counting the iterations and writing
    a checkpoint of the values ``recorded`` before every ``stride``-th one into tapes of
    ``rows`` rows, ``stride`` 1 at first: whenever the rows are full, every second
    checkpoint is dropped (row ``j`` takes row ``2 j``) and ``stride`` doubles. One run
    both counts and records (the checkpoints are ``stride`` apart, ``stride`` the least
    power of two with ``rows * stride >= n``). An outer loop runs the recording loop until
    the rows fill up, then halves; the first trip halves nothing (a loop of no trips, not
    an ``if``, which would keep host-stepped loops waiting on the host). Checkpoints in
    registers (:func:`_nested`): :func:`_thinned_registers`. Returns the final values, the
    tapes, ``n`` and ``stride``."""
    if _nested(row_types):
        return _thinned_registers(keep_going, body, init, row_types, recorded, rows)
    half = np.int32((rows + 1) // 2)

    def halved(tapes, index):
        def move(carry):
            j, tapes = carry
            return j + 1, [composition.op("tape_write", tape, j, composition.op("tape_read", tape, j * 2)) for tape in tapes]

        end = composition.where(index > 0, half, np.int32(1))
        return _while(lambda carry: carry[0] < end, move, (composition.asarray(np.int32(1)), tapes))[1]

    def epoch(carry):
        values, tapes, index, stride = carry
        tapes = halved(tapes, index)
        stride = composition.maximum(stride * 2, np.int32(1))
        limit = stride * rows
        values, tapes, index = _recording_loop(lambda c: composition.logical_and(keep_going(c), c[2] < limit), body, values,
                                               tapes, recorded, stride, rows, start=index)
        return values, tapes, index, stride

    start = (init, _empty_tapes(row_types, rows), composition.zeros((), COUNT.dtype), composition.zeros((), COUNT.dtype))
    values, tapes, count, stride = _while(lambda c: _full(c[0], c[2], c[3], rows, keep_going), epoch, start)
    return values, tapes, count, composition.maximum(stride, np.int32(1))


def _thinned_registers(keep_going, body, init, row_types, recorded, rows: int):
    """:func:`_thinned_recording` with the checkpoints in shift registers (:func:`_registers`):
    a loop runs the first ``rows`` iterations, shifting in a checkpoint each; then while the
    loop goes on, a trip of an outer loop keeps the even checkpoints in the first half of the
    registers, doubles ``stride`` and shifts the next checkpoints, ``stride`` apart, into
    the second half (a loop a checkpoint, around a loop of the iterations up to the next).
    The last trip may shift in fewer than the half: the tapes read the registers' rows
    past the kept ones from where those checkpoints are. The odd checkpoints hold the second
    half's rows until they are shifted out, so a trip passes each register on once
    (IREE-3.13-WORKAROUND: tests/lit/iree_reproducers/while_carry_passed_on_twice.mlir)."""
    if rows % 2:
        raise ValueError(f"checkpoint registers halve: {rows} rows")
    half = rows // 2
    going = lambda values: keep_going((values, None, None))  # noqa: E731
    zero, one = composition.zeros((), COUNT.dtype), composition.asarray(np.int32(1))

    def record(carry):
        values, registers, index = carry
        return body(*values), _shifted_in(registers, [values[i] for i in recorded], rows), index + 1

    first = (init, _registers(rows, [init[i] for i in recorded]), zero)
    values, registers, index = _while(lambda c: composition.logical_and(c[2] < rows, going(c[0])), record, first)

    def epoch(carry):
        values, registers, index, stride, _ = carry
        registers = [row for r in _split(registers, rows) for row in (*r[0::2], *r[1::2])]
        stride = stride * 2

        def checkpoint(carry):
            values, registers, index, written = carry
            registers = _shifted_in(registers, [values[i] for i in recorded], rows, half)
            values, index = _running(body, values, index, index + stride, going)
            return values, registers, index, written + 1

        values, registers, index, written = _while(lambda c: composition.logical_and(c[2] < stride * rows, going(c[0])),
                                                   checkpoint, (values, registers, index, zero))
        return values, registers, index, stride, written

    values, registers, count, stride, written = _while(lambda c: _full(c[0], c[2], c[3], rows, keep_going), epoch,
                                                       (values, registers, index, one, index))
    kept = composition.where(stride > 1, np.int32(half), np.int32(0))
    shift = (rows - kept) - written  # the last trip's checkpoints sit at the registers' end

    def slot(j):
        return composition.where(kept <= j, composition.minimum(shift + j, np.int32(rows - 1)), np.int32(j))

    return values, _register_tapes(registers, row_types, slot), count, stride


def _full(values, index, stride, rows: int, keep_going):
    """Whether a recording goes on to another trip of halving: its rows are full (``index``
    is ``stride * rows``; a ``stride`` of 0 before the first trip) and ``keep_going`` holds.
    Read from the carries rather than carried as a flag. IREE-3.13-WORKAROUND: a flag the
    body replaces without reading it, which nothing after the loop reads (left untied on
    ``vulkan``: passes/iree/condition_carries.py), failed IREE 3.13's stream conversion on
    ``vulkan`` ("'scf.while' op ... region branch point has 16 operands, but region
    successor needs 18 inputs": ``jvp`` of ``grad`` of a ``fori_loop`` to a traced bound),
    and read by the body, failed at run time ("transient buffer has no staged Vulkan
    backing")."""
    return composition.logical_and(index == stride * rows, keep_going((values, None, index)))


def _barriers(cotangents):
    """Each cotangent through an ``optimization_barrier`` of its own, where it enters the
    backward loop and where a segment hands it on. IREE-3.13-WORKAROUND: without them IREE 3.13 packs cotangents
    (zeros of W and U, read only in the loop; a and b of ``a * x + b``) into one allocation
    and hands that buffer twice along a branch of the host-stepped loop, where its VM
    register allocator moves the first copy and leaves the second null: "ref is null" when
    called, at 0 iterations (the RNN) or from 1 on (two invariants). IREE #24753."""
    return [composition.op("optimization_barrier", c) for c in cotangents]


def _while_linear_map(module, prefix: str, body_name: str, types, recorded, rows: int, active, given, location,
                      every: bool = False, trips: int | None = None, copies: int = 1) -> str:
    """``@<prefix>_lin(tapes..., kept..., n, stride, dx[given]...) -> dy[active]...`` and its
    transpose ``(tapes..., kept..., n, stride, ct[active]...) -> ct_x[given]...``: the loop
    run backwards. ``tapes`` hold checkpoints of the carried values ``recorded``; ``kept``
    are the others (loop invariants). ``every``: the tapes hold every iteration's state
    (a static trip count of at most ``rows``), so the transpose is one loop reading them,
    of ``trips`` iterations where they are given, each the reverse of ``copies`` iterations
    of the loop differentiated (``body_name`` runs that many)."""
    from s4tf.passes.autodiff.derivatives import vjp_functions  # derivatives -> jvp -> this module

    name, transpose = f"{prefix}_lin", f"{prefix}_lin_transpose"
    if find_function(module, name) is not None:
        return name
    kept = [i for i in range(len(types)) if i not in recorded]
    tape_types = [_tape_type(types[i], rows) for i in recorded]
    residual_types = [*tape_types, *(types[i] for i in kept), COUNT, COUNT]
    inputs = residual_types + [types[i] for i in given]
    declare_linear_map(module, name, inputs, [types[i] for i in active], range(len(residual_types), len(inputs)), transpose, location)

    backward = FunctionBuilder(module, transpose, residual_types + [types[i] for i in active], location)
    tapes = backward.arguments[: len(recorded)]
    invariants = dict(zip(kept, backward.arguments[len(recorded): len(recorded) + len(kept)]))
    count, stride = backward.arguments[len(residual_types) - 2: len(residual_types)]
    body = _caller(body_name, types, location)
    body_vjp = _caller(vjp_functions(module, body_name, active)[0], types + [types[i] for i in active], location, first=len(types))
    floats = _floats(types)
    row_types = [types[i] for i in recorded]
    nested = _nested(row_types)

    def state_of(values):
        """The carried values: ``values`` of the recorded ones, the invariants."""
        read = dict(zip(recorded, values))
        return [read[i] if i in read else invariants[i] for i in range(len(types))]

    def state_at(segment_tapes, row):
        return state_of([_tape_read(tape, row, types[i]) for tape, i in zip(segment_tapes, recorded)])

    def vjp_step(state, cotangents):
        """The body's VJP at ``state``: the cotangents before that iteration."""
        by_index = dict(zip(active, cotangents))
        seeds = [by_index[i] if i in by_index else composition.zeros_like(state[i]) for i in floats]
        return body_vjp(*state, *seeds)

    def reading(state_tapes, shift=None):
        """A backward step: the VJP at the state of iteration ``position`` read from
        ``state_tapes`` (a row an iteration, from row ``shift`` where given)."""
        def step(carry):
            position = carry[0] - 1
            return position, vjp_step(state_at(state_tapes, _shifted(position, shift)), carry[1])

        return step

    def rerecorded(start, length, inner):
        """A segment's states every ``inner`` iterations from ``start``, in shift registers
        (:func:`_registers`; a loop a checkpoint, around a loop of the iterations up to the
        next): tapes of them, and the row of the first."""
        checkpoints = composition.op("div", length + (inner - 1), inner)

        def checkpoint(carry):
            values, registers, position, written = carry
            registers, written = _shifted_in(registers, [values[i] for i in recorded], rows), written + 1
            end = composition.where(written < checkpoints, composition.minimum(position + inner, length), position)
            values, position = _running(body, values, position, end)
            return values, registers, position, written

        zero = composition.zeros((), COUNT.dtype)
        init = (start, _registers(rows, [start[i] for i in recorded]), zero, zero)
        registers = _while(lambda c: c[3] < checkpoints, checkpoint, init)[1]
        return _register_tapes(registers, row_types), rows - checkpoints

    def segment(carry):
        """Segment ``index`` (``stride`` iterations from its checkpoint), run backwards: its
        states are recomputed into checkpoints of their own (every ``inner``-th one, all of
        them while the segment has at most ``rows`` iterations), then each iteration's state
        is read (or recomputed from its checkpoint) and the body's VJP applied. Where every
        state is on that tape an ``s4tf.if`` (a shortcut) takes a step loop without the
        recomputing loop, which would run no iteration but, inside a dispatch, copy its
        loop-carried state in and out at every step."""
        index, cotangents, *reused = carry
        index = index - 1
        length = composition.minimum(stride, count - index * stride)
        inner = _stride(length, rows)
        if nested:
            inner_tapes, shift = rerecorded(state_at(tapes, index), length, inner)
        else:
            _, inner_tapes, _ = _recording_loop(lambda c: c[2] < length, body, state_at(tapes, index), reused[0], recorded,
                                                inner, rows)
            shift = None

        def step(carry):
            position, cotangents = carry
            position = position - 1
            checkpoint = composition.op("div", position, inner)
            state = _while(
                lambda c: c[0] < position, lambda c: (c[0] + 1, body(*c[1])),
                (checkpoint * inner, state_at(inner_tapes, _shifted(checkpoint, shift)))
            )[1]
            return position, vjp_step(state, cotangents)

        def steps(one):
            """The segment's iterations, last first, each a call of ``one``."""
            return lambda *cotangents: _while(lambda c: c[0] > 0, one, (length, list(cotangents)))[1]

        def popping(*cotangents):
            """The segment's iterations, last first, ``inner`` at a time: from each checkpoint
            of the segment's tape, last first, a loop shifts the states up to the next into
            registers (:func:`_registers`), then a loop pops them from the last register,
            last first, each fed to the body's VJP. Neither loop holds a loop or reads a row
            at a run-time index, so s4tf-unroll-host-loops runs them several iterations a
            trip, where a step recomputing its state from the checkpoint in a loop of its
            own runs one a trip (:func:`_nested`). A pop rotates the registers, the popped
            one moved to the front: IREE-3.13-WORKAROUND: a pop that kept the first register
            and passed it on too (one carry passed on to two) failed to compile where the
            pullback is a module of its own ("region branch point has 34 operands, but region
            successor needs 64 inputs": tests/lit/iree_reproducers/while_carry_passed_on_twice.mlir)."""
            zero = composition.zeros((), COUNT.dtype)

            def part(carry):
                checkpoint, cotangents = carry
                checkpoint = checkpoint - 1
                states = composition.minimum(inner, length - checkpoint * inner)
                start = state_at(inner_tapes, _shifted(checkpoint, shift))

                def push(carry):
                    k, values, registers = carry
                    return k + 1, body(*values), _shifted_in(registers, [values[i] for i in recorded], rows)

                _, values, registers = _while(lambda c: c[0] < states - 1, push,
                                              (zero, start, _registers(rows, [start[i] for i in recorded])))
                registers = _shifted_in(registers, [values[i] for i in recorded], rows)

                def pop(carry):
                    k, registers, cotangents = carry
                    split = _split(registers, rows)
                    state = state_of([value[-1] for value in split])
                    registers = [row for value in split for row in (value[-1], *value[:-1])]
                    return k - 1, registers, vjp_step(state, cotangents)

                return checkpoint, _while(lambda c: c[0] > 0, pop, (states, registers, list(cotangents)))[2]

            checkpoints = composition.op("div", length + (inner - 1), inner)
            return _while(lambda c: c[0] > 0, part, (checkpoints, list(cotangents)))[1]

        def many(*cotangents):
            """Where ``inner > 1``: :func:`popping` for a state kept in registers while the
            states from one checkpoint to the next fit them (``inner <= rows``: up to
            ``rows ** 3`` iterations), an ``s4tf.if`` marked a shortcut to the steps
            recomputing their states, which ``vmap`` runs alone where the segments differ by
            example (IREE 3.13 failed the batched popping loops: "failed to solve for
            timepoint coverage")."""
            if not nested:
                return steps(step)(*cotangents)
            fits = composition.logical_and(inner > 1, inner <= np.int32(rows))
            return mark_shortcut(_cond(fits, popping, steps(step), cotangents))

        cotangents = mark_shortcut(_cond(inner == 1, steps(reading(inner_tapes, shift)), many, cotangents))
        return (index, _barriers(cotangents), *([] if nested else [inner_tapes]))

    def from_tape(*cotangents):
        """Every iteration's state is on the forward tape (``stride`` 1: at most ``rows``
        iterations): one loop, last iteration first, reading them."""
        return _barriers(_while(lambda c: c[0] > 0, reading(tapes), (count, list(cotangents)), trips, copies)[1])

    def replayed(*cotangents):
        """Segments of ``stride`` iterations, last first, each replayed from its checkpoint."""
        segments = composition.op("div", count + (stride - 1), stride)
        reused = [] if nested else [_empty_tapes(row_types, rows)]  # a tape every segment records into
        return _while(lambda carry: carry[0] > 0, segment, (segments, list(cotangents), *reused))[1]

    with backward.building(location):
        seeds = _barriers(backward.arguments[len(residual_types):])
        cotangents = from_tape(*seeds) if every else _cond(stride == 1, from_tape, replayed, seeds)
        if not every:  # from_tape is replayed's shortcut: vmap runs replayed alone (IREE-3.13-WORKAROUND: IREE 3.13
            # failed the two loops side by side: "operand #11 does not dominate this use")
            mark_shortcut(cotangents)
    with location.context:
        backward.finish([cotangents[active.index(i)] for i in given])
    return name
