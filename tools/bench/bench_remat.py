"""Benchmark ``s4tf.remat`` against JAX's ``jax.checkpoint`` on a deep MLP: residual bytes and step time.

```
python tools/bench/bench_remat.py                          # 16 blocks of 256 units, batch 1024
python tools/bench/bench_remat.py --depth 3 --width 8 --batch 2 --repeats 4
```

The loss is ``mean((blocks(x)) ** 2)`` over ``depth`` blocks ``x + tanh(x @ w + b)``, each
block wrapped in ``s4tf.remat`` / ``jax.checkpoint`` or not, written once for both peers.
Printed: the bytes the forward pass keeps for the backward pass (``s4tf.saved_residuals``,
JAX's ``saved_residuals``), the memory a call of each peer needs (``peak_memory.py``: the
peak resident set above the inputs, in a fresh process each), and the time of one
compiled ``value_and_grad`` (waiting for every gradient; inputs on the device; blocks of
calls alternate, ``bench_mlp.time_peers``), with each peer's ratio remat / plain.
Gradients are checked against JAX's first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from types import SimpleNamespace

import numpy as np

import s4tf
from s4tf import pytree
from s4tf.dialects.types import to_numpy_dtype

from bench_grad import jax_waiting, s4tf_waiting
from bench_mlp import load_jax, positive_int, time_peers, timed_call, versions
from peak_memory import in_fresh_process, peak_bytes_above_resident


def make_loss(ops, remat):
    block = remat(lambda w, b, x: x + ops.tanh(x @ w + b))

    def loss(params, x):
        for w, b in params:
            x = block(w, b, x)
        return ops.mean(x ** 2)

    return loss


def make_inputs(depth: int, width: int, batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    params = [
        ((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32), np.zeros(width, np.float32))
        for _ in range(depth)
    ]
    return params, rng.standard_normal((batch, width)).astype(np.float32)


def nbytes(shapes_and_dtypes) -> int:
    return int(sum(np.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in shapes_and_dtypes))


def s4tf_peer(remat: bool):
    return make_loss(SimpleNamespace(tanh=s4tf.tanh, mean=s4tf.mean), s4tf.remat if remat else (lambda f: f))


def jax_peer(jax, remat: bool):
    return make_loss(SimpleNamespace(tanh=jax.numpy.tanh, mean=jax.numpy.mean), jax.checkpoint if remat else (lambda f: f))


def residual_bytes(params, x, jax) -> dict[str, int]:
    figures = {}
    for remat in (False, True):
        kept = s4tf.saved_residuals(s4tf_peer(remat), params, x)
        figures[f"s4tf {'remat' if remat else 'plain'}"] = nbytes((t.shape, to_numpy_dtype(t.dtype)) for t in kept)
    if jax is not None:
        from jax._src.ad_checkpoint import saved_residuals  # JAX's public API only prints them

        for remat in (False, True):
            kept = saved_residuals(jax_peer(jax, remat), params, x)
            figures[f"JAX {'checkpoint' if remat else 'plain'}"] = nbytes((aval.shape, aval.dtype) for aval, _ in kept)
    return figures


def check(params, x, jax) -> None:
    """s4tf's gradients with remat equal its plain ones, and JAX's within float32 tolerance."""
    plain = pytree.flatten(s4tf.grad(s4tf_peer(False))(params, x))[0]
    remat = pytree.flatten(s4tf.grad(s4tf_peer(True))(params, x))[0]
    references = jax.tree_util.tree_leaves(jax.jit(jax.grad(jax_peer(jax, True)))(params, x)) if jax else plain
    for ours, same, theirs in zip(remat, plain, references):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(same), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-3, atol=2e-5)


#: The peers: (name, framework, remat or not).
PEERS = (("s4tf plain", "s4tf", False), ("s4tf remat", "s4tf", True), ("JAX plain", "JAX", False), ("JAX checkpoint", "JAX", True))
MEMORY_TAG = "remat-memory-bytes:"


def peer(name: str, params, x, jax) -> tuple:
    """``(fn(params, x), params, x)`` of the peer ``name``: its compiled value_and_grad,
    waiting for every result (JAX's compiled here, ahead of time; s4tf's at its first
    call), and the inputs on its device."""
    framework, remat = next((framework, remat) for n, framework, remat in PEERS if n == name)
    if framework == "s4tf":
        return (s4tf_waiting(s4tf.value_and_grad(s4tf_peer(remat))), *pytree.tree_map(s4tf.asarray, (params, x)))
    p, v = jax.device_put((params, x))
    return jax_waiting(jax, jax.jit(jax.value_and_grad(jax_peer(jax, remat))).lower(p, v).compile()), p, v


def peers(params, x, jax) -> dict:
    return {name: peer(name, params, x, jax) for name, framework, _ in PEERS if framework == "s4tf" or jax is not None}


def call_memory(name: str, params, x) -> int | None:
    """Peak resident bytes of the first call of peer ``name`` in this process, above the
    resident set with its inputs on the device, its code compiled beforehand (s4tf's
    loaded from the disk cache, which the timed calls filled; JAX's compiled ahead of
    time): what a call needs (activations, residuals, recomputations, results). Later
    calls show nothing: IREE keeps the memory of the first in its pools."""
    fn, p, v = peer(name, params, x, load_jax() if name.startswith("JAX") else None)
    return peak_bytes_above_resident(lambda: fn(p, v))


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=positive_int, default=16, help="blocks (default: 16)")
    parser.add_argument("--width", type=positive_int, default=256, help="units per block (default: 256)")
    parser.add_argument("--batch", type=positive_int, default=1024, help="batch (default: 1024)")
    parser.add_argument("--repeats", type=positive_int, default=60, help="timed calls per peer (default: 60)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls before each block (default: 3)")
    parser.add_argument("--memory-of", choices=[name for name, _, _ in PEERS], help=argparse.SUPPRESS)  # the subprocess's job
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    params, x = make_inputs(options.depth, options.width, options.batch)
    if options.memory_of:
        print(f"{MEMORY_TAG}{call_memory(options.memory_of, params, x)}")
        return
    jax = load_jax()
    print(versions(jax))
    if jax is None:
        print("JAX is not installed (pip install 'jax[cpu]'); s4tf's figures only")
    check(params, x, jax)
    title = f"MLP of {options.depth} blocks x + tanh(x @ w + b), width {options.width}, batch {options.batch}"
    print(f"\n{title}: bytes kept for the backward pass")
    figures = residual_bytes(params, x, jax)
    inputs = nbytes([(x.shape, x.dtype)] * options.depth + [(w.shape, w.dtype) for w, _ in params] + [(b.shape, b.dtype) for _, b in params])
    for name, value in figures.items():
        print(f"  {name:16} {value:12,d} bytes ({value / inputs:.2f} x the blocks' inputs)")
    chosen = peers(params, x, jax)
    for fn, p, v in chosen.values():
        timed_call(fn, p, v)  # compile outside the timed blocks
    times = time_peers(chosen, options.repeats, options.warmup)
    print(f"\n{title}: value_and_grad, median (min) ms per call")
    for name, values in times.items():
        print(f"  {name:16} {statistics.median(values) * 1e3:9.3f} ms ({min(values) * 1e3:.3f})")
    for statistic in (statistics.median, min):
        t = {name: statistic(values) for name, values in times.items()}
        line = f"  {statistic.__name__:6}: remat / plain: s4tf {t['s4tf remat'] / t['s4tf plain']:.2f}"
        if jax is not None:
            line += (f", JAX {t['JAX checkpoint'] / t['JAX plain']:.2f}; s4tf/JAX: plain {t['s4tf plain'] / t['JAX plain']:.2f}, "
                     f"remat {t['s4tf remat'] / t['JAX checkpoint']:.2f}")
        print(line)
    sizes = ["--depth", str(options.depth), "--width", str(options.width), "--batch", str(options.batch)]
    print(f"\n{title}: memory a call needs beyond its inputs (peak resident set of a first call, a fresh process each)")
    for name in (name for name, framework, _ in PEERS if framework == "s4tf" or jax is not None):
        used = in_fresh_process([sys.executable, __file__, "--memory-of", name, *sizes], MEMORY_TAG, S4TF_FIRST_CALL="compile")
        print(f"  {name:16} {'not measured' if used is None else f'{used / 1e6:10.2f} MB'}")


if __name__ == "__main__":
    main()
