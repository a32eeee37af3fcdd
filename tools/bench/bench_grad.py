"""Benchmark the gradient cost ratio: compiled value-and-grad time over compiled primal time.

```
python tools/bench/bench_grad.py                       # MLP loss (784-512-512-10, batch 128) and a conv net
python tools/bench/bench_grad.py --batch 8 --conv-batch 2 --repeats 10
```

For each model, s4tf's ratio ``time(value_and_grad(loss)) / time(loss)`` (target: at most 3)
is printed beside JAX's (``jax.jit(jax.value_and_grad(loss))`` over ``jax.jit(loss)``) for
the same loss, written once for both peers. What is timed for all four alike: one call,
waiting for every result (gradients stay on the device) and copying the scalar loss to the
host; inputs are already on the device; blocks of calls alternate (``bench_mlp.time_peers``).
Values and gradients are checked against JAX's before timing. Ratios are given of the
medians and of the minimums: on a loaded machine the minimum is the steadier figure.

- MLP: ``bench_mlp``'s 784-512-512-10 ReLU network, softmax cross-entropy on one-hot labels.
- Conv net: 28x28x1 images, conv 3x3 (16) + ReLU + 2x2 max pool, conv 3x3 (32) + ReLU +
  2x2 max pool, dense 1568-10, softmax cross-entropy.
"""

from __future__ import annotations

import argparse
import statistics
from types import SimpleNamespace

import numpy as np

import s4tf
from s4tf import pytree

from bench_mlp import load_jax, make_forward, make_inputs, positive_int, time_peers, timed_call, versions

CONV_LAYERS = ((3, 3, 1, 16), (3, 3, 16, 32))
CLASSES = 10


def s4tf_ops() -> SimpleNamespace:
    return SimpleNamespace(
        relu=s4tf.relu, log_softmax=s4tf.log_softmax, mean=s4tf.mean, sum=s4tf.sum, reshape=s4tf.reshape,
        conv=lambda x, w: s4tf.conv2d(x, w, padding="same"), pool=lambda x: s4tf.max_pool2d(x, 2),
    )


def jax_ops(jax) -> SimpleNamespace:
    lax = jax.lax
    return SimpleNamespace(
        relu=jax.nn.relu, log_softmax=jax.nn.log_softmax, mean=jax.numpy.mean, sum=jax.numpy.sum,
        reshape=jax.numpy.reshape,
        conv=lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        pool=lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
    )


def cross_entropy(ops, logits, labels):
    """Mean over the batch of ``-sum(labels * log_softmax(logits))``."""
    return -ops.mean(ops.sum(labels * ops.log_softmax(logits, axis=-1), axis=1))


def mlp_loss(ops, labels):
    forward = make_forward(ops.relu)
    return lambda params, x: cross_entropy(ops, forward(params, x), labels)


def conv_loss(ops, labels):
    def loss(params, x):
        *convs, (w_out, b_out) = params
        for w, b in convs:
            x = ops.pool(ops.relu(ops.conv(x, w) + b))
        return cross_entropy(ops, ops.reshape(x, (x.shape[0], -1)) @ w_out + b_out, labels)

    return loss


def conv_inputs(batch: int, seed: int = 0):
    """Float32 ``(params, images)`` for the conv net, weights scaled by ``1/sqrt(fan_in)``."""
    rng = np.random.default_rng(seed)
    params = [
        ((rng.standard_normal(shape) / np.sqrt(np.prod(shape[:3]))).astype(np.float32), np.zeros(shape[3], np.float32))
        for shape in CONV_LAYERS
    ]
    flat = 7 * 7 * CONV_LAYERS[-1][3]
    dense = (rng.standard_normal((flat, CLASSES)) / np.sqrt(flat)).astype(np.float32)
    params.append((dense, np.zeros(CLASSES, np.float32)))
    return params, rng.standard_normal((batch, 28, 28, 1)).astype(np.float32)


def one_hot_labels(batch: int, seed: int = 1) -> np.ndarray:
    return np.eye(CLASSES, dtype=np.float32)[np.random.default_rng(seed).integers(0, CLASSES, batch)]


def s4tf_waiting(fn, leaf: int = 0):
    """``fn``, waiting for every result and returning result leaf ``leaf`` (by default the
    first: the loss), the one the timing copies to the host."""

    def call(params, x):
        leaves = [leaf for leaf in pytree.flatten(fn(params, x))[0] if leaf is not None]
        for each in leaves:
            each.block_until_ready()
        return leaves[leaf]

    return call


def jax_waiting(jax, fn, leaf: int = 0):
    """``fn`` (JAX), waiting for every result and returning result leaf ``leaf``."""

    def call(params, x):
        return jax.tree_util.tree_leaves(jax.block_until_ready(fn(params, x)))[leaf]

    return call


def peers(make_loss, params, x, labels, jax) -> dict:
    """``{name: (fn(params, x) -> loss, params, x)}``: primal and value-and-grad of each peer."""
    loss = make_loss(s4tf_ops(), labels)
    on_device = pytree.tree_map(s4tf.asarray, (params, x))
    chosen = {
        "s4tf primal": (s4tf_waiting(s4tf.function(loss)), *on_device),
        "s4tf value_and_grad": (s4tf_waiting(s4tf.value_and_grad(loss)), *on_device),
    }
    if jax is not None:
        jax_loss = make_loss(jax_ops(jax), labels)
        jax_inputs = jax.device_put((params, x))
        chosen["JAX primal"] = (jax_waiting(jax, jax.jit(jax_loss)), *jax_inputs)
        chosen["JAX value_and_grad"] = (jax_waiting(jax, jax.jit(jax.value_and_grad(jax_loss))), *jax_inputs)
    return chosen


def check_against_jax(make_loss, params, x, labels, jax) -> None:
    """s4tf's loss and gradients equal JAX's within float32 tolerance."""
    value, grads = s4tf.value_and_grad(make_loss(s4tf_ops(), labels))(params, x)
    jax_value, jax_grads = jax.jit(jax.value_and_grad(make_loss(jax_ops(jax), labels)))(params, x)
    np.testing.assert_allclose(np.asarray(value), np.asarray(jax_value), rtol=1e-4)
    for ours, theirs in zip(pytree.flatten(grads)[0], jax.tree_util.tree_leaves(jax_grads)):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-3, atol=2e-5)


def benchmark(title: str, make_loss, params, x, labels, options, jax) -> None:
    if jax is not None:
        check_against_jax(make_loss, params, x, labels, jax)
    chosen = peers(make_loss, params, x, labels, jax)
    for name, (fn, p, v) in chosen.items():
        timed_call(fn, p, v)  # compile outside the timed blocks
    times = time_peers(chosen, options.repeats, options.warmup)
    print(f"\n{title}: median (min) ms per call")
    for name, values in times.items():
        print(f"  {name:20} {statistics.median(values) * 1e3:8.3f} ms ({min(values) * 1e3:.3f})")
    for statistic in (statistics.median, min):
        figures = {name: statistic(values) for name, values in times.items()}
        ratios = ", ".join(
            f"{peer} {figures[f'{peer} value_and_grad'] / figures[f'{peer} primal']:.2f}"
            for peer in ("s4tf", "JAX") if f"{peer} primal" in figures
        )
        line = f"  {statistic.__name__:6}: gradient cost ratio (value_and_grad / primal): {ratios}"
        if jax is not None:
            line += (f"; s4tf/JAX: primal {figures['s4tf primal'] / figures['JAX primal']:.2f}, "
                     f"value_and_grad {figures['s4tf value_and_grad'] / figures['JAX value_and_grad']:.2f}")
        print(line)


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=positive_int, default=128, help="MLP batch (default: 128)")
    parser.add_argument("--conv-batch", type=positive_int, default=32, help="conv net batch (default: 32)")
    parser.add_argument("--repeats", type=positive_int, default=100, help="timed calls per peer (default: 100)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls before each block (default: 5)")
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    jax = load_jax()
    print(versions(jax))
    if jax is None:
        print("JAX is not installed (pip install 'jax[cpu]'); s4tf's ratios only")
    params, x = make_inputs(options.batch)
    labels = one_hot_labels(options.batch)
    benchmark(f"MLP 784-512-512-10, batch {options.batch}", mlp_loss, params, x, labels, options, jax)
    params, x = conv_inputs(options.conv_batch)
    labels = one_hot_labels(options.conv_batch)
    benchmark(f"conv net, batch {options.conv_batch}", conv_loss, params, x, labels, options, jax)


if __name__ == "__main__":
    main()
