"""Training steps on an NVIDIA GPU: s4tf's ``cuda`` target beside JAX on the same GPU, in one
process, from the same weights and batches.

```
python tools/bench/bench_gpu.py                                   # mlp, lenet, transformer, two batches each
python tools/bench/bench_gpu.py --models mlp --batches 128,4096 --steps 50 --rounds 5
```

The steps are those of ``bench_train.py`` (``s4tf.tools.train_problems``: forward pass,
softmax cross-entropy, reverse mode, Adam), s4tf's compiled for ``cuda`` with its model and
state donated, JAX's ``jax.jit`` on its default GPU with the parameters and moments donated.
JAX runs float32 products in TF32 on GPUs since Ampere unless asked for full precision; s4tf
(IREE) computes them in float32: both are timed, JAX's default as ``JAX`` and its
``jax_default_matmul_precision="highest"`` as ``JAX f32``. Timed: ``--steps`` steps in a row,
then the last loss copied to the host, the peers alternating round by round; the median
per step. *first step*: the first call, from an empty ``$S4TF_CACHE_DIR`` for s4tf (trace,
passes, IREE's compile to PTX, load, run) and a fresh ``jax.jit`` (XLA's persistent cache off).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile

os.environ.setdefault("S4TF_CACHE_DIR", tempfile.mkdtemp(prefix="s4tf-bench-gpu-"))

import numpy as np  # noqa: E402

import s4tf  # noqa: E402
from bench_compile import timed  # noqa: E402
from s4tf.tools.train_problems import BATCH, fresh_model, jax_state, jax_step, problem  # noqa: E402


def peers(kind: str, batch: int, steps: int, target: str):
    """``({peer: run}, {peer: first-step seconds}, {peer: first loss})``: each ``run`` takes
    ``steps`` steps and reads the last loss back."""
    import jax

    _, x, y, step, opt = problem(kind, batch, target)
    model = fresh_model(kind)
    runs, first, losses = {}, {}, {}
    jx, jy = jax.device_put(x), jax.device_put(y)
    for name, precision in (("JAX", None), ("JAX f32", "highest")):
        def jax_steps(n, jstep=jax_step(kind, donate=True), jstate=jax_state(jax, model), precision=precision):
            with jax.default_matmul_precision(precision) if precision else contextlib.nullcontext():
                for _ in range(n):
                    *jstate[:4], loss, _ = jstep(*jstate, jx, jy)
                return float(loss)

        first[name] = timed(lambda: losses.setdefault(name, jax_steps(1)))[0]
        runs[name] = lambda f=jax_steps: f(steps)
    state = {"model": model, "opt": opt.init(model)}
    device_x, device_y = s4tf.device_put((x, y), target)

    def s4tf_steps(n):
        for _ in range(n):
            state["model"], state["opt"], loss, _ = step(state["model"], state["opt"], device_x, device_y)
        return float(np.asarray(loss))

    first["s4tf"] = timed(lambda: losses.setdefault("s4tf", s4tf_steps(1)))[0]
    runs["s4tf"] = lambda: s4tf_steps(steps)
    return runs, first, losses


def benchmark(kind: str, batch: int, steps: int, rounds: int, target: str) -> None:
    runs, first, losses = peers(kind, batch, steps, target)
    np.testing.assert_allclose(losses["JAX f32"], losses["s4tf"], rtol=1e-3)
    for run in runs.values():
        run()  # warm-up
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            times[name].append(timed(run)[0] / steps)
    ours = statistics.median(times["s4tf"])
    print(f"\n{kind}, batch {batch}: first loss {losses['s4tf']:.4f} (JAX f32 {losses['JAX f32']:.4f}, JAX {losses['JAX']:.4f})")
    print(f"{'peer':<9}{'ms/step':>10}{'s4tf/peer':>11}{'first step s':>14}{'s4tf/peer':>11}")
    for name, samples in times.items():
        median = statistics.median(samples)
        ratios = ("", "") if name == "s4tf" else (f"{ours / median:.2f}", f"{first['s4tf'] / first[name]:.2f}")
        print(f"{name:<9}{median * 1e3:>10.3f}{ratios[0]:>11}{first[name]:>14.2f}{ratios[1]:>11}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="mlp,lenet,transformer", help="comma-separated: mlp, lenet, transformer")
    parser.add_argument("--batches", help="comma-separated batch sizes (default: each model's bench_train batch and 8x it)")
    parser.add_argument("--steps", type=int, default=20, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per peer")
    parser.add_argument("--target", default="cuda", help="s4tf's target (vulkan: a GPU through Vulkan)")
    options = parser.parse_args(argv)
    import jax

    jax.config.update("jax_enable_compilation_cache", False)
    print(f"JAX {jax.__version__} on {jax.devices()[0].device_kind}; s4tf's {options.target} target")
    for kind in options.models.split(","):
        batches = [int(b) for b in options.batches.split(",")] if options.batches else [BATCH[kind], 8 * BATCH[kind]]
        for batch in batches:
            benchmark(kind, batch, options.steps, options.rounds, options.target)


if __name__ == "__main__":
    main()
