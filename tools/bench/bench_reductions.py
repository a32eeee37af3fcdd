"""Benchmark float32 sums and means: s4tf against JAX-jit, in speed and in accuracy.

```
python tools/bench/bench_reductions.py                    # every case
python tools/bench/bench_reductions.py --calls 20 --rounds 3
```

One case per size class of the reduced extent ``n``: short rows (``n < 64``), medium
(``10^3 <= n <= 10^4``), long (``10^5 <= n <= 10^6``), several axes merged into one (the
mean over N, H and W of a channels-last batch, as BatchNorm takes it) and a sum over a
leading axis. Each function is called ``--calls`` times in a row per round, peers
alternating round by round in this process; figures are medians over ``--rounds`` of the
time per call, JAX's results waited for (``block_until_ready``). The error is the largest
relative error of a result element against the float64 reduction of the same float32 input.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import s4tf

# name: (shape, axes, "sum" or "mean")
CASES = {
    "sum (4096, 48) over axis 1": ((4096, 48), (1,), "sum"),
    "mean (64, 8192) over axis 1": ((64, 8192), (1,), "mean"),
    "sum (1048576,)": ((1 << 20,), (0,), "sum"),
    "mean (32, 32, 32, 16) over (0, 1, 2)": ((32, 32, 32, 16), (0, 1, 2), "mean"),
    "sum (100000, 16) over axis 0": ((100_000, 16), (0,), "sum"),
}


def per_call(run, calls: int) -> float:
    """Seconds per call of ``run`` (which makes one call), over ``calls`` calls in a row."""
    start = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - start) / calls


def relative_error(result, exact) -> float:
    return float(np.max(np.abs(np.asarray(result, np.float64) - exact) / np.abs(exact)))


def peers(shape, axes, kind):
    """``(input, float64 result, s4tf function, JAX function)`` for one case."""
    import jax
    import jax.numpy as jnp

    x = (np.random.default_rng(0).standard_normal(shape) + 1).astype(np.float32)
    exact = getattr(x.astype(np.float64), kind)(axis=axes)
    s4tf_fn = s4tf.function(lambda t: getattr(s4tf, kind)(t, axis=axes))
    jax_fn = jax.jit(lambda t: getattr(jnp, kind)(t, axis=axes))
    return x, exact, s4tf_fn, jax_fn


def main() -> None:
    import jax

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    for name, (shape, axes, kind) in CASES.items():
        x, exact, s4tf_fn, jax_fn = peers(shape, axes, kind)
        s4tf_x, jax_x = s4tf.asarray(x), jax.device_put(x)
        s4tf_error = relative_error(s4tf_fn(s4tf_x), exact)
        jax_error = relative_error(jax_fn(jax_x), exact)
        runs = {"s4tf": lambda: s4tf_fn(s4tf_x), "jax": lambda: jax_fn(jax_x).block_until_ready()}
        times = {peer: [] for peer in runs}
        for _ in range(args.rounds):
            for peer, run in runs.items():
                times[peer].append(per_call(run, args.calls))
        s4tf_us, jax_us = (statistics.median(samples) * 1e6 for samples in times.values())
        print(f"{name}: s4tf {s4tf_us:.1f} us, JAX {jax_us:.1f} us, s4tf / JAX {s4tf_us / jax_us:.2f}; "
              f"relative error s4tf {s4tf_error:.1e}, JAX {jax_error:.1e}", flush=True)


if __name__ == "__main__":
    main()
