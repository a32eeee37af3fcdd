"""Staging: tracing Python functions into ``func.func``s of one MLIR module.

A :class:`Trace` owns a module being built; a :class:`FunctionScope` is one function
inside it. Ops are appended to the innermost scope's body with the user's location.
A staged function called while tracing becomes a ``func.call`` to one shared
``func.func`` per (function, signature).

```mlir
func.func @predict(%arg0: tensor<3x2xf32>, ...) -> tensor<4x2xf32> {
  %0 = func.call @layer(%arg2, %arg0) : (...) -> tensor<4x2xf32> loc("model.py":9:11)
  ...
}
func.func private @layer(...)
```
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from s4tf import pytree
from s4tf.dialects.composition import DEFAULT_FLOAT, current_builder
from s4tf.dialects.ir_builder import IRBuilder
from s4tf.dialects.symbols import unique_symbol
from s4tf.dialects.types import TensorType, canonical_dtype, to_numpy_dtype
from s4tf.core.errors import S4tfError, StagingError
from s4tf.core.locations import SourceLocation, innermost_user_location, mlir_location, user_location
from s4tf.core.mlir import func, ir, new_context
from s4tf.staging.tensor import Tensor, Tracer, is_python_scalar

#: Called as ``hook(trace, python_fn, function, record, args, kwargs)`` after a function is
#: traced into a module; custom derivatives (``custom_derivatives.py``) attach their rules so.
after_trace_hooks: list = []


def current_scope() -> "FunctionScope | None":
    """The function ops are being staged into: the current builder
    (:meth:`~s4tf.dialects.ir_builder.IRBuilder.current`) where it is a scope, else ``None``."""
    builder = current_builder()
    return builder if isinstance(builder, FunctionScope) else None


# -- signatures -------------------------------------------------------------------------


@dataclass(frozen=True)
class Static:
    """A Python value (bool, int, float, str) that is part of the signature, not an input."""

    value: Any

    def key(self):
        return (type(self.value).__name__, self.value)


class WeakScalar:
    """A Python ``int`` or ``float`` passed straight to a staged function: traced as a weak-typed
    0-d input (JAX's rule), so one compiled version serves every value and the number
    promotes as a Python number does (``x_f32 * scale`` stays f32). Ints outside int32 and
    Python scalars inside pytrees (a model's sizes), bools and strings stay static.

    ```mlir
    func.func @scale(%x: tensor<3xf32>, %k: tensor<f32>) -> tensor<3xf32>   // scale(x, 2.5)
    ```
    """

    __slots__ = ("value",)  # a leaf, not a pytree node (dataclasses are nodes)

    def __init__(self, value: int | float):
        self.value = value

    @property
    def tensor_type(self) -> TensorType:
        return TensorType((), "i32" if isinstance(self.value, int) else DEFAULT_FLOAT)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype=dtype or to_numpy_dtype(self.tensor_type.dtype))


_INT32 = np.iinfo(np.int32)


def traced_scalars(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` with each Python ``int`` (within int32) and ``float`` argument as a
    :class:`WeakScalar`; everything else as it is."""
    if not kwargs:  # every call of a staged function asks: a loop, not a generator
        for value in args:
            if type(value) in _TRACED:
                break
        else:
            return args, kwargs

    def traced(value):
        kind = type(value)
        if kind is float or (kind is int and _INT32.min <= value <= _INT32.max):
            return WeakScalar(value)
        return value

    return tuple(map(traced, args)), {name: traced(value) for name, value in kwargs.items()}


_TRACED = frozenset((int, float))


def is_array_like(value) -> bool:
    return isinstance(value, (Tensor, np.ndarray, np.generic)) or hasattr(value, "__array__")


def is_static_scalar(leaf) -> bool:
    """Python scalars and strings are static (folded into the code); NumPy scalars are arrays."""
    return is_python_scalar(leaf) or isinstance(leaf, str)


def leaf_spec(leaf, path: str = "argument"):
    """A leaf's part of a signature: a :class:`TensorType` for arrays, :class:`Static` for scalars."""
    if isinstance(leaf, (Tensor, WeakScalar)):
        return leaf.tensor_type
    if is_static_scalar(leaf):
        return Static(leaf)
    if is_array_like(leaf):
        array = np.asarray(leaf)
        return TensorType(array.shape, canonical_dtype(array.dtype))
    raise StagingError(
        f"unsupported {path} of type {type(leaf).__name__}: staged functions take arrays, s4tf "
        "tensors, Python scalars and strings, in tuples, lists, dicts, dataclasses and classes "
        "registered with s4tf.register_pytree_node"
    )


def signature(leaves, tree) -> tuple:
    return tree, tuple(_leaf_key(leaf) for leaf in leaves)


def _leaf_key(leaf):
    spec = leaf_spec(leaf)
    if isinstance(spec, Static):
        return spec.key()
    return ("weak", spec) if isinstance(leaf, WeakScalar) else spec


def _input_tracer(argument, spec: TensorType, scope, leaf) -> Tracer:
    tracer = Tracer(argument, scope, spec)
    return tracer.as_weak() if isinstance(leaf, WeakScalar) else tracer


# -- functions in a trace ---------------------------------------------------------------


@dataclass
class FunctionRecord:
    """A traced ``func.func``: its symbol and how to rebuild its Python outputs.

    ``captured``: tracers of the enclosing function that the body used (a closure, as in
    ``s4tf.grad(lambda m: loss(m(x), y))`` inside a staged function); they are the
    function's last arguments, so every call passes them after the explicit ones.
    """

    symbol: str
    output_tree: pytree.TreeDef
    outputs: list  # per output leaf: an int (result index) or a Static
    result_types: list[TensorType]
    captured: list = field(default_factory=list)


class FunctionScope(IRBuilder):
    """The body of one ``func.func`` (or region) of ``trace`` being staged: an
    :class:`~s4tf.dialects.ir_builder.IRBuilder` whose values are :class:`Tracer` objects.

    Ops get the user's ``file:line``, or ``location`` when given (compiler passes that
    stage derivative code give the location of the op being differentiated), and their
    errors name the user's line. Tracers of an enclosing scope (``parent`` and its parents)
    used here are captured (:meth:`~s4tf.dialects.ir_builder.IRBuilder.ir_value`).
    """

    def __init__(self, block: ir.Block, trace: "Trace", location: ir.Location | None = None,
                 parent: "FunctionScope | None" = None):
        super().__init__(block, location, parent)
        self.trace = trace

    def wrap(self, value: ir.Value) -> Tracer:
        """``value`` (of this function) as a tracer."""
        return Tracer(value, self)

    def child(self, block: ir.Block) -> "FunctionScope":
        """The scope of ``block``, a region of an op staged here (``s4tf.if``, ``s4tf.while``)."""
        return FunctionScope(block, self.trace, self.location, parent=self)

    def foreign_value(self, operand) -> StagingError:
        return StagingError(
            "a traced tensor from another staged function is used here; pass it in as an argument",
            str(user_location() or ""),
        )

    def host_array(self, operand) -> np.ndarray:
        """A device tensor or host value as the array of a constant."""
        return np.asarray(operand)

    def emit(self, op_name: str, operands, attrs: dict) -> list[Tracer]:
        """Append ``s4tf.<op_name>`` to this function; shape errors name the user's line."""
        if self.location is not None:
            return super().emit(op_name, operands, attrs)
        source = user_location()
        with self.context:
            self.location = mlir_location(source)
        try:
            return super().emit(op_name, operands, attrs)
        except S4tfError as error:
            raise error.at(str(source) if source else None) from None
        finally:
            self.location = None


#: How deep a staged function may call itself while being traced: recursion must end at
#: trace time, on Python values (``f(x, n - 1)`` with ``n`` static).
MAX_RECURSION_DEPTH = 64

_LOOP_ADVICE = "write it as a loop instead: a Python `while` on a tensor, or s4tf.while_loop"


class Trace:
    """One MLIR module under construction."""

    def __init__(self):
        self.context = new_context()
        with self.context:
            self.module = ir.Module.create(loc=ir.Location.unknown())
        self.records: dict[tuple, FunctionRecord] = {}
        self._symbols: set[str] = set()
        self._tracing: list[tuple] = []  # the keys of the functions being traced, outermost first
        #: What the module's IR names by a key of a process-wide table held weakly (host
        #: functions, custom batching rules): held here, and by the staged module after.
        self.owned: set = set()

    def _check_recursion(self, key: tuple, name: str) -> None:
        """A staged function that calls itself must end its recursion at trace time."""
        where = str(user_location() or "") or None
        if key in self._tracing:
            raise StagingError(
                f"'{name}' calls itself with arguments of the same shapes, dtypes and static values while it is "
                f"being traced, so its recursion depends on tensor values and cannot end at trace time; {_LOOP_ADVICE}",
                where,
            )
        depth = sum(1 for other in self._tracing if other[0] is key[0])
        if depth >= MAX_RECURSION_DEPTH:
            raise StagingError(
                f"'{name}' called itself {depth} levels deep while being traced (the limit is {MAX_RECURSION_DEPTH}); "
                f"recursion must end at trace time, on Python values such as a static int argument; {_LOOP_ADVICE}",
                where,
            )

    def own(self, entry) -> None:
        """Keep ``entry`` (a table entry the module's IR names) alive as long as the module."""
        self.owned.add(entry)

    def reserve_symbols(self, symbols) -> None:
        """Keep ``symbols`` (functions the AD passes added to the module) from new functions."""
        self._symbols.update(symbols)

    def _unique_symbol(self, name: str) -> str:
        symbol = unique_symbol(name, self._symbols)
        self._symbols.add(symbol)
        return symbol

    def trace_function(self, python_fn, name: str, args, kwargs, public: bool, closure: bool = True) -> FunctionRecord:
        """Trace ``python_fn(*args, **kwargs)`` into a new ``func.func``; with ``closure``,
        tracers of the function being staged around it may be used (see :class:`FunctionRecord`)."""
        leaves, tree = pytree.flatten((args, kwargs))
        key = (python_fn, signature(leaves, tree))
        if key in self.records:
            return self.records[key]
        self._check_recursion(key, name)
        self._tracing.append(key)
        try:
            return self._trace_new_function(python_fn, name, key, leaves, tree, args, kwargs, public, closure)
        except RecursionError:  # Python's limit, reached before MAX_RECURSION_DEPTH
            raise StagingError(
                f"'{name}' nests calls too deeply while being traced (beyond Python's recursion limit); {_LOOP_ADVICE}",
                str(user_location() or "") or None,
            ) from None
        finally:
            self._tracing.pop()

    def _trace_new_function(self, python_fn, name: str, key, leaves, tree, args, kwargs, public: bool, closure: bool):
        specs = [leaf_spec(leaf) for leaf in leaves]
        tensor_types = [spec for spec in specs if isinstance(spec, TensorType)]
        source = _definition_location(python_fn)
        with self.context, mlir_location(source):
            with ir.InsertionPoint(self.module.body):
                function = func.FuncOp(self._unique_symbol(name), ir.FunctionType.get([t.to_mlir() for t in tensor_types], []))
            if not public:
                function.attributes["sym_visibility"] = ir.StringAttr.get("private")
            block = function.add_entry_block()
        enclosing = current_scope()
        parent = enclosing if closure and enclosing is not None and enclosing.trace is self else None
        scope = FunctionScope(block, self, parent=parent)
        arguments = iter(block.arguments)
        traced_leaves = [
            spec.value if isinstance(spec, Static) else _input_tracer(next(arguments), spec, scope, leaf)
            for spec, leaf in zip(specs, leaves)
        ]
        traced_args, traced_kwargs = pytree.unflatten(tree, traced_leaves)
        try:
            with scope.building():
                output = python_fn(*traced_args, **traced_kwargs)
                record = self._finish(function, scope, output, source)
        except S4tfError as error:
            if error.location:
                raise
            where = innermost_user_location(error.__traceback__)
            raise error.at(str(where) if where else None) from None
        if not record.captured:  # a closure's record holds tracers of one enclosing trace
            self.records[key] = record
        for hook in after_trace_hooks:
            hook(self, python_fn, function.operation, record, args, kwargs)
        return record

    def _finish(self, function, scope: FunctionScope, output, source) -> FunctionRecord:
        output_leaves, output_tree = pytree.flatten(output)
        values, outputs = [], []
        for leaf in output_leaves:
            if is_static_scalar(leaf) or leaf is None:
                outputs.append(Static(leaf))
            else:
                leaf_spec(leaf, "return value")
                outputs.append(len(values))
                with self.context:
                    values.append(scope.ir_value(leaf))
        with self.context, mlir_location(source):
            with ir.InsertionPoint(scope.block):
                func.ReturnOp(values)
            input_types = [argument.type for argument in scope.block.arguments]  # captures included
            function.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(input_types, [v.type for v in values])
            )
        return FunctionRecord(
            ir.StringAttr(function.attributes["sym_name"]).value,
            output_tree,
            outputs,
            [TensorType.from_mlir(v.type) for v in values],
            [scope.parent.wrap(outer) for outer in scope.captures],
        )

    def call(self, python_fn, name: str, args, kwargs):
        """Stage a call of another staged function from the current scope: a ``func.call``."""
        caller = current_scope()
        record = self.trace_function(python_fn, name, args, kwargs, public=False)
        leaves, _ = pytree.flatten((args, kwargs))
        tensor_leaves = [leaf for leaf in leaves if not isinstance(leaf_spec(leaf), Static)]
        with self.context:
            location = mlir_location(user_location())
        results = caller.call(record.symbol, tensor_leaves + record.captured, record.result_types, location)
        return rebuild_outputs(record, results)


def rebuild_outputs(record: FunctionRecord, results: list):
    leaves = [results[o] if isinstance(o, int) else o.value for o in record.outputs]
    return pytree.unflatten(record.output_tree, leaves)


def _definition_location(python_fn) -> SourceLocation | None:
    code = getattr(python_fn, "__code__", None)
    return SourceLocation(code.co_filename, code.co_firstlineno) if code else None

