"""A loop whose matrix products read a matrix from memory: one dispatch against host-stepped.

```
python tools/bench/bench_loop_memory.py                       # 600x16 to 8000x64
python tools/bench/bench_loop_memory.py --sizes 4000x256 --beyond-bound
```

The loop is :func:`descend`, ``v = v - 0.002 * ((w @ v) @ w)`` for ``n`` steps, ``w`` over
32 KiB (docs/control-flow.md, "Large operands"). For each size: compile time with an empty
``$S4TF_CACHE_DIR``, and the time an iteration ((time at ``--steps`` minus time at 0) over
``--steps``, each the median of 15 calls through IREE's Python API), lowered with
``s4tf-loops-to-dispatch`` and without it; then the largest difference of the results.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import s4tf


def descend(w, v, n):
    """Gradient steps on ``|w v|^2 / 2``; ``w`` read from outside the loop."""
    i = n * 0
    while i < n:
        v = v - 0.002 * ((w @ v) @ w)
        i = i + 1
    return v


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["600x16", "2000x32", "4000x64", "8000x64"],
                        help="rows x columns of w")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--beyond-bound", action="store_true",
                        help="lift MAX_MEMORY_PRODUCTS, to time products over it inside a dispatch")
    options = parser.parse_args(argv)
    from s4tf.passes.iree import loop_dispatch_ops
    from s4tf.passes.iree.loop_dispatch import LoopsToDispatch
    from s4tf.passes.pipeline import LOWERING_PIPELINE
    from s4tf.runtime.compile_and_load import compile_and_load

    if options.beyond_bound:
        loop_dispatch_ops.MAX_MEMORY_PRODUCTS = 1 << 40
    saved = os.environ.get("S4TF_CACHE_DIR")
    try:
        for size in options.sizes:
            rows, columns = map(int, size.split("x"))
            rng = np.random.default_rng(0)
            w = (rng.normal(size=(rows, columns)) / np.sqrt(rows * columns)).astype(np.float32)
            v = rng.normal(size=columns).astype(np.float32)
            lowered = s4tf.function(descend).lower(w, v, np.int32(options.steps))
            results = {}
            for how, text in (("host-stepped", lowered.stablehlo()),
                              ("one dispatch", lowered.stablehlo(LOWERING_PIPELINE + [LoopsToDispatch()]))):
                os.environ["S4TF_CACHE_DIR"] = tempfile.mkdtemp()
                start = time.perf_counter()
                module = compile_and_load(text)
                compile_seconds = time.perf_counter() - start
                medians = {}
                for n in (0, options.steps):
                    args = [w, v, np.asarray(np.int32(n))]
                    results[how] = np.asarray(module.invoke(lowered.entry, args)[0])
                    samples = []
                    for _ in range(15):
                        start = time.perf_counter()
                        np.asarray(module.invoke(lowered.entry, args)[0])
                        samples.append(time.perf_counter() - start)
                    medians[n] = statistics.median(samples)
                per_step = (medians[options.steps] - medians[0]) / options.steps
                print(f"{size} ({rows * columns} multiply-adds a product), {how}: "
                      f"{text.count('flow.dispatch.region')} dispatch regions, compile {compile_seconds:.1f} s, "
                      f"{per_step * 1e6:.1f} us an iteration", flush=True)
            print(f"{size}: largest difference {np.abs(results['host-stepped'] - results['one dispatch']).max():.3g}")
    finally:
        if saved is None:
            os.environ.pop("S4TF_CACHE_DIR", None)
        else:
            os.environ["S4TF_CACHE_DIR"] = saved


if __name__ == "__main__":
    main()
