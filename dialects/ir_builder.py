"""The compiler's IR builder: s4tf ops appended to a block at a location, types inferred.

Passes build IR with an :class:`IRBuilder`, never through the frontend. Its values
(:class:`Value`) have the operators of :class:`~s4tf.dialects.composition.ArrayValue`,
and inside ``builder.building()`` the NumPy-style compositions of
:mod:`s4tf.dialects.composition` (the ``ops`` that derivative rules get) build at this
builder. Region ops are built from Python callbacks; a value of an enclosing block used
in a region is passed in as an operand (regions are isolated from above).

```python
builder = IRBuilder(block, location)
with builder.building():
    y = composition.sum(builder.wrap(x) * 2.0)            # s4tf.mul, s4tf.reduce_sum
    (z,) = builder.cond(y > 0, lambda v: [v], lambda v: [-v], [y])   # s4tf.if
```

While a pass runs, :func:`only_builders` makes an op built anywhere else an error
instead of an op that the frontend would run at once.
"""

from __future__ import annotations

import contextlib

import numpy as np

from s4tf.dialects import composition
from s4tf.dialects.composition import ArrayValue, OpOutsideBuilderError, asarray
from s4tf.dialects.control_flow import mark_copies, mark_trip_count
from s4tf.dialects.op_def import build, lookup
from s4tf.dialects.regions import TERMINATOR, RegionHolder
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir


class Value(ArrayValue):
    """An MLIR value of the block ``builder`` fills (``tensor_type``: its type, where the
    caller knows it)."""

    def __init__(self, value: ir.Value, builder: "IRBuilder", tensor_type: TensorType | None = None):
        self.value = value
        self.builder = builder
        self._tensor_type = tensor_type or TensorType.from_mlir(value.type)

    @property
    def tensor_type(self) -> TensorType:
        return self._tensor_type

    def as_weak(self) -> "Value":
        """The same value, standing for a Python number."""
        weak = type(self)(self.value, self.builder, self._tensor_type)
        weak.weak, weak.exact = True, self.exact
        return weak

    def __bool__(self):
        raise TypeError(f"the truth value of a built {self._tensor_type} value is only known when it runs")

    def __repr__(self):
        return f"Value({self._tensor_type})"


class IRBuilder:
    """Appends ops to the end of ``block``, at ``location``. ``parent``: the builder of the
    block that holds the region op this block belongs to; values of ``parent`` (and of its
    parents) used here are captured: each becomes a block argument (``captures`` maps the
    outer value to it).

    The frontend's tracing scope (:class:`s4tf.staging.tracing.FunctionScope`) is an
    ``IRBuilder`` whose values are tracers and whose ops get the user's line: it overrides
    :meth:`wrap`, :meth:`emit`, :meth:`host_array` and :meth:`foreign_value`."""

    def __init__(self, block: ir.Block, location: ir.Location | None, parent: "IRBuilder | None" = None):
        self.block = block
        self.location = location
        self.context = block.owner.context
        self.parent = parent
        self.captures: dict = {}

    @staticmethod
    def current() -> "IRBuilder":
        """The builder of the innermost ``building()`` block (the frontend's tracing scope
        inside a staged function)."""
        builder = composition.current_builder()
        if not isinstance(builder, IRBuilder):
            raise OpOutsideBuilderError("IRBuilder.current() outside any IRBuilder.building() block")
        return builder

    @contextlib.contextmanager
    def building(self, location: ir.Location | None = None):
        """Inside the block, ops built with :mod:`s4tf.dialects.composition` (and the values'
        operators) are appended here, at ``location`` (default: the builder's)."""
        previous = self.location
        self.location = location or self.location
        try:
            with composition.building(self):
                yield self
        finally:
            self.location = previous

    def wrap(self, value: ir.Value) -> Value:
        """``value`` (of this block) as a :class:`Value`."""
        return Value(value, self)

    def _encloses(self, builder: "IRBuilder") -> bool:
        outer = self.parent
        while outer is not None and outer is not builder:
            outer = outer.parent
        return outer is builder

    def ir_value(self, operand) -> ir.Value:
        """The MLIR value for ``operand`` here: a value of this block, one of an enclosing
        block (captured), or a host constant (a new ``s4tf.constant``)."""
        if isinstance(operand, Value):
            if operand.builder is self:
                return operand.value
            if not self._encloses(operand.builder):
                raise self.foreign_value(operand)
            outer = self.parent.ir_value(operand)
            if outer not in self.captures:
                self.captures[outer] = self.block.add_argument(outer.type, ir.Location.unknown(context=self.context))
            return self.captures[outer]
        return self.emit("constant", [], {"value": self.host_array(operand)})[0].value

    def foreign_value(self, operand: Value) -> Exception:
        """The error for ``operand``, a value of a block that does not enclose this one."""
        return OpOutsideBuilderError(f"{operand!r} belongs to a block that does not enclose this one")

    def host_array(self, operand) -> np.ndarray:
        """``operand``, a host value, as the array of a constant."""
        if isinstance(operand, ArrayValue):
            raise OpOutsideBuilderError(f"{type(operand).__name__} {operand.tensor_type} is not a value of an IR builder")
        return np.asarray(operand)

    def emit(self, op_name: str, operands, attrs: dict) -> list[Value]:
        """Append ``s4tf.<op_name>(operands) {attrs}``; its result types are inferred."""
        with self.context:
            values = [self.ir_value(operand) for operand in operands]
            with ir.InsertionPoint(self.block):
                operation = build(lookup(op_name), values, attrs, self.location)
        return [self.wrap(r) for r in operation.results]

    def call(self, symbol: str, operands, result_types: list[TensorType], location: ir.Location | None = None) -> list[Value]:
        """Append ``func.call @symbol(operands)``."""
        with self.context, location or self.location, ir.InsertionPoint(self.block):
            call = ir.Operation.create(
                "func.call",
                results=[t.to_mlir() for t in result_types],
                operands=[self.ir_value(o) for o in operands],
                attributes={"callee": ir.FlatSymbolRefAttr.get(symbol)},
            )
        return [self.wrap(r) for r in call.results]

    def clone(self, operation: ir.Operation, value_map: dict) -> ir.Operation:
        """Copy ``operation`` here; its operands are read from ``value_map`` (MLIR value ->
        :class:`Value`), where its results are recorded."""
        with self.context, ir.InsertionPoint(self.block):
            copy = operation.clone()
        for index, operand in enumerate(operation.operands):
            copy.operands[index] = self.ir_value(value_map[operand])
        for old, new in zip(operation.results, copy.results):
            value_map[old] = self.wrap(new)
        return copy

    # -- region ops ----------------------------------------------------------------------

    def cond(self, predicate: Value, true_fn, false_fn, operands: list) -> list[Value]:
        """``s4tf.if``: ``true_fn(*operands)`` if ``predicate`` (a ``tensor<i1>``) else
        ``false_fn(*operands)``; each returns a list of values of the same types."""
        with self.building():
            operands = [v if isinstance(v, Value) else asarray(v) for v in operands]
        regions = Regions(self, 2)
        try:
            outputs = [regions.stage(i, fn, [self._operand_type(v) for v in operands]) for i, fn in enumerate((true_fn, false_fn))]
            types = [v.tensor_type for v in outputs[0]]
            if [v.tensor_type for v in outputs[1]] != types:
                raise OpOutsideBuilderError(f"the branches of an s4tf.if yield {types} and {[v.tensor_type for v in outputs[1]]}")
            return regions.build("if", [predicate], operands, types)
        finally:
            regions.discard()

    def while_loop(self, cond_fn, body_fn, init: tuple, trips: int | None = None, copies: int = 1) -> tuple:
        """``s4tf.while``: ``carry = init; while cond_fn(carry): carry = body_fn(carry)``.
        ``init`` is a tuple whose items are values or lists of values; ``body_fn`` returns
        the same structure with the same types, ``cond_fn`` a ``tensor<i1>`` scalar;
        ``trips``: the loop's iterations where they are known (:data:`~s4tf.dialects.control_flow.TRIP_COUNT`);
        ``copies``: the iterations of the loop it was made from that a trip runs
        (:data:`~s4tf.dialects.control_flow.COPIES`)."""
        with self.building():
            flat = [v if isinstance(v, Value) else asarray(v) for v in _flatten(init)]
        types = [v.tensor_type for v in flat]
        regions = Regions(self, 2)
        try:
            regions.stage(0, lambda *values: [cond_fn(_unflatten(init, values))], types)
            body = regions.stage(1, lambda *values: _flatten(body_fn(_unflatten(init, values))), types)
            if [v.tensor_type for v in body] != types:
                raise OpOutsideBuilderError(f"the body of an s4tf.while yields {[v.tensor_type for v in body]}, carrying {types}")
            results = regions.build("while", [], flat, types, carried=True)
            if trips is not None:
                mark_trip_count(results[0].value.owner, trips)
            if copies > 1:
                mark_copies(results[0].value.owner, copies)
            return _unflatten(init, results)
        finally:
            regions.discard()

    def child(self, block: ir.Block) -> "IRBuilder":
        """The builder of ``block``, a block of a region op built here."""
        return IRBuilder(block, self.location, parent=self)

    def finish(self, values: list) -> None:
        """End this region's block with the terminator yielding ``values``."""
        with self.context, ir.Location.unknown(), ir.InsertionPoint(self.block):
            ir.Operation.create(TERMINATOR, operands=[self.ir_value(v) for v in values])

    def _operand_type(self, operand) -> TensorType:
        return operand.tensor_type if isinstance(operand, Value) else TensorType.from_mlir(self.ir_value(operand).type)


class Regions:
    """The regions of one region op being built: each block is filled by a child builder
    (:meth:`IRBuilder.child`) in a :class:`~s4tf.dialects.regions.RegionHolder`, then moved
    into the op (:meth:`build`). The frontend's ``s4tf.cond`` and loops use it as
    :meth:`IRBuilder.cond` and :meth:`IRBuilder.while_loop` do."""

    def __init__(self, parent: IRBuilder, count: int):
        self.parent = parent
        self.holder = RegionHolder(parent.block, count, parent.context)
        self.builders: list[IRBuilder] = []

    def open(self, index: int, types: list[TensorType]) -> IRBuilder:
        """The builder of region ``index``'s block, whose arguments have ``types``."""
        builder = self.parent.child(self.holder.add_block(index, types))
        self.builders.append(builder)
        return builder

    def stage(self, index: int, fn, types: list[TensorType]) -> list[Value]:
        """Build region ``index``: ``fn`` on its arguments (of ``types``), ended by a
        terminator yielding what ``fn`` returns; returns that."""
        builder = self.open(index, types)
        with builder.building():
            outputs = [v if isinstance(v, Value) else asarray(v) for v in fn(*map(builder.wrap, builder.block.arguments))]
        builder.finish(outputs)
        return outputs

    def build(self, name: str, head: list, operands: list, result_types: list[TensorType],
              location: ir.Location | None = None, carried: bool = False) -> list[Value]:
        """Create ``s4tf.<name>(head..., operands..., captures...)`` at ``location`` (default:
        the parent's), move the regions into it, and return its results."""
        parent = self.parent
        location = location or parent.location
        with parent.context, location:
            values = [parent.ir_value(v) for v in operands]
            head_values = [parent.ir_value(v) for v in head]
            types = [t.to_mlir() for t in result_types]
        operation = self.holder.assemble(
            name, head_values, values, types,
            [(builder.block, list(builder.captures)) for builder in self.builders], location, carried,
        )
        return [parent.wrap(r) for r in operation.results][: len(result_types)]

    def discard(self) -> None:
        self.holder.discard()


def _flatten(parts) -> list:
    """The values of a tuple of values and lists of values, in order."""
    return [v for part in parts for v in (part if isinstance(part, (list, tuple)) else [part])]


def _unflatten(like, values) -> tuple:
    """``values`` in the structure of ``like`` (see :func:`_flatten`)."""
    values, result = iter(values), []
    for part in like:
        result.append([next(values) for _ in part] if isinstance(part, (list, tuple)) else next(values))
    return tuple(result)


class _Refusing:
    """The current builder while a pass runs, outside its IR builders: every op is an error."""

    def __init__(self, owner: str):
        self.owner = owner

    def emit(self, op_name, operands, attrs):
        raise OpOutsideBuilderError(f"{self.owner} built 's4tf.{op_name}' outside an IR builder (IRBuilder.building())")


@contextlib.contextmanager
def only_builders(owner: str):
    """Inside the block, an op built outside an :meth:`IRBuilder.building` block raises
    :class:`OpOutsideBuilderError` naming ``owner``, instead of going to the frontend
    (which would stage it into a trace or run it at once)."""
    with composition.building(_Refusing(owner)):
        yield
