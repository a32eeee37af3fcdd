"""First calls with a cold module cache: tiered (the first interpreted while IREE compiles)
against waiting for IREE, and against JAX-jit's first calls, in one process, alternating.

```
python tools/bench/bench_first_calls.py                 # 3 rounds, both programs
python tools/bench/bench_first_calls.py --rounds 1 --calls 3 --batch 8
```

Two programs: bench_mlp's MLP 784-512-512-10 forward pass and bench_compile's training
step (Adam, donation) of the same MLP; batch 128 by default. Each round and peer starts
from a new function and an empty ``$S4TF_CACHE_DIR`` and makes ``--calls`` calls, each
with a host copy of its result (the forward pass's logits, the step's loss; the step's
model and state go on to the next call). Peers:

* ``tiered``: s4tf's opt-in (``S4TF_FIRST_CALL=interpret``): the first call runs through
  the NumPy references while IREE compiles in a background thread; the second waits for it;
* ``compile``: ``S4TF_FIRST_CALL=compile``, the first call waits for IREE;
* ``JAX``: a new ``jax.jit`` (its first call traces and compiles with XLA).

Printed per peer: medians over rounds of the first call, the second, and the time until
the last call returned. After each s4tf peer the round waits for its background
compilation to end (untimed), so no round runs beside another's compiler.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_compile  # noqa: E402
import bench_mlp  # noqa: E402
import s4tf  # noqa: E402
from s4tf.nn.training import train_step  # noqa: E402
from s4tf.tools.train_problems import jax_step, model_leaves  # noqa: E402

PEERS = ("tiered", "compile", "JAX")


def wait_for_iree(fn) -> None:
    """Until every signature of ``fn`` runs IREE's module (its background compiles ended)."""
    for entry in list(fn._compiled.values()):
        if hasattr(entry, "ready"):
            entry.ready()


def s4tf_forward(batch: int):
    params, x = bench_mlp.to_s4tf(*bench_mlp.make_inputs(batch))
    fn = s4tf.function(bench_mlp.make_forward(s4tf.relu))
    return fn, lambda: np.asarray(fn(params, x))


def jax_forward(batch: int):
    import jax

    params, x = bench_mlp.make_inputs(batch)
    params, x = jax.device_put(params), jax.device_put(x)
    fn = jax.jit(bench_mlp.make_forward(jax.nn.relu))
    return fn, lambda: np.asarray(fn(params, x))


def s4tf_step(batch: int):
    opt, model, state, x, y = bench_compile.problem(batch)
    fn = train_step(opt)
    carried = [model, state]

    def call():
        carried[0], carried[1], loss, _ = fn(carried[0], carried[1], x, y)
        return float(loss)

    return fn, call


def jax_train_step(batch: int):
    import jax
    import jax.numpy as jnp

    _, model, _, x, y = bench_compile.problem(batch)
    params = jax.device_put(model_leaves(model))
    zeros = jax.tree.map(jnp.zeros_like, params)
    fn = jax_step("mlp")
    carried = [params, zeros, zeros, jnp.float32(0)]

    def call():
        *state, loss, _ = fn(*carried, x, y)
        carried[:] = state
        return float(loss)

    return fn, call


def calls(make, peer: str, batch: int, count: int) -> list[float]:
    """Seconds from the start to the end of each of ``count`` calls of a new function."""
    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["S4TF_CACHE_DIR"] = cache_dir
        if peer != "JAX":
            s4tf.set_first_call("compile" if peer == "compile" else "interpret")
        fn, call = make(batch)
        ends, start = [], time.perf_counter()
        for _ in range(count):
            call()
            ends.append(time.perf_counter() - start)
        if peer != "JAX":
            wait_for_iree(fn)
    return ends


def measure(batch: int, rounds: int, count: int) -> dict:
    programs = {"MLP forward": (s4tf_forward, jax_forward), "MLP Adam step": (s4tf_step, jax_train_step)}
    figures = {(program, peer): [] for program in programs for peer in PEERS}
    for _ in range(rounds):
        for program, (ours, theirs) in programs.items():
            for peer in PEERS:
                figures[program, peer].append(calls(theirs if peer == "JAX" else ours, peer, batch, count))
    return figures


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=10)
    options = parser.parse_args(argv)
    saved = os.environ.get("S4TF_CACHE_DIR")
    figures = measure(options.batch, options.rounds, options.calls)
    if saved is not None:
        os.environ["S4TF_CACHE_DIR"] = saved
    print(f"batch {options.batch}, {options.rounds} rounds, medians in ms; cold module cache")
    for (program, peer), rounds in figures.items():
        first = statistics.median(ends[0] for ends in rounds)
        second = statistics.median(ends[1] - ends[0] for ends in rounds)
        last = statistics.median(ends[-1] for ends in rounds)
        print(f"{program:14} {peer:12} call 1 {first * 1e3:8.1f}   call 2 {second * 1e3:8.1f}   "
              f"to call {options.calls} {last * 1e3:8.1f}")
    for program in ("MLP forward", "MLP Adam step"):
        jax_first = statistics.median(ends[0] for ends in figures[program, "JAX"])
        jax_last = statistics.median(ends[-1] for ends in figures[program, "JAX"])
        for peer in ("tiered", "compile"):
            first = statistics.median(ends[0] for ends in figures[program, peer])
            last = statistics.median(ends[-1] for ends in figures[program, peer])
            print(f"{program:14} {peer:8} / JAX: call 1 {first / jax_first:.2f}, to call {options.calls} {last / jax_last:.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
