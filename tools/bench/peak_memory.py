"""Peak memory of a piece of work, for the benchmarks: on the CPU the device's memory is
the process's.

``peak_bytes_above_resident(run)`` is the peak resident set (Linux ``VmHWM``, reset
through ``/proc/self/clear_refs``) while ``run()`` runs, above the resident set before it;
``in_fresh_process(command, tag)`` runs a benchmark's measuring mode in a process of its
own, with glibc's malloc told to map every block over 64 KiB on its own
(``MALLOC_MMAP_THRESHOLD_``), so freed buffers leave the resident set at once, and reads
the figure it prints after ``tag``. (IREE's allocator statistics do not count the buffers
a function allocates for its results, so they cannot show this.)
"""

from __future__ import annotations

import gc
import os
import re
import subprocess
from pathlib import Path


def _status_kb(field: str) -> int:
    return int(re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M).group(1))


def peak_bytes_above_resident(run) -> int | None:
    """Peak resident bytes while ``run()`` runs, above the resident set before it; ``None``
    where Linux's peak cannot be reset."""
    gc.collect()
    resident = _status_kb("VmRSS")
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current VmRSS
    except OSError:
        return None
    run()
    return (_status_kb("VmHWM") - resident) * 1024


def in_fresh_process(command: list[str], tag: str, **variables: str) -> int | None:
    """The bytes ``command`` prints on a line ``<tag><bytes>``, run in a fresh process (see
    the module docstring) with these environment ``variables`` besides; ``None``, saying
    why, if it prints none."""
    environment = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(64 * 1024), **variables}
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=600)
    found = re.search(rf"^{re.escape(tag)}(\d+)$", result.stdout, re.M)
    if found is None:
        print(f"memory not measured: the measuring process said {(result.stdout + result.stderr).strip()[-300:]!r}")
    return int(found.group(1)) if found else None
