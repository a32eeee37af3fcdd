"""GradBench's evaluations other than its loops (:mod:`gradbench_programs`; the loops are in
``bench_loops_real.py``): s4tf beside JAX (with x64) in one process, on the same float64
inputs.

```
python tools/bench/bench_gradbench.py                  # every program, 10 rounds
python tools/bench/bench_gradbench.py --only ht        # the hand tracker's Jacobians
```

Each program is first called once and timed (staging and compilation: "first call"), its
result checked against JAX's (1e-12), then timed over rounds that call each peer in turn
``--calls`` times (the median round, per call). Figures and the machine they were taken on:
docs/autodiff.md, "Programs written by others".
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import s4tf
from bench_while_grad import median_seconds  # beside this script (tools/bench/)
from gradbench_programs import CASES, S4TF, jax_namespace


def _leaves(result) -> list[np.ndarray]:
    """Every array of ``result`` on the host (so each call is finished)."""
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(result)]


def _calls(fn, args, calls: int) -> np.ndarray:
    """The first array of the last of ``calls`` calls, each finished on the host."""
    for _ in range(calls):
        leaves = _leaves(fn(*args))
    return leaves[0]


def _first_call(fn, args) -> tuple[float, list[np.ndarray]]:
    start = time.perf_counter()
    leaves = _leaves(fn(*args))
    return time.perf_counter() - start, leaves


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=10, help="timed rounds per program (default 10)")
    parser.add_argument("--calls", type=int, default=20, help="calls of each peer in a round (default 20)")
    parser.add_argument("--only", default="", help="run the programs whose name holds this text")
    options = parser.parse_args(argv)
    with jax.enable_x64(True):
        theirs_namespace = jax_namespace()
        for name, (build, args) in CASES.items():
            if options.only not in name:
                continue
            ours, theirs = s4tf.function(build(S4TF)), jax.jit(build(theirs_namespace))
            ours_first, ours_result = _first_call(ours, args)
            theirs_first, theirs_result = _first_call(theirs, args)
            for result, expected in zip(ours_result, theirs_result, strict=True):
                np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12, err_msg=name)
            ours_time, theirs_time = (seconds / options.calls for seconds in median_seconds(
                [lambda fn=fn: _calls(fn, args, options.calls) for fn in (ours, theirs)], options.repeats))
            print(f"{name}: s4tf {ours_time * 1e3:.3f} ms, JAX {theirs_time * 1e3:.3f} ms, "
                  f"s4tf / JAX {ours_time / theirs_time:.2f}; first call s4tf {ours_first:.2f} s, "
                  f"JAX {theirs_first:.2f} s, s4tf / JAX {ours_first / theirs_first:.2f}", flush=True)


if __name__ == "__main__":
    main()
