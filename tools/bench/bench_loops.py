"""Loops as compiled code: s4tf against JAX in one process, and the cost of a host-stepped loop.

```
python tools/bench/bench_loops.py                 # everything, 20 rounds
python tools/bench/bench_loops.py --repeats 5
python tools/bench/bench_loops.py --relax-steps 50 --rnn-steps 5 --repeats 2   # a smoke run
```

Programs (``docs/control-flow.md``, "Loops inside one dispatch"):

- ``relax``: ``x = x * 0.9999 + 0.0001 * sin(x)`` on 2 float32s, 10,000 iterations, ``n``
  an argument (JAX: ``fori_loop`` under ``jit`` with ``n`` traced);
- ``newton``: Newton's square root of 1,000 float64s with a convergence test
  (``max |x*x - a| > 1e-12``), a data-dependent trip count (JAX: ``while_loop``);
- ``rnn``: an RNN cell ``h = tanh(W h + U x[i])``, 32 hidden and 16 input float32s, stepped
  over a sequence of 100 inputs, ``n`` an argument (JAX: ``lax.scan`` under ``jit``); its
  two matrix-vector products are ``vector.contract``s inside the loop's one dispatch;
- their gradients (s4tf: data-dependent trip counts; JAX: ``fori_loop`` or ``scan`` with a
  static trip count, 10,000, 20 and 100 steps; ``rnn``'s with respect to ``W`` and ``U``);
- the per-iteration overhead of a host-stepped loop (``relax`` and ``rnn`` lowered without
  ``s4tf-loops-to-dispatch``) against the same loops with it: (time at ``n`` iterations -
  time at 0) / ``n``, each the median of a run of calls of its own, on IREE's
  ``local-task`` and ``local-sync`` drivers.

Each figure is the median over rounds that call every contender in turn, after one
untimed call (compilation); results are checked against each other first.
"""

from __future__ import annotations

import argparse

import numpy as np
from iree import runtime as iree_runtime

import s4tf
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.passes.pipeline import LOWERING_PIPELINE, lowering_pipeline
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


def rnn(w, u, h, xs, n):
    i = n * 0
    while i < n:
        h = s4tf.tanh(w @ h + u @ xs[i])
        i = i + 1
    return h


def rnn_inputs(steps: int, hidden: int = 32, features: int = 16):
    """``(W, U, h0, xs)`` of the RNN benchmark, float32, scaled to keep ``tanh`` unsaturated."""
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)).astype(np.float32)
    u = (rng.standard_normal((hidden, features)) / np.sqrt(features)).astype(np.float32)
    return w, u, np.zeros(hidden, np.float32), rng.standard_normal((steps, features)).astype(np.float32)


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

    @jax.jit
    def jax_rnn(w, u, h, xs):
        return jax.lax.scan(lambda h, x: (jnp.tanh(w @ h + u @ x), None), h, xs)[0]

    return jax_relax, jax_newton, jax_rnn


def report(name: str, ours: float, theirs: float) -> None:
    print(f"{name}: s4tf {ours * 1e3:.3f} ms, JAX {theirs * 1e3:.3f} ms, s4tf / JAX {ours / theirs:.2f}")


def forward(repeats: int, relax_steps: int, rnn_steps: int) -> None:
    jax_relax, jax_newton, jax_rnn = jax_peers()
    x, n = np.array([0.3, 1.2], np.float32), np.int32(relax_steps)
    ours_relax, ours_newton, ours_rnn = s4tf.function(relax), s4tf.function(newton), s4tf.function(rnn)
    np.testing.assert_allclose(np.asarray(ours_relax(x, n)), np.asarray(jax_relax(x, n)), rtol=1e-5)
    a = np.random.default_rng(0).uniform(0.5, 50.0, 1000)
    np.testing.assert_allclose(np.asarray(ours_newton(a)), np.asarray(jax_newton(a)), rtol=1e-14)
    w, u, h, xs = rnn_inputs(rnn_steps)
    m = np.int32(rnn_steps)
    np.testing.assert_allclose(np.asarray(ours_rnn(w, u, h, xs, m)), np.asarray(jax_rnn(w, u, h, xs)), atol=1e-5)
    seconds = median_seconds(
        [lambda: ours_relax(x, n), lambda: jax_relax(x, n), lambda: ours_newton(a), lambda: jax_newton(a),
         lambda: ours_rnn(w, u, h, xs, m), lambda: jax_rnn(w, u, h, xs)], repeats
    )
    report(f"relax, {relax_steps:,} iterations, forward", seconds[0], seconds[1])
    report("Newton's square root, 1,000 float64s, forward", seconds[2], seconds[3])
    report(f"RNN cell, 32 hidden, {rnn_steps} steps, forward", seconds[4], seconds[5])


def gradients(repeats: int, relax_steps: int, rnn_steps: int) -> None:
    """Reverse mode: s4tf's data-dependent loops (checkpointed tapes) against JAX's
    ``grad`` of ``fori_loop`` with a static trip count (JAX cannot differentiate
    ``while_loop`` in reverse) and of Newton's method as a 20-step ``fori_loop``."""
    import jax

    jnp = jax.numpy
    x, n = np.array([0.3, 1.2], np.float32), np.int32(relax_steps)
    a = np.random.default_rng(0).uniform(0.5, 50.0, 1000)
    staged_relax, staged_newton, staged_rnn = s4tf.function(relax), s4tf.function(newton), s4tf.function(rnn)
    ours_relax = s4tf.grad(lambda x, n: staged_relax(x, n).sum())
    ours_newton = s4tf.grad(lambda a: staged_newton(a).sum())
    ours_rnn = s4tf.grad(lambda w, u, h, xs, n: staged_rnn(w, u, h, xs, n).sum(), argnums=(0, 1))
    step = lambda i, v: v * np.float32(0.9999) + np.float32(0.0001) * jnp.sin(v)  # noqa: E731
    jax_relax = jax.jit(jax.grad(lambda x: jax.lax.fori_loop(0, relax_steps, step, x).sum()))
    jax_newton = jax.jit(jax.grad(lambda a: jax.lax.fori_loop(0, 20, lambda i, x: 0.5 * (x + a / x), a).sum()))
    cell = lambda w, u: lambda h, x: (jnp.tanh(w @ h + u @ x), None)  # noqa: E731
    jax_rnn = jax.jit(jax.grad(lambda w, u, h, xs: jax.lax.scan(cell(w, u), h, xs)[0].sum(), argnums=(0, 1)))
    w, u, h, xs = rnn_inputs(rnn_steps)
    m = np.int32(rnn_steps)
    np.testing.assert_allclose(np.asarray(ours_relax(x, n)), np.asarray(jax_relax(x)), rtol=1e-4)
    np.testing.assert_allclose(np.asarray(ours_newton(a)), np.asarray(jax_newton(a)), rtol=1e-10)
    for ours, theirs in zip(ours_rnn(w, u, h, xs, m), jax_rnn(w, u, h, xs)):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), atol=1e-4)
    seconds = median_seconds(
        [lambda: ours_relax(x, n), lambda: jax_relax(x), lambda: ours_newton(a), lambda: jax_newton(a),
         lambda: ours_rnn(w, u, h, xs, m)[0], lambda: jax_rnn(w, u, h, xs)[0]], repeats
    )
    report(f"relax, {relax_steps:,} iterations, gradient", seconds[0], seconds[1])
    report("Newton's square root, 1,000 float64s, gradient", seconds[2], seconds[3])
    report(f"RNN cell, 32 hidden, {rnn_steps} steps, gradient", seconds[4], seconds[5])


def per_iteration_overhead(repeats: int, relax_steps: int, rnn_steps: int) -> None:
    """(time at ``steps`` iterations - time at 0) / ``steps`` of the loops as compiled
    modules called through IREE's Python API on each driver (no ``@s4tf.function`` call)."""
    x = np.array([0.3, 1.2], np.float32)
    w, u, h, xs = rnn_inputs(rnn_steps)
    relax_lowered = s4tf.function(relax).lower(x, np.int32(0))
    rnn_lowered = s4tf.function(rnn).lower(w, u, h, xs, np.int32(0))
    cases = (
        ("relax, host-stepped", relax_lowered, LOWERING_PIPELINE, (x,), relax_steps),
        ("relax, one dispatch", relax_lowered, lowering_pipeline("cpu"), (x,), relax_steps),
        ("rnn, host-stepped", rnn_lowered, LOWERING_PIPELINE, (w, u, h, xs), rnn_steps),
        ("rnn, one dispatch", rnn_lowered, lowering_pipeline("cpu"), (w, u, h, xs), rnn_steps),
    )
    for label, lowered, pipeline, arguments, steps in cases:
        vmfb = compile_stablehlo(lowered.stablehlo(pipeline), "cpu")
        for driver in ("local-task", "local-sync"):
            function = iree_runtime.load_vm_flatbuffer(vmfb, driver=driver)[lowered.entry]
            # each in a run of its own: IREE frees a call's transient buffers at the next call,
            # so alternating would charge the empty call with the full one's (7 ms measured)
            empty, = median_seconds([lambda: function(*arguments, np.int32(0)).to_host()], repeats)
            full, = median_seconds([lambda: function(*arguments, np.int32(steps)).to_host()], repeats)
            print(f"per iteration, {label}, {driver}: {(full - empty) / steps * 1e6:.3f} us "
                  f"(call at 0 iterations {empty * 1e3:.3f} ms)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--gradient-repeats", type=int, default=3, help="rounds for the gradients (seconds each)")
    parser.add_argument("--relax-steps", type=int, default=10_000, help="iterations of relax")
    parser.add_argument("--rnn-steps", type=int, default=100, help="length of the RNN's sequence")
    args = parser.parse_args(argv)
    forward(args.repeats, args.relax_steps, args.rnn_steps)
    per_iteration_overhead(args.repeats, args.relax_steps, args.rnn_steps)
    gradients(args.gradient_repeats, args.relax_steps, args.rnn_steps)


if __name__ == "__main__":
    main()
