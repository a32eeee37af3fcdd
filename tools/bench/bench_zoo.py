"""The model zoo (``docs/examples/zoo/``) beside JAX: each model's training step time and
first-step (compile) time as ratios to the same model in JAX, from the same weights and
batches, in one process.

```
python tools/bench/bench_zoo.py                          # every model, the "bench" sizes
python tools/bench/bench_zoo.py --models resnet20,vae --steps 10 --rounds 3
python tools/bench/bench_zoo.py --config test --steps 2 --rounds 1   # the smoke run of the tests
python tools/bench/bench_zoo.py --busy                   # the steps timed beside one CPU-bound process
```

*first step*: the first call of a new step, from an empty ``$S4TF_CACHE_DIR`` (trace, passes,
IREE's compile, load, run, the loss copied to the host) against the first call of the
JAX step's ``jax.jit`` (trace, XLA's compile, run; JAX's persistent cache is off), wall and
CPU seconds (``bench_compile.cpu_seconds``: this process and its finished children).
*step*: the median over rounds of the mean step time of ``--steps`` steps, the two peers
alternating round by round, each step's loss read back (so each step finishes); with
``--busy``, beside one other CPU-bound process (``busy_neighbour.py``; the first steps are
timed without it). The last line is the geometric mean of the models' step ratios.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import tempfile
import time

import numpy as np
from tqdm import tqdm

from bench_compile import timed
from busy_neighbour import busy_neighbour
from zoo_models import fresh_training_state, load_zoo_model, zoo_names


def _peer(name: str):
    module = __import__(f"zoo_peers.{name}", fromlist=["jax_train_step"])
    return module.jax_train_step


def _s4tf_runner(zoo, config):
    model, opt, opt_state = fresh_training_state(zoo, config)
    state = {"model": model, "opt": opt_state}
    step = zoo.make_train_step(config)

    def run(batch):
        state["model"], state["opt"], loss = step(state["model"], state["opt"], *batch)
        return loss

    return model, opt, run


def _jax_runner(name: str, config, model, opt):
    import jax

    with jax.enable_x64(False):
        init, step = _peer(name)(config, model, opt)
        state = {"state": init(model)}

    def run(batch):
        with jax.enable_x64(False):
            state["state"], loss = step(state["state"], *batch)
        return loss

    return run


def _read(loss) -> float:
    """The loss (or the first of a tuple of losses) on the host: the step has finished."""
    first = loss[0] if isinstance(loss, (tuple, list)) else loss
    return float(np.asarray(first))


def measure(name: str, config_name: str, steps: int, rounds: int, busy: bool = False) -> dict:
    zoo = load_zoo_model(name)
    config = zoo.CONFIGS[config_name]
    with tempfile.TemporaryDirectory() as cache:
        previous = os.environ.get("S4TF_CACHE_DIR")
        os.environ["S4TF_CACHE_DIR"] = cache
        try:
            model, opt, s4tf_step = _s4tf_runner(zoo, config)
            batch0 = zoo.make_batch(config, 0)
            s4tf_first = timed(lambda: _read(s4tf_step(batch0)))
        finally:
            if previous is None:
                os.environ.pop("S4TF_CACHE_DIR")
            else:
                os.environ["S4TF_CACHE_DIR"] = previous
    jax_step = _jax_runner(name, config, zoo.make_model(config), opt)
    jax_first = timed(lambda: _read(jax_step(batch0)))
    batches = [zoo.make_batch(config, i) for i in range(1, steps + 1)]
    times = {"s4tf": [], "jax": []}
    with busy_neighbour(busy):
        for _ in range(rounds):
            for peer, run in (("s4tf", s4tf_step), ("jax", jax_step)):
                start = time.perf_counter()
                for batch in batches:
                    _read(run(batch))
                times[peer].append((time.perf_counter() - start) / steps)
    s4tf_ms, jax_ms = (statistics.median(times[p]) * 1e3 for p in ("s4tf", "jax"))
    return {"model": name, "s4tf_ms": s4tf_ms, "jax_ms": jax_ms, "s4tf_first": s4tf_first, "jax_first": jax_first}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(zoo_names()), help="comma-separated zoo models (default: all)")
    parser.add_argument("--config", default="bench", choices=("bench", "test"))
    parser.add_argument("--steps", type=int, default=20, help="timed steps per round and peer")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--busy", action="store_true", help="time the steps beside one other CPU-bound process")
    options = parser.parse_args(argv)
    names = [n for n in options.models.split(",") if n]
    beside = "; beside one CPU-bound process" if options.busy else ""
    print(f"load average {os.getloadavg()[0]:.1f}; config {options.config}; {options.steps} steps x {options.rounds} rounds{beside}")
    print("| model | s4tf step ms | JAX step ms | step s4tf/JAX | first step s4tf s (CPU) | JAX s (CPU) | first step s4tf/JAX |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    ratios = []
    for name in tqdm(names, desc="models", leave=False):
        r = measure(name, options.config, options.steps, options.rounds, options.busy)
        ratios.append(r["s4tf_ms"] / r["jax_ms"])
        (sw, sc), (jw, jc) = r["s4tf_first"], r["jax_first"]
        tqdm.write(f"| {name} | {r['s4tf_ms']:.2f} | {r['jax_ms']:.2f} | {r['s4tf_ms'] / r['jax_ms']:.2f} | "
                   f"{sw:.1f} ({sc:.1f}) | {jw:.1f} ({jc:.1f}) | {sw / jw:.2f} |")
    print(f"geometric mean of the step ratios: {math.exp(statistics.fmean(map(math.log, ratios))):.2f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
