"""``@s4tf.function``: stage a Python function, compile it with IREE, run it on the device.

```python
@s4tf.function
def predict(w, b, x):
    return s4tf.tanh(x @ w + b)

y = predict(w, b, x)           # traced, lowered and compiled once per input signature
print(predict.lower(w, b, x))  # the staged s4tf-dialect module
```

Arrays and tensors in the arguments are inputs, specialized on shape and dtype; so are
Python ints and floats passed as arguments (weak-typed 0-d inputs, as in JAX). Python
scalars inside pytrees, bools and strings are static: part of the signature, folded into
the code (``static_argnums`` makes any argument static).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from s4tf import pytree

from s4tf.staging.autograph import convert as autograph

from s4tf.lazy_tensors import mode as lazy_mode
from s4tf.staging.donation import donated_positions
from s4tf.core.errors import S4tfError
from s4tf.staging.first_call import get_first_call
from s4tf.core.mlir import ir
from s4tf.passes.iree.donate import Donate, aliased_arguments
from s4tf.passes.module_traits import ModuleTraits
from s4tf.passes.needs import state_needs
from s4tf.passes.pipeline import LOWERING_PIPELINE, Pipeline, lowering_pipeline, run_pipeline
from s4tf.runtime.device import LoadedModule
from s4tf.runtime.compile_and_load import compile_and_load, load_cached
from s4tf.runtime.compiler import check_memory
from s4tf.runtime.targets import get_target
from s4tf.staging import static_args
from s4tf.staging.recompiles import describe, warn_if_recompiling
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import (
    FunctionRecord, Static, Trace, WeakScalar, current_scope, leaf_spec, rebuild_outputs, signature, traced_scalars,
)

#: What runs between the staged module and IREE. The staged module keeps calls (one function
#: per staged function and derivative); the StableHLO is inlined into its entry, so CSE
#: shares work between them (a training step's two forward passes become one) and buffer
#: donation (:mod:`s4tf.staging.donation`) sees every op that reads a donated input. Last,
#: convolutions are put in the forms IREE runs fast (:mod:`s4tf.passes.iree.conv_filters`,
#: :mod:`s4tf.passes.iree.conv_taps`, :mod:`s4tf.passes.iree.conv_channels`).
class Lowered:
    """A staged module in the s4tf dialect: print it, or lower it to StableHLO."""

    def __init__(self, trace: Trace, record: FunctionRecord):
        self.context = trace.context
        self.module = trace.module
        self.record = record
        #: The table entries the module names (:attr:`~s4tf.staging.tracing.Trace.owned`),
        #: alive while this and the compiled versions holding it are.
        self.owned = trace.owned
        state_needs(self.module.operation)  # its text says which Python callables it needs

    @property
    def entry(self) -> str:
        return self.record.symbol

    def as_text(self, debug_info: bool = False) -> str:
        """The module's MLIR; ``debug_info`` adds each op's ``file:line`` location."""
        return self.module.operation.get_asm(enable_debug_info=debug_info)

    def __str__(self) -> str:
        return self.as_text()

    def stablehlo(self, pipeline: Pipeline = LOWERING_PIPELINE) -> str:
        """The module after ``pipeline`` (by default the lowering to StableHLO), as text."""
        return str(self.lowered_module(pipeline))

    def lowered_module(self, pipeline: Pipeline = LOWERING_PIPELINE, failure: str | None = None) -> ir.Operation:
        """A copy of the module (an in-memory clone, never printed and parsed) after
        ``pipeline``; if a pass fails, a ``CompilationError`` starting with ``failure``."""
        with self.context:
            module = self.module.operation.clone()
            run_pipeline(module, pipeline, failure=failure or f"lowering '{self.entry}' failed:")
            return module


@dataclass
class Compiled:
    """One signature of a staged function, compiled and loaded."""

    lowered: Lowered
    module: LoadedModule

    #: Input positions whose buffers the results are written into (:mod:`s4tf.staging.donation`).
    donated: list = field(default_factory=list)
    #: Which leaves are inputs (not static), the same for every call of this signature.
    _input_leaves: list | None = None
    #: Per result, its type where every call's is the same (so results need not ask IREE).
    _result_types: list | None = None
    #: The call once nothing is left to decide per call (:meth:`_plain_call`).
    _plain: object = None

    def __call__(self, leaves):
        plain = self._plain
        if plain is not None:
            return plain(leaves)
        if self._input_leaves is None:
            self._input_leaves = [i for i, leaf in enumerate(leaves) if not isinstance(leaf_spec(leaf), Static)]
        input_leaves = self._input_leaves
        tensors = leaves if len(input_leaves) == len(leaves) else [leaves[i] for i in input_leaves]
        device = self.module.device
        inputs = [module_input(leaf, device) for leaf in tensors]
        given = given_away(tensors, self.donated, device) if self.donated else ()
        for position in self.donated:
            if position not in given:  # never write into the caller's arrays, or into a buffer another input reads
                inputs[position] = np.array(tensors[position])
        raw = self.module.invoke(self.lowered.entry, inputs)
        if self._result_types is None:
            self._result_types = static_types(self.lowered.record.result_types, raw, self.module.target)
        target = self.module.target
        results = [Tensor(r, target, tensor_type=t) for r, t in zip(raw, self._result_types)]
        for position in given:
            tensors[position].donate(self.lowered.entry)
        if self._in_order() and len(input_leaves) == len(leaves):
            self._plain = self._plain_call()
        return rebuild_outputs(self.lowered.record, results)

    def _in_order(self) -> bool:
        """No donation, and results of static types that are the outputs in order."""
        types = self._result_types
        return not self.donated and types is not None and None not in types \
            and self.lowered.record.outputs == list(range(len(types)))

    def _plain_call(self):
        """``call(leaves)`` for a version whose leaves are all inputs and whose results are
        :meth:`_in_order`: each call converts the inputs, invokes and wraps the results, with
        nothing else to decide (docs/benchmarks.md, "Call overhead")."""
        invoke, entry, device, target = self.module.invoke, self.lowered.entry, self.module.device, self.module.target
        types, tree = self._result_types, self.lowered.record.output_tree
        single = tree.kind == "leaf"

        def call(leaves):
            inputs = [leaf.device_array if type(leaf) is Tensor and leaf.target == target else module_input(leaf, device)
                      for leaf in leaves]
            results = [Tensor(r, target, tensor_type=t) for r, t in zip(invoke(entry, inputs), types)]
            return results[0] if single else pytree.unflatten(tree, results)

        return call

    def direct_call(self):
        """``call(tensors) -> [Tensor, ...]`` (``None`` when a Tensor lives elsewhere) for a
        version whose leaves are all inputs, with no donation and results of static types
        returned in order: the module called with no flattening and no rebuilding of the
        outputs (eager execution's one-op functions, :mod:`s4tf.staging.eager`); ``None``
        where those do not hold."""
        if self._input_leaves is None or not self._in_order():
            return None
        types = self._result_types
        invoke, entry, target, inputs = self.module.invoke, self.lowered.entry, self.module.target, len(self._input_leaves)

        def call(tensors):
            arrays = []
            for tensor in tensors:
                if tensor.target != target:
                    return None
                arrays.append(tensor.device_array)
            if len(arrays) != inputs:
                return None
            return [Tensor(r, target, tensor_type=t) for r, t in zip(invoke(entry, arrays), types)]

        return call


def given_away(tensors, donated, device: str) -> list[int]:
    """The ``donated`` positions whose buffers a call gives to the module: Tensors on
    ``device``, each passed once (any other donated input is copied)."""
    repeated = len(set(map(id, tensors))) < len(tensors) and Counter(map(id, tensors))
    return [p for p in donated if isinstance(tensors[p], Tensor) and get_target(tensors[p].target).device == device
            and not (repeated and repeated[id(tensors[p])] > 1)]


def static_types(declared, results, target: str) -> list:
    """Per result, its declared type if that is static and what IREE returned, else ``None``."""
    return [t if None not in t.shape and Tensor(r, target).tensor_type == t else None for t, r in zip(declared, results)]


def module_input(value, device: str):
    """A tensor on ``device`` as it is; anything else through the host."""
    if isinstance(value, Tensor) and get_target(value.target).device == device:
        return value.device_array
    return np.asarray(value)


_SCALARS = frozenset((bool, int, float, str))


def flat_key(args) -> tuple | None:
    """A key that determines the :func:`~s4tf.staging.tracing.signature` of ``args`` when each is a
    leaf: a ``Tensor`` (its type), a NumPy array (shape and dtype), a NumPy scalar (its type)
    or a Python scalar or string (type and value); ``None`` for anything else (pytrees,
    array-likes, subclasses), which takes the general path. Finer than the signature (a
    NumPy array and a Tensor of one type differ), so each key names one compiled function.
    """
    key = []
    for arg in args:
        kind = type(arg)
        if kind is Tensor:
            key.append(arg.tensor_type)
        elif kind is np.ndarray:
            key.append((arg.shape, arg.dtype))
        elif kind is WeakScalar:
            key.append((kind, type(arg.value)))
        elif kind in _SCALARS:
            key.append((kind, arg))
        elif isinstance(arg, np.generic):
            key.append(kind)
        else:
            return None
    return tuple(key)


class StagedFunction:
    """A Python function staged into the s4tf dialect and run through IREE."""

    #: Whether a first call may run through the ops' references while IREE compiles.
    tiered = True

    def __init__(self, python_fn, target: str = "cpu", donate_argnums=(), autograph: bool = True, static_argnums=(),
                 static_argnames=(), trace_scalars: bool = True):
        functools.update_wrapper(self, python_fn)
        #: Whether Python int and float arguments are traced (:class:`~s4tf.staging.tracing.WeakScalar`);
        #: the library's own staged helpers keep them static (sizes, counts).
        self.trace_scalars = trace_scalars
        self.static_argnums, self.static_argnames, self._positional = static_args.normalized(
            python_fn, static_argnums, static_argnames)
        #: Per combination of static values, the staged function of the other arguments.
        self._by_statics: dict[tuple, StagedFunction] = {}
        self.donate_argnums = tuple(donate_argnums)
        self.__name__ = getattr(python_fn, "__name__", None) or getattr(getattr(python_fn, "func", None), "__name__", "staged")
        self._source_fn = python_fn
        self.autograph = autograph
        self._converted = None
        self.target = get_target(target).name
        self._compiled: dict[tuple, Compiled] = {}
        #: The same compiled functions keyed by :func:`flat_key` of the arguments when they
        #: are leaves, else by ``(tree, flat_key(leaves))``: one lookup, no signature.
        self._by_leaf_key: dict[tuple, Compiled] = {}

    @property
    def python_fn(self):
        """The function traced: the decorated one, with its control flow on tensors
        rewritten (:mod:`s4tf.staging.autograph.convert`) unless ``autograph=False``."""
        if not self.autograph:
            return self._source_fn
        if self._converted is None:  # once: records and derivative rules are keyed by this function
            self._converted = autograph.convert_once(self._source_fn)
        return self._converted

    def __call__(self, *args, **kwargs):
        if self.static_argnums or self.static_argnames:
            staged, args, kwargs = self._for_statics(args, kwargs)
            return staged(*args, **kwargs)
        scope = current_scope()
        if scope is not None:
            return scope.trace.call(self.python_fn, self.__name__, args, kwargs)
        if lazy_mode.mode_is_lazy() and lazy_mode.records_call(self):
            return lazy_mode.record_call(self, args, kwargs)
        if self.trace_scalars:
            args, kwargs = traced_scalars(args, kwargs)
        key = None if kwargs else flat_key(args)
        compiled = self._by_leaf_key.get(key) if key is not None else None
        if compiled is not None:  # the arguments are leaves of types seen before: one lookup
            return compiled(args)
        leaves, tree = pytree.flatten((args, kwargs))
        tree_key = None if key is not None else flat_key(leaves)
        if tree_key is not None:
            tree_key = (tree, tree_key)
            compiled = self._by_leaf_key.get(tree_key)
            if compiled is not None:  # a pytree of the structure and leaf types seen before
                return compiled(leaves)
        try:
            signature_key = signature(leaves, tree)
            compiled = self._compiled.get(signature_key)
            if compiled is None:
                compiled = self._compiled[signature_key] = self._first_compile(args, kwargs)
                if self.trace_scalars:  # a user's function (the library's own helpers compile per shape by design)
                    warn_if_recompiling(self.__name__, self._compiled, self._positional)
        except S4tfError as error:
            raise error.with_traceback(None) from None
        if key is not None or tree_key is not None:
            self._by_leaf_key[key if key is not None else tree_key] = compiled
        return compiled(leaves)

    def compiled_for(self, args):
        """The version compiled for positional leaf arguments like ``args`` (Tensors or
        arrays of those types), if a call has compiled one: a :class:`Compiled`, or a tiered
        first call's stand-in while IREE compiles (:mod:`s4tf.staging.tiered_call`)."""
        key = flat_key(args)
        return None if key is None else self._by_leaf_key.get(key)

    def compiled_signatures(self) -> list[str]:
        """The signatures compiled so far, one per version, e.g. ``'(tensor<3xf32>, 0)'``:
        the argument leaves' tensor types and Python values (:mod:`s4tf.staging.recompiles`),
        and the static arguments' values where there are some."""
        statics = [f"{signature} static {dict(key)!r}" for key, staged in self._by_statics.items()
                   for signature in staged.compiled_signatures()]
        return statics + [describe(key) for key in self._compiled]

    def _for_statics(self, args, kwargs):
        """The staged function of the non-static arguments for these static values, and those arguments."""
        try:
            key, statics, args, kwargs = static_args.split(
                args, kwargs, self.static_argnums, self.static_argnames, self._positional, self.__name__)
        except S4tfError as error:
            raise error.with_traceback(None) from None
        staged = self._by_statics.get(key)
        if staged is None:
            donated = static_args.dynamic_positions(self.static_argnums, self.donate_argnums)
            staged = StagedFunction(static_args.bound(self.python_fn, statics), self.target, donated, autograph=False)
            staged.__name__ = self.__name__
            self._by_statics[key] = staged  # its arguments are the dynamic ones, however the statics came
        return staged, args, kwargs

    def lower(self, *args, **kwargs) -> Lowered:
        """Stage for these arguments' signature without compiling."""
        if self.static_argnums or self.static_argnames:
            staged, args, kwargs = self._for_statics(args, kwargs)
            return staged.lower(*args, **kwargs)
        try:
            return self._lower(*(traced_scalars(args, kwargs) if self.trace_scalars else (args, kwargs)))
        except S4tfError as error:
            raise error.with_traceback(None) from None

    def _lower(self, args, kwargs) -> Lowered:
        trace = Trace()
        record = trace.trace_function(self.python_fn, self.__name__, args, kwargs, public=True)
        return Lowered(trace, record)

    def _compile(self, args, kwargs) -> Compiled:
        lowered, module_text, traits, donated = self._lower_for_iree(args, kwargs)
        return Compiled(lowered, compile_and_load(module_text, self.target, traits=traits), donated)

    def _lower_for_iree(self, args, kwargs) -> tuple[Lowered, str, ModuleTraits, list]:
        """The staged module, its StableHLO text for IREE and that module's traits, and the
        donated input positions."""
        lowered = self._lower(args, kwargs)
        pipeline = lowering_pipeline(self.target)
        if self.donate_argnums:
            pipeline += [Donate(entry=lowered.entry, args=tuple(donated_positions(args, self.donate_argnums)))]
        module = lowered.lowered_module(pipeline)
        donated = aliased_arguments(module, lowered.entry) if self.donate_argnums else []
        text, traits = str(module), ModuleTraits.of(module)
        check_memory(text, traits, self.target, module, lowered.module.operation)  # before IREE: a tensor larger than the machine
        return lowered, text, traits, donated

    def _first_compile(self, args, kwargs):
        """:meth:`_compile`, or where the module is not cached and first calls may be
        interpreted (:mod:`s4tf.staging.first_call`, CPU target), a :class:`~s4tf.staging.tiered_call.TieredCall`
        that runs the first call through the ops' references while IREE compiles it."""
        mode = get_first_call()
        if not (self.tiered and self.target == "cpu" and mode != "compile"):
            return self._compile(args, kwargs)
        lowered, module_text, traits, donated = self._lower_for_iree(args, kwargs)
        module = load_cached(module_text, self.target, traits=traits) if mode == "interpret" else None
        if module is not None:
            return Compiled(lowered, module, donated)
        from s4tf.staging.tiered_call import TieredCall  # it builds on this module

        return TieredCall(lowered, module_text, traits, self.target, donated, self._compiled_now, every_call=mode == "reference")

    def _compiled_now(self, tiered, compiled: Compiled) -> None:
        """Calls of ``tiered``'s signature go to ``compiled`` from now on."""
        for table in (self._compiled, self._by_leaf_key):
            for key in [k for k, v in table.items() if v is tiered]:
                table[key] = compiled

    def __repr__(self):
        return f"<s4tf.function {self.__name__}>"


def function(python_fn=None, *, target: str = "cpu", extract: bool = False, warn_transfers: bool = False, donate_argnums=(),
             autograph: bool = True, static_argnums=(), static_argnames=()):
    """Decorator: ``@s4tf.function`` or ``@s4tf.function(target="vulkan")`` (see
    :data:`s4tf.runtime.targets.TARGETS`); results are Tensors on the target's device.
    ``extract=True``: host calls (``s4tf.host``) run in Python while the device works
    (:mod:`s4tf.staging.extracted`); ``warn_transfers=True`` warns of each host/device copy.
    ``donate_argnums=(0, 1)``: those arguments' tensors are given away, and results of the
    same types are written into their buffers (:mod:`s4tf.staging.donation`). ``autograph=False``:
    Python ``if``/``while``/``for`` are not rewritten (:mod:`s4tf.staging.autograph.convert`), so a tensor
    condition is an error instead of a region op. ``static_argnums``/``static_argnames``: those
    arguments reach the function as they are, part of the signature by value
    (:mod:`s4tf.staging.static_args`)."""
    if python_fn is None:
        return functools.partial(
            function, target=target, extract=extract, warn_transfers=warn_transfers, donate_argnums=donate_argnums,
            autograph=autograph, static_argnums=static_argnums, static_argnames=static_argnames,
        )
    if extract:
        if donate_argnums or static_argnums or static_argnames:
            raise S4tfError("donate_argnums and static arguments are not supported with extract=True")
        from s4tf.staging.extracted import ExtractedFunction  # it builds on this module

        return ExtractedFunction(python_fn, target, warn_transfers, autograph=autograph)
    return StagedFunction(python_fn, target, donate_argnums, autograph, static_argnums, static_argnames)
