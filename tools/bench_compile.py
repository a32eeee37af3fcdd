"""Compile time of a training step: staging, passes, buffer donation, IREE, loading.

```
python tools/bench_compile.py                  # MLP 784-512-512-10 at batch 128, 7 rounds
python tools/bench_compile.py --rounds 3
```

Each round builds a new ``s4tf.nn.training.train_step`` (Adam, with buffer donation: the
model and optimizer state are donated), so nothing is kept in memory between rounds, and
times its first call: trace, lower to StableHLO, donate, compile (or read the disk cache),
load, run, host copy of the loss. *Cold*: a new, empty ``$S4TF_CACHE_DIR`` each round;
*warm*: the cache already holds the module, so IREE does not run and the figure is
s4tf's own work. *trace* is ``step.lower(...)`` alone (tracing into the s4tf dialect).
The figures are medians over the rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from s4tf import nn
from s4tf.nn.training import train_step
from s4tf.optim import Adam


def problem(batch: int):
    rng = np.random.default_rng(0)
    model = nn.MLP((784, 512, 512, 10))
    opt = Adam(1e-3)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    return opt, model, opt.init(model), x, y


def first_call(batch: int) -> float:
    """Seconds of a new training step's first call, loss copied to the host."""
    opt, model, state, x, y = problem(batch)
    step = train_step(opt)
    start = time.perf_counter()
    _, _, loss, _ = step(model, state, x, y)
    np.asarray(loss)
    return time.perf_counter() - start


def trace_only(batch: int) -> float:
    opt, model, state, x, y = problem(batch)
    step = train_step(opt)
    start = time.perf_counter()
    step.lower(model, state, x, y)
    return time.perf_counter() - start


def measure(batch: int, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"cold": [], "warm": [], "trace": []}
    saved = os.environ.get("S4TF_CACHE_DIR")
    try:
        with tempfile.TemporaryDirectory() as warm_dir:
            os.environ["S4TF_CACHE_DIR"] = warm_dir
            first_call(batch)  # fills the warm cache
            for _ in range(rounds):
                with tempfile.TemporaryDirectory() as cold_dir:
                    os.environ["S4TF_CACHE_DIR"] = cold_dir
                    times["cold"].append(first_call(batch))
                os.environ["S4TF_CACHE_DIR"] = warm_dir
                times["warm"].append(first_call(batch))
                times["trace"].append(trace_only(batch))
    finally:
        if saved is None:
            os.environ.pop("S4TF_CACHE_DIR", None)
        else:
            os.environ["S4TF_CACHE_DIR"] = saved
    return times


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args(argv)
    times = measure(options.batch, options.rounds)
    print(f"MLP 784-512-512-10 training step (Adam, donation), batch {options.batch}, {options.rounds} rounds")
    for name, values in times.items():
        print(f"{name:6} median {statistics.median(values) * 1e3:8.1f} ms  min {min(values) * 1e3:8.1f} ms")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
