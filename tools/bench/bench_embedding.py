"""Benchmark an embedding lookup, forward and forward+backward, and a NeuMF training step with sparse table updates: s4tf against JAX.

```
python tools/bench/bench_embedding.py                       # V in 1e3, 1e5; B in 256, 4096; D 64
python tools/bench/bench_embedding.py --vocab 1000 --batch 64 --dim 16 --repeats 20
python tools/bench/bench_embedding.py --vocab 1000 --batch 64 --step-vocab 1000 --step-batch 64
```

The lookup is ``table[ids]`` (``s4tf.gather``); the loss ``sum((table[ids] * w) ** 2)``,
whose gradient with respect to the ``V x D`` table is a scatter-add of the ``B x D`` row
cotangents into one zero buffer (the sparse adjoint; ids repeat, drawn from a Zipf law as
words are). What is timed, for s4tf and JAX (``jax.jit``) alike: one call until its
result is ready on the device (``block_until_ready``; a host copy of a gradient the size
of the table would measure the copy), inputs already on the device, in alternating blocks
of calls as ``bench_mlp.time_peers`` does. Results are checked against NumPy first.
Printed: median ms per call and s4tf/JAX.

The NeuMF step (He et al. 2017: a generalized matrix factorization ``u * v`` beside an MLP
on ``[u, v]``, a logistic loss on their concatenation) looks up ``B`` user and ``B`` item
rows of two ``V x D`` tables, differentiates the loss with respect to the looked-up rows
and the MLP's weights, and updates the tables sparsely, ``table.at[ids].add(-lr * rows')``,
the weights densely; tables and weights are donated (``donate_argnums``), so each step
writes the rows it changes into the tables' own buffers (``s4tf-donate``). It runs for each
``V`` of ``--step-vocab`` (default 10k, 100k, 1M rows): with the update in place, a step
costs the same whatever the table's size. One step from the same state is checked against
JAX's first; timed: each step until its new tables and weights are ready, chained.
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


#: The NeuMF MLP's widths after ``[u, v]`` (2 D wide); its last layer and the GMF product
#: feed one logit.
NEUMF_HIDDEN = (64, 32)
LEARNING_RATE = 0.05


def neumf_loss(xp, weights, user_rows, item_rows, labels):
    """The mean logistic loss of NeuMF's logits; ``xp`` is ``s4tf`` or ``jax.numpy``."""
    h = xp.concatenate([user_rows, item_rows], axis=-1)
    for w, b in zip(weights[:-2:2], weights[1:-2:2]):
        h = xp.maximum(h @ w + b, 0.0)
    logit = (xp.concatenate([user_rows * item_rows, h], axis=-1) @ weights[-2] + weights[-1])[:, 0]
    return xp.mean(xp.logaddexp(0.0, logit) - labels * logit)


def make_neumf_step(xp, value_and_grad):
    """``step(user_table, item_table, weights, users, items, labels) -> (user_table,
    item_table, weights, loss)``: sparse updates of the looked-up rows, dense of the weights."""

    def step(user_table, item_table, weights, users, items, labels):
        loss, (g_weights, g_users, g_items) = value_and_grad(
            lambda w, u, v: neumf_loss(xp, w, u, v, labels), argnums=(0, 1, 2))(weights, user_table[users], item_table[items])
        weights = tuple(w - LEARNING_RATE * g for w, g in zip(weights, g_weights))
        return (user_table.at[users].add(-LEARNING_RATE * g_users), item_table.at[items].add(-LEARNING_RATE * g_items),
                weights, loss)

    return step


def neumf_state(vocab: int, dim: int, batch: int, seed: int = 1):
    """Two tables, the MLP's weights, and a batch of (user, item, label)."""
    rng = np.random.default_rng(seed)
    tables = [(rng.standard_normal((vocab, dim)) * 0.1).astype(np.float32) for _ in range(2)]
    sizes = [(2 * dim, NEUMF_HIDDEN[0]), *zip(NEUMF_HIDDEN[:-1], NEUMF_HIDDEN[1:]), (dim + NEUMF_HIDDEN[-1], 1)]
    weights = []
    for fan_in, fan_out in sizes:
        weights += [(rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32), np.zeros(fan_out, np.float32)]
    batch_data = (((rng.zipf(1.3, batch) - 1) % vocab).astype(np.int32), rng.integers(0, vocab, batch).astype(np.int32),
                  rng.integers(0, 2, batch).astype(np.float32))
    return tables, tuple(weights), batch_data


class Chained:
    """A donated training step run again and again on its own results: calling it runs one
    step; ``block_until_ready`` of what it returns waits for every new table and weight."""

    def __init__(self, step, state, batch, put):
        self.step, self.batch = step, [put(a) for a in batch]
        tables, weights = state
        self.state = [put(tables[0]), put(tables[1]), tuple(put(w) for w in weights)]

    def __call__(self, _params=None, _x=None):
        *self.state, loss = self.step(*self.state, *self.batch)
        return self

    def block_until_ready(self):
        for value in (*self.state[:2], *self.state[2]):
            value.block_until_ready()


def neumf_peers(vocab: int, dim: int, batch: int, jax) -> dict:
    """``{peer: (Chained, None, None)}`` for the NeuMF step; one step of each from the same
    state is checked against the other first."""
    tables, weights, data = neumf_state(vocab, dim, batch)
    s4tf_step = s4tf.function(make_neumf_step(s4tf, s4tf.value_and_grad), donate_argnums=(0, 1, 2))
    chosen = {"s4tf": (Chained(s4tf_step, (tables, weights), data, s4tf.asarray), None, None)}
    if jax is not None:
        jax_step = jax.jit(make_neumf_step(jax.numpy, jax.value_and_grad), donate_argnums=(0, 1, 2))
        chosen["JAX"] = (Chained(jax_step, (tables, weights), data, jax.device_put), None, None)
        first = {name: [np.asarray(v) for v in (*fn().state[:2], *fn.state[2])] for name, (fn, _, _) in chosen.items()}
        for got, wanted in zip(first["s4tf"], first["JAX"]):
            np.testing.assert_allclose(got, wanted, rtol=1e-4, atol=1e-5, err_msg="NeuMF step: s4tf against JAX")
    return chosen


def measure_neumf(vocabs, dim: int, batch: int, repeats: int, warmup: int, jax) -> dict:
    """Median seconds per NeuMF step for every table size ``V`` and peer."""
    medians = {}
    for vocab in vocabs:
        chosen = neumf_peers(vocab, dim, batch, jax)
        times = time_peers(chosen, repeats, warmup)
        medians[vocab] = found = {name: statistics.median(t) for name, t in times.items()}
        ratio = f", s4tf/JAX {found['s4tf'] / found['JAX']:.2f}" if "JAX" in found else ""
        print(f"  V={vocab:>7} B={batch:>5}  neumf: "
              + ", ".join(f"{name} {t * 1e3:.3f} ms" for name, t in found.items()) + ratio, flush=True)
    return medians


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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vocab", type=positive_int, nargs="+", default=[1000, 100000], help="table rows V (default: 1000 100000)")
    parser.add_argument("--batch", type=positive_int, nargs="+", default=[256, 4096], help="ids per call B (default: 256 4096)")
    parser.add_argument("--dim", type=positive_int, default=64, help="embedding width D (default: 64)")
    parser.add_argument("--repeats", type=positive_int, default=100, help="timed calls per peer and case (default: 100)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls before each block (default: 5)")
    parser.add_argument("--step-vocab", type=positive_int, nargs="*", default=[10_000, 100_000, 1_000_000],
                        help="rows V of each NeuMF table, one step timing per value (default: 10000 100000 1000000; none: no step)")
    parser.add_argument("--step-batch", type=positive_int, default=1024, help="(user, item) pairs per NeuMF step (default: 1024)")
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    jax = load_jax()
    print(versions(jax))
    print(f"median ms per call, result left on the device (D={options.dim}; lookup: B x D rows, grad: the V x D table's):")
    measure(options.vocab, options.batch, options.dim, options.repeats, options.warmup, jax)
    if options.step_vocab:
        print(f"median ms per NeuMF step (D={options.dim}; two V x D tables, sparse updates, donated, chained):")
        measure_neumf(options.step_vocab, options.dim, options.step_batch, options.repeats, options.warmup, jax)


if __name__ == "__main__":
    main()
