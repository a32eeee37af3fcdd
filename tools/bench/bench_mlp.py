"""Benchmark a 784-512-512-10 MLP forward pass: s4tf against NumPy and JAX (when installed).

```
python tools/bench/bench_mlp.py                      # steady-state calls and first-call latency
python tools/bench/bench_mlp.py --batch 256 --repeats 500
```

What is timed, for every peer alike: one call of the forward pass plus the host copy of
its ``batch x 10`` result (``np.asarray``), so asynchronous peers are waited for. Inputs
and weights are already on the device (``s4tf.asarray``, ``jax.device_put``). Peers run in one
process on the same inputs, after their results were checked against NumPy's, in
alternating blocks of calls.

First-call latency (trace, lower, IREE compile, load, run) is measured with a fresh, empty
module cache (``$S4TF_CACHE_DIR`` points at a temporary folder), then again in a new
process over the now-filled cache (``--first-call-only``), where no in-memory cache helps.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np

import s4tf
from s4tf.runtime.cache import DiskCache
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.runtime.device import LoadedModule

LAYER_SIZES = (784, 512, 512, 10)
FIRST_CALL_TAG = "first-call-seconds:"
ROUNDS = 5


def make_forward(relu):
    """The MLP's forward pass over ``params = [(w, b), ...]``, with the peer's ``relu``."""

    def forward(params, x):
        *hidden, (w_out, b_out) = params
        for w, b in hidden:
            x = relu(x @ w + b)
        return x @ w_out + b_out

    return forward


def numpy_relu(x):
    """NumPy's ``relu``."""
    return np.maximum(x, 0)


def make_inputs(batch: int, seed: int = 0):
    """Float32 ``(params, x)`` with weights scaled by ``1/sqrt(fan_in)``."""
    rng = np.random.default_rng(seed)
    params = [
        (
            (rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32),
            (0.1 * rng.standard_normal(fan_out)).astype(np.float32),
        )
        for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:])
    ]
    x = rng.standard_normal((batch, LAYER_SIZES[0])).astype(np.float32)
    return params, x


def to_s4tf(params, x):
    """The inputs as device-resident ``s4tf.Tensor``s (copied once)."""
    return [(s4tf.asarray(w), s4tf.asarray(b)) for w, b in params], s4tf.asarray(x)


def timed_call(fn, params, x) -> tuple[float, np.ndarray]:
    """Seconds for ``fn(params, x)`` plus the host copy of its result, and that result."""
    start = time.perf_counter()
    result = np.asarray(fn(params, x))
    return time.perf_counter() - start, result


def first_call_seconds(batch: int) -> float:
    """A new staged function's first call (trace, lower, compile or cache hit, load, run)."""
    params, x = to_s4tf(*make_inputs(batch))
    seconds, _ = timed_call(s4tf.function(make_forward(s4tf.relu)), params, x)
    return seconds


def first_call_phases(batch: int, cache_dir: Path) -> dict[str, float]:
    """Seconds of each phase of a cold first call, done one by one (``cache_dir`` empty)."""
    params, x = to_s4tf(*make_inputs(batch))
    staged = s4tf.function(make_forward(s4tf.relu))
    phases = {}
    start = time.perf_counter()
    lowered = staged.lower(params, x)
    phases["trace to s4tf dialect"] = time.perf_counter() - start
    start = time.perf_counter()
    stablehlo = lowered.stablehlo()
    phases["passes to StableHLO"] = time.perf_counter() - start
    start = time.perf_counter()
    vmfb = compile_stablehlo(stablehlo, staged.target, cache=DiskCache(cache_dir))
    phases["IREE compile"] = time.perf_counter() - start
    start = time.perf_counter()
    LoadedModule(vmfb, staged.target)
    phases["load"] = time.perf_counter() - start
    return phases


def warm_cache_first_call(batch: int) -> float:
    """``first_call_seconds`` in a new Python process sharing ``$S4TF_CACHE_DIR``."""
    completed = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--first-call-only", "--batch", str(batch)],
        capture_output=True, text=True, check=True,
    )
    line = next(line for line in completed.stdout.splitlines() if line.startswith(FIRST_CALL_TAG))
    return float(line.removeprefix(FIRST_CALL_TAG))


def first_calls(batch: int, cache_dir: Path) -> dict[str, float]:
    """Seconds of s4tf's first call, cold and warm module cache; ``cache_dir`` starts empty."""
    os.environ["S4TF_CACHE_DIR"] = str(cache_dir)  # read by every DiskCache() made from now on
    figures = {"cold module cache": first_call_seconds(batch)}
    entries = sorted(cache_dir.glob("*.vmfb"))
    figures["warm module cache, new process"] = warm_cache_first_call(batch)
    if sorted(cache_dir.glob("*.vmfb")) != entries:
        print("warning: the second process compiled again (its module text or flags differ)")
    return figures


def load_jax():
    """``jax``, or ``None`` when it is not installed (pip extra ``bench``)."""
    try:
        import jax
    except ImportError:
        return None
    return jax


def peers(params, x, jax):
    """``{name: (callable, params, x)}`` with each peer's inputs in its own form."""
    s4tf_params, s4tf_x = to_s4tf(params, x)
    chosen = {
        "s4tf": (s4tf.function(make_forward(s4tf.relu)), s4tf_params, s4tf_x),
        "NumPy": (make_forward(numpy_relu), params, x),
    }
    if jax is not None:
        chosen["JAX"] = (jax.jit(make_forward(jax.nn.relu)), jax.device_put(params), jax.device_put(x))
    return chosen


def time_peers(chosen, repeats: int, warmup: int) -> dict[str, list[float]]:
    """Per-call seconds of every peer: ``ROUNDS`` rounds of one block per peer, each block
    after ``warmup`` untimed calls. Blocks, not single calls, alternate: a runtime's worker
    threads still spinning after its call would slow the next peer's call."""
    times = {name: [] for name in chosen}
    for round_number in range(ROUNDS):
        for name, (fn, params, x) in chosen.items():
            for _ in range(warmup):
                timed_call(fn, params, x)
            block = repeats // ROUNDS + (round_number < repeats % ROUNDS)
            times[name] += [timed_call(fn, params, x)[0] for _ in range(block)]
    return times


def check_agreement(chosen, reference: np.ndarray) -> None:
    """Every peer's result equals ``reference`` within float32 tolerance."""
    for name, (fn, params, x) in chosen.items():
        np.testing.assert_allclose(timed_call(fn, params, x)[1], reference, rtol=1e-4, atol=1e-4, err_msg=name)


def versions(jax) -> str:
    """One line naming Python, the measured packages and the core count."""
    names = ["iree-base-compiler", "iree-base-runtime", "numpy"] + (["jax", "jaxlib"] if jax else [])
    found = ", ".join(f"{name} {metadata.version(name)}" for name in names)
    return f"Python {platform.python_version()}, s4tf {s4tf.__version__}, {found}; {os.cpu_count()} CPU cores"


def flops(batch: int) -> int:
    """Floating-point operations of one forward pass (multiply-adds count two)."""
    return sum(2 * batch * fan_in * fan_out for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]))


def report(times: dict[str, list[float]], batch: int) -> None:
    """Print the steady-state table and the ratios of medians."""
    print(f"\nsteady state: median (min) ms per call incl. host copy of the {batch}x{LAYER_SIZES[-1]} result")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        gflops = flops(batch) / medians[name] / 1e9
        print(f"  {name:6} {medians[name] * 1e3:8.3f} ms ({min(values) * 1e3:.3f})  {gflops:6.1f} GFLOP/s")
    for peer in ("NumPy", "JAX"):
        if peer in medians:
            print(f"  s4tf/{peer}: {medians['s4tf'] / medians[peer]:.2f}")


def benchmark(options: argparse.Namespace) -> None:
    """Measure first calls, check the peers agree, time them, print everything."""
    jax = load_jax()
    print(versions(jax))
    if jax is None:
        print("JAX is not installed (pip install 'jax[cpu]'); comparing with NumPy only")
    with tempfile.TemporaryDirectory(prefix="s4tf-bench-cache-") as cache_dir:
        figures = first_calls(options.batch, Path(cache_dir))
        phases = first_call_phases(options.batch, Path(cache_dir) / "phases")
        params, x = make_inputs(options.batch)
        chosen = peers(params, x, jax)
        if "JAX" in chosen:
            figures["JAX, jit's first call"] = timed_call(*chosen["JAX"])[0]
        check_agreement(chosen, make_forward(numpy_relu)(params, x))
        times = time_peers(chosen, options.repeats, options.warmup)
    print(f"\nfirst call (trace + lower + compile or cache read + load + run + host copy), batch {options.batch}:")
    for name, seconds in figures.items():
        print(f"  {name + ':':33}{seconds:7.3f} s")
    print(f"  {'s4tf cold, phase by phase:':33}" + ", ".join(f"{name} {t * 1e3:.0f} ms" for name, t in phases.items()))
    report(times, options.batch)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=positive_int, default=128, help="rows of the input batch (default: 128)")
    parser.add_argument("--repeats", type=positive_int, default=200, help="timed calls per peer (default: 200)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed calls before each block of timed calls (default: 10)")
    parser.add_argument(
        "--first-call-only", action="store_true",
        help=f"only time one first call of a new staged function; print '{FIRST_CALL_TAG} N'",
    )
    return parser


def main() -> None:
    options = argument_parser().parse_args()
    s4tf.set_first_call("compile")  # first calls wait for IREE; tiered ones: bench_first_calls.py
    if options.first_call_only:
        print(FIRST_CALL_TAG, first_call_seconds(options.batch))
    else:
        benchmark(options)


if __name__ == "__main__":
    main()
