"""Phones without a phone: run arm64 modules on this machine under ``qemu-aarch64``.

Needs Debian's ``qemu-user``, ``libc6-arm64-cross`` and ``libstdc++6-arm64-cross``, and
the aarch64 ``iree-run-module`` from the ``iree-base-runtime`` aarch64 wheel on PyPI (the
same version as the host's), which :func:`aarch64_run_module` downloads once with pip.

```python
runner = Arm64Runner.find(cache_folder)          # None without qemu or the arm64 libraries
run = runner.run("--module=m.vmfb", "--function=predict", "--input=@x.npy")
run.returncode, run.stdout, run.peak_memory_bytes  # peak: None without GNU time
```
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

from s4tf.errors import S4tfError

ARM64_SYSROOT = Path("/usr/aarch64-linux-gnu")
TOOL_IN_WHEEL = "iree/_runtime_libs/iree-run-module"


def aarch64_run_module(folder: Path) -> Path:
    """``iree-run-module`` for aarch64, matching the installed ``iree-base-runtime``, kept in
    ``folder`` (downloaded from PyPI the first time)."""
    version = importlib.metadata.version("iree-base-runtime")
    folder = Path(folder) / f"iree-runtime-aarch64-{version}"
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


GNU_TIME = "/usr/bin/time"
_PEAK_TAG = "s4tf-peak-rss-kb:"


@dataclass
class MeasuredRun:
    returncode: int
    stdout: str
    stderr: str
    #: Peak resident memory of the process (under qemu: the emulator's, an upper bound for
    #: the program's); ``None`` without GNU time (Debian package ``time``).
    peak_memory_bytes: int | None


def run_measured(command: list[str], timeout_s: float = 300) -> MeasuredRun:
    """Run ``command``; with GNU time present, also its peak resident memory. (A child's
    rusage from Python would count the forked Python interpreter's memory too.)"""
    measured = Path(GNU_TIME).exists()
    prefix = [GNU_TIME, "-f", f"{_PEAK_TAG}%M"] if measured else []
    try:
        result = subprocess.run(prefix + command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise S4tfError(f"{Path(command[0]).name} did not finish within {timeout_s:.0f} s") from None
    stderr, peak = result.stderr, None
    if measured:
        stderr, _, tail = stderr.rpartition(_PEAK_TAG)
        peak = int(tail.strip()) * 1024
    return MeasuredRun(result.returncode, result.stdout, stderr, peak)


@dataclass
class Arm64Runner:
    qemu: str
    tool: Path

    @classmethod
    def find(cls, cache_folder: Path) -> Arm64Runner | None:
        """A runner, or ``None`` where qemu-aarch64 or the arm64 C libraries are missing."""
        qemu = shutil.which("qemu-aarch64")
        if qemu is None or not (ARM64_SYSROOT / "lib" / "ld-linux-aarch64.so.1").exists():
            return None
        return cls(qemu, aarch64_run_module(cache_folder))

    def run(self, *flags: str, timeout_s: float = 300) -> MeasuredRun:
        """``iree-run-module --device=local-task FLAGS`` under qemu, with its peak memory."""
        return run_measured([self.qemu, "-L", str(ARM64_SYSROOT), str(self.tool), "--device=local-task", *flags], timeout_s)
