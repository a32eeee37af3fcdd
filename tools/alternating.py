"""Timing peers against each other in one process, alternating, so that a shared machine's
load falls on all of them alike.

```python
medians = alternate({"s4tf": run_s4tf, "JAX jit": run_jax}, calls=20, rounds=7, cpu=True)
wall, cpu = medians["s4tf"]                     # seconds per call
```
"""

from __future__ import annotations

import statistics
import time


def alternate(peers: dict, calls: int, rounds: int, cpu: bool = False) -> dict:
    """Median seconds per call of each peer, peers alternating in rounds of ``calls``; with
    ``cpu``, ``(wall, CPU)`` medians (this process's CPU time, all threads)."""
    times = {name: [] for name in peers}
    for run in peers.values():
        run()
    for _ in range(rounds):
        for name, run in peers.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(calls):
                run()
            times[name].append(((time.perf_counter() - start) / calls, (time.process_time() - start_cpu) / calls))
    medians = {name: tuple(statistics.median(t[i] for t in samples) for i in (0, 1)) for name, samples in times.items()}
    return medians if cpu else {name: wall for name, (wall, _) in medians.items()}
