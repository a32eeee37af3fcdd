"""Tiered first calls: run through the ops' NumPy references while IREE compiles.

A staged function's first call for a signature whose module is not in the module cache
starts IREE in the background (:mod:`s4tf.runtime.background_compile`) and evaluates the
staged s4tf-dialect module with the ops' references
(:func:`s4tf.dialects.reference.run_function`). Results are ordinary Tensors of the
declared dtypes and shapes; donated Tensors are given away as on the compiled path.
Later calls wait for IREE and run its module: interpreting them too reached the 10th call
of an MLP sooner, but a LeNet training loop interpreted step after step (its convolutions
in NumPy) for minutes while the compiler got less CPU (docs/benchmarks.md, "Compile and first
calls"); one whose module is still queued behind other compilations compiles it at once.
An error IREE reports in the background is raised at the next call, and at every call
after it. A module the references cannot evaluate (an op with no NumPy rule for these
operands) waits for IREE. In the ``"reference"`` mode every call is interpreted and IREE
compiles only a module the references cannot evaluate.

What chooses this path (:mod:`s4tf.staging.first_call`, the CPU target, not partitioned, not
lazy, not ``s4tf.compile``) is :meth:`s4tf.staging.function.StagedFunction.__call__`'s.
"""

from __future__ import annotations

import threading

import numpy as np

from s4tf.dialects.reference import run_function
from s4tf.dialects.symbols import functions
from s4tf.dialects.types import TensorType, to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.background_compile import BackgroundCompile
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.device import to_device
from s4tf.runtime.targets import get_target
from s4tf.staging.function import Compiled, Lowered, given_away
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import Static, leaf_spec, rebuild_outputs


class TieredCall:
    """One signature of a staged function: its first call interpreted while IREE compiles,
    later ones through IREE's module's :class:`~s4tf.staging.function.Compiled` (handed to ``on_ready``)."""

    def __init__(self, lowered: Lowered, module_text: str, traits: ModuleTraits, target: str, donated: list, on_ready,
                 every_call: bool = False):
        self.lowered = lowered
        self.module_text, self.traits = module_text, traits
        self.target = target
        self.donated = donated
        self.on_ready = on_ready
        #: ``"reference"`` first calls: every call interpreted, IREE only for what the references cannot run.
        self.every_call = every_call
        self.compilation = None if every_call else BackgroundCompile(module_text, target, traits)
        self.compiled: Compiled | None = None
        self.error: S4tfError | None = None
        self.interpreted_calls = 0  #: calls run through the references
        self._lock = threading.Lock()
        self._input_leaves = None
        entry = functions(lowered.module)[lowered.entry]
        function_type = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
        self._input_dtypes = [to_numpy_dtype(TensorType.from_mlir(t).dtype) for t in function_type.inputs]

    def __call__(self, leaves):
        if self.every_call or (self.interpreted_calls == 0 and self.error is None and not self.compilation.done()):
            results = self.interpret(leaves)
            if results is not None:
                return results
        return self.ready()(leaves)

    def interpret(self, leaves):
        """The call's outputs from the ops' references, or ``None`` if they cannot run it."""
        if self._input_leaves is None:
            self._input_leaves = [i for i, leaf in enumerate(leaves) if not isinstance(leaf_spec(leaf), Static)]
        tensors = [leaves[i] for i in self._input_leaves]
        arrays = [np.asarray(t).astype(d, copy=False) for t, d in zip(tensors, self._input_dtypes)]
        try:
            with np.errstate(all="ignore"):  # IREE does not warn of overflow or division by zero either
                raw = run_function(self.lowered.module, self.lowered.entry, arrays)
        except Exception:  # an op whose reference cannot run these operands: IREE's module will
            return None
        results = []
        for array, declared in zip(raw, self.lowered.record.result_types):
            array = np.asarray(array).astype(to_numpy_dtype(declared.dtype), copy=False)
            results.append(Tensor(to_device(array, self.target), self.target))
        for position in given_away(tensors, self.donated, get_target(self.target).device):
            tensors[position].donate(self.lowered.entry)
        self.interpreted_calls += 1
        return rebuild_outputs(self.lowered.record, results)

    def ready(self) -> Compiled:
        """The compiled module's function, waiting for IREE if it is still at work; raises
        the error IREE reported."""
        with self._lock:
            if self.compiled is None:
                if self.error is None:
                    try:
                        if self.compilation is None:
                            self.compilation = BackgroundCompile(self.module_text, self.target, self.traits)
                        vmfb = self.compilation.result()
                        module = compile_and_load(self.module_text, self.target, vmfb=vmfb, traits=self.traits)
                    except S4tfError as error:
                        self.error = error
                    else:
                        self.compiled = Compiled(self.lowered, module, self.donated)
                        self.on_ready(self, self.compiled)
                if self.error is not None:
                    raise self.error.with_traceback(None) from None
        return self.compiled
