"""Benchmark training steps: s4tf's compiled step against JAX-jit, and device memory.

```
python tools/bench/bench_train.py                    # MLP 784-512-512-10 at batch 128, LeNet-5 at batch 64,
                                                     # a transformer encoder block (d 256, 4 heads, seq 128) at batch 8
python tools/bench/bench_train.py --steps 20 --rounds 3
```

One training step is: forward pass, softmax cross-entropy, reverse mode, and an Adam
update of every parameter (the models and steps: ``s4tf.tools.train_problems``). The batch is on the device before timing, for both peers. s4tf runs it as one IREE function (``s4tf.nn.training``), JAX
as one ``jax.jit`` function of the same model written with ``jax.numpy``. Both start from
the same weights and take the same batches; the first step's losses are checked against
each other. Timed: ``--steps`` steps in a row, then a host copy of the last loss (both
peers run asynchronously), in alternating rounds; the figures are the medians per step of
wall time and of this process's CPU time (all threads: a shared machine disturbs it less).

GFLOP/s count multiply-adds of the forward pass times three (forward, and the two
products of each layer's backward pass), against the machine's sgemm peak measured with
NumPy (a 2048x2048 float32 product).

Memory (``peak_memory.py``): on the CPU the device's memory is the process's. In a
fresh process, with the model, its Adam state and the batch on the device and the step
compiled beforehand (s4tf's in the disk cache, JAX's ahead of time), the peak resident
set of the first step above the resident set before it is what a step needs besides the
model and state (:func:`first_step_memory`), compared with the bytes of the parameters
and Adam's two moments: each peer with buffer donation (``s4tf.staging.donation``, the default of
``s4tf.nn.training.train_step``; JAX's ``donate_argnums``) and without.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import s4tf
from s4tf import pytree
from s4tf.tools.train_problems import BATCH, fresh_model, jax_state, jax_step, model_leaves, problem
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from busy_neighbour import busy_neighbour  # noqa: E402
from peak_memory import in_fresh_process, peak_bytes_above_resident  # noqa: E402

MEMORY_TAG = "training-memory-bytes:"


def sgemm_peak_gflops(size: int = 2048, repeats: int = 5) -> float:
    a = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
    a @ a
    best = min(_time(lambda: a @ a) for _ in range(repeats))
    return 2 * size**3 / best / 1e9


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure_in_subprocess(peer: str, kind: str, batch: int, donate: bool) -> int | None:
    """:func:`first_step_memory` in a fresh process; s4tf's twice, the first run filling
    the disk cache, so that the measured one loads the step instead of compiling it."""
    command = [sys.executable, __file__, "--memory-of", kind, "--peer", peer, "--batch", str(batch)]
    command += [] if donate else ["--no-donation"]
    if peer == "s4tf":  # compiled at once, not interpreted while compiling: into the disk cache
        in_fresh_process(command, MEMORY_TAG, S4TF_FIRST_CALL="compile")
    return in_fresh_process(command, MEMORY_TAG, S4TF_FIRST_CALL="compile")


def first_step_memory(peer: str, kind: str, batch: int, donate: bool) -> int | None:
    """Peak resident bytes of this process's first training step above the resident set
    with the model, the optimizer state and the batch already on the device, the step
    compiled beforehand: what training needs besides them. That is the step's own memory
    (activations, gradients, and the new parameters and state where the old ones are not
    donated), which IREE keeps in its pools for the later steps (they need no more), and
    each peer's one-time costs of a first call: s4tf's tracing of the step and its loading
    from the disk cache, XLA's setting up of its runtime (a second JAX step alone needs a
    fraction of its first's). ``None`` where Linux's peak cannot be reset."""
    x, y, step, opt = problem(kind, batch)[1:]
    model = fresh_model(kind)
    if peer == "JAX jit":
        import jax

        args = (*jax_state(jax, model), jax.device_put(x), jax.device_put(y))
        compiled = jax_step(kind, donate).lower(*args).compile()
        return peak_bytes_above_resident(lambda: jax.block_until_ready(compiled(*args)))
    if not donate:
        step = s4tf.function(step.python_fn)
    args = pytree.tree_map(lambda a: s4tf.asarray(a) if isinstance(a, np.ndarray) else a, (model, opt.init(model), x, y))
    return peak_bytes_above_resident(lambda: np.asarray(step(*args)[2]))


def step_times(kind: str, model, x, y, step, opt, steps: int, rounds: int, busy: bool = False) -> tuple[dict, float]:
    """``({peer: [(wall, CPU) seconds per step, per round]}, first loss)``: s4tf's ``step``
    and JAX-jit's of the same ``kind`` from ``model``'s weights, alternating (beside one
    other CPU-bound process when ``busy``); the first losses and accuracies are checked to agree."""
    state = opt.init(model)
    peers = {}
    _, _, first_loss, first_accuracy = step(model, state, x, y)
    s4tf_loss = float(np.asarray(first_loss))

    device_x, device_y = s4tf.asarray(x), s4tf.asarray(y)  # as JAX's, on the device before timing

    def run_s4tf():
        nonlocal model, state
        for _ in range(steps):
            model, state, loss, _ = step(model, state, device_x, device_y)
        np.asarray(loss)

    peers["s4tf"] = run_s4tf
    try:
        import jax
    except ImportError:
        jax = None
    if jax is not None:
        jstep = jax_step(kind)
        jstate = jax_state(jax, model)
        jx, jy = jax.device_put(x), jax.device_put(y)
        *_, jax_loss, jax_accuracy = jstep(*jstate, jx, jy)  # the same fresh weights as s4tf's first step above
        np.testing.assert_allclose(float(jax_loss), s4tf_loss, rtol=1e-4)
        np.testing.assert_allclose(float(jax_accuracy), float(np.asarray(first_accuracy)))

        def run_jax():
            for _ in range(steps):
                *jstate[:4], loss, _ = jstep(*jstate, jx, jy)
            float(loss)

        peers["JAX jit"] = run_jax
    for run in peers.values():
        run()  # warm-up
    times = {name: [] for name in peers}  # (wall, CPU) seconds per step, per round
    with busy_neighbour(busy):
        for _ in range(rounds):
            for name, run in peers.items():
                cpu = time.process_time()
                wall = _time(run)
                times[name].append((wall / steps, (time.process_time() - cpu) / steps))
    return times, s4tf_loss


def benchmark(kind: str, batch: int, steps: int, rounds: int, peak: float, busy: bool = False) -> None:
    flops, x, y, step, opt = problem(kind, batch)
    model = fresh_model(kind)
    params_and_state_bytes = 3 * sum(w.nbytes + b.nbytes for w, b in model_leaves(model))
    times, s4tf_loss = step_times(kind, model, x, y, step, opt, steps, rounds, busy)
    memory = {(peer, donate): measure_in_subprocess(peer, kind, batch, donate) for peer in ("s4tf", "JAX jit")
              for donate in (True, False) if peer == "s4tf" or "JAX jit" in times}
    beside = ", beside one CPU-bound process" if busy else ""
    print(f"\n{kind}, batch {batch}: {flops / 1e9:.3f} GFLOP per step, first loss {s4tf_loss:.4f} (peers agree){beside}")
    print(f"{'peer':<10}{'ms/step':>10}{'GFLOP/s':>10}{'% of sgemm':>12}{'ratio s4tf/peer':>17}"
          f"{'CPU ms/step':>13}{'CPU ratio':>11}")
    ours, ours_cpu = (statistics.median(t[i] for t in times["s4tf"]) for i in (0, 1))
    for name, samples in times.items():
        median, cpu = (statistics.median(t[i] for t in samples) for i in (0, 1))
        ratio, cpu_ratio = ("", "") if name == "s4tf" else (f"{ours / median:.2f}", f"{ours_cpu / cpu:.2f}")
        print(f"{name:<10}{median * 1e3:>10.2f}{flops / median / 1e9:>10.1f}{100 * flops / median / 1e9 / peak:>11.0f}%{ratio:>17}"
              f"{cpu * 1e3:>13.2f}{cpu_ratio:>11}")
    print(f"memory a step needs beyond parameters + Adam state ({params_and_state_bytes / 1e6:.2f} MB), first step of a fresh process:")
    for (peer, donate), used in memory.items():
        figure = "not measured" if used is None else f"{used / 1e6:.2f} MB (in use {1 + used / params_and_state_bytes:.2f}x)"
        print(f"  {peer:<8} {'donated' if donate else 'not donated':<12} {figure}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per peer")
    parser.add_argument("--models", default="mlp,lenet,transformer",
                        help="comma-separated: mlp (batch 128), lenet (batch 64), transformer (batch 8)")
    parser.add_argument("--batch-scale", type=float, default=1.0, help="scale the batch sizes (for quick runs)")
    parser.add_argument("--busy", action="store_true", help="time the steps beside one other CPU-bound process")
    parser.add_argument("--memory-of", choices=("mlp", "lenet", "transformer"), help=argparse.SUPPRESS)  # the subprocess's job
    parser.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--peer", choices=("s4tf", "JAX jit"), default="s4tf", help=argparse.SUPPRESS)
    parser.add_argument("--no-donation", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.memory_of:
        print(f"{MEMORY_TAG}{first_step_memory(options.peer, options.memory_of, options.batch, not options.no_donation)}")
        return
    peak = sgemm_peak_gflops()
    print(f"sgemm peak (NumPy, 2048x2048 float32): {peak:.1f} GFLOP/s")
    for kind, batch in BATCH.items():
        if kind in options.models.split(","):
            benchmark(kind, max(1, round(batch * options.batch_scale)), options.steps, options.rounds, peak, options.busy)


if __name__ == "__main__":
    main()
