"""Run a partitioned function: device functions on IREE's asynchronous ABI, the host program in Python.

The device functions are compiled with ``--iree-execution-model=async-external``: each
takes a wait fence and a signal fence and returns at once, its results still being
computed. A call runs in two phases ("start, rendezvous, finish" in S4TF's runtime):

1. **launch** (on the caller's thread): every device function is enqueued at once. Its
   wait fence joins the signal fences of the device functions it reads from (their
   results stay on the device; so do pending results of earlier calls passed in) and one
   semaphore per host value it reads (``s4tf.send``), whose device buffer is allocated now
   and filled later. The call returns here: its results are
   :class:`~s4tf.runtime.pending.PendingResult`s.
2. **host program** (on the program's host thread, calls in order): ``s4tf.recv`` waits
   for the one fence its value needs and copies it to the host; ``s4tf.host_call`` runs
   the function while the device keeps working; ``s4tf.send`` copies the result into its
   buffer and signals its semaphore, which releases the device functions waiting for it.
   If a host call fails, every unsignalled send semaphore is failed (IREE propagates the
   failure to the device functions that wait on it) and the error names the host function.

So a loop calling the function keeps the device busy: call *i + 1* is launched while the
host program of call *i* still runs. At most :data:`MAX_IN_FLIGHT` calls are in flight;
the next call waits for the oldest host program. An error of a finished host program
nobody read is raised by the next call (so at the latest :data:`MAX_IN_FLIGHT` calls
later). Every wait has a timeout, so a device that never finishes is an error, not a hang.

```python
program = ExtractedProgram(HostProgram.from_function(host_fn), loaded_module, "cpu")
outputs = program.run([DeviceValue(x_buffer_view), DeviceValue(w_buffer_view)])  # PendingResults
```
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as wait_for_futures
from dataclasses import dataclass

import iree.runtime as iree_runtime
from iree.runtime.dtypes import map_dtype_to_hal_element_type
import numpy as np

from s4tf.dialects.attributes import ELEMENTS, SYMBOL, TENSOR_TYPES
from s4tf.dialects.host_ops import HOST_FUNCTIONS, HostFunctionError, call_host_function
from s4tf.dialects.symbols import symbol_name
from s4tf.dialects.types import TensorType, to_numpy_dtype
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.passes.diagnostics import parse_location
from s4tf.passes.needs import check_needs
from s4tf.runtime.device import LoadedModule, device_config, iree_message
from s4tf.runtime.pending import ExtractionError, PendingResult, Run
from s4tf.runtime.targets import get_target
from s4tf.runtime.transfer import to_host

#: IREE flags of device functions: the coarse-fences (wait/signal fence) calling convention.
ASYNC_FLAGS = ("--iree-execution-model=async-external",)
DEFAULT_TIMEOUT_S = 120.0
#: Calls of one partitioned function whose host programs may run behind the device.
MAX_IN_FLIGHT = 2

_STAGING_MEMORY = int(iree_runtime.MemoryType.HOST_LOCAL | iree_runtime.MemoryType.DEVICE_VISIBLE)
_STAGING_USAGE = int(iree_runtime.BufferUsage.TRANSFER_SOURCE | iree_runtime.BufferUsage.MAPPING)


@dataclass(frozen=True)
class Step:
    """One host-program op over numbered value slots."""

    kind: str  #: "constant", "launch", "recv", "host_call", "send" or "return"
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    callee: str = ""  #: device function or host function
    types: tuple[TensorType, ...] = ()  #: result types
    value: np.ndarray | None = None  #: a constant's value
    where: str = ""  #: the user's file:line


@dataclass
class HostProgram:
    """The steps of a host program (``s4tf.host_program`` function) and its argument slots."""

    name: str
    arguments: tuple[int, ...]
    steps: list[Step]
    #: The host-function table's entries its host calls name: held while the program lives
    #: (the table holds them weakly), so a call still running has them.
    held: tuple = ()

    @staticmethod
    def from_function(function: ir.Operation) -> "HostProgram":
        block = function.regions[0].blocks[0]
        slots: dict[ir.Value, int] = {}

        def slot(value: ir.Value) -> int:
            return slots.setdefault(value, len(slots))

        arguments = tuple(slot(a) for a in block.arguments)
        steps = []
        for view in block.operations:
            operation = view.operation
            inputs = tuple(slot(v) for v in operation.operands)
            outputs = tuple(slot(r) for r in operation.results)
            types = tuple(TensorType.from_mlir(r.type) for r in operation.results)
            file, line, _ = parse_location(operation.location)
            where = f"{file}:{line}" if line is not None else ""
            name = operation.name
            if name == "func.call":
                callee = ir.FlatSymbolRefAttr(operation.attributes["callee"]).value
                steps.append(Step("launch", inputs, outputs, callee, types, where=where))
            elif name == "s4tf.host_call":
                callee = SYMBOL.from_mlir(operation.attributes["callee"])
                declared = TENSOR_TYPES.from_mlir(operation.attributes["result_types"])
                steps.append(Step("host_call", inputs, outputs, callee, declared, where=where))
            elif name == "s4tf.constant":
                steps.append(Step("constant", inputs, outputs, value=ELEMENTS.from_mlir(operation.attributes["value"])))
            elif name in ("s4tf.recv", "s4tf.send"):
                steps.append(Step(name.removeprefix("s4tf."), inputs, outputs, types=types, where=where))
            elif name == "func.return":
                steps.append(Step("return", inputs, outputs))
            else:
                raise S4tfError(f"'{name}' cannot run in a host program", where or None)
        callees = sorted({step.callee for step in steps if step.kind == "host_call"})
        held = tuple(entry for entry in map(HOST_FUNCTIONS.get, callees) if entry is not None)
        check_needs({"host_functions": callees})  # before anything runs: all missing ones at once
        return HostProgram(symbol_name(function), arguments, steps, held)

    def launches(self) -> bool:
        """Whether the program launches a device function (it has device work)."""
        return any(step.kind == "launch" for step in self.steps)


@dataclass
class DeviceValue:
    """A buffer on the device; ``fence`` (if any) is signalled once its contents are ready."""

    buffer_view: iree_runtime.HalBufferView
    fence: iree_runtime.HalFence | None = None
    semaphore: iree_runtime.HalSemaphore | None = None  #: for sends: the host signals it


class ExtractedProgram:
    """A host program for ``target`` and the loaded module holding its device functions
    (``None`` for a program that launches none: its host calls read only arguments)."""

    def __init__(self, program: HostProgram, module: LoadedModule | None, target: str,
                 timeout_s: float = DEFAULT_TIMEOUT_S):
        self.program = program
        self.module = module
        self.target = target
        self.device = device_config(get_target(target).device).device
        self.timeout_s = timeout_s
        self.functions = {s.callee: module.vm_function(s.callee) for s in program.steps if s.kind == "launch"}
        [self.returned] = [s.inputs for s in program.steps if s.kind == "return"]
        self.host_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"s4tf-host-{program.name}")
        self.in_flight: deque[Run] = deque()
        #: Bytes copied so far, by direction (``"recv"``: device to host, ``"send"``).
        self.bytes_transferred = {"recv": 0, "send": 0}

    def run(self, arguments: list[DeviceValue]) -> list[PendingResult]:
        """Launch the partitioned function on device values; returns at once (see the module docstring)."""
        self._retire_finished_calls()
        values: dict[int, object] = dict(zip(self.program.arguments, arguments))
        pending_sends = self._allocate_sends(values)
        try:
            launched = self._launch(values)
        except ExtractionError as error:
            self._fail(pending_sends, error.message)
            raise
        results = [self._returned(values[i]) for i in self.returned]
        run = Run(self.program.name, self.host_thread.submit(self._host_program, values, pending_sends, launched), self.timeout_s)
        self.in_flight.append(run)
        return [PendingResult(v.buffer_view, v.fence, run) for v in results]

    def _retire_finished_calls(self) -> None:
        """Make room for a call; raise the error of a finished host program nobody read."""
        if len(self.in_flight) >= MAX_IN_FLIGHT:
            _, waiting = wait_for_futures([self.in_flight[0].future], timeout=self.timeout_s)
            if waiting:
                raise ExtractionError(f"'{self.program.name}': an earlier call's host program did not finish in {self.timeout_s} s")
        while self.in_flight and self.in_flight[0].future.done():
            error = self.in_flight.popleft().unreported_error()
            if error is not None:
                raise error.with_traceback(None)

    # -- phase 1 -------------------------------------------------------------------------

    def _allocate_sends(self, values: dict) -> list[iree_runtime.HalSemaphore]:
        semaphores = []
        for step in self.program.steps:
            if step.kind == "send":
                [tensor_type] = step.types
                size = max(1, tensor_type.size * to_numpy_dtype(tensor_type.dtype).itemsize)
                buffer = self.device.allocator.allocate_buffer(
                    memory_type=iree_runtime.MemoryType.DEVICE_LOCAL,
                    allowed_usage=iree_runtime.BufferUsage.DEFAULT,
                    allocation_size=size,
                )
                view = iree_runtime.HalBufferView(buffer, list(tensor_type.shape), element_type(tensor_type))
                semaphore = self.device.create_semaphore(0)
                values[step.outputs[0]] = DeviceValue(view, iree_runtime.HalFence.create_at(semaphore, 1), semaphore)
                semaphores.append(semaphore)
        return semaphores

    def _launch(self, values: dict) -> list[iree_runtime.HalFence]:
        signals = []
        for step in self.program.steps:
            if step.kind != "launch":
                continue
            inputs = [values[i] for i in step.inputs]
            wait = iree_runtime.HalFence(max(1, len(inputs)))
            for value in inputs:
                if value.fence is not None:
                    wait.extend(value.fence)
            signal = iree_runtime.HalFence.create_at(self.device.create_semaphore(0), 1)
            arguments = iree_runtime.VmVariantList(len(inputs) + 2)
            for value in inputs:
                arguments.push_ref(value.buffer_view)
            arguments.push_ref(wait)
            arguments.push_ref(signal)
            results = iree_runtime.VmVariantList(len(step.outputs))
            try:
                self.module.vm_context.invoke(self.functions[step.callee], arguments, results)
            except (RuntimeError, ValueError) as error:
                raise ExtractionError(f"launching device function '{step.callee}': {iree_message(error)}") from None
            for position, index in enumerate(step.outputs):
                values[index] = DeviceValue(results.get_as_object(position, iree_runtime.HalBufferView), signal)
            signals.append(signal)
        return signals

    # -- phase 2 -------------------------------------------------------------------------

    def _host_program(self, values: dict, pending_sends: list, launched: list) -> None:
        """Phase 2, on the host thread; on failure the sends not yet made are failed."""
        try:
            self._run_host_steps(values)
        except BaseException as error:
            self._fail(pending_sends, error.message if isinstance(error, S4tfError) else f"{type(error).__name__}: {error}")
            self._drain(launched)
            raise

    def _run_host_steps(self, values: dict) -> None:
        for step in self.program.steps:
            if step.kind == "constant":
                values[step.outputs[0]] = step.value
            elif step.kind == "recv":
                values[step.outputs[0]] = self._receive(values[step.inputs[0]], step)
            elif step.kind == "host_call":
                arrays = [values[i] for i in step.inputs]
                try:
                    results = call_host_function(step.callee, arrays, step.types)
                except HostFunctionError as error:
                    raise error.at(step.where or None) from error.__cause__
                values.update(zip(step.outputs, results))
            elif step.kind == "send":
                self._send(values[step.inputs[0]], values[step.outputs[0]])

    def _receive(self, value: DeviceValue, step: Step) -> np.ndarray:
        if value.fence is not None:
            self._wait(value.fence, f"a value the host needs at {step.where or 'the host program'}")
        array = to_host(iree_runtime.DeviceArray(self.device, value.buffer_view))
        self.bytes_transferred["recv"] += array.nbytes
        return array

    def _send(self, array: np.ndarray, target: DeviceValue) -> None:
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        self.bytes_transferred["send"] += raw.nbytes
        staging = self.device.allocator.allocate_buffer_copy(
            memory_type=_STAGING_MEMORY, allowed_usage=_STAGING_USAGE, device=self.device, buffer=raw
        )
        self.device.queue_copy(
            staging, target.buffer_view.get_buffer(), wait_semaphores=iree_runtime.HalFence(1), signal_semaphores=target.fence
        )

    def _returned(self, value) -> DeviceValue:
        if isinstance(value, DeviceValue):
            return value
        raise ExtractionError(f"host program '{self.program.name}' returns a host value; s4tf-partition sends results")

    # -- waiting -------------------------------------------------------------------------

    def _wait(self, fence: iree_runtime.HalFence, what: str) -> None:
        try:
            finished = fence.wait(timeout=int(self.timeout_s * 1e9))
        except RuntimeError as error:
            raise ExtractionError(f"'{self.program.name}' failed on the device: {iree_message(error)}") from None
        if not finished:
            raise ExtractionError(f"'{self.program.name}': waited {self.timeout_s} s for {what}; giving up")

    @staticmethod
    def _fail(semaphores: list[iree_runtime.HalSemaphore], reason: str) -> None:
        for semaphore in semaphores:
            if semaphore.query() == 0:
                semaphore.fail(reason)

    def _drain(self, fences: list[iree_runtime.HalFence]) -> None:
        """Let launched work settle (finish or fail) before returning control; never hangs."""
        for fence in fences:
            try:
                fence.wait(timeout=int(self.timeout_s * 1e9))
            except RuntimeError:
                pass


def element_type(tensor_type: TensorType) -> iree_runtime.HalElementType:
    """The element type IREE gives buffers made from NumPy arrays of this dtype."""
    return map_dtype_to_hal_element_type(to_numpy_dtype(tensor_type.dtype))
