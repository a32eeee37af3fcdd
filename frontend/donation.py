"""Buffer donation: a staged function's results written into the buffers of its inputs.

``@s4tf.function(donate_argnums=(0, 1))`` marks arguments whose tensors the caller gives
away: each donated input is paired with the first unpaired result of the same type, and
the entry function tells IREE to write that result into the input's buffer
(``iree.abi.output``), so a training step updates the weights in place instead of holding
them twice::

    func.func @train_step(%w: tensor<784x512xf32> {iree.abi.output = 0 : index}, ...)

A donated :class:`~s4tf.Tensor` is unusable after the call (reading it raises, naming
the function); NumPy arrays are copied to the device first, so they never change.

IREE writes such a result into the input's buffer as soon as it is computed, while other
work may still read the input (a probe gave wrong sums), so a pair is only made when that
cannot happen (:func:`safe_to_alias`): the result is computed elementwise, every op that
reads the input is one it waits for, and no op that reads the input other than
elementwise reaches it through elementwise ops alone (which IREE could fuse into one
dispatch). Where the only problem is a read the result does not wait for (back-propagation
reading a weight for earlier layers after that weight's update could run), the result is
made to wait for it through a ``stablehlo.optimization_barrier``
(:func:`_ordered_after_readers`). A training step's updates ``p - lr * g(...)`` all pass.
"""

from __future__ import annotations

from s4tf import pytree
from s4tf.errors import S4tfError
from s4tf.mlir import ir, new_context
from s4tf.tracing import Static, leaf_spec

ALIAS_ATTRIBUTE = "iree.abi.output"
BARRIER = "stablehlo.optimization_barrier"


def donated_positions(args, donate_argnums) -> list[int]:
    """Flat tensor-input positions of the arguments ``donate_argnums``."""
    unknown = [n for n in donate_argnums if not 0 <= n < len(args)]
    if unknown:
        raise S4tfError(f"donate_argnums {unknown} are not positions of the {len(args)} arguments")
    positions, position = [], 0
    for index, arg in enumerate(args):
        count = sum(not isinstance(leaf_spec(leaf), Static) for leaf in pytree.flatten(arg)[0])
        if index in donate_argnums:
            positions += range(position, position + count)
        position += count
    return positions


def alias_results(stablehlo: str, entry: str, donated: list[int]) -> tuple[str, list[int]]:
    """``stablehlo`` with the donated inputs of ``entry`` marked as storage of results of
    the same type, and the inputs that found one (a donated input without a result of
    its type is passed as usual)."""
    with new_context():
        module = ir.Module.parse(stablehlo)
        function = next(
            op for op in module.body.operations
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == entry
        )
        function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        inputs, results = list(function_type.inputs), list(function_type.results)
        existing = list(ir.ArrayAttr(function.attributes["arg_attrs"])) if "arg_attrs" in function.attributes else []
        attributes = [
            {named.name: named.attr for named in ir.DictAttr(attr)} if i < len(existing) else {}
            for i, attr in enumerate(existing + [None] * (len(inputs) - len(existing)))
        ]
        free, aliased = list(range(len(results))), []
        body = function.regions[0].blocks[0]
        returned = list(list(body.operations)[-1].operands)
        for position in donated:
            argument = body.arguments[position]
            match = next(
                (
                    r for r in free if results[r] == inputs[position]
                    and (safe_to_alias(body, argument, returned[r]) or _ordered_after_readers(body, argument, returned[r]))
                ),
                None,
            )
            if match is None:
                continue
            free.remove(match)
            aliased.append(position)
            attributes[position][ALIAS_ATTRIBUTE] = ir.IntegerAttr.get(ir.IndexType.get(), match)
        function.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in attributes])
        return str(module), aliased


#: StableHLO ops that compute each element of the result from the same element of the operands.
ELEMENTWISE = frozenset(
    f"stablehlo.{name}" for name in (
        "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "exponential", "log",
        "log_plus_one", "sqrt", "rsqrt", "power", "abs", "sign", "tanh", "logistic", "sine", "cosine",
        "select", "compare", "convert", "clamp", "and", "or", "not", "remainder", "floor", "ceil",
    )
)


def _top_level(operation, body: ir.Block):
    """The op of ``body`` that holds ``operation`` (itself, or an op whose region has it)."""
    while operation.parent is not None and operation.block != body:
        operation = operation.parent
    return operation


def _elementwise_producer(body: ir.Block, result: ir.Value):
    """The elementwise op of ``body`` computing ``result``, or ``None``."""
    owner = getattr(result.owner, "operation", None)  # a block argument's owner is its block
    if owner is None or owner.name not in ELEMENTWISE or owner.block != body:
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


def _ordered_after_readers(body: ir.Block, argument: ir.Value, result: ir.Value) -> bool:
    """Make ``result`` wait for every op reading ``argument``, then check it is safe to
    alias: its elementwise producer, used only by the return, moves to just before the
    return and takes its operands through a ``stablehlo.optimization_barrier`` that also
    holds the readers' results (the barrier orders them and keeps IREE from fusing)::

        %b:3 = stablehlo.optimization_barrier %w, %update, %read_w : ...
        %new_w = stablehlo.subtract %b#0, %b#1 : tensor<512x512xf32>
    """
    producer = _elementwise_producer(body, result)
    if producer is None or any(use.owner.operation.name != "func.return" for use in result.uses):
        return False
    ancestors = _ancestors(body, producer)
    late = [reader for reader in _readers(body, argument) if reader not in ancestors]
    terminator = list(body.operations)[-1].operation
    if not late or any(reader == terminator for reader in late):
        return False
    producer.move_before(terminator)
    values = [*producer.operands, *(value for reader in late for value in reader.results)]
    with ir.InsertionPoint(producer), producer.location:
        barrier = ir.Operation.create(
            BARRIER, results=[v.type for v in values], operands=values
        )
    for index in range(len(producer.operands)):
        producer.operands[index] = barrier.results[index]
    return safe_to_alias(body, argument, result)


def safe_to_alias(body: ir.Block, argument: ir.Value, result: ir.Value) -> bool:
    """Whether IREE may write ``result`` into ``argument``'s buffer (see the module docstring)."""
    producer = _elementwise_producer(body, result)
    if producer is None:
        return False
    ancestors = _ancestors(body, producer)
    readers = _readers(body, argument)
    if not readers <= ancestors:
        return False
    for reader in readers:
        if reader.name not in ELEMENTWISE and _elementwise_path(reader, producer, body):
            return False
    return True


def _readers(body: ir.Block, value: ir.Value) -> set:
    """The ops of ``body`` that read ``value``, looking through optimization barriers
    (which pass each operand on unchanged as the result of the same index)."""
    readers = set()
    for use in value.uses:
        reader = _top_level(use.owner.operation, body)
        if reader.name == BARRIER:
            readers |= _readers(body, reader.results[use.operand_number])
        else:
            readers.add(reader)
    return readers


def _elementwise_path(start, target, body: ir.Block) -> bool:
    """Whether ``start``'s results reach ``target`` through elementwise ops of ``body`` only."""
    frontier, seen = [start], {start}
    while frontier:
        for value in frontier.pop().results:
            for use in value.uses:
                user = use.owner.operation
                if user == target:
                    return True
                if user.name in ELEMENTWISE and user.block == body and user not in seen:
                    seen.add(user)
                    frontier.append(user)
    return False
