"""Compilation targets and run-time devices by name: one table of each.

A *target* is what a module is compiled for (IREE backend, flags); a *device* is where
a module runs (an IREE driver on this machine). ``Target.runs_on(device)`` joins them.

```python
TARGETS["vulkan"].compile_flags  # ['--iree-hal-target-backends=vulkan-spirv', ...]
get_target("android-arm64").runs_on("cpu")  # False on an x86-64 machine
```
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

from s4tf.core.errors import S4tfError
from s4tf.runtime.cpu import Cpu, host_cpu, resolve_cpu

#: Flags for every target: keep f64 as f64 (IREE demotes it to f32 by default); compute the
#: constant expressions IREE hoists out of a function when the module loads, not by
#: compiling and running them inside ``iree-compile`` (its ``JitGlobalsPass``: 0.3-0.5 s of
#: a 2.2 s compile where a gradient's seed is a one-hot constant, nothing measurable
#: where there is none; docs/benchmarks.md, "Compile and first calls").
COMMON_FLAGS = ("--iree-input-demote-f64-to-f32=false", "--iree-opt-const-eval=false")

#: Run-time devices: the name users give (``s4tf-run --device``) and the IREE driver behind it.
DEVICES = {"cpu": "local-task", "vulkan": "vulkan", "cuda": "cuda"}
#: IREE's two drivers for the CPU, which users may also give as the device (``s4tf-run
#: --device local-sync``, ``s4tf.load(..., device="local-sync")``) to choose one: ``cpu``
#: leaves the choice to the module (:mod:`s4tf.runtime.loop_driver`).
CPU_DRIVERS = {
    "local-sync": "runs dispatches on the calling thread",
    "local-task": "runs dispatches on a pool of worker threads",
}
#: Everything ``--device`` / ``device=`` accepts.
DEVICE_CHOICES = (*DEVICES, *CPU_DRIVERS)


def host_architecture() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


@dataclass(frozen=True)
class Target:
    """One compilation target.

    ``device``: the device kind that runs its modules; ``architecture``: the CPU the code
    is built for (``None``: any, ``"host"``: this machine's, named in the flags by the CPU
    and features IREE resolves for it, never by the word ``host``); ``executable_format``:
    how IREE names its code inside a module (used to name the target of foreign modules).
    """

    name: str
    backend: str
    device: str
    flags: tuple[str, ...]
    description: str
    executable_format: str
    architecture: str | None = None

    @property
    def driver(self) -> str:
        return DEVICES[self.device]

    @property
    def compile_flags(self) -> list[str]:
        host = host_cpu().flags if self.architecture == "host" else []
        return [f"--iree-hal-target-backends={self.backend}", *COMMON_FLAGS, *host, *self.flags]

    def runs_on(self, device: str) -> bool:
        if device != self.device:
            return False
        return self.architecture in (None, "host", host_architecture())

    def runs_under_qemu(self, device: str) -> bool:
        """Whether ``s4tf-run`` runs this target's modules on ``device`` here under
        qemu-aarch64 (arm64 CPU code on another CPU)."""
        return device == self.device and self.architecture == "aarch64" and host_architecture() != "aarch64"

    def where_it_runs(self) -> str:
        if self.architecture in (None, "host"):
            return f"device '{self.device}'"
        return (
            f"an {self.architecture} machine's '{self.device}' device (on this machine, s4tf-run runs it "
            f"under qemu-{self.architecture}: see docs/phones.md)"
        )


_ARM64_FLAGS = ("--iree-llvmcpu-target-cpu=generic",)
#: Stack memory one dispatch may allocate on ``cpu`` (IREE's default: 32 KiB): the scratch
#: tapes of reverse mode's loops inside dispatches
#: (:data:`s4tf.passes.iree.loop_dispatch.MAX_SCRATCH_TAPE_BYTES`); s4tf's runtime gives the
#: worker threads 2 MiB (:data:`s4tf.runtime.device.WORKER_STACK_BYTES`).
CPU_STACK_ALLOCATION_BYTES = 1024 * 1024

TARGETS = {
    target.name: target
    for target in (
        Target(
            "cpu", "llvm-cpu", "cpu", (f"--iree-llvmcpu-stack-allocation-limit={CPU_STACK_ALLOCATION_BYTES}",),
            "this machine's CPU (LLVM, tuned for this processor)", f"embedded-elf-{host_architecture()}", "host",
        ),
        Target("vmvx", "vmvx", "cpu", (), "portable VMVX bytecode, any CPU (slow; for checking)", "vmvx-bytecode-fb"),
        Target(
            "vulkan", "vulkan-spirv", "vulkan", (),
            "Vulkan GPUs: SPIR-V for the Vulkan Android baseline 2022 profile (phones, desktop GPUs, Mesa lavapipe)",
            "vulkan-spirv-fb",
        ),
        Target(
            "cuda", "cuda", "cuda", ("--iree-cuda-target=sm_80",),
            "NVIDIA GPUs from Ampere (sm_80: A100, H100, RTX 30xx and later)", "cuda-nvptx-fb",
        ),
        Target(
            "android-arm64", "llvm-cpu", "cpu", ("--iree-llvmcpu-target-triple=aarch64-linux-android34", *_ARM64_FLAGS),
            "Android phones (arm64-v8a, API 34), LLVM cross-compiled", "embedded-elf-arm_64", "aarch64",
        ),
        Target(
            "linux-arm64", "llvm-cpu", "cpu", ("--iree-llvmcpu-target-triple=aarch64-linux-gnu", *_ARM64_FLAGS),
            "64-bit Arm Linux (Raspberry Pi 4/5, Graviton, Jetson CPUs), LLVM cross-compiled",
            "embedded-elf-arm_64", "aarch64",
        ),
    )
}


class UnknownTargetError(S4tfError, ValueError):
    """A target or device name that is not in the tables."""


def get_target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise UnknownTargetError(f"unknown target '{name}'; known targets: {', '.join(TARGETS)}") from None


def device_choices_text() -> str:
    """The devices and CPU drivers users may name, for errors and ``--help``."""
    return f"{', '.join(DEVICES)}, or a CPU driver: {', '.join(CPU_DRIVERS)}"


def check_device(name: str) -> str:
    """``name`` if it is a known device; otherwise an :class:`UnknownTargetError`."""
    if name not in DEVICES:
        if name in CPU_DRIVERS:
            raise UnknownTargetError(f"'{name}' is an IREE driver of device 'cpu', not a device here")
        raise UnknownTargetError(f"unknown device '{name}'; known devices: {device_choices_text()}")
    return name


def split_device(name: str) -> tuple[str, str | None]:
    """``(device, driver)`` for what users give as a device: ``("cpu", None)`` for ``cpu``
    (the module's own choice of driver), ``("cpu", "local-sync")`` for ``local-sync``; an
    :class:`UnknownTargetError` naming the choices for anything else."""
    if name in CPU_DRIVERS:
        return "cpu", name
    if name not in DEVICES:
        raise UnknownTargetError(f"unknown device '{name}'; known devices: {device_choices_text()}")
    return name, None


def check_driver(device: str, driver: str) -> str:
    """``driver`` if it runs modules on ``device`` (the CPU's two, or a GPU device's own)."""
    allowed = tuple(CPU_DRIVERS) if DEVICES[check_device(device)] in CPU_DRIVERS else (DEVICES[device],)
    if driver not in allowed:
        raise UnknownTargetError(f"unknown driver '{driver}' for device '{device}'; its drivers: {', '.join(allowed)}")
    return driver


def targets_with_format(executable_format: str) -> list[Target]:
    """The targets whose modules carry code in ``executable_format``."""
    return [target for target in TARGETS.values() if target.executable_format == executable_format]


_CPU_FLAGS = ("--iree-llvmcpu-target-cpu=", "--iree-llvmcpu-target-cpu-features=")


def compile_flags(name: str, extra_flags=()) -> list[str]:
    """Everything IREE is told for target ``name``, ``extra_flags`` (``--target-flag``) last.
    A CPU named in ``extra_flags`` replaces the target's, with that CPU's own features."""
    flags = get_target(name).compile_flags
    if any(flag.startswith(_CPU_FLAGS[0]) for flag in extra_flags):
        flags = [flag for flag in flags if not flag.startswith(_CPU_FLAGS)]
    return [*flags, *extra_flags]


def target_cpu(name: str, extra_flags=()) -> Cpu | None:
    """The CPU that target ``name``'s code is built for (``None``: not llvm-cpu code)."""
    if get_target(name).backend != "llvm-cpu":
        return None
    return resolve_cpu(tuple(compile_flags(name, extra_flags)))
