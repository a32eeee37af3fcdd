"""Reverse mode through a while loop whose trip count is known only at run time: checkpoint
memory, and the gradient's time against the forward pass and against JAX.

```
python tools/bench/bench_while_grad.py                        # 1,000 and 10,000 steps, 1,000 floats
python tools/bench/bench_while_grad.py --steps 100 --size 10 --repeats 3
python tools/bench/bench_while_grad.py --steps 10000 --size 384 512 1000 1024   # by the vector's length
```

The loop is ``while i < n: x = x * 0.9999 + 0.001 * x * x`` on a float32 vector, ``n`` an
argument. s4tf keeps checkpoints of the carried state, every ``stride``-th step, and
recomputes the steps between them (``docs/control-flow.md``); what it holds is read from
the residuals ``s4tf.vjp`` passes to its backward pass. JAX
cannot reverse-differentiate ``while_loop``; its peer is ``jax.grad`` of ``fori_loop``
with a static trip count (a ``scan``), compiled once per ``n``. Timed: one call plus the
host copy of its result, all four calls in turn each round, after both gradients were
checked against each other.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import s4tf


def step(x):
    return x * 0.9999 + 0.001 * x * x


def loop(x, n):
    return s4tf.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, step(c[1])), (np.int32(0), x))[1]


def loss(x, n):
    return loop(x, n).sum()


def tape_figures(x, n) -> dict[str, int]:
    """Checkpoint rows, stride and residual bytes reverse mode keeps for ``n`` steps."""
    _, pullback = s4tf.vjp(loop, x, n)
    residuals = [np.asarray(r) for r in pullback.args[-1]]  # the pullback is partial(run, backward, residuals)
    tapes = [r for r in residuals if r.ndim > 0]  # the other residuals of this loop are scalars
    count, stride = residuals[-2:]
    assert int(count) == n, (count, n)
    return {"tape rows": tapes[0].shape[0], "stride": int(stride), "residual bytes": sum(r.nbytes for r in residuals)}


def median_seconds(fns, repeats: int) -> list[float]:
    """Median seconds of each of ``fns`` over ``repeats`` rounds that call them in turn (so
    a change of load affects them alike), after one untimed call each (compilation)."""
    for fn in fns:
        np.asarray(fn())
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, samples in zip(fns, times):
            start = time.perf_counter()
            np.asarray(fn())
            samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]


def jax_peers(steps: int):
    """JAX's loss and its ``jax.grad``, ``fori_loop`` over a static trip count; ``None``
    without JAX."""
    try:
        import jax
    except ImportError:
        return None

    def jax_loss(x):
        return jax.lax.fori_loop(0, steps, lambda i, v: step(v), x).sum()

    return jax.jit(jax_loss), jax.jit(jax.grad(jax_loss))


def run(steps_list, size: int, repeats: int) -> None:
    x = np.random.default_rng(0).uniform(0.5, 1.5, size).astype(np.float32)
    forward = s4tf.function(loss)
    gradient = s4tf.grad(loss)
    print(f"{size} floats\nsteps  tape rows  stride  residual bytes")
    for steps in steps_list:
        n = np.int32(steps)
        figures = tape_figures(x, n)
        print(f"{steps:>5}  {figures['tape rows']:>9}  {figures['stride']:>6}  {figures['residual bytes']:>14}")
        ours = np.asarray(gradient(x, n))
        peers = jax_peers(steps)
        if peers is None:
            grad_seconds, forward_seconds = median_seconds([lambda: gradient(x, n), lambda: forward(x, n)], repeats)
            print(f"{steps:>5} steps: s4tf grad / s4tf forward: {grad_seconds / forward_seconds:.2f}")
            print("JAX is not installed (pip extra 'bench'): no JAX ratios")
            continue
        jax_forward, jax_grad = peers
        np.testing.assert_allclose(ours, np.asarray(jax_grad(x)), rtol=1e-4)
        grad_seconds, forward_seconds, jax_forward_seconds, jax_grad_seconds = median_seconds(
            [lambda: gradient(x, n), lambda: forward(x, n), lambda: jax_forward(x), lambda: jax_grad(x)], repeats
        )
        print(f"{steps:>5} steps: s4tf grad / s4tf forward: {grad_seconds / forward_seconds:.2f}")
        print(f"{steps:>5} steps: s4tf forward (while, run-time n) / JAX forward (fori_loop, static n): "
              f"{forward_seconds / jax_forward_seconds:.2f}")
        print(f"{steps:>5} steps: s4tf grad (while, run-time n) / JAX grad (fori_loop, static n): "
              f"{grad_seconds / jax_grad_seconds:.2f}")
        print(f"{steps:>5} steps: medians in ms: s4tf grad {grad_seconds * 1e3:.3f}, s4tf forward "
              f"{forward_seconds * 1e3:.3f}, JAX grad {jax_grad_seconds * 1e3:.3f}, JAX forward {jax_forward_seconds * 1e3:.3f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--size", type=int, nargs="+", default=[1000], help="floats carried by the loop (each in turn)")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    for size in args.size:
        run(args.steps, size, args.repeats)


if __name__ == "__main__":
    main()
