"""Loops as compiled code: s4tf against JAX in one process, and the cost of a host-stepped loop.

```
python tools/bench/bench_loops.py                 # everything, 20 rounds
python tools/bench/bench_loops.py --repeats 5
```

Programs (``docs/control-flow.md``, "Loops inside one dispatch"):

- ``relax``: ``x = x * 0.9999 + 0.0001 * sin(x)`` on 2 float32s, 10,000 iterations, ``n``
  an argument (JAX: ``fori_loop`` under ``jit`` with ``n`` traced);
- ``newton``: Newton's square root of 1,000 float64s with a convergence test
  (``max |x*x - a| > 1e-12``), a data-dependent trip count (JAX: ``while_loop``);
- their gradients (s4tf: data-dependent trip counts; JAX: ``fori_loop`` with a static
  trip count, 10,000 and 20 steps);
- the per-iteration overhead of a host-stepped loop (``relax`` lowered without
  ``s4tf-loops-to-dispatch``): (time at 2,000 iterations - time at 0) / 2,000, on IREE's
  ``local-task`` and ``local-sync`` drivers, against the same with the pass.

Each figure is the median over rounds that call every contender in turn, after one
untimed call (compilation); results are checked against each other first.
"""

from __future__ import annotations

import argparse

import numpy as np
from iree import runtime as iree_runtime

import s4tf
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.staging import LOWERING_PIPELINE, lowering_pipeline
from bench_while_grad import median_seconds  # beside this script (tools/bench/)


def relax(x, n):
    i = n * 0
    while i < n:
        x = x * 0.9999 + 0.0001 * s4tf.sin(x)
        i = i + 1
    return x


def newton(a):
    x = a
    while s4tf.abs(x * x - a).max() > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def jax_peers():
    import jax

    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    @jax.jit
    def jax_relax(x, n):
        return jax.lax.fori_loop(0, n, lambda i, v: v * np.float32(0.9999) + np.float32(0.0001) * jnp.sin(v), x)

    @jax.jit
    def jax_newton(a):
        return jax.lax.while_loop(lambda x: jnp.abs(x * x - a).max() > 1e-12, lambda x: 0.5 * (x + a / x), a)

    return jax_relax, jax_newton


def report(name: str, ours: float, theirs: float) -> None:
    print(f"{name}: s4tf {ours * 1e3:.3f} ms, JAX {theirs * 1e3:.3f} ms, s4tf / JAX {ours / theirs:.2f}")


def forward(repeats: int) -> None:
    jax_relax, jax_newton = jax_peers()
    x, n = np.array([0.3, 1.2], np.float32), np.int32(10_000)
    ours_relax, ours_newton = s4tf.function(relax), s4tf.function(newton)
    np.testing.assert_allclose(np.asarray(ours_relax(x, n)), np.asarray(jax_relax(x, n)), rtol=1e-5)
    a = np.random.default_rng(0).uniform(0.5, 50.0, 1000)
    np.testing.assert_allclose(np.asarray(ours_newton(a)), np.asarray(jax_newton(a)), rtol=1e-14)
    seconds = median_seconds(
        [lambda: ours_relax(x, n), lambda: jax_relax(x, n), lambda: ours_newton(a), lambda: jax_newton(a)], repeats
    )
    report("relax, 10,000 iterations, forward", seconds[0], seconds[1])
    report("Newton's square root, 1,000 float64s, forward", seconds[2], seconds[3])


def gradients(repeats: int) -> None:
    """Reverse mode: s4tf's data-dependent loops (checkpointed tapes) against JAX's
    ``grad`` of ``fori_loop`` with a static trip count (JAX cannot differentiate
    ``while_loop`` in reverse) and of Newton's method as a 20-step ``fori_loop``."""
    import jax

    jnp = jax.numpy
    x, n = np.array([0.3, 1.2], np.float32), np.int32(10_000)
    a = np.random.default_rng(0).uniform(0.5, 50.0, 1000)
    staged_relax, staged_newton = s4tf.function(relax), s4tf.function(newton)
    ours_relax = s4tf.grad(lambda x, n: staged_relax(x, n).sum())
    ours_newton = s4tf.grad(lambda a: staged_newton(a).sum())
    step = lambda i, v: v * np.float32(0.9999) + np.float32(0.0001) * jnp.sin(v)  # noqa: E731
    jax_relax = jax.jit(jax.grad(lambda x: jax.lax.fori_loop(0, 10_000, step, x).sum()))
    jax_newton = jax.jit(jax.grad(lambda a: jax.lax.fori_loop(0, 20, lambda i, x: 0.5 * (x + a / x), a).sum()))
    np.testing.assert_allclose(np.asarray(ours_relax(x, n)), np.asarray(jax_relax(x)), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(ours_newton(a)), np.asarray(jax_newton(a)), rtol=1e-10)
    seconds = median_seconds(
        [lambda: ours_relax(x, n), lambda: jax_relax(x), lambda: ours_newton(a), lambda: jax_newton(a)], repeats
    )
    report("relax, 10,000 iterations, gradient", seconds[0], seconds[1])
    report("Newton's square root, 1,000 float64s, gradient", seconds[2], seconds[3])


def per_iteration_overhead(repeats: int, steps: int = 2000) -> None:
    x = np.array([0.3, 1.2], np.float32)
    lowered = s4tf.function(relax).lower(x, np.int32(0))
    for label, pipeline in (("host-stepped", LOWERING_PIPELINE), ("one dispatch", lowering_pipeline("cpu"))):
        vmfb = compile_stablehlo(lowered.stablehlo(pipeline), "cpu")
        for driver in ("local-task", "local-sync"):
            function = iree_runtime.load_vm_flatbuffer(vmfb, driver=driver)[lowered.entry]
            empty, full = median_seconds(
                [lambda: function(x, np.int32(0)).to_host(), lambda: function(x, np.int32(steps)).to_host()], repeats
            )
            print(f"per iteration, {label}, {driver}: {(full - empty) / steps * 1e6:.3f} us "
                  f"(call at 0 iterations {empty * 1e3:.3f} ms)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--gradient-repeats", type=int, default=3, help="rounds for the gradients (seconds each)")
    args = parser.parse_args(argv)
    forward(args.repeats)
    per_iteration_overhead(args.repeats)
    gradients(args.gradient_repeats)


if __name__ == "__main__":
    main()
