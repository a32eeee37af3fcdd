"""``s4tf-donate``: results written into the buffers of donated arguments.

``s4tf-donate{entry=train_step args=0,1}`` pairs each donated argument of the StableHLO
function ``entry`` (flat positions ``args``) with the first unpaired result of its type
that may be written into its buffer, and tells IREE to do so (``iree.abi.output``)::

    func.func @train_step(%w: tensor<784x512xf32> {iree.abi.output = 0 : index}, ...)

IREE writes such a result into the argument's buffer as soon as it is computed, while
other work may still read the argument (a probe gave wrong sums), so a pair is only made
when that cannot happen. It is *safe as it is* when the result is computed elementwise,
every op that reads the argument is one it waits for, and no op that reads the argument
other than elementwise reaches it through elementwise ops alone (which IREE could fuse
into one dispatch). It is *safe once ordered* when the only problem is readers the result
does not wait for (back-propagation reading a weight for earlier layers after that
weight's update could run): the result's producer, used only by the return, then moves
to just before the return and is made to wait for those readers' results through a
*wait token*: one element of each, summed into ``t``, gives ``one = select(is_finite(t),
(t - t) + 1, 1)``, which is exactly 1 whatever ``t`` is, and the producer's first operand
of its own type is multiplied by it::

    %r = stablehlo.slice %read_w [0:1, 0:1] ...             // one element of each reader's result
    %one = stablehlo.select %finite, %near_one, %c1 : tensor<i1>, tensor<f32>
    %w1 = stablehlo.multiply %w, %one_broadcast : tensor<512x512xf32>
    %new_w = stablehlo.subtract %w1, %update : tensor<512x512xf32>

IREE then runs the readers' dispatches first, in the same submission. A reader that only
moves elements (a transpose, a reverse, a slice) is waited for through the product,
convolution, reduction or optimization barrier that its result reaches through more such
ops, each used once (:data:`LAYOUT_OPS`): the token reads that op's results. (A
``stablehlo.optimization_barrier`` also orders them, but IREE waits for it on the host:
the submission ends, the calling thread wakes and submits the rest: docs/benchmarks.md,
"Donation through wait tokens".) The barrier, holding the producer's operands and the readers' results,
is still used where a token cannot be: a producer whose result is not a float tensor,
a layout reader whose result is used otherwise (returned, or twice: IREE could compute a
slice of it from the weight inside the update's dispatch), token sources that are not
static, non-empty tensors of numbers, or another reader of
the argument that reaches the producer through elementwise ops alone (the barrier cuts
that path; a token would leave it for IREE to fuse)::

    %b:3 = stablehlo.optimization_barrier %w, %update, %read_w : ...
    %new_w = stablehlo.subtract %b#0, %b#1 : tensor<512x512xf32>

A result computed by a ``stablehlo.scatter`` into the argument is written *in place*:
the lowering's copy of the scattered operand (:func:`s4tf.dialects.hlo.unshared`, which
keeps IREE from writing into an argument's buffer) is dropped, and the scatter, whose
result IREE writes into its operand's buffer, updates the donated buffer row by row
(``table.at[ids].add(rows)`` costs the rows, not the table)::

    func.func @step(%table: tensor<1000000x64xf32> {iree.abi.output = 0 : index}, ...)
      %new = "stablehlo.scatter"(%table, %ids, %rows) ...

Readers of the argument the scatter does not wait for make it wait through a token on its
updates (one element of each reader's result, as above: the updates are multiplied by
exactly 1), or a barrier holding its indices and updates; so does a reader that reaches
the scatter's indices or updates through ops IREE could fuse into the scatter's dispatch
(:data:`SCATTER_FUSIBLE`), which would then read rows the scatter is writing.

The pass first decides (:func:`plan_donation`, which reads the IR and changes nothing),
then applies the decisions (:func:`apply_plan`). ``remarks=true`` reports each decision
as a remark at the argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects import hlo
from s4tf.dialects.symbols import functions
from s4tf.dialects.types import BOOL_DTYPE, INT_DTYPES, TensorType, is_float
from s4tf.core.mlir import ir
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, emit_remark, register

ALIAS_ATTRIBUTE = "iree.abi.output"
BARRIER = "stablehlo.optimization_barrier"

#: StableHLO ops that compute each element of the result from the same element of the operands.
ELEMENTWISE = frozenset(
    f"stablehlo.{name}" for name in (
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "exponential", "log",
        "log_plus_one", "sqrt", "rsqrt", "power", "abs", "sign", "tanh", "logistic", "sine", "cosine",
        "select", "compare", "convert", "clamp", "and", "or", "not", "remainder", "floor", "ceil",
    )
)


#: Readers a wait token may wait for: ops with a reduction that IREE makes the root of a
#: dispatch of their own. It never clones or fuses them into a consumer's dispatch, or moves
#: a slice of their result above them, so a token computed from one element of their
#: result is computed after they ran. (An elementwise or data-movement reader, such as a
#: transpose, a slice or a widening convert of the weight, may be recomputed inside the
#: producer's dispatch, reading the weight there: those wait behind a barrier.)
TOKEN_READERS = frozenset(
    f"stablehlo.{name}" for name in ("dot_general", "dot", "convolution", "reduce", "reduce_window")
)


#: Ops that only move or convert elements: a reader of this kind waits through a token
#: where its result, through more such ops each used once, reaches a :data:`TOKEN_READERS`
#: op or an optimization barrier (``s4tf-materialize-conv-filters``'), whose results the
#: token reads instead. IREE cannot move a slice of a barrier's result above it, and
#: gives a token reader a dispatch of its own, into which it may fold such ops: either way
#: the weight is read before the token exists.
LAYOUT_OPS = frozenset(
    f"stablehlo.{name}" for name in ("transpose", "reverse", "reshape", "broadcast_in_dim", "slice", "convert")
)


#: Ops IREE may fuse into a scatter's dispatch as producers of its indices or updates.
SCATTER_FUSIBLE = ELEMENTWISE | LAYOUT_OPS | frozenset(
    f"stablehlo.{name}" for name in ("gather", "dynamic_slice", "concatenate", "pad", "iota")
)

SCATTER = "stablehlo.scatter"


@dataclass(frozen=True)
class Pair:
    """Result ``result`` is written into the buffer of argument ``argument``; when
    ``wait_for`` is not empty, only after those ops (readers of the argument) ran, through
    a wait token that reads the results of ``waypoints``, or a barrier where ``barrier``."""

    argument: int
    result: int
    wait_for: tuple = ()
    barrier: bool = False
    waypoints: tuple = ()
    in_place: bool = False


@dataclass(frozen=True)
class Unpaired:
    """A donated argument that keeps its buffer, and why."""

    argument: int
    reason: str


@dataclass(frozen=True)
class DonationPlan:
    pairs: tuple[Pair, ...]
    unpaired: tuple[Unpaired, ...]


def aliased_arguments(module: ir.Operation, entry: str) -> list[int]:
    """The arguments of ``entry`` whose buffers a result is written into."""
    return sorted(_existing_aliases(functions(module).get(entry)))


@register
@dataclass(frozen=True)
class Donate(ModulePass):
    """Donate the arguments at positions ``args`` of the function ``entry``."""

    name = "s4tf-donate"
    description = "Write results into the buffers of donated arguments (iree.abi.output)"

    entry: str
    args: tuple[int, ...]
    #: Report each decision as a remark at the argument.
    remarks: bool = False

    def apply(self, module: ir.Operation) -> None:
        donate(module, self.entry, self.args, self.remarks)


def donate(module: ir.Operation, entry: str, positions: tuple[int, ...], remarks: bool = False) -> None:
    function = functions(module).get(entry)
    if function is None or not function.regions[0].blocks:
        emit_error(function or module, f"s4tf-donate: no function '{entry}' with a body in the module")
        raise PassFailed()
    count = len(function.regions[0].blocks[0].arguments)
    wrong = [p for p in positions if not 0 <= p < count]
    if wrong or not positions:
        emit_error(function, f"s4tf-donate: args={','.join(str(p) for p in positions)} must be argument positions of "
                             f"'{entry}' (0 to {count - 1}), separated by commas")
        raise PassFailed()
    plan = plan_donation(function, positions)
    if remarks:
        arguments = function.regions[0].blocks[0].arguments
        for position, line in describe(plan).items():
            emit_remark(arguments[position].location, line)
    apply_plan(function, plan)


def describe(plan: DonationPlan) -> dict[int, str]:
    """A line per decision of ``plan``, by argument."""
    lines = {}
    for pair in plan.pairs:
        through = "a barrier" if pair.barrier else "a wait token"
        ordered = f" after {len(pair.wait_for)} reader(s) of it, through {through}" if pair.wait_for else ""
        in_place = ", written in place by a scatter" if pair.in_place else ""
        lines[pair.argument] = f"argument {pair.argument} holds result {pair.result}{in_place}{ordered}"
    for unpaired in plan.unpaired:
        lines[unpaired.argument] = f"argument {unpaired.argument} keeps its buffer: {unpaired.reason}"
    return dict(sorted(lines.items()))


def plan_donation(function: ir.Operation, donated) -> DonationPlan:
    """Which result each argument at ``donated`` holds, and what it must wait for (see the
    module docstring); reads ``function`` and changes nothing."""
    body = function.regions[0].blocks[0]
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    inputs, results = list(function_type.inputs), list(function_type.results)
    terminator = list(body.operations)[-1].operation
    returned = list(terminator.operands)
    existing = _existing_aliases(function)
    taken = set(existing.values())
    free = [r for r in range(len(results)) if r not in taken]
    pairs, unpaired = [], []
    barrier_reads: set = set()  # ops whose results the planned barriers will read
    for position in dict.fromkeys(donated):
        if position in existing:
            continue
        candidates = [r for r in free if results[r] == inputs[position]]
        if not candidates:
            unpaired.append(Unpaired(position, f"no unpaired result of type {inputs[position]}"))
            continue
        argument = body.arguments[position]
        reasons, pair = [], None
        for r in candidates:
            wait_for, barrier, waypoints, reason = _decide(body, terminator, argument, returned[r], barrier_reads)
            in_place = reason is None and _producer(body, returned[r]).name == SCATTER
            sharing = [p for p in pairs if returned[p.result] == returned[r]]
            if reason is None and sharing and (wait_for or sharing[0].wait_for):
                reason = f"its value is written into argument {sharing[0].argument} after other work already"
            if reason is None:
                pair = Pair(position, r, wait_for, barrier, waypoints, in_place)
                break
            reasons.append(f"result {r}: {reason}")
        if pair is None:
            unpaired.append(Unpaired(position, "; ".join(reasons)))
            continue
        pairs.append(pair)
        free.remove(pair.result)
        barrier_reads.update(pair.wait_for)
    return DonationPlan(tuple(pairs), tuple(unpaired))


def _decide(body: ir.Block, terminator, argument: ir.Value, result: ir.Value, barrier_reads: set):
    """``(wait_for, barrier, waypoints, None)`` if ``result`` may be written into
    ``argument``'s buffer after the ops ``wait_for`` (through a barrier where ``barrier``,
    else through a token reading ``waypoints``' results), else ``((), False, (), why not)``."""
    producer = _producer(body, result)
    scatter = producer is not None and producer.name == SCATTER
    if producer is None or scatter and _scattered_value(producer) != argument:
        return (), False, (), "not computed by an elementwise op of the function's body, or by a scatter into the argument"
    ancestors = _ancestors(body, producer)
    readers = _readers(body, argument)
    if scatter:  # the scatter itself, and the copy of the argument it alone will no longer read
        readers.discard(producer)
        if len(list(producer.operands[0].uses)) == 1:
            readers.discard(_defining(producer.operands[0]))
    readers = sorted(readers, key=_position_in(body))
    late = [reader for reader in readers if reader not in ancestors]
    if scatter:
        fused = next((r for r in readers if r not in late and _path(r, producer, body, SCATTER_FUSIBLE)), None)
        late += [fused] if fused is not None else []
    else:
        fused = next((r for r in readers if r.name not in ELEMENTWISE and r not in late
                      and _path(r, producer, body, ELEMENTWISE)), None)
    if not late:
        if fused is None:
            return (), False, (), None
        return (), False, (), f"'{fused.name}' reads the argument and reaches the result through elementwise ops only"
    if terminator in late:
        return (), False, (), "the argument is returned"
    if any(use.owner.operation != terminator for use in result.uses) or producer in barrier_reads:
        return (), False, (), "the result is used by more than the return, and cannot wait for the argument's readers"
    resultless = next((reader for reader in late if len(reader.results) == 0), None)
    if resultless is not None:
        return (), False, (), f"'{resultless.name}' reads the argument and has no result a barrier could wait for"
    # A barrier makes every path into the producer cross it: it also cuts a fusible path
    # from another reader, which a token would leave.
    waypoints = [_token_waypoint(reader, body) for reader in late]
    barrier = fused is not None or _token_operand(producer) is None or not all(
        waypoint is not None and all(_token_source(value) for value in waypoint.results) for waypoint in waypoints)
    return tuple(late), barrier, () if barrier else tuple(dict.fromkeys(waypoints)), None


def _scattered_value(scatter) -> ir.Value:
    """What ``scatter`` writes into: its operand, or the value the lowering copied into it
    (:func:`s4tf.dialects.hlo.unshared`: ``select(iota > -1, x, 0)``)."""
    operand = scatter.operands[0]
    copy = _defining(operand)
    always = _defining(copy.operands[0]) if copy is not None and copy.name == "stablehlo.select" else None
    if always is None or always.name != "stablehlo.compare" or hlo.direction_of(always) != "GT":
        return operand
    counted = _defining(always.operands[0])
    return copy.operands[1] if counted is not None and counted.name == "stablehlo.iota" else operand


def _defining(value: ir.Value):
    """The op whose result ``value`` is, or ``None`` for a block argument."""
    return getattr(value.owner, "operation", None)


def _write_in_place(scatter) -> None:
    """Make ``scatter`` write into the value it copied (:func:`_scattered_value`), and erase
    the copy."""
    copy = _defining(scatter.operands[0])
    scatter.operands[0] = _scattered_value(scatter)
    _erase_unused(copy)


def _erase_unused(operation) -> None:
    """Erase ``operation`` if nothing uses its results, then its operands' producers alike."""
    if any(list(result.uses) for result in operation.results):
        return
    producers = [getattr(operand.owner, "operation", None) for operand in operation.operands]
    operation.erase()
    for producer in dict.fromkeys(p for p in producers if p is not None):
        _erase_unused(producer)


def _token_waypoint(reader, body: ir.Block):
    """The op whose results a wait token for ``reader`` reads: ``reader`` itself if it is a
    :data:`TOKEN_READERS` op, else the token reader or barrier that its result reaches
    through :data:`LAYOUT_OPS` each used once; ``None`` if there is none."""
    operation = reader
    while operation.name in LAYOUT_OPS and len(operation.results) == 1:
        uses = list(operation.results[0].uses)
        if len(uses) != 1 or uses[0].owner.operation.block != body:
            return None
        operation = uses[0].owner.operation
    return operation if operation.name in TOKEN_READERS or (operation.name == BARRIER and operation != reader) else None


def _position_in(body: ir.Block):
    order = {op.operation: index for index, op in enumerate(body.operations)}
    return lambda operation: order[operation]


def apply_plan(function: ir.Operation, plan: DonationPlan) -> None:
    """Mark each pair's argument (``iree.abi.output``) and put each pair that waits behind
    its barrier."""
    body = function.regions[0].blocks[0]
    terminator = list(body.operations)[-1].operation
    returned = list(terminator.operands)
    count = len(body.arguments)
    existing = list(ir.ArrayAttr(function.attributes["arg_attrs"])) if "arg_attrs" in function.attributes else []
    attributes = [{named.name: named.attr for named in ir.DictAttr(attr)} for attr in existing]
    attributes += [{} for _ in range(count - len(attributes))]
    for pair in plan.pairs:
        producer = _producer(body, returned[pair.result])
        if pair.in_place and producer.operands[0] != body.arguments[pair.argument]:
            _write_in_place(producer)
        if pair.wait_for:
            producer.move_before(terminator)
            if pair.barrier:
                _order_behind_barrier(producer, pair.wait_for)
            else:
                _order_through_token(producer, pair.waypoints)
        attributes[pair.argument][ALIAS_ATTRIBUTE] = ir.IntegerAttr.get(ir.IndexType.get(), pair.result)
    if plan.pairs:
        function.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in attributes])


def _order_behind_barrier(producer, readers) -> None:
    """Route the producer's operands (a scatter's indices and updates, not the buffer it
    writes into) through a barrier that also holds the readers' results."""
    first = 1 if producer.name == SCATTER else 0
    operands = list(producer.operands)[first:]
    values = [*operands, *(value for reader in readers for value in reader.results)]
    with ir.InsertionPoint(producer), producer.location:
        barrier = ir.Operation.create(BARRIER, results=[v.type for v in values], operands=values)
    for index in range(len(operands)):
        producer.operands[first + index] = barrier.results[index]


def _token_operand(producer) -> int | None:
    """The operand a wait token multiplies: the first of the producer's result type (a
    scatter's updates), a float tensor of static shape; ``None`` if there is none."""
    if producer.name == SCATTER:
        updates = producer.operands[2].type
        static_float = isinstance(updates, ir.RankedTensorType) and updates.has_static_shape and is_float(
            TensorType.from_mlir(updates).dtype)
        return 2 if static_float else None
    result_type = producer.results[0].type
    if not isinstance(result_type, ir.RankedTensorType) or not result_type.has_static_shape:
        return None
    if not is_float(TensorType.from_mlir(result_type).dtype):
        return None
    return next((i for i, operand in enumerate(producer.operands) if operand.type == result_type), None)


def _token_source(value: ir.Value) -> bool:
    """Whether one element of ``value`` can feed a wait token: a static, non-empty tensor
    of numbers."""
    if not isinstance(value.type, ir.RankedTensorType):
        return False
    value_type = TensorType.from_mlir(value.type)  # other element types (complex, i16) keep their names
    dtype = value_type.dtype
    return hlo.is_token_source(value_type) and (is_float(dtype) or dtype in INT_DTYPES or dtype == BOOL_DTYPE)


def _order_through_token(producer, waypoints) -> None:
    """Multiply the producer's :func:`_token_operand` by a value that is exactly 1 and that
    IREE computes from one element of each result of ``waypoints`` (the readers' token
    waypoints, :func:`_token_waypoint`; :func:`s4tf.dialects.hlo.after`)."""
    index = _token_operand(producer)
    operand = producer.operands[index]
    with ir.InsertionPoint(producer), producer.location:
        sources = [value for waypoint in waypoints for value in waypoint.results]
        producer.operands[index] = hlo.after(operand, TensorType.from_mlir(operand.type), sources)


def _existing_aliases(function: ir.Operation) -> dict[int, int]:
    """Argument -> result of the pairs ``function`` already has."""
    if function is None or "arg_attrs" not in function.attributes:
        return {}
    found = {}
    for position, attr in enumerate(ir.ArrayAttr(function.attributes["arg_attrs"])):
        named = {n.name: n.attr for n in ir.DictAttr(attr)}
        if ALIAS_ATTRIBUTE in named:
            if not isinstance(named[ALIAS_ATTRIBUTE], ir.IntegerAttr):
                emit_error(function, f"argument {position}'s {ALIAS_ATTRIBUTE} must be a result index, as 0 : index")
                raise PassFailed()
            found[position] = ir.IntegerAttr(named[ALIAS_ATTRIBUTE]).value
    return found


def _top_level(operation, body: ir.Block):
    """The op of ``body`` that holds ``operation`` (itself, or an op whose region has it)."""
    while operation.parent is not None and operation.block != body:
        operation = operation.parent
    return operation


def _producer(body: ir.Block, result: ir.Value):
    """The elementwise op or scatter of ``body`` computing ``result``, or ``None``."""
    owner = getattr(result.owner, "operation", None)  # a block argument's owner is its block
    if owner is None or (owner.name not in ELEMENTWISE and owner.name != SCATTER) or owner.block != body:
        return None
    return owner


def _ancestors(body: ir.Block, producer) -> set:
    """``producer`` and every op of ``body`` it depends on."""
    ancestors, pending = {producer}, [producer]
    while pending:
        for operand in pending.pop().operands:
            owner = getattr(operand.owner, "operation", None)
            if owner is None:
                continue
            defining = _top_level(owner, body)
            if defining.block == body and defining not in ancestors:
                ancestors.add(defining)
                pending.append(defining)
    return ancestors


def _readers(body: ir.Block, value: ir.Value) -> set:
    """The ops of ``body`` that read ``value``, looking through optimization barriers
    (which pass each operand on unchanged as the result of the same index) and through
    layout ops (:data:`LAYOUT_OPS`): IREE clones a broadcast or a reshape into the dispatch
    of each op that uses it, which then reads ``value`` itself (BatchNorm's scale,
    broadcast once, is read by the forward pass and again by the backward pass)."""
    readers = set()
    for use in value.uses:
        reader = _top_level(use.owner.operation, body)
        if reader.name == BARRIER:
            readers |= _readers(body, reader.results[use.operand_number])
            continue
        readers.add(reader)
        if reader.name in LAYOUT_OPS and reader.block == body:  # the return reads the layout op's own result
            for result in reader.results:
                readers |= {r for r in _readers(body, result) if r.name != "func.return"}
    return readers


def _path(start, target, body: ir.Block, through) -> bool:
    """Whether ``start``'s results reach ``target`` through ops of ``body`` named in ``through`` only."""
    frontier, seen = [start], {start}
    while frontier:
        for value in frontier.pop().results:
            for use in value.uses:
                user = use.owner.operation
                if user == target:
                    return True
                if user.name in through and user.block == body and user not in seen:
                    seen.add(user)
                    frontier.append(user)
    return False
