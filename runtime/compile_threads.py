"""Whether ``iree-compile`` runs its passes on threads: only while a core is idle.

IREE's pass manager runs the pipelines of a module's executables on a thread pool. When
every core is already busy (a test suite on each core, compiles beside each other) the
threads cannot run at once, and their start and hand-offs only cost CPU; with a core idle
they shorten the compile of a large module (figures: docs/benchmarks.md, "Compile and
first calls"). The code is the same bits either way, so the choice is not part of a
module's cache key::

    flags = [*flags, *threading_flags()]   # ['--mlir-disable-threading'] while cores are busy
"""

from __future__ import annotations

import os

DISABLE_THREADING = "--mlir-disable-threading"


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threading_flags(load: float | None = None) -> list[str]:
    """``--mlir-disable-threading`` when the one-minute load average ``load`` (this machine's
    when ``None``) leaves no core idle, else nothing."""
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average on this system: IREE's default
            return []
    return [DISABLE_THREADING] if load > usable_cpus() - 0.5 else []
