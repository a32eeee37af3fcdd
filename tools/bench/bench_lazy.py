"""Steps per second of one eager-written MLP training loop in eager, lazy and staged mode,
and of the same step in JAX with ``jax.jit`` (the S4TF paper's Table 3, on this machine).

```
python tools/bench/bench_lazy.py                                    # batch 64, 784-256-256-10
python tools/bench/bench_lazy.py --batch 32 --sizes 64,128,10       # where per-op overhead dominates
```

The step is written once as eager code: ``s4tf.value_and_grad`` of a ``tanh`` MLP's mean
squared error, then ``optim.Adam``'s update (about a dozen ops per parameter). Eager mode
runs it as written: the gradient is one compiled function (s4tf differentiates staged
code), every update op runs on its own. Lazy mode runs it inside ``with s4tf.lazy():``
(the update's barrier runs each step's trace, compiled once). Staged mode is
``s4tf.function(step)``; JAX is ``jax.jit`` of the same step written with ``jax.numpy``.

All modes start from the same parameters, and their losses after the checked steps must
agree (float32 rounding) before anything is timed. Timing: ``--rounds`` rounds, each
running ``--steps`` steps of every mode in turn (eager runs ``--eager-steps``), after a
warm-up that compiles everything; a round's time ends with the loss read on the host.
Each mode's figure is its median round and its best round: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

import s4tf
from s4tf import optim

ADAM = dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8)


def make_problem(batch: int, sizes: tuple[int, ...], seed: int = 0):
    """Float32 ``(params, x, y)``: weights scaled by ``1/sqrt(fan_in)``, zero biases."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = rng.standard_normal((batch, sizes[-1])).astype(np.float32)
    return params, x, y


def mlp_loss(np_, params, x, y):
    """The mean squared error of a ``tanh`` MLP, with the array module ``np_``."""
    for w, b in zip(params[:-2:2], params[1:-2:2]):
        x = np_.tanh(x @ w + b)
    return np_.mean((x @ params[-2] + params[-1] - y) ** 2)


def s4tf_step_function():
    """The eager-written training step: ``(params, state, x, y) -> (loss, params, state)``."""
    value_and_grad = s4tf.value_and_grad(lambda params, x, y: mlp_loss(s4tf, params, x, y))
    opt = optim.Adam(ADAM["lr"], ADAM["beta1"], ADAM["beta2"], ADAM["eps"])

    def step(params, state, x, y):
        loss, grads = value_and_grad(params, x, y)
        params, state = opt.update(params, state, grads)
        return loss, params, state

    return step, opt


def jax_step_function(jax):
    """The same step in JAX (Adam written out as :class:`s4tf.optim.Adam` computes it)."""
    jnp = jax.numpy

    def step(params, state, x, y):
        loss, grads = jax.value_and_grad(lambda p: mlp_loss(jnp, p, x, y))(params)
        count, m, v = state
        count = count + 1.0
        m = [ADAM["beta1"] * mi + (1 - ADAM["beta1"]) * g for mi, g in zip(m, grads)]
        v = [ADAM["beta2"] * vi + (1 - ADAM["beta2"]) * g * g for vi, g in zip(v, grads)]
        c1 = 1.0 - ADAM["beta1"] ** count
        c2 = 1.0 - ADAM["beta2"] ** count
        params = [p - ADAM["lr"] * ((mi / c1) / (jnp.sqrt(vi / c2) + ADAM["eps"])) for p, mi, vi in zip(params, m, v)]
        return loss, params, (count, m, v)

    return jax.jit(step)


def modes(problem, jax):
    """``{name: (run(steps) -> final loss, ...)}`` with each mode's state kept between calls."""
    params, x, y = problem
    step, opt = s4tf_step_function()

    def lazy_step(*args):
        with s4tf.lazy():
            return step(*args)

    def s4tf_mode(function):
        state = {"params": [s4tf.asarray(p) for p in params], "opt": opt.init(params)}
        inputs = (s4tf.asarray(x), s4tf.asarray(y))

        def run(steps: int) -> float:
            for _ in range(steps):
                loss, state["params"], state["opt"] = function(state["params"], state["opt"], *inputs)
            return float(loss)

        return run

    chosen = {"eager": s4tf_mode(step), "lazy": s4tf_mode(lazy_step), "staged": s4tf_mode(s4tf.function(step))}
    if jax is not None:
        jnp = jax.numpy
        jax_step = jax_step_function(jax)
        jax_state = {
            "params": [jax.device_put(p) for p in params],
            "opt": (jnp.zeros((), jnp.float32), [jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params]),
        }
        jax_inputs = (jax.device_put(x), jax.device_put(y))

        def run_jax(steps: int) -> float:
            for _ in range(steps):
                loss, jax_state["params"], jax_state["opt"] = jax_step(jax_state["params"], jax_state["opt"], *jax_inputs)
            return float(loss)

        chosen["JAX-jit"] = run_jax
    return chosen


def load_jax():
    """``jax``, or ``None`` when it is not installed (pip extra ``bench``)."""
    try:
        import jax
    except ImportError:
        return None
    return jax


def check_agreement(chosen, steps: int) -> dict[str, float]:
    """Every mode's loss after ``steps`` steps from the same start; they must agree."""
    losses = {name: run(steps) for name, run in chosen.items()}
    reference = losses["eager"]
    for name, loss in losses.items():
        if not np.isclose(loss, reference, rtol=1e-4):
            raise SystemExit(f"{name}'s loss after {steps} steps is {loss}, eager's {reference}")
    return losses


def time_modes(chosen, steps: int, eager_steps: int, rounds: int) -> dict[str, list[float]]:
    """Seconds per step of every mode, one figure per round; modes alternate in each round."""
    seconds = {name: [] for name in chosen}
    for _ in range(rounds):
        for name, run in chosen.items():
            count = eager_steps if name == "eager" else steps
            start = time.perf_counter()
            run(count)
            seconds[name].append((time.perf_counter() - start) / count)
    return seconds


def report(seconds: dict[str, list[float]], stats_before, stats_after) -> None:
    rates = {name: (1 / statistics.median(values), 1 / min(values)) for name, values in seconds.items()}
    print("steps/s: median round (best round)")
    for name, (median, best) in rates.items():
        print(f"  {name:8} {median:9.1f} ({best:.1f})")
    median = {name: rate[0] for name, rate in rates.items()}
    best = {name: rate[1] for name, rate in rates.items()}
    print(f"staged/lazy time ratio: median {median['staged'] / median['lazy']:.2f}, best {best['staged'] / best['lazy']:.2f}"
          " (goal: at most 1.2)")
    print(f"lazy/eager speed-up: median {median['lazy'] / median['eager']:.1f}x, best {best['lazy'] / best['eager']:.1f}x"
          " (goal: at least 10x)")
    if "JAX-jit" in median:
        print(f"JAX-jit/staged speed: median {median['JAX-jit'] / median['staged']:.2f}")
    runs = stats_after.traces_run - stats_before.traces_run
    print(f"lazy traces while timed: {runs} run, {stats_after.traces_compiled - stats_before.traces_compiled} compiled, "
          f"ops per trace {sorted(set(stats_after.ops_per_trace[-runs:]))}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--sizes", default="784,256,256,10", help="layer sizes, comma-separated")
    parser.add_argument("--steps", type=int, default=100, help="steps per round of lazy, staged and JAX")
    parser.add_argument("--eager-steps", type=int, default=10, help="steps per round of eager mode")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check-steps", type=int, default=3, help="steps compared across modes first")
    options = parser.parse_args(argv)
    sizes = tuple(int(size) for size in options.sizes.split(","))
    jax = load_jax()
    print(f"MLP {'-'.join(map(str, sizes))}, batch {options.batch}, Adam; Python {platform.python_version()}, "
          f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f} at start"
          + ("" if jax else "; JAX not installed"))
    chosen = modes(make_problem(options.batch, sizes), jax)
    losses = check_agreement(chosen, options.check_steps)
    print(f"loss after {options.check_steps} steps: " + ", ".join(f"{name} {loss:.6f}" for name, loss in losses.items()))
    for run in chosen.values():  # warm-up: the steady-state trace of lazy mode, JAX's compile
        run(2)
    before = s4tf.lazy_stats()
    seconds = time_modes(chosen, options.steps, options.eager_steps, options.rounds)
    report(seconds, before, s4tf.lazy_stats())
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
