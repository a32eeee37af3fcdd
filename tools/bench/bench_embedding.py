"""Benchmark an embedding lookup, forward and forward+backward: s4tf against JAX.

```
python tools/bench/bench_embedding.py                       # V in 1e3, 1e5; B in 256, 4096; D 64
python tools/bench/bench_embedding.py --vocab 1000 --batch 64 --dim 16 --repeats 20
```

The lookup is ``table[ids]`` (``s4tf.gather``); the loss ``sum((table[ids] * w) ** 2)``,
whose gradient with respect to the ``V x D`` table is a scatter-add of the ``B x D`` row
cotangents into one zero buffer (the sparse adjoint; ids repeat, drawn from a Zipf law as
words are). What is timed, for s4tf and JAX (``jax.jit``) alike: one call until its
result is ready on the device (``block_until_ready``; a host copy of a gradient the size
of the table would measure the copy), inputs already on the device, in alternating blocks
of calls as ``bench_mlp.time_peers`` does. Results are checked against NumPy first.
Printed: median ms per call and s4tf/JAX.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import s4tf
from bench_mlp import ROUNDS, load_jax, positive_int, timed_call, versions


def lookup(table, ids):
    """The embedding rows of ``ids``."""
    return table[ids]


def loss(table, ids, weights):
    """A loss whose gradient depends on the looked-up rows."""
    return ((table[ids] * weights) ** 2).sum()


def make_inputs(vocab: int, dim: int, batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((vocab, dim)).astype(np.float32)
    ids = ((rng.zipf(1.3, batch) - 1) % vocab).astype(np.int32)
    weights = rng.standard_normal((batch, dim)).astype(np.float32)
    return table, ids, weights


def expected(table, ids, weights):
    """The lookup and the loss's gradient, with NumPy."""
    gradient = np.zeros_like(table)
    np.add.at(gradient, ids, 2 * table[ids] * weights ** 2)
    return table[ids], gradient


def peers(table, ids, weights, jax):
    """``{task: {peer: (fn(params, x), params, x)}}`` for the lookup and the gradient."""
    forward = s4tf.function(lookup)
    gradient = s4tf.grad(loss)
    on_device = s4tf.asarray(table), s4tf.asarray(ids), s4tf.asarray(weights)
    chosen = {
        "lookup": {"s4tf": (lambda t, x: forward(t, x), on_device[0], on_device[1])},
        "grad": {"s4tf": (lambda t, x: gradient(t, *x), on_device[0], on_device[1:])},
    }
    if jax is not None:
        jax_forward, jax_gradient = jax.jit(lookup), jax.jit(jax.grad(loss))
        put = [jax.device_put(a) for a in (table, ids, weights)]
        chosen["lookup"]["JAX"] = (lambda t, x: jax_forward(t, x), put[0], put[1])
        chosen["grad"]["JAX"] = (lambda t, x: jax_gradient(t, *x), put[0], tuple(put[1:]))
    return chosen


def ready_seconds(fn, params, x) -> float:
    """Seconds for ``fn(params, x)`` until its result is computed, left on the device."""
    start = time.perf_counter()
    fn(params, x).block_until_ready()
    return time.perf_counter() - start


def time_peers(chosen, repeats: int, warmup: int) -> dict[str, list[float]]:
    """Per-call seconds of every peer, in ``ROUNDS`` rounds of one block per peer."""
    times = {name: [] for name in chosen}
    for round_number in range(ROUNDS):
        for name, (fn, params, x) in chosen.items():
            for _ in range(warmup):
                ready_seconds(fn, params, x)
            block = repeats // ROUNDS + (round_number < repeats % ROUNDS)
            times[name] += [ready_seconds(fn, params, x) for _ in range(block)]
    return times


def measure(vocabs, batches, dim: int, repeats: int, warmup: int, jax) -> dict:
    """Median seconds per call for every (V, B), task and peer; results checked first."""
    medians = {}
    for vocab in vocabs:
        for batch in batches:
            table, ids, weights = make_inputs(vocab, dim, batch)
            wanted = dict(zip(("lookup", "grad"), expected(table, ids, weights)))
            for task, chosen in peers(table, ids, weights, jax).items():
                for name, (fn, params, x) in chosen.items():
                    result = timed_call(fn, params, x)[1]
                    np.testing.assert_allclose(result, wanted[task], rtol=1e-5, atol=1e-5, err_msg=f"{name} {task}")
                times = time_peers(chosen, repeats, warmup)
                medians[vocab, batch, task] = found = {name: statistics.median(t) for name, t in times.items()}
                ratio = f", s4tf/JAX {found['s4tf'] / found['JAX']:.2f}" if "JAX" in found else ""
                print(f"  V={vocab:>7} B={batch:>5} {task:>6}: "
                      + ", ".join(f"{name} {t * 1e3:.3f} ms" for name, t in found.items()) + ratio, flush=True)
    return medians


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=positive_int, nargs="+", default=[1000, 100000], help="table rows V (default: 1000 100000)")
    parser.add_argument("--batch", type=positive_int, nargs="+", default=[256, 4096], help="ids per call B (default: 256 4096)")
    parser.add_argument("--dim", type=positive_int, default=64, help="embedding width D (default: 64)")
    parser.add_argument("--repeats", type=positive_int, default=100, help="timed calls per peer and case (default: 100)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls before each block (default: 5)")
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    jax = load_jax()
    print(versions(jax))
    print(f"median ms per call, result left on the device (D={options.dim}; lookup: B x D rows, grad: the V x D table's):")
    measure(options.vocab, options.batch, options.dim, options.repeats, options.warmup, jax)


if __name__ == "__main__":
    main()
