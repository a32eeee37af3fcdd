"""arm64 runs under qemu for benchmarks and tests: a runner that fetches the aarch64 runtime
into a folder of its own, and the peak memory of a run.

```python
runner = find_runner(cache_folder)                # None without qemu or the arm64 libraries
run = run_measured(runner.command("--module=m.vmfb", "--function=predict", "--input=@x.npy"))
run.returncode, run.stdout, run.peak_memory_bytes  # peak: None without GNU time
```

(``s4tf-run`` runs arm64 modules with :mod:`s4tf.runtime.qemu` alone.)
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from s4tf.core.errors import S4tfError
from s4tf.runtime.qemu import Arm64Runner, aarch64_run_module, qemu_aarch64

GNU_TIME = "/usr/bin/time"
_PEAK_TAG = "s4tf-peak-rss-kb:"


def find_runner(cache_folder: Path) -> Arm64Runner | None:
    """A runner whose aarch64 runtime is kept in ``cache_folder`` (downloaded the first
    time), or ``None`` where qemu-aarch64 or the arm64 C libraries are missing."""
    qemu = qemu_aarch64()
    return Arm64Runner(qemu, aarch64_run_module(cache_folder)) if qemu else None


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
