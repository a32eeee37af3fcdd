"""``@s4tf.function(extract=True)``: graph program extraction for staged functions.

The staged function is partitioned (``s4tf-partition``) into device functions, compiled
with IREE's asynchronous ABI, and a host program that :mod:`s4tf.runtime.extracted_program` runs:
host calls (``s4tf.host``) run in Python while the device works.

```python
@s4tf.function(extract=True)
def step(w, x):
    logits = x @ w
    plan = s4tf.host(cpu_solver)(logits)   # runs on the host; the device waits only for plan
    return logits + plan

y = step(w, x)                 # partitioned, compiled, launched: returns at once
np.asarray(y)                  # waits for the device and the host calls; raises their errors
print(step.partitioned(w, x))  # device functions and the host program
```

Results are tensors the device may still be computing (``Tensor.is_ready()``); passed to
the next call they are chained on the device, so a training loop that logs from inside its
step keeps the device busy while the host handles the previous step.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from iree.runtime import DeviceArray

from s4tf.dialects.symbols import functions
from s4tf.core.mlir import ir
from s4tf.passes.module_traits import ModuleTraits
from s4tf.passes.diagnostics import parse_location
from s4tf.passes.extraction.partition import HOST_PROGRAM_ATTR
from s4tf.passes.canonicalize import Canonicalize
from s4tf.passes.extraction.partition import DeviceModule, Partition
from s4tf.passes.inlining import InlineHostCalls
from s4tf.passes.pipeline import Pipeline, lowering_pipeline, run_pipeline
from s4tf.passes.verify import Verify
from s4tf.passes.registry import DiagnosticWarning
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.runtime.device import LoadedModule, to_device
from s4tf.runtime.extracted_program import ASYNC_FLAGS, DEFAULT_TIMEOUT_S, DeviceValue, ExtractedProgram, HostProgram
from s4tf.runtime.targets import get_target
from s4tf.staging.function import Compiled, Lowered, StagedFunction, module_input
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import Static, leaf_spec, rebuild_outputs

PARTITION_PIPELINE = Pipeline([Verify(), InlineHostCalls(), Canonicalize(), Partition(warn_transfers=True)])


class TransferWarning(UserWarning):
    """A value copied between host and device by a partitioned function (``warn_transfers=True``)."""


@dataclass
class Partitioned:
    """A staged function after ``s4tf-partition``, and the transfers the pass inserted."""

    lowered: Lowered
    module: ir.Operation
    transfers: list[DiagnosticWarning]

    def __str__(self) -> str:
        return str(self.module)

    def host_program(self) -> HostProgram | None:
        """The entry's host program (``None``: it has no host calls)."""
        entry = functions(self.module)[self.lowered.entry]
        return HostProgram.from_function(entry) if HOST_PROGRAM_ATTR in entry.attributes else None

    def transfer_messages(self) -> list[str]:
        """``file:line: message`` of each send and receive."""
        lines = []
        for warning in self.transfers:
            file, line, _ = parse_location(warning.location)
            lines.append(f"{file}:{line}: {warning.message}" if line is not None else warning.message)
        return lines


def partition(lowered: Lowered, pipeline: Pipeline = PARTITION_PIPELINE) -> Partitioned:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DiagnosticWarning)
        module = lowered.lowered_module(pipeline, failure=f"partitioning '{lowered.entry}' failed:")
    return Partitioned(lowered, module, [w.message for w in caught if isinstance(w.message, DiagnosticWarning)])


@dataclass
class CompiledExtraction(Compiled):
    """One signature of an extracted function: its host program and device module
    (``None`` when the host program launches no device function)."""

    program: ExtractedProgram | None = None

    def __call__(self, leaves):
        target = self.program.target
        inputs = [device_value(leaf, target) for leaf in leaves if not isinstance(leaf_spec(leaf), Static)]
        device = self.program.device
        results = [Tensor(DeviceArray(device, r.buffer_view), target, pending=r) for r in self.program.run(inputs)]
        return rebuild_outputs(self.lowered.record, results)


def device_value(value, target: str) -> DeviceValue:
    """``value`` on ``target``'s device: a tensor still being computed there is chained to
    its fence (not waited for); host arrays are copied."""
    device = get_target(target).device
    if isinstance(value, Tensor) and value.pending is not None and get_target(value.target).device == device:
        return DeviceValue(value._device_array._buffer_view, value.pending.fence)
    value = module_input(value, device)
    array = value if isinstance(value, DeviceArray) else to_device(value, target)
    return DeviceValue(array._buffer_view)


class ExtractedFunction(StagedFunction):
    """A staged function run as device functions plus a host program (see the module docstring)."""

    #: The passes that partition it (a subclass may add passes that keep the partition).
    partition_pipeline = PARTITION_PIPELINE
    #: Host programs call Python: never through the references (:mod:`s4tf.staging.tiered_call`).
    tiered = False

    def __init__(self, python_fn, target: str = "cpu", warn_transfers: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S,
                 autograph: bool = True):
        super().__init__(python_fn, target, autograph=autograph)
        self.warn_transfers = warn_transfers
        self.timeout_s = timeout_s

    def partitioned(self, *args, **kwargs) -> Partitioned:
        """The partitioned module for these arguments' signature (not compiled)."""
        return partition(self.lower(*args, **kwargs), self.partition_pipeline)

    def host_program(self, *args, **kwargs) -> HostProgram | None:
        """The host program for these arguments' signature (``None``: no host calls)."""
        return self.partitioned(*args, **kwargs).host_program()

    @property
    def bytes_transferred(self) -> dict[str, int]:
        """Bytes the host programs of all signatures copied so far, by direction
        (``"recv"``: device to host, ``"send"``: host to device)."""
        total = {"recv": 0, "send": 0}
        for compiled in self._compiled.values():
            if isinstance(compiled, CompiledExtraction):
                for direction, count in compiled.program.bytes_transferred.items():
                    total[direction] += count
        return total

    def _compile(self, args, kwargs) -> Compiled:
        lowered = self._lower(args, kwargs)
        result = partition(lowered, self.partition_pipeline)
        if self.warn_transfers:
            for warning in result.transfers:
                file, line, _ = parse_location(warning.location)
                warnings.warn_explicit(warning.message, TransferWarning, file or "<staged>", line or 0)
        host_program = result.host_program()
        if host_program is None:  # no host calls: an ordinary staged function
            return super()._compile(args, kwargs)
        module = self._compile_device_functions(result) if host_program.launches() else None
        return CompiledExtraction(lowered, module, program=ExtractedProgram(host_program, module, self.target, self.timeout_s))

    def _compile_device_functions(self, result: Partitioned) -> LoadedModule:
        lowered = result.lowered
        with lowered.context:
            device = result.module.clone()
            run_pipeline(device, Pipeline([DeviceModule(), *lowering_pipeline(self.target)]), failure=f"lowering '{lowered.entry}' failed:")
        vmfb = compile_stablehlo(str(device), self.target, extra_flags=ASYNC_FLAGS, traits=ModuleTraits.of(device))
        return LoadedModule(vmfb, get_target(self.target).device)

    def __repr__(self):
        return f"<s4tf.function(extract=True) {self.__name__}>"
