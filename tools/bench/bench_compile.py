"""Compile time of a training step: staging, passes, buffer donation, IREE, loading.

```
python tools/bench/bench_compile.py                  # MLP 784-512-512-10 at batch 128, 7 rounds
python tools/bench/bench_compile.py --rounds 3
```

Each round builds a new ``s4tf.nn.training.train_step`` (Adam, with buffer donation: the
model and optimizer state are donated), so nothing is kept in memory between rounds, and
times its first call: trace, lower to StableHLO, donate, compile (or read the disk cache),
load, run, host copy of the loss. *Cold*: a new, empty ``$S4TF_CACHE_DIR`` each round;
*warm*: the cache already holds the module, so IREE does not run and the figure is
s4tf's own work. *trace* is ``step.lower(...)`` alone (tracing into the s4tf dialect).
*JAX* is the first call of a new ``jax.jit`` of the same step (trace, XLA compile, run;
JAX's persistent cache is off), the peer of the cold figure.
The figures are medians over the rounds, in wall-clock time and in CPU time (which a
loaded machine disturbs less): this process's and its finished children's, so a cold
call's CPU time includes IREE's compiler, which runs in a process of its own, as JAX's
includes XLA's.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time

import numpy as np

from s4tf import nn, set_first_call
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from s4tf.tools.train_problems import jax_step, model_leaves


def problem(batch: int):
    rng = np.random.default_rng(0)
    model = nn.MLP((784, 512, 512, 10))
    opt = Adam(1e-3)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    return opt, model, opt.init(model), x, y


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (IREE's compiler runs as one)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of ``fn()``."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    fn()
    return time.perf_counter() - wall, cpu_seconds() - cpu


def first_call(batch: int) -> tuple[float, float]:
    """Seconds of a new training step's first call, loss copied to the host."""
    opt, model, state, x, y = problem(batch)
    step = train_step(opt)
    return timed(lambda: np.asarray(step(model, state, x, y)[2]))


def trace_only(batch: int) -> tuple[float, float]:
    opt, model, state, x, y = problem(batch)
    step = train_step(opt)
    return timed(lambda: step.lower(model, state, x, y))


def jax_first_call(batch: int) -> tuple[float, float]:
    """Seconds of a new ``jax.jit`` step's first call (trace, compile, run), loss copied to the host."""
    import jax
    import jax.numpy as jnp

    _, model, _, x, y = problem(batch)
    params = jax.device_put(model_leaves(model))
    zeros = jax.tree.map(jnp.zeros_like, params)
    step = jax_step("mlp")
    return timed(lambda: float(step(params, zeros, zeros, jnp.float32(0), x, y)[4]))


def measure(batch: int, rounds: int) -> dict[str, list[tuple[float, float]]]:
    times: dict[str, list[tuple[float, float]]] = {"cold": [], "JAX": [], "warm": [], "trace": []}
    saved = os.environ.get("S4TF_CACHE_DIR")
    try:
        with tempfile.TemporaryDirectory() as warm_dir:
            os.environ["S4TF_CACHE_DIR"] = warm_dir
            first_call(batch)  # fills the warm cache
            for _ in range(rounds):
                with tempfile.TemporaryDirectory() as cold_dir:
                    os.environ["S4TF_CACHE_DIR"] = cold_dir
                    times["cold"].append(first_call(batch))
                times["JAX"].append(jax_first_call(batch))
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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args(argv)
    set_first_call("compile")  # cold first calls wait for IREE; tiered ones: bench_first_calls.py
    times = measure(options.batch, options.rounds)
    print(f"MLP 784-512-512-10 training step (Adam, donation), batch {options.batch}, {options.rounds} rounds")
    for name, values in times.items():
        wall, cpu = ([v[i] * 1e3 for v in values] for i in (0, 1))
        print(f"{name:6} wall median {statistics.median(wall):8.1f} ms (min {min(wall):8.1f})   "
              f"CPU median {statistics.median(cpu):8.1f} ms (min {min(cpu):8.1f})")
    cold, peer = (statistics.median(v[0] for v in times[name]) for name in ("cold", "JAX"))
    cold_cpu, peer_cpu = (statistics.median(v[1] for v in times[name]) for name in ("cold", "JAX"))
    print(f"cold first call / JAX's first call: {cold / peer:.2f} (wall medians), {cold_cpu / peer_cpu:.2f} (CPU medians)")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
