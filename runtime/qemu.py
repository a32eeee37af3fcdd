"""Phones without a phone: run arm64 modules on this machine under ``qemu-aarch64``.

Needs Debian's ``qemu-user``, ``libc6-arm64-cross`` and ``libstdc++6-arm64-cross``, and
the aarch64 ``iree-run-module`` from the ``iree-base-runtime`` aarch64 wheel on PyPI (the
same version as the host's), which :func:`aarch64_run_module` downloads once with pip
(``s4tf-run --install-arm64-runtime`` does it for users, into s4tf's cache folder).

```python
runner = Arm64Runner.installed()                 # an EmulationError naming what is missing
runner.invoke("m.vmfb", "predict", [x], parameters="m.irpa", results=1)  # NumPy in, NumPy out
runner.invoke("m.vmfb", "predict", [x], driver="local-sync")               # IREE's driver, as on the host
```

The driver is ``local-task`` unless named: ``s4tf-run`` names the one the module records
(:func:`s4tf.runtime.device.default_driver`) or the one the user asks for, as on the host.
On ``local-task`` the worker threads get the stack the host's get
(:data:`s4tf.runtime.device.WORKER_STACK_BYTES`).

(Benchmarks and tests get a runner, and the peak memory of its runs, from
``tools/bench/arm64_runs.py``.)
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from s4tf.core.errors import S4tfError
from s4tf.runtime.cache import default_cache_dir
from s4tf.runtime.device import WORKER_STACK_BYTES, InvocationError, iree_message
from s4tf.runtime.parameters import SCOPE
from s4tf.runtime.targets import check_driver

ARM64_SYSROOT = Path("/usr/aarch64-linux-gnu")
TOOL_IN_WHEEL = "iree/_runtime_libs/iree-run-module"
#: What users run to get the aarch64 runtime (see :func:`aarch64_run_module`).
INSTALL_COMMAND = "s4tf-run --install-arm64-runtime"
#: What users install to get qemu and the arm64 C libraries, on Debian and Ubuntu.
APT_PACKAGES = "qemu-user libc6-arm64-cross libstdc++6-arm64-cross"


class EmulationError(S4tfError, RuntimeError):
    """Something needed to run arm64 code here is missing."""


def runtime_folder(folder: Path) -> Path:
    """Where the aarch64 runtime of the installed IREE version is kept under ``folder``."""
    return Path(folder) / f"iree-runtime-aarch64-{importlib.metadata.version('iree-base-runtime')}"


def aarch64_run_module(folder: Path) -> Path:
    """``iree-run-module`` for aarch64, matching the installed ``iree-base-runtime``, kept in
    ``folder`` (downloaded from PyPI the first time)."""
    version = importlib.metadata.version("iree-base-runtime")
    folder = runtime_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "iree-run-module"
    if tool.exists():
        return tool
    with tempfile.TemporaryDirectory(dir=folder) as download:
        command = [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            "--platform", "manylinux_2_28_aarch64", "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}",
            "--dest", download, f"iree-base-runtime=={version}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            raise S4tfError(f"cannot download the aarch64 IREE runtime {version}: {result.stderr.strip()[-300:]}")
        (wheel,) = Path(download).glob("*.whl")
        partial = Path(download) / "iree-run-module"
        with zipfile.ZipFile(wheel) as archive:
            partial.write_bytes(archive.read(TOOL_IN_WHEEL))
        partial.chmod(0o755)
        os.replace(partial, tool)  # atomic: a parallel process sees the whole file or none
    return tool


@dataclass
class Arm64Runner:
    qemu: str
    tool: Path

    @classmethod
    def installed(cls, cache_folder: Path | None = None) -> Arm64Runner:
        """The runner with the runtime :data:`INSTALL_COMMAND` installed (nothing is
        downloaded), or an :class:`EmulationError` naming what to install."""
        qemu = qemu_aarch64()
        if qemu is None:
            raise EmulationError(
                f"running arm64 code here needs qemu-aarch64 and the arm64 C libraries (apt install {APT_PACKAGES})"
            )
        tool = runtime_folder(cache_folder or default_cache_dir()) / "iree-run-module"
        if not tool.exists():
            raise EmulationError(f"running arm64 code here needs the aarch64 IREE runtime: get it with {INSTALL_COMMAND}")
        return cls(qemu, tool)

    def command(self, *flags: str, driver: str = "local-task") -> list[str]:
        """``iree-run-module --device=DRIVER FLAGS`` under qemu, as a command line (``driver``:
        one of :data:`s4tf.runtime.targets.CPU_DRIVERS`)."""
        device = [f"--device={check_driver('cpu', driver)}"]
        if driver == "local-task":
            device.append(f"--task_worker_stack_size={WORKER_STACK_BYTES}")
        return [self.qemu, "-L", str(ARM64_SYSROOT), str(self.tool), *device, *flags]

    def run(self, *flags: str, timeout_s: float = 300, driver: str = "local-task") -> subprocess.CompletedProcess:
        """Run :meth:`command` (its output as text)."""
        try:
            return subprocess.run(self.command(*flags, driver=driver), capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise S4tfError(f"iree-run-module under qemu-aarch64 did not finish within {timeout_s:.0f} s") from None

    def invoke(self, module, function: str, arrays, parameters=None, results: int = 1,
               driver: str = "local-task") -> list[np.ndarray]:
        """Call ``function`` of the module at ``module`` with ``arrays`` (weights from the
        archive ``parameters``, if given) on IREE's ``driver``; its ``results`` outputs as arrays."""
        with tempfile.TemporaryDirectory(prefix="s4tf-arm64-") as folder:
            flags = [f"--module={module}", f"--function={function}"]
            for index, array in enumerate(arrays):
                np.save(Path(folder) / f"input{index}.npy", array)
                flags.append(f"--input=@{Path(folder) / f'input{index}.npy'}")
            if parameters is not None:
                flags.append(f"--parameters={SCOPE}={parameters}")
            outputs = [Path(folder) / f"result{index}.npy" for index in range(results)]
            completed = self.run(*flags, *(f"--output=@{output}" for output in outputs), driver=driver)
            if completed.returncode != 0:
                raise InvocationError(f"calling '{function}' under qemu-aarch64 failed: {_failure(completed.stderr)}")
            return [np.load(output) for output in outputs]


def _failure(stderr: str, limit: int = 300) -> str:
    """The first line of ``iree-run-module``'s complaint."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    reason = iree_message(RuntimeError(lines[0])) if lines else "no message"
    return reason if len(reason) <= limit else reason[:limit] + "..."


def qemu_aarch64() -> str | None:
    """qemu-aarch64, where it and the arm64 C libraries are installed."""
    qemu = shutil.which("qemu-aarch64")
    return qemu if qemu and (ARM64_SYSROOT / "lib" / "ld-linux-aarch64.so.1").exists() else None
