"""Lazy traces: in lazy mode (:mod:`s4tf.lazy_tensors.mode`) ops are recorded, not run (the S4TF
paper's LazyTensor, sections 3.3-3.4).

An op on tensors appends a node to this thread's :class:`LazyTrace` and returns
:class:`LazyTensor`\\ s, whose types are inferred at once (shape errors name the user's
line) and whose elements are computed when one of them is observed (``np.asarray``,
``float()``, ``bool()``, printing) or at :func:`barrier`. Then every recorded tensor still
alive is computed by one function that replays the trace's nodes through the ordinary
staging (:class:`~s4tf.staging.tracing.FunctionScope`), lowering and IREE compilation. Traces are
keyed by their structure (ops, attributes, which node feeds which, input shapes and dtypes;
never values: host arrays and tensors are inputs), so a loop that records the same step
again replays one compiled module; modules are kept in memory (:data:`CACHE_SIZE`) and, as
every compiled module, on disk.

A staged function called in lazy mode is one node (a ``func.call`` in the compiled
trace). ``s4tf.grad`` and ``value_and_grad`` of a Python function record the function's
ops into a sub-trace, which is replayed as the function the staged transform
differentiates; the transform is cached by the sub-trace's structure, so the function is
re-run in Python at each step (as in eager mode) and compiled once.
"""

from __future__ import annotations

import functools
import threading
import warnings
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass, field

import numpy as np

from s4tf import pytree
from s4tf.dialects.op_def import lookup
from s4tf.dialects.types import TensorType, canonical_dtype
from s4tf.core.errors import S4tfError, StagingError
from s4tf.core.locations import mlir_location, user_line, user_location
from s4tf.runtime.device import to_device
from s4tf.staging.function import StagedFunction, module_input
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import Static, current_scope, leaf_spec, rebuild_outputs, signature

#: Ops a trace may hold: recording one more runs the trace first (with a warning naming
#: the line), so a loop with no observation and no barrier does not grow one without end.
MAX_TRACE_OPS = 5000
#: How many compiled traces (each a loaded IREE module) are kept in memory.
CACHE_SIZE = 64
#: How many lowered staged functions called in lazy mode keep their output records.
CALL_CACHE_SIZE = 256
#: How many (op, attributes, operand types) keep their inferred result types.
INFERENCE_CACHE_SIZE = 4096

_ops: dict = {}  # op names as given -> their definitions
_inferred: dict = {}  # (op, attributes, operand (shape, dtype)s) -> (result types, their (shape, dtype)s)


class LazyTraceWarning(UserWarning):
    """A lazy trace grew past :data:`MAX_TRACE_OPS` ops and was cut where it grew."""


@dataclass
class LazyStats:
    """What lazy mode did (:func:`lazy_stats`): traces run, compiled or found in memory."""

    traces_run: int = 0  #: traces computed (each one module call)
    traces_compiled: int = 0  #: distinct trace structures staged and compiled (or loaded from disk)
    cache_hits: int = 0  #: traces run with a module compiled before
    ops_recorded: int = 0  #: nodes (ops and calls of staged functions) of the traces run or cut
    cuts: int = 0  #: traces cut at MAX_TRACE_OPS
    ops_per_trace: list = field(default_factory=list)  #: nodes of each trace run (the last 1000)


_stats = LazyStats()
_ops_per_trace: deque = deque(maxlen=1000)
_lock = threading.RLock()
_state = threading.local()


def lazy_stats(reset: bool = False) -> LazyStats:
    """A snapshot of the lazy-mode counters of this process; ``reset`` zeroes them after."""
    with _lock:
        snapshot = LazyStats(**{**_stats.__dict__, "ops_per_trace": list(_ops_per_trace)})
        if reset:
            _stats.__dict__.update(LazyStats().__dict__)
            _ops_per_trace.clear()
    return snapshot


# -- tensors and traces -------------------------------------------------------------


class LazyTensor(Tensor):
    """A tensor that a lazy trace will compute: its type is known now, its elements once the
    trace runs (reading them runs it). ``ref`` is ``(node, result)``, or an input's index."""

    def __init__(self, trace: "LazyTrace", ref, tensor_type: TensorType, target: str):
        super().__init__(None, target, pending=trace)
        self.ref = ref
        self._lazy_type = tensor_type

    @property
    def tensor_type(self) -> TensorType:
        return self._lazy_type

    @property
    def shape(self) -> tuple[int, ...]:
        return self._lazy_type.shape


_host_types: dict = {}


def _type_of(value) -> TensorType:
    if isinstance(value, Tensor):
        return value.tensor_type
    key = (value.shape, value.dtype)  # a host array: the same few types again and again
    tensor_type = _host_types.get(key)
    if tensor_type is None:
        if len(_host_types) >= INFERENCE_CACHE_SIZE:
            _host_types.clear()
        tensor_type = _host_types[key] = TensorType(value.shape, canonical_dtype(value.dtype))
    return tensor_type


class LazyTrace:
    """Nodes recorded in one thread since the last run. A sub-trace (``sub``) records a
    function being differentiated: it is replayed inside the transform, never run."""

    def __init__(self, sub: bool = False):
        self.sub = sub
        self.closed = False  # a sub-trace whose function returned
        self.done = False
        self.error: Exception | None = None
        self.target = None  # the first tensor input's target
        self.nodes: list[tuple] = []  # ("op", name, attrs, refs) or ("call", staged, tree, leaf specs, result positions, refs)
        self.node_types: list[list[TensorType]] = []
        self.node_keys: list[list[tuple]] = []  # (shape, dtype) of each result
        self.lines: list = []  # the user's line that recorded each node (not part of the key)
        self.inputs: list = []
        self.input_types: list[TensorType] = []
        self.input_keys: list[tuple] = []  # (shape, dtype) of each input: hashed faster than TensorTypes
        self._input_index: dict[int, int] = {}  # id of the value given -> input index
        self._kept: list = []  # the values given, so that their ids stay theirs
        self._results: list = []  # weak references to the LazyTensors recorded

    # -- recording

    def parameter(self, tensor_type: TensorType) -> LazyTensor:
        """A new input standing for an argument of the function a sub-trace records."""
        self.inputs.append(None)
        self.input_types.append(tensor_type)
        self.input_keys.append((tensor_type.shape, tensor_type.dtype))
        return self._tensor(len(self.inputs) - 1, tensor_type)

    def ref(self, operand):
        """Where ``operand`` comes from: a node's result, or an input (added if new)."""
        if isinstance(operand, LazyTensor) and operand.pending is not None:
            if operand.pending is self:
                return operand.ref
            if operand.pending.closed:
                raise StagingError(
                    "a tensor computed inside a function given to s4tf.grad or s4tf.value_and_grad is used "
                    "outside it (was it stored in a global?); return it from the function instead",
                    str(user_location() or ""),
                )
        index = self._input_index.get(id(operand))
        if index is None:
            index = self._input_index[id(operand)] = len(self.inputs)
            self._kept.append(operand)
            value = operand if isinstance(operand, Tensor) else np.array(operand)  # a copy: later writes don't count
            self.inputs.append(value)
            tensor_type = _type_of(value)
            self.input_types.append(tensor_type)
            self.input_keys.append((tensor_type.shape, tensor_type.dtype))
            if self.target is None and isinstance(value, Tensor):
                self.target = value.target
        return index

    def type_of(self, ref) -> TensorType:
        return self.input_types[ref] if isinstance(ref, int) else self.node_types[ref[0]][ref[1]]

    def type_key(self, ref) -> tuple:
        return self.input_keys[ref] if isinstance(ref, int) else self.node_keys[ref[0]][ref[1]]

    def add(self, node: tuple, result_types: list[TensorType], result_keys=None) -> list[LazyTensor]:
        line = user_line()
        self.lines.append(line)
        self.node_types.append(result_types)
        self.node_keys.append(result_keys or [(t.shape, t.dtype) for t in result_types])
        index = len(self.nodes)
        self.nodes.append(node)  # last: a run in another thread sees whole nodes
        tensors = [self._tensor((index, i), t) for i, t in enumerate(result_types)]
        if self.done:  # checked after appending: a run that starts later sees these tensors
            raise StagingError(
                "another thread ran this thread's lazy trace while an op was being recorded; read lazy tensors "
                "in the thread that records them, or call s4tf.barrier() there before handing them over",
                str(line or ""),
            )
        return tensors

    def _tensor(self, ref, tensor_type: TensorType) -> LazyTensor:
        tensor = LazyTensor(self, ref, tensor_type, self.target or "cpu")
        self._results.append(weakref.ref(tensor))
        return tensor

    # -- running (the ``pending`` protocol of Tensor)

    def ready(self) -> bool:
        return self.done

    def wait(self) -> None:
        if self.sub:
            raise StagingError(
                "cannot read the value of a tensor inside a function given to s4tf.grad or s4tf.value_and_grad "
                "in lazy mode: the function is staged and differentiated as a whole. Use s4tf.where for "
                "tensor-dependent choices, or return the tensor and inspect it outside.",
                str(user_location() or ""),
            )
        self.run()
        if self.error is not None:
            raise self.error

    def run(self) -> None:
        """Compute every recorded tensor still alive, with one compiled module."""
        with _lock:
            if self.done:
                return
            self.done = True
            if getattr(_state, "trace", None) is self:
                _state.trace = None
            _stats.ops_recorded += len(self.nodes)
            outputs = [t for t in (r() for r in self._results) if t is not None and t.pending is self]
            try:
                if outputs:
                    self._compute(outputs)
            except S4tfError as error:
                self.error = error.with_traceback(None)
                raise self.error from None
            except Exception as error:  # kept too: the trace's tensors raise it when read
                self.error = error
                raise
            finally:  # what was recorded is no longer needed: the tensors hold their values or the error
                self.nodes, self.node_types, self.node_keys, self.lines = [], [], [], []
                self.inputs, self._kept, self._results = [], [], []
                self.input_types, self.input_keys, self._input_index = [], [], {}

    def _compute(self, outputs: list[LazyTensor]) -> None:
        key = (tuple(self.nodes), tuple(self.input_keys), tuple(t.ref for t in outputs), self.target or "cpu")
        compiled = _compiled_trace(key, self.inputs, self.lines)
        module = compiled.module  # every input is a tensor and none is donated: invoked directly
        arrays = module.invoke(compiled.lowered.entry, [module_input(value, module.device) for value in self.inputs])
        for tensor, array in zip(outputs, arrays):
            tensor._device_array, tensor.target, tensor.pending = array, module.target, None
        with _lock:
            _stats.traces_run += 1
            _ops_per_trace.append(len(self.nodes))


def _stack() -> list[LazyTrace]:
    """The sub-traces being recorded in this thread, innermost last."""
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


def _recording_trace() -> LazyTrace:
    """The trace the next node goes to (a new one after a run, or past the size limit)."""
    stack = _stack()
    if stack:
        return stack[-1]
    trace = getattr(_state, "trace", None)
    if trace is not None and len(trace.nodes) >= MAX_TRACE_OPS:
        where = user_location()
        message = (
            f"a lazy trace grew to {MAX_TRACE_OPS} ops with no value observed and no s4tf.barrier(); it runs "
            "here and recording starts again. In a loop, call s4tf.barrier() once per iteration (after the "
            "optimizer update) so that each iteration records the same trace and replays one compiled module"
        )
        if where is not None:
            warnings.warn_explicit(message, LazyTraceWarning, where.file, where.line)
        else:
            warnings.warn(message, LazyTraceWarning)
        with _lock:
            _stats.cuts += 1
        trace.run()
        trace = None
    if trace is None or trace.done:
        trace = _state.trace = LazyTrace()
    return trace


def barrier() -> None:
    """Run this thread's lazy trace now (the paper's ``LazyTensorBarrier``): every recorded
    tensor still alive is computed, and the next op starts a new trace. Does nothing inside
    a staged function, inside a function being differentiated, or with nothing recorded."""
    if current_scope() is not None or _stack():
        return
    trace = getattr(_state, "trace", None)
    if trace is not None:
        trace.wait()


# -- recording ops and calls ------------------------------------------------------------


def record_op(op_name: str, operands, attrs: dict) -> list[Tensor]:
    """``s4tf.<op_name>(*operands) {attrs}`` recorded: its results, computed later."""
    op = _ops.get(op_name) or _ops.setdefault(op_name, lookup(op_name))
    if attrs or op.attributes:
        attrs = op.normalize_attributes(attrs)
    if op.name == "constant":  # a value, not structure: an input of the trace that uses it
        return [Tensor(to_device(attrs["value"]))]
    trace = _recording_trace()
    refs = tuple(trace.ref(operand) for operand in operands)
    node = ("op", op.name, tuple(sorted(attrs.items())) if attrs else (), refs)
    inference_key = (node[1], node[2], tuple(trace.type_key(ref) for ref in refs))
    inferred = _inferred.get(inference_key)
    if inferred is None:  # inference is a function of these: a loop infers each op once
        result_types = op.result_types([trace.type_of(ref) for ref in refs], attrs)
        if len(_inferred) >= INFERENCE_CACHE_SIZE:
            _inferred.clear()
        inferred = _inferred[inference_key] = (result_types, [(t.shape, t.dtype) for t in result_types])
    return trace.add(node, *inferred)


_call_records: OrderedDict = OrderedDict()


def _call_record(staged: StagedFunction, key: tuple, args, kwargs):
    """The output record of ``staged`` for this signature: lowered once, to learn it."""
    with _lock:
        record = _call_records.get((staged, key))
    if record is None:
        record = staged.lower(*args, **kwargs).record
        with _lock:
            _call_records[(staged, key)] = record
            while len(_call_records) > CALL_CACHE_SIZE:
                _call_records.popitem(last=False)
    return record


def record_call(staged: StagedFunction, args, kwargs):
    """A call of a staged function recorded as one node; its outputs are lazy tensors."""
    try:
        leaves, tree = pytree.flatten((args, kwargs))
        key = signature(leaves, tree)
        record = _call_record(staged, key, args, kwargs)
        trace = _recording_trace()  # after lowering: reading a closed-over tensor runs the trace
        specs = tuple(spec if isinstance(spec, tuple) else None for spec in key[1])  # Static keys, None for tensors
        refs = tuple(trace.ref(leaf) for leaf, spec in zip(leaves, specs) if spec is None)
        positions = tuple(o if isinstance(o, int) else None for o in record.outputs)
        results = trace.add(("call", staged, tree, specs, positions, refs), record.result_types)
    except S4tfError as error:
        raise error.at(str(user_location() or "") or None).with_traceback(None) from None
    return rebuild_outputs(record, results)


_transforms: OrderedDict = OrderedDict()


def record_transform(transform, args):
    """``transform(*args)`` (an ``s4tf.grad``/``value_and_grad``) recorded: the function's ops
    go to a sub-trace, and the call is of the same transform of that sub-trace's replay."""
    try:
        leaves, tree = pytree.flatten(args)
        sub = LazyTrace(sub=True)
        stand_ins = []
        for leaf in leaves:
            spec = leaf_spec(leaf)
            stand_ins.append(leaf if isinstance(spec, Static) else sub.parameter(spec))
        _stack().append(sub)
        try:
            output = transform.fn(*pytree.unflatten(tree, stand_ins))
        finally:
            _stack().pop()
            sub.closed = True
        output_leaves, output_tree = pytree.flatten(output)
        outputs = tuple(
            ("static", type(leaf).__name__, leaf)
            if leaf is None or isinstance(leaf_spec(leaf, "return value"), Static) else sub.ref(leaf)
            for leaf in output_leaves
        )
        parameters = sum(1 for leaf in stand_ins if isinstance(leaf, LazyTensor))
        key = (type(transform), transform.argnums, transform.single, len(args), parameters,
               tuple(sub.nodes), tuple(sub.input_keys), output_tree, outputs, transform.has_aux)
        with _lock:
            replayed = _transforms.get(key)
            if replayed is None:
                name = getattr(transform, "__name__", "fn")
                replay = functools.partial(_replay_function, key, tuple(sub.lines))
                replay.__name__ = name if name.isidentifier() else "fn"
                argnums = transform.argnums[0] if transform.single else transform.argnums
                replayed = _transforms[key] = type(transform)(replay, argnums, transform.has_aux)
                while len(_transforms) > CALL_CACHE_SIZE:
                    _transforms.popitem(last=False)
            else:
                _transforms.move_to_end(key)
        captured = tuple(sub.inputs[parameters:])
    except S4tfError as error:
        raise error.at(str(user_location() or "") or None).with_traceback(None) from None
    return record_call(replayed._staged, (*args, *captured), {})


# -- replaying a trace while staging ----------------------------------------------------


def _replay(nodes, lines, inputs: list):
    """Stage ``nodes`` into the current scope on ``inputs``, each op at the user's line that
    recorded it; a function from a node reference (or input index) to its value."""
    scope = current_scope()
    values = {}

    def value(ref):
        return inputs[ref] if isinstance(ref, int) else values[ref]

    for index, node in enumerate(nodes):
        operands = [value(ref) for ref in node[-1]]
        if node[0] == "op":
            with scope.context:
                scope.location = mlir_location(lines[index])
            try:
                results = scope.emit(node[1], operands, dict(node[2]))
            finally:
                scope.location = None
        else:
            _, staged, tree, specs, positions, _ = node
            given = iter(operands)
            args, kwargs = pytree.unflatten(tree, [next(given) if spec is None else spec[1] for spec in specs])
            results = [None] * sum(isinstance(position, int) for position in positions)
            for leaf, position in zip(pytree.flatten(staged(*args, **kwargs))[0], positions):
                if isinstance(position, int):
                    results[position] = leaf
        for i, result in enumerate(results):
            values[(index, i)] = result
    return value


def _replay_trace(key, lines, *inputs):
    nodes, _, outputs, _ = key
    value = _replay(nodes, lines, list(inputs))
    return [value(ref) for ref in outputs]


def _replay_function(key, lines, *args):
    """The Python function a sub-trace recorded, replayed on ``args`` (traced arguments,
    then the captured inputs)."""
    _, _, _, count, _, nodes, _, output_tree, outputs, _ = key
    leaves = [leaf for leaf in pytree.flatten(args[:count])[0] if not isinstance(leaf_spec(leaf), Static)]
    value = _replay(nodes, lines, leaves + list(args[count:]))
    return pytree.unflatten(output_tree, [ref[2] if _is_static(ref) else value(ref) for ref in outputs])


def _is_static(ref) -> bool:
    return isinstance(ref, tuple) and ref[0] == "static"


_compiled: OrderedDict = OrderedDict()


def _compiled_trace(key, inputs, lines):
    """The compiled module for a trace structure: from memory, or staged and compiled."""
    with _lock:
        compiled = _compiled.get(key)
        if compiled is not None:
            _compiled.move_to_end(key)
            _stats.cache_hits += 1
            return compiled
    replay = functools.partial(_replay_trace, key, tuple(lines))
    replay.__name__ = "lazy_trace"
    compiled = StagedFunction(replay, key[3], autograph=False)._compile(tuple(inputs), {})
    with _lock:
        _compiled[key] = compiled
        _stats.traces_compiled += 1
        while len(_compiled) > CACHE_SIZE:
            _compiled.popitem(last=False)
    return compiled
