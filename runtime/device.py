"""IREE devices and loaded modules.

One runtime configuration per driver is created on first use and shared. Arrays live
on the device as ``iree.runtime.DeviceArray`` until the host asks for them
(:func:`s4tf.runtime.transfer.to_host`).

```python
module = LoadedModule(vmfb, device="cpu")
outputs = module.invoke("predict", [x, w])   # DeviceArrays stay on the device
```

s4tf records the target a module was built for in its functions' reflection
(:mod:`s4tf.runtime.reflection`); loading it on a device that cannot run it fails with an
error naming both, and CPU code that uses features this CPU lacks is refused before it
runs. For modules built elsewhere, IREE's own refusal names the executable format,
which is mapped back to a target name. Whatever IREE raises while loading a module
becomes a :class:`ModuleLoadError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import iree.runtime as iree_runtime
import numpy as np

from s4tf.dialects.types import TensorType
from s4tf.core.errors import S4tfError
from s4tf.runtime.batch_waits import batch_while_waiting
from s4tf.runtime.cpu import Cpu, host_cpu
from s4tf.runtime.host_memory import cpu_allocators, keep_freed_blocks
from s4tf.runtime.invocation import prepared_call
from s4tf.runtime.parameters import parameters_module
from s4tf.runtime.reflection import Recorded, ReflectionError, recorded
from s4tf.runtime.targets import CPU_DRIVERS, DEVICES, TARGETS, check_device, check_driver, get_target, targets_with_format

_EXECUTABLE_FORMAT = re.compile(r'#hal\.executable\.target<"[^"]*", "([^"]+)"')
_TENSOR = re.compile(r"tensor<([^>]*)>")


class ModuleLoadError(S4tfError, RuntimeError):
    """A ``.vmfb`` that cannot be loaded (corrupt, or missing what it needs)."""


class WrongTargetError(ModuleLoadError):
    """A module built for a target that the chosen device cannot run."""


class DeviceUnavailableError(S4tfError, RuntimeError):
    """A device that this machine does not have (no driver, no GPU)."""


class InvocationError(S4tfError, ValueError):
    """A call with the wrong function name or inputs the function does not take, or one
    that IREE fails to run."""


#: Stack of each of IREE's CPU worker threads (IREE's default: 128 KiB). Loops compiled into
#: one dispatch keep their vectors and scratch tapes there
#: (:data:`s4tf.passes.iree.loop_dispatch.MAX_STACK_BYTES`, ``MAX_SCRATCH_TAPE_BYTES``).
WORKER_STACK_BYTES = 2 * 1024 * 1024


@lru_cache(maxsize=None)
def runtime_config(driver: str) -> iree_runtime.Config:
    if driver == "local-task":  # read when the driver makes its workers, so before that
        iree_runtime.flags.parse_flags(f"--task_worker_stack_size={WORKER_STACK_BYTES}")
    if driver in CPU_DRIVERS:  # their buffers come from malloc
        keep_freed_blocks()
        return iree_runtime.Config(device=iree_runtime.get_driver(driver).create_default_device(allocators=cpu_allocators()))
    return iree_runtime.Config(driver)


def device_config(device: str) -> iree_runtime.Config:
    """The runtime configuration of ``device`` (``cpu``, ``vulkan``, ``cuda``)."""
    driver = DEVICES[check_device(device)]
    try:
        return runtime_config(driver)
    except (RuntimeError, ValueError) as error:
        reason = iree_message(error.__cause__ or error)  # IREE chains the driver's own reason
        raise DeviceUnavailableError(f"device '{device}' is not available here: {reason}") from None


def device_available(device: str) -> bool:
    """Whether this machine has ``device`` (asks the IREE driver for its devices)."""
    try:
        return bool(iree_runtime.get_driver(DEVICES[check_device(device)]).query_available_devices())
    except (RuntimeError, ValueError):
        return False


def device_for(target: str):
    return device_config(get_target(target).device).device


def to_device(array: np.ndarray, target: str = "cpu") -> iree_runtime.DeviceArray:
    """Copy a host array onto the device of ``target``."""
    return iree_runtime.asdevicearray(device_for(target), np.asarray(array, order="C"))  # ascontiguousarray would make 0-d arrays 1-d


def iree_message(error: Exception) -> str:
    """IREE's message without its C source positions and stack: ``a; b; while ...`` -> ``a; b``."""
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    parts = [p.strip() for p in text.split("; ") if p.strip()]
    parts = [re.sub(r"^.*?c/runtime/src/\S+: [A-Z_]+$", "", p) for p in parts]
    return "; ".join(p for p in parts if p and not p.startswith("while ")) or text


def parse_tensor_type(text: str) -> tuple[tuple[int | None, ...], str]:
    """``"4x?xf32"`` -> ``((4, None), "f32")``."""
    *dims, dtype = text.split("x")
    return tuple(None if d == "?" else int(d) for d in dims), dtype


def _read_module(instance: iree_runtime.VmInstance, vmfb: bytes, source: str):
    """``(vm_module, {function: reflection})`` of the module in ``vmfb``, or a
    :class:`ModuleLoadError` for bytes IREE cannot read."""
    try:
        vm_module = iree_runtime.VmModule.copy_buffer(instance, vmfb)
        names = [n for n in vm_module.function_names if not n.startswith("__")]
        return vm_module, {name: vm_module.lookup_function(name).reflection for name in names}
    except Exception as error:  # whatever IREE raises for bytes it cannot read
        raise ModuleLoadError(f"{source} is not a valid IREE module: {iree_message(error)}") from None


def _record(reflections: dict[str, dict], source: str) -> Recorded:
    try:
        return recorded(reflections.values())
    except ReflectionError as error:
        raise ModuleLoadError(f"{source}: {error}") from None


def _declared_types(reflection: dict) -> tuple[list, list]:
    """``(inputs, results)``, each a list of ``(shape, dtype)``, from IREE's declaration."""
    inputs, _, results = reflection.get("iree.abi.declaration", "").partition("->")
    return [parse_tensor_type(t) for t in _TENSOR.findall(inputs)], [parse_tensor_type(t) for t in _TENSOR.findall(results)]


@dataclass(frozen=True)
class ModuleDescription:
    """What a ``.vmfb`` declares, read without a device: its functions' input and result
    types, the target and CPU it was built for, the parameters it reads from an archive
    (``None``: none; its weights, if any, are embedded), and the CPU driver it runs best on
    (``None``: not recorded)."""

    functions: dict[str, tuple[list, list]]
    target: str | None
    cpu: Cpu | None
    parameters: dict[str, TensorType] | None
    driver: str | None = None


def describe_module(vmfb: bytes, source: str = "the module") -> ModuleDescription:
    """The :class:`ModuleDescription` of ``vmfb``, for any target (nothing runs)."""
    _, reflections = _read_module(iree_runtime.VmInstance(), vmfb, source)
    record = _record(reflections, source)
    functions = {name: _declared_types(reflection) for name, reflection in reflections.items()}
    return ModuleDescription(functions, record.target, record.cpu, record.parameters, record.driver)


def default_driver(device: str, recorded_driver: str | None) -> str:
    """The IREE driver that runs a module on ``device`` when the user names none: on the
    CPU, the one the module records (:func:`s4tf.runtime.loop_driver.driver_for`, decided
    when it was compiled), else the device's own; the same rule on the host and under qemu."""
    own = DEVICES[check_device(device)]
    return recorded_driver if own in CPU_DRIVERS and recorded_driver in CPU_DRIVERS else own


def choose_archive(source: str, declared: dict[str, TensorType] | None, parameters, parameters_beside):
    """The archive to serve the weights ``declared`` by ``source`` from (``None``: it reads
    none): ``parameters`` if given, else ``parameters_beside``."""
    if declared is not None:
        archive = parameters if parameters is not None else parameters_beside
        if archive is None:
            raise ModuleLoadError(f"{source} reads its weights from a parameter archive (.irpa), and none was given")
        return archive
    if parameters is not None:
        raise ModuleLoadError(f"{source} reads no parameter archive (its weights, if any, are embedded); {parameters} is not used")
    return None


class LoadedModule:
    """A compiled module loaded into its own runtime context on one device.

    ``parameters``: the path of a parameter archive serving the module's weights (an error
    for a module that reads none); ``parameters_beside``: an archive found beside the
    module's file, used only if the module reads one. ``source``: how errors name the
    module (a file name). ``driver``: the IREE driver for ``device`` (on the CPU,
    ``local-sync`` or ``local-task``); by default the one the module records, else the
    device's own (:func:`default_driver`; :mod:`s4tf.runtime.loop_driver`).
    """

    def __init__(self, vmfb: bytes, device: str = "cpu", parameters=None, source: str = "the module", parameters_beside=None,
                 driver: str | None = None):
        if driver is not None:
            check_driver(device, driver)
        config = device_config(device) if driver is None else runtime_config(driver)
        self.device = device
        vm_module, self._reflection = _read_module(config.vm_instance, vmfb, source)
        if driver is None:
            chosen = default_driver(device, _record(self._reflection, source).driver)
            if chosen != DEVICES[device]:  # the module's own choice: read it into that driver's instance
                driver, config = chosen, runtime_config(chosen)
                vm_module, self._reflection = _read_module(config.vm_instance, vmfb, source)
        #: The IREE driver running it (``driver``, else the module's choice, else the device's).
        self.driver = driver or DEVICES[device]
        self.name = vm_module.name
        self.function_names = list(self._reflection)
        record = _record(self._reflection, source)
        self.built_for = record.target
        self._check_built_for(source, record)
        archive = choose_archive(source, record.parameters, parameters, parameters_beside)
        modules = [parameters_module(config.vm_instance, archive, record.parameters, source)] if archive is not None else []
        try:
            self._context = iree_runtime.SystemContext(vm_modules=[*modules, vm_module], config=config)
            self._functions = getattr(self._context.modules, self.name)
            self._calls: dict = {}  # per function: a PreparedCall, or IREE's wrapper
        except Exception as error:  # whatever IREE raises for a module it refuses
            format_match = _EXECUTABLE_FORMAT.search(str(error))
            if "INCOMPATIBLE" in str(error) and format_match:
                names = [t.name for t in targets_with_format(format_match.group(1))] or [format_match.group(1)]
                raise WrongTargetError(self._wrong_target_message(source, names)) from None
            raise ModuleLoadError(f"cannot load {source} on device '{device}': {iree_message(error)}") from None
        self._vm_module = vm_module
        #: The target name Tensors from this module record (the device's own when unknown).
        self.target = self.built_for or device

    def _check_built_for(self, source: str, record: Recorded) -> None:
        """A :class:`WrongTargetError` unless the recorded target and CPU run here."""
        if not record.target:
            return
        if record.target not in TARGETS:
            raise ModuleLoadError(f"{source} was built for target '{record.target}', which this s4tf does not know")
        if not TARGETS[record.target].runs_on(self.device):
            raise WrongTargetError(self._wrong_target_message(source, [record.target]))
        if record.cpu is not None:
            here = host_cpu()
            lacking = here.lacks(record.cpu)
            if lacking:
                raise WrongTargetError(
                    f"{source} was built for CPU '{record.cpu.name}' and uses features that this CPU "
                    f"('{here.name}') lacks: {', '.join(lacking)}; compile it again on this machine"
                )

    def _wrong_target_message(self, source: str, targets: list[str]) -> str:
        names = " or ".join(f"'{name}'" for name in targets)
        where = TARGETS[targets[0]].where_it_runs() if targets[0] in TARGETS else "another device"
        return f"{source} was built for target {names} and cannot run on device '{self.device}'; it runs on {where}"

    def input_types(self, function: str) -> list[tuple[tuple[int | None, ...], str]]:
        """``(shape, dtype)`` of each input of ``function``, from the module's reflection."""
        return _declared_types(self._reflection[self._check_function(function)])[0]

    def _check_function(self, function: str) -> str:
        if function not in self.function_names:
            raise InvocationError(
                f"module '{self.name}' has no function '{function}'; its functions: {', '.join(self.function_names) or 'none'}"
            )
        return function

    @property
    def vm_context(self) -> iree_runtime.VmContext:
        """IREE's context, for calls the function wrappers do not make (fences: see
        :mod:`s4tf.runtime.extracted_program`)."""
        return self._context.vm_context

    def vm_function(self, function: str) -> iree_runtime.VmFunction:
        return self._vm_module.lookup_function(self._check_function(function))

    def invoke(self, function: str, arguments: list) -> list:
        """Call ``function``; results are returned as a list of DeviceArrays."""
        call = self._calls.get(function)
        if call is None:
            call = self._calls[function] = self._prepare_call(function)
        try:
            return call(arguments)
        except Exception as error:  # IREE reports wrong inputs and failed runs with several classes
            raise InvocationError(f"calling '{function}': {iree_message(error)}") from None

    def _prepare_call(self, function: str):
        """``call(arguments) -> list`` of ``function`` (:mod:`s4tf.runtime.invocation`); on
        ``local-task``, waiting under ``SCHED_BATCH`` (:mod:`s4tf.runtime.batch_waits`)."""
        vm_function = self.vm_function(function)
        declaration = self._reflection[function].get("iree.abi.declaration", "")
        call = prepared_call(self.vm_context, self._context.config.device, vm_function, declaration)
        if call is None:
            wrapper = self._functions[function]

            def call(arguments):
                results = wrapper(*arguments)
                if results is None:
                    return []
                return list(results) if isinstance(results, tuple) else [results]

        return batch_while_waiting(call) if self.driver == "local-task" else call

