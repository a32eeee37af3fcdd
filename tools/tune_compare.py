"""The comparisons of ``s4tf-tune``: each tuned product alone and each whole training step,
through IREE without and with the kept tiles, against JAX-jit where JAX is installed;
alternating in this process, wall and CPU time (CPU time: the machine is shared).

```python
compare_product((128, 512, 784), calls=20, rounds=7)    # (m, k) @ (k, n)
compare_step("mlp", steps=20, rounds=7)
```
"""

from __future__ import annotations

import os

import numpy as np

import s4tf
from s4tf.nn.training import train_step
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.runtime.device import LoadedModule
from s4tf.runtime.tuning import Shape
from s4tf.tools.alternating import alternate
from s4tf.tools.train_problems import BATCH, fresh_model, jax_state, jax_step, problem


def untuned(fn):
    """``fn()`` with the tuning switched off (``S4TF_TUNING=0``) while it compiles."""
    saved = os.environ.get("S4TF_TUNING")
    os.environ["S4TF_TUNING"] = "0"
    try:
        return fn()
    finally:
        if saved is None:
            del os.environ["S4TF_TUNING"]
        else:
            os.environ["S4TF_TUNING"] = saved


def _jax():
    """JAX, or ``None`` where it is not installed (the comparisons then leave it out)."""
    try:
        import jax
    except ImportError:
        return None
    return jax


def report(medians: dict, label: str) -> None:
    jax_wall, jax_cpu = medians.get("JAX jit", (None, None))
    for name, (wall, cpu) in medians.items():
        ratio = f"  ({wall / jax_wall:.2f}x JAX wall, {cpu / jax_cpu:.2f}x CPU)" if jax_wall else ""
        print(f"  {label} {name:<14}{wall * 1e3:8.3f} ms wall {cpu * 1e3:8.3f} ms CPU{ratio}")


def compare_product(shape: Shape, calls: int, rounds: int) -> None:
    """``(m, k) @ (k, n)`` through IREE untuned and tuned, and JAX-jit, alternating."""
    m, n, k = shape
    text = (f"func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n"
            f"  return %0 : tensor<{m}x{n}xf32>\n}}")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    da, db = s4tf.asarray(a).device_array, s4tf.asarray(b).device_array
    default = LoadedModule(untuned(lambda: compile_stablehlo(text, "cpu")))._functions["mm"]
    tuned = LoadedModule(compile_stablehlo(text, "cpu"))._functions["mm"]
    peers = {"IREE default": lambda: default(da, db).to_host(), "IREE tuned": lambda: tuned(da, db).to_host()}
    if (jax := _jax()) is not None:
        ja, jb = jax.device_put(a), jax.device_put(b)
        jmm = jax.jit(lambda a, b: a @ b)
        peers["JAX jit"] = lambda: jmm(ja, jb).block_until_ready()
    report(alternate(peers, calls, rounds, cpu=True), "x".join(map(str, shape)))


def compare_step(kind: str, steps: int, rounds: int) -> None:
    """The model's step untuned and tuned, and JAX-jit's, alternating."""
    _, x, y, _, opt = problem(kind, BATCH[kind])
    holders = {}
    for name, tuned in (("s4tf default", False), ("s4tf tuned", True)):
        step, model = train_step(opt), fresh_model(kind)
        first_call = lambda: step(model, opt.init(model), x, y)  # noqa: E731 (compiles)
        model, state, _, _ = first_call() if tuned else untuned(first_call)
        holders[name] = [step, model, state]
    dx, dy = s4tf.asarray(x), s4tf.asarray(y)

    def runner(holder):
        def run():
            holder[1], holder[2], loss, _ = holder[0](holder[1], holder[2], dx, dy)
            np.asarray(loss)
        return run

    peers = {name: runner(holder) for name, holder in holders.items()}
    if (jax := _jax()) is not None:
        jstep = jax_step(kind)
        jstate = jax_state(jax, fresh_model(kind))
        jx, jy = jax.device_put(x), jax.device_put(y)

        def jax_run():
            *jstate[:4], loss, _ = jstep(*jstate, jx, jy)
            float(loss)

        peers["JAX jit"] = jax_run
    report(alternate(peers, steps, rounds, cpu=True), f"{kind} step")
