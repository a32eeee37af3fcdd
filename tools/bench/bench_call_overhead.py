"""Benchmark the host-side cost of calling a staged function: s4tf against JAX-jit.

```
python tools/bench/bench_call_overhead.py                 # relax (n = 0), a one-op function, the MLP Adam step
python tools/bench/bench_call_overhead.py --calls 500 --rounds 5 --skip-mlp
```

Functions, each called ``--calls`` times in a row per round, peers alternating round by
round in this process; figures are medians over ``--rounds`` of the time per call:

- ``relax(x, n)`` of ``tools/bench/bench_loops.py`` with ``x`` of shape (2,) and ``n = 0``
  (JAX: ``fori_loop`` under ``jit``, ``n`` traced), with NumPy inputs, and with the result
  fed back as the next call's ``x`` (an s4tf ``Tensor``, a JAX array);
- a one-op function ``x + 1`` of shape (2,), its result fed back;
- the MLP 784-512-512-10 Adam step of ``tools/bench/bench_train.py`` at batch 128 (19
  arrays in, model and optimizer state donated and fed back);
- eager ops (no staged function) on 16x16 float32 tensors: ``x + y``, ``exp(x)``, ``sum(x)``
  and ``x @ y``, against ``jax.numpy``'s un-jitted ops on device arrays; "IREE" is the call
  of the op's one-op module.

JAX's results are waited for after each call (``block_until_ready``), as s4tf's calls
return once IREE has run them. For s4tf, "IREE" is the module's own call
(``LoadedModule.invoke`` with the device arrays prepared), so "s4tf - IREE" is the Python
around it: argument checks, donation, wrapping the results.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import s4tf

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_loops  # noqa: E402

relax = s4tf.function(bench_loops.relax)  # the loop benchmark's program


@s4tf.function
def add_one(x):
    return x + 1.0


def per_call(run, calls: int) -> float:
    """Seconds per call of ``run`` (which makes one call), over ``calls`` calls in a row."""
    start = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - start) / calls


def iree_call(staged, leaves):
    """``run()`` calling the compiled module of ``staged`` alone, its inputs on the device."""
    (compiled,) = staged._compiled.values()
    inputs = [s4tf.asarray(leaf).device_array for leaf in leaves]
    module, entry = compiled.module, compiled.lowered.entry
    return lambda: module.invoke(entry, inputs)


def small_cases():
    """``{name: (s4tf run, JAX run, IREE-alone run)}`` for relax and the one-op function."""
    import jax
    import jax.numpy as jnp

    jax_relax = jax.jit(lambda x, n: jax.lax.fori_loop(0, n, lambda i, v: v * np.float32(0.9999) + np.float32(0.0001) * jnp.sin(v), x))
    jax_add_one = jax.jit(lambda x: x + np.float32(1.0))
    x, n = np.array([0.5, 1.0], np.float32), np.int32(0)
    np.testing.assert_allclose(np.asarray(relax(x, n)), np.asarray(jax_relax(x, n)))
    np.testing.assert_allclose(np.asarray(add_one(x)), np.asarray(jax_add_one(x)))
    state = {"s4tf relax": s4tf.asarray(x), "jax relax": jax.device_put(x), "s4tf add": s4tf.asarray(x), "jax add": jax.device_put(x)}

    def fed_back(name, fn, *rest):
        def run():
            state[name] = fn(state[name], *rest)
        return run

    return {
        "relax(x, n=0), NumPy inputs": (lambda: relax(x, n), lambda: jax_relax(x, n).block_until_ready(), iree_call(relax, [x, n])),
        "relax(x, n=0), results fed back": (
            fed_back("s4tf relax", relax, n), lambda: fed_back("jax relax", jax_relax, n)() or state["jax relax"].block_until_ready(),
            iree_call(relax, [x, n])),
        "x + 1, results fed back": (
            fed_back("s4tf add", add_one), lambda: fed_back("jax add", jax_add_one)() or state["jax add"].block_until_ready(),
            iree_call(add_one, [x])),
    }


def eager_cases():
    """``{name: (s4tf run, JAX run, IREE-alone run)}`` for eager ops on 16x16 float32."""
    import jax
    import jax.numpy as jnp
    from s4tf.staging import eager

    rng = np.random.default_rng(0)
    x, y = (rng.normal(size=(16, 16)).astype(np.float32) for _ in range(2))
    ours, theirs = (s4tf.asarray(x), s4tf.asarray(y)), (jax.device_put(x), jax.device_put(y))
    cases = {}
    for name, s4tf_op, jax_op, arity in (("x + y", lambda a, b: a + b, lambda a, b: a + b, 2),
                                         ("exp(x)", s4tf.exp, jnp.exp, 1),
                                         ("sum(x)", s4tf.sum, jnp.sum, 1),
                                         ("x @ y", lambda a, b: a @ b, lambda a, b: a @ b, 2)):
        operands, jax_operands = ours[:arity], theirs[:arity]
        np.testing.assert_allclose(np.asarray(s4tf_op(*operands)), np.asarray(jax_op(*jax_operands)), rtol=1e-5, atol=1e-5)
        function = next(reversed(eager._one_op_functions.values()))  # the op's one-op function: the one used last
        compiled = function.compiled_for(operands)
        inputs = [operand.device_array for operand in operands]
        cases[f"eager {name}, 16x16"] = (
            lambda op=s4tf_op, a=operands: op(*a), lambda op=jax_op, a=jax_operands: op(*a).block_until_ready(),
            lambda m=compiled.module, e=compiled.lowered.entry, i=inputs: m.invoke(e, i))
    return cases


def mlp_case():
    """``(s4tf run, JAX run, IREE-alone run)`` of the MLP Adam step at batch 128."""
    import jax
    import jax.numpy as jnp
    from s4tf.tools.train_problems import fresh_model, jax_step, model_leaves, problem

    _, x, y, step, opt = problem("mlp", 128)
    model = fresh_model("mlp")
    jax_params = jax.device_put(model_leaves(model))
    zeros = jax.tree.map(jnp.zeros_like, jax_params)
    peers = {"s4tf": [model, opt.init(model)], "jax": [jax_params, zeros, zeros, jnp.float32(0)]}
    dx, dy, jx, jy = s4tf.asarray(x), s4tf.asarray(y), jax.device_put(x), jax.device_put(y)
    jstep = jax_step("mlp")

    def run_s4tf():
        peers["s4tf"][0], peers["s4tf"][1], _, _ = step(*peers["s4tf"], dx, dy)

    def run_jax():
        *peers["jax"], loss, _ = jstep(*peers["jax"], jx, jy)
        loss.block_until_ready()

    run_s4tf()
    (compiled,) = step._compiled.values()
    leaves = s4tf.pytree.flatten((fresh_model("mlp"), opt.init(fresh_model("mlp")), x, y))[0]
    inputs = [s4tf.asarray(leaf).device_array for leaf in leaves if not isinstance(leaf, (int, float))]
    return run_s4tf, run_jax, lambda: compiled.module.invoke(compiled.lowered.entry, inputs)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000, help="calls in a row per round (the MLP step: a tenth)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--skip-mlp", action="store_true", help="leave out the MLP Adam step")
    args = parser.parse_args(argv)
    cases = {**small_cases(), **eager_cases()}
    if not args.skip_mlp:
        cases["MLP Adam step, batch 128"] = mlp_case()
    for name, (ours, jax_run, iree_alone) in cases.items():
        calls = max(1, args.calls // 10) if name.startswith("MLP") else args.calls
        for run in (ours, jax_run, iree_alone):
            run()  # warm-up: compilation
        times = {"s4tf": [], "JAX": [], "IREE": []}
        for _ in range(args.rounds):
            for peer, run in zip(times, (ours, jax_run, iree_alone)):
                times[peer].append(per_call(run, calls))
        s4tf_us, jax_us, iree_us = (statistics.median(samples) * 1e6 for samples in times.values())
        print(f"{name}: s4tf {s4tf_us:.1f} us, JAX {jax_us:.1f} us, s4tf / JAX {s4tf_us / jax_us:.2f}; "
              f"IREE's call {iree_us:.1f} us, s4tf - IREE {s4tf_us - iree_us:.1f} us")


if __name__ == "__main__":
    main()
