"""Benchmark training steps: s4tf's compiled step against JAX-jit, and device memory.

```
python tools/bench/bench_train.py                    # MLP 784-512-512-10 at batch 128, LeNet-5 at batch 64,
                                                     # a transformer encoder block (d 256, 4 heads, seq 128) at batch 8
python tools/bench/bench_train.py --steps 20 --rounds 3
```

One training step is: forward pass, softmax cross-entropy, reverse mode, and an Adam
update of every parameter. The batch is on the device before timing, for both peers. s4tf runs it as one IREE function (``s4tf.nn.training``), JAX
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
from s4tf import nn, pytree
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import transformer_block  # noqa: E402
from peak_memory import in_fresh_process, peak_bytes_above_resident  # noqa: E402

LR = 1e-3
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


def mlp_flops(batch: int, sizes=(784, 512, 512, 10)) -> int:
    return 3 * 2 * batch * sum(m * n for m, n in zip(sizes, sizes[1:]))


def lenet_flops(batch: int) -> int:
    """Multiply-adds of LeNet-5 on 28x28x1 ("same" 5x5 conv to 6, pool, 5x5 conv to 16, pool,
    dense 400-120-84-10), times 2 for flops and 3 for the step."""
    convs = 28 * 28 * 6 * 25 * 1 + 10 * 10 * 16 * 25 * 6
    dense = 400 * 120 + 120 * 84 + 84 * 10
    return 3 * 2 * batch * (convs + dense)


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


def jax_step(kind: str, donate: bool = False):
    """The same training step in JAX: ``step(params, m, v, t, x, y) -> (params, m, v, t, loss,
    accuracy)``, the batch's accuracy before the update, as ``s4tf.nn.training.train_step``
    returns it; ``donate=True``: the parameters and moments are donated."""
    import jax
    import jax.numpy as jnp

    def forward(params, x):
        if kind == "transformer":
            return transformer_block.jax_forward(params, x)
        if kind == "lenet":
            (k1, c1), (k2, c2), *dense = params
            def conv(x, kernel, padding):
                return jax.lax.conv_general_dilated(x, kernel, (1, 1), padding, dimension_numbers=("NHWC", "HWIO", "NHWC"))

            def pool(x):
                return jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4

            x = pool(jax.nn.relu(conv(x, k1, "SAME") + c1))
            x = pool(jax.nn.relu(conv(x, k2, "VALID") + c2))
            x = x.reshape(x.shape[0], -1)
        else:
            dense = params
        for i, (w, b) in enumerate(dense):
            x = x @ w + b
            if i < len(dense) - 1:
                x = jax.nn.relu(x)
        return x

    def loss_fn(params, x, y):
        logits = forward(params, x)
        loss = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))
        return loss, jnp.mean((jnp.argmax(logits, axis=-1) == y).astype(jnp.float32))

    def step(params, m, v, t, x, y):
        (loss, accuracy), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
        t = t + 1
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
        v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
        c1, c2 = 1 - 0.9**t, 1 - 0.999**t
        params = jax.tree.map(lambda p, m, v: p - LR * (m / c1) / (jnp.sqrt(v / c2) + 1e-8), params, m, v)
        return params, m, v, t, loss, accuracy

    return jax.jit(step, donate_argnums=(0, 1, 2) if donate else ())


def jax_state(jax, model) -> list:
    """``[params, m, v, t]`` for :func:`jax_step`: ``model``'s weights and zero moments on
    JAX's device (two moment buffers, so that both may be donated)."""
    params = jax.device_put(model_leaves(model))
    m, v = (jax.tree.map(jax.numpy.zeros_like, params) for _ in range(2))
    return [params, m, v, jax.numpy.float32(0)]


def model_leaves(model) -> list:
    """``[(kernel_or_weight, bias), ...]`` of the model's parametrized layers, as NumPy."""
    if isinstance(model, transformer_block.EncoderBlock):
        return [(np.asarray(a), np.asarray(b)) for a, b in transformer_block.parameter_pairs(model)]
    return [
        (np.asarray(layer.weight if hasattr(layer, "weight") else layer.filter), np.asarray(layer.bias))
        for layer in model.layers if hasattr(layer, "bias")
    ]


def fresh_model(kind: str):
    if kind == "transformer":
        return transformer_block.encoder_block()
    return nn.MLP((784, 512, 512, 10)) if kind == "mlp" else nn.LeNet5(in_channels=1, num_classes=10)


def problem(kind: str, batch: int):
    """``(flops, x, y, step, opt)``: a batch of random inputs and labels, the compiled step."""
    rng = np.random.default_rng(0)
    shape = {"mlp": (batch, 784), "lenet": (batch, 28, 28, 1), "transformer": (batch, 128, 256)}[kind]
    flops = {"mlp": mlp_flops, "lenet": lenet_flops, "transformer": transformer_block.flops}[kind](batch)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    opt = Adam(LR)
    return flops, x, y, train_step(opt), opt


def step_times(kind: str, model, x, y, step, opt, steps: int, rounds: int) -> tuple[dict, float]:
    """``({peer: [(wall, CPU) seconds per step, per round]}, first loss)``: s4tf's ``step``
    and JAX-jit's of the same ``kind`` from ``model``'s weights, alternating; the first
    losses and accuracies are checked to agree."""
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
    for _ in range(rounds):
        for name, run in peers.items():
            cpu = time.process_time()
            wall = _time(run)
            times[name].append((wall / steps, (time.process_time() - cpu) / steps))
    return times, s4tf_loss


def benchmark(kind: str, batch: int, steps: int, rounds: int, peak: float) -> None:
    flops, x, y, step, opt = problem(kind, batch)
    model = fresh_model(kind)
    params_and_state_bytes = 3 * sum(w.nbytes + b.nbytes for w, b in model_leaves(model))
    times, s4tf_loss = step_times(kind, model, x, y, step, opt, steps, rounds)
    memory = {(peer, donate): measure_in_subprocess(peer, kind, batch, donate) for peer in ("s4tf", "JAX jit")
              for donate in (True, False) if peer == "s4tf" or "JAX jit" in times}
    print(f"\n{kind}, batch {batch}: {flops / 1e9:.3f} GFLOP per step, first loss {s4tf_loss:.4f} (peers agree)")
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
    for kind, batch in (("mlp", 128), ("lenet", 64), ("transformer", 8)):
        if kind in options.models.split(","):
            benchmark(kind, max(1, round(batch * options.batch_scale)), options.steps, options.rounds, peak)


if __name__ == "__main__":
    main()
