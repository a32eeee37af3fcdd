"""Benchmark batching: vmap(grad), jacrev and hessian against JAX and the Python loops they replace.

```
python tools/bench/bench_vmap.py                      # the issue's sizes
python tools/bench/bench_vmap.py --batch 8 --jacobian-size 16 --hessian-size 8 --repeats 4 --jacobian-repeats 20
```

Three problems, each timed as three peers (goal: s4tf at most 1.2x JAX, at least 10x
faster than the loop):

- **per-example gradients**: ``bench_mlp``'s 784-512-512-10 ReLU MLP, softmax
  cross-entropy of one example; ``vmap(grad(loss), in_axes=(None, 0))`` over a batch of
  (image, one-hot label) pairs, against ``jax.jit(jax.vmap(jax.grad(loss)))`` and a loop of
  one compiled s4tf ``grad`` call per example;
- **jacrev**: the Jacobian of ``x -> tanh(W x + b)`` (``W`` square), against
  ``jax.jit(jax.jacrev(f))`` and a loop of one compiled s4tf ``jvp`` call per column;
- **hessian**: the Hessian of ``x -> sum(tanh(A x)^2) + sum(x^2) / 2`` (``A`` 2n x n), against
  ``jax.jit(jax.hessian(f))`` and a loop of one compiled s4tf ``jvp`` of ``grad`` per column.

What is timed, for every peer alike: one call (the loop: all its calls), waiting for every
result array on the device, and copying the last one (a bias gradient, a Jacobian) to the
host; inputs are already on
the device (the loop's examples and basis vectors too); blocks of calls alternate
(``bench_mlp.time_peers``). Before timing, s4tf's results are checked against JAX's and the
loop's. First calls (trace, compile, run) are timed too, s4tf's with an empty module cache.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
from dataclasses import dataclass
from typing import Callable

import numpy as np

import s4tf
from s4tf import pytree

from bench_grad import jax_waiting, s4tf_waiting, jax_ops, one_hot_labels, s4tf_ops
from bench_mlp import load_jax, make_forward, make_inputs, positive_int, time_peers, timed_call, versions

GOAL_JAX, GOAL_LOOP = 1.2, 10.0


@dataclass
class Problem:
    """One benchmark: ``peers`` maps s4tf, loop and JAX to ``(fn(params, data), params,
    data)``; ``assemble_loop`` turns the loop's result arrays into s4tf's; a ``jacobian``
    (milliseconds a call) is timed over ``--jacobian-repeats`` calls."""

    title: str
    peers: dict
    assemble_loop: Callable[[list], list]
    jacobian: bool = False


def example_loss(ops):
    """Softmax cross-entropy of one example ``(x, one-hot y)`` under the MLP ``params``."""
    forward = make_forward(ops.relu)
    return lambda params, example: -ops.sum(example[1] * ops.log_softmax(forward(params, example[0]), axis=-1))


def tanh_layer(w, b):
    return lambda ops: (lambda x: ops.tanh(w @ x + b))


def hessian_function(a):
    return lambda ops: (lambda x: ops.sum(ops.tanh(a @ x) ** 2) + 0.5 * ops.sum(x * x))


def namespaces(jax):
    """The elementwise functions each peer writes its functions with."""
    ours = s4tf_ops()
    ours.tanh = s4tf.tanh
    theirs = None
    if jax is not None:
        theirs = jax_ops(jax)
        theirs.tanh = jax.numpy.tanh
    return ours, theirs


def per_example_problem(batch: int, jax) -> Problem:
    """Per-example MLP gradients."""
    params, x = make_inputs(batch)
    data = (x, one_hot_labels(batch))
    ours, theirs = namespaces(jax)
    on_device = pytree.tree_map(s4tf.asarray, (params, data))
    single = s4tf.grad(example_loss(ours))
    examples = [pytree.tree_map(s4tf.asarray, (x[i], data[1][i])) for i in range(batch)]
    peers = {
        "s4tf": (s4tf.vmap(single, in_axes=(None, 0)), *on_device),
        "loop": (lambda p, _: [single(p, example) for example in examples], on_device[0], None),
    }
    if jax is not None:
        mapped = jax.jit(jax.vmap(jax.grad(example_loss(theirs)), in_axes=(None, 0)))
        peers["JAX"] = (mapped, *jax.device_put((params, data)))
    leaves = len(pytree.flatten(params)[0])
    return Problem(
        f"per-example gradients, MLP 784-512-512-10, batch {batch}", peers,
        lambda loop: [np.stack(loop[i::leaves]) for i in range(leaves)],  # per leaf, the examples stacked
    )


def jacobian_problem(title: str, kind: str, make, x: np.ndarray, jax) -> Problem:
    """``kind`` (jacrev or hessian) of ``make(ops)`` at ``x``, and the loop of JVP columns
    (of ``f``, or of ``grad(f)`` for the Hessian) it replaces."""
    ours, theirs = namespaces(jax)
    f = make(ours)
    column_of = f if kind == "jacrev" else s4tf.grad(f)
    column = s4tf.function(lambda x, t: s4tf.jvp(column_of, (x,), (t,))[1])
    basis = [s4tf.asarray(e) for e in np.eye(x.size, dtype=x.dtype)]
    matrix = getattr(s4tf, kind)(f)
    peers = {
        "s4tf": (lambda x, _: matrix(x), s4tf.asarray(x), None),
        "loop": (lambda x, _: [column(x, t) for t in basis], s4tf.asarray(x), None),
    }
    if jax is not None:
        staged = jax.jit(getattr(jax, kind)(make(theirs)))
        peers["JAX"] = (lambda x, _: staged(x), jax.device_put(x), None)
    return Problem(title, peers, lambda columns: [np.stack(columns, axis=-1)], jacobian=True)


def problems(options, jax) -> list[Problem]:
    rng = np.random.default_rng(2)
    n, m = options.jacobian_size, options.hessian_size
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    b = (0.1 * rng.standard_normal(n)).astype(np.float32)
    a = (rng.standard_normal((2 * m, m)) / np.sqrt(m)).astype(np.float32)
    return [
        per_example_problem(options.batch, jax),
        jacobian_problem(f"jacrev of tanh(W x + b), {n} to {n}", "jacrev", tanh_layer(w, b), rng.standard_normal(n).astype(np.float32), jax),
        jacobian_problem(f"hessian of a function of {m} parameters", "hessian", hessian_function(a), rng.standard_normal(m).astype(np.float32), jax),
    ]


def host_leaves(fn, params, data) -> list[np.ndarray]:
    """Every result array of ``fn(params, data)``, on the host."""
    return [np.asarray(leaf) for leaf in pytree.flatten(fn(params, data))[0] if leaf is not None]


def check(problem: Problem) -> None:
    """s4tf's results equal JAX's and the loop's (assembled) within float32 tolerance."""
    ours = host_leaves(*problem.peers["s4tf"])
    references = {"loop": problem.assemble_loop(host_leaves(*problem.peers["loop"]))}
    if "JAX" in problem.peers:
        references["JAX"] = host_leaves(*problem.peers["JAX"])
    for peer, theirs in references.items():
        assert len(theirs) == len(ours), f"{problem.title}: {peer} gives {len(theirs)} arrays, s4tf {len(ours)}"
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-5, err_msg=f"{problem.title}: s4tf against {peer}")


def benchmark(problem: Problem, options, jax) -> None:
    chosen = {
        name: (jax_waiting(jax, fn, -1) if name == "JAX" else s4tf_waiting(fn, -1), params, data)
        for name, (fn, params, data) in problem.peers.items()
    }
    first = {name: timed_call(fn, p, v)[0] for name, (fn, p, v) in chosen.items()}
    check(problem)
    repeats = options.jacobian_repeats if problem.jacobian else options.repeats
    times = time_peers(chosen, repeats, options.warmup)
    print(f"\n{problem.title}: median (min) ms per call; first call s")
    for name, values in times.items():
        print(f"  {name:5} {statistics.median(values) * 1e3:10.3f} ms ({min(values) * 1e3:.3f}); first call {first[name]:.2f} s")
    print("  per call, after the timing: " + "; ".join(
        f"{name} user {user * 1e3:.1f} ms, sys {system * 1e3:.1f} ms, {faults:.0f} page faults"
        for name, (user, system, faults) in ((name, cpu_per_call(*peer)) for name, peer in chosen.items())
    ))
    for statistic in (statistics.median, min):
        figures = {name: statistic(values) for name, values in times.items()}
        line = f"  {statistic.__name__:6}: loop/s4tf {figures['loop'] / figures['s4tf']:.1f} (goal >= {GOAL_LOOP:g})"
        if "JAX" in figures:
            line += f", s4tf/JAX {figures['s4tf'] / figures['JAX']:.2f} (goal <= {GOAL_JAX:g})"
        print(line)


def cpu_per_call(fn, params, data, calls: int = 3) -> tuple[float, float, float]:
    """``(user s, system s, minor page faults)`` per call of ``fn``, all threads of the
    process: a result buffer the allocator maps afresh costs one page fault per 4 KiB
    page, in system time (see docs/batching.md)."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(calls):
        timed_call(fn, params, data)
    after = resource.getrusage(resource.RUSAGE_SELF)
    return ((after.ru_utime - before.ru_utime) / calls, (after.ru_stime - before.ru_stime) / calls,
            (after.ru_minflt - before.ru_minflt) / calls)


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=positive_int, default=128, help="examples of the per-example gradients (default: 128)")
    parser.add_argument("--jacobian-size", type=positive_int, default=256, help="inputs and outputs of the tanh layer (default: 256)")
    parser.add_argument("--hessian-size", type=positive_int, default=64, help="parameters of the Hessian's function (default: 64)")
    parser.add_argument("--repeats", type=positive_int, default=10, help="timed calls per peer, per-example gradients (default: 10)")
    parser.add_argument("--jacobian-repeats", type=positive_int, default=200, help="timed calls per peer, jacrev and hessian (default: 200)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed calls before each block (default: 1)")
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    jax = load_jax()
    print(versions(jax))
    if jax is None:
        print("JAX is not installed (pip install 'jax[cpu]'); s4tf against the loop only")
    with tempfile.TemporaryDirectory(prefix="s4tf-bench-cache-") as cache_dir:
        os.environ["S4TF_CACHE_DIR"] = cache_dir  # first calls compile: read by every DiskCache() made from now on
        for problem in problems(options, jax):
            benchmark(problem, options, jax)


if __name__ == "__main__":
    main()
