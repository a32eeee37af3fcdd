"""Autotune the tile sizes of a training step's matrix products for this CPU (issue 17).

```
python tools/bench/tune_matmuls.py                  # the MLP step's products; keep the winners, then compare
python tools/bench/tune_matmuls.py --models transformer
python tools/bench/tune_matmuls.py --compare-only   # compare with the winners already kept
python tools/bench/tune_matmuls.py --verify-kept --models mlp,transformer   # re-check kept tiles in the whole steps
```

IREE dumps one standalone benchmark per dispatch of the step (``--models``: the MLP
784-512-512-10 at batch 128, LeNet-5 at 64, the transformer block at 8; Adam), with the
configuration IREE chose taken out again; each dispatch whose root is a product ``matmul_<m>x<n>x<k>`` with every size at
least ``--min-size`` is compiled with each candidate tile configuration (a tuning spec that
names only its shape, :mod:`s4tf.runtime.tuning`) and timed alone with
``iree-benchmark-module`` on ``local-sync`` (one thread: the code's speed, not the
scheduling), CPU time, median of repetitions. The search is staged: register tiles and
reduction tile under IREE's default workgroup tile, then workgroup tiles under the best
register tile. A candidate that is not at least ``--margin`` faster than IREE's own choice
is dropped; so is a winner that does not make the whole step (compiled with it, on
``local-sync``, alternating with the step without it) at least half that margin faster:
a dispatch alone runs with its operands hot in cache, and tiles good for one dispatch of
a shape may not be for another of the same shape with another fused epilogue. Winners go to ``<cache>/tuning/<cpu>-iree<version>.json``, which every later
compilation for this CPU reads.

Then, in this process, alternating: each tuned product alone (``(m, k) @ (k, n)``) through
IREE without and with the tuning against JAX-jit, and each whole step the same way;
wall and CPU time (CPU time: the machine is shared).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_train import fresh_model, jax_step, model_leaves, problem  # noqa: E402
from profile_step import IREE_COMPILE, alternate, benchmark_module, step_stablehlo, zero_inputs  # noqa: E402

import s4tf  # noqa: E402
from s4tf.runtime.compiler import compile_stablehlo  # noqa: E402
from s4tf.runtime.cpu import host_cpu  # noqa: E402
from s4tf.runtime.device import LoadedModule  # noqa: E402
from s4tf.runtime.targets import compile_flags  # noqa: E402
from s4tf.runtime.tuning import NO_THREADING, Shape, TileConfig, load_configs, save_configs, write_spec  # noqa: E402
from s4tf.nn.training import train_step  # noqa: E402

BATCH = {"mlp": 128, "lenet": 64, "transformer": 8}
PRODUCT = re.compile(r"hal\.executable\.export public @\w+?_dispatch_\d+_matmul\w*?_(\d+)x(\d+)x(\d+)_f32\b")
VECTOR_TILES = ((4, 16), (6, 16), (8, 16), (8, 32), (16, 16), (4, 32))
REDUCTION_TILES = (1, 4, 16)
WORKGROUP_TILES = ((32, 64), (64, 64), (64, 128), (128, 64), (128, 128), (32, 256), (64, 256))


def products(stablehlo: str, folder: Path, min_size: int) -> dict[Shape, Path]:
    """The step's product dispatches (one standalone benchmark each), by shape."""
    source, dumps = folder / "step.mlir", folder / "dispatches"
    source.write_text(stablehlo)
    subprocess.run([IREE_COMPILE, *compile_flags("cpu"), "--iree-input-type=stablehlo",
                    f"--iree-hal-dump-executable-benchmarks-to={dumps}", str(source), "-o", os.devnull], check=True)
    found = {}
    for path in sorted(dumps.glob("*.mlir")):
        match = PRODUCT.search(path.read_text())
        if match and min(shape := tuple(int(n) for n in match.groups())) >= min_size and shape not in found:
            found[shape] = path.with_suffix(".unconfigured.mlir")
            found[shape].write_text(strip_configuration(path.read_text()))
    return found


def strip_configuration(text: str) -> str:
    """A dumped dispatch benchmark without the ``lowering_config`` and ``translation_info``
    IREE already chose (the dump is taken after configuration; a tuning spec only applies
    to ops still to be configured)."""
    for name in ("lowering_config = #iree_cpu.lowering_config<", "translation_info = #iree_codegen.translation_info<"):
        while (start := text.find(name)) >= 0:
            end, depth = start + len(name), 1
            while depth:
                depth += {"<": 1, ">": -1}.get(text[end], 0)
                end += 1
            text = text[:start] + text[end:]
    return text


def time_dispatch(benchmark: Path, folder: Path, config: TileConfig | None, shape: Shape, repetitions: int) -> tuple[float, bytes]:
    """Median CPU microseconds of one dispatch benchmark compiled with ``config`` (``None``:
    IREE's choice), on ``local-sync``; and the module's bytes."""
    flags = compile_flags("cpu")
    if config is not None:
        flags = [*flags, f"--iree-codegen-tuning-spec-path={write_spec({shape: config}, folder)}"]
    vmfb = folder / "candidate.vmfb"
    subprocess.run([IREE_COMPILE, *flags, str(benchmark), "-o", str(vmfb)], check=True, capture_output=True)
    records = benchmark_module(vmfb, "local-sync", repetitions=repetitions)
    return statistics.median(r["cpu_time"] for r in records), vmfb.read_bytes()


def tune(shape: Shape, benchmark: Path, folder: Path, repetitions: int, margin: float, quick: bool = False) -> TileConfig | None:
    """The fastest candidate for ``shape``, or ``None`` when IREE's own choice is as good."""
    default, default_bytes = time_dispatch(benchmark, folder, None, shape, repetitions)
    print(f"  {'x'.join(map(str, shape))}: IREE's choice {default:.0f} us CPU")
    best, best_time = None, default

    def attempt(config: TileConfig) -> None:
        nonlocal best, best_time
        try:
            seconds, code = time_dispatch(benchmark, folder, config, shape, repetitions)
        except subprocess.CalledProcessError:
            print(f"    {config}: does not compile")
            return
        applied = "" if code != default_bytes else "  (same code as IREE's choice)"
        print(f"    {config.distribution} {config.vector} {config.reduction}: {seconds:.0f} us{applied}")
        if seconds < best_time:
            best, best_time = config, seconds

    for vector, reduction in itertools.product(VECTOR_TILES, REDUCTION_TILES):
        if not quick or (vector, reduction) in (((6, 16), 1), ((8, 16), 4)):
            attempt(TileConfig((64, 64), vector, reduction))
    if best is not None and not quick:
        for workgroup in WORKGROUP_TILES:
            if workgroup != (64, 64):  # a workgroup tile need not divide by the register tile: IREE peels
                attempt(TileConfig(workgroup, best.vector, best.reduction))
    if best is None or best_time > default * (1 - margin):
        print(f"    kept: none (best {best_time:.0f} us)")
        return None
    print(f"    kept: {best} ({best_time:.0f} us, {default / best_time:.2f}x IREE's choice)")
    return best


def step_cpu(stablehlo_path: Path, folder: Path, configs: dict, inputs: list[str], repetitions: int) -> list[float]:
    """CPU microseconds of the whole step compiled with ``configs``' tiles, on ``local-sync``."""
    flags = [*compile_flags("cpu"), "--iree-input-type=stablehlo"]
    if configs:
        flags += [f"--iree-codegen-tuning-spec-path={write_spec(configs, folder)}", NO_THREADING]
    vmfb = folder / f"step-{len(configs)}.vmfb"
    subprocess.run([IREE_COMPILE, *flags, str(stablehlo_path), "-o", str(vmfb)], check=True, capture_output=True)
    return [r["cpu_time"] for r in benchmark_module(vmfb, "local-sync", "train_step", inputs, repetitions=repetitions)]


def verify(stablehlo: str, folder: Path, winners: dict, inputs: list[str], repetitions: int, margin: float) -> dict:
    """The winners that make the whole step faster, added one at a time (a dispatch alone
    runs with its operands hot in cache and its own epilogue; the step is what counts)."""
    source = folder / "step.mlir"
    source.write_text(stablehlo)
    accepted: dict = {}
    base = step_cpu(source, folder, accepted, inputs, repetitions)
    for shape, config in winners.items():
        trial = step_cpu(source, folder, {**accepted, shape: config}, inputs, repetitions)
        again = step_cpu(source, folder, accepted, inputs, repetitions)  # alternating: the load moves
        before, after = statistics.median(base + again), statistics.median(trial)
        verdict = after < before * (1 - margin / 2)
        print(f"  whole step with {'x'.join(map(str, shape))}'s tiles: {before / 1e3:.2f} -> {after / 1e3:.2f} ms CPU"
              f" ({'kept' if verdict else 'dropped'})")
        if verdict:
            accepted[shape] = config
            base = trial
        else:
            base = again
    return accepted


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
    import jax

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
    import jax
    import jax.numpy as jnp

    jstep = jax_step(kind)
    params = jax.device_put(model_leaves(fresh_model(kind)))
    zeros = jax.tree.map(jnp.zeros_like, params)
    jstate = [params, zeros, zeros, jnp.float32(0)]
    jx, jy = jax.device_put(x), jax.device_put(y)

    def jax_run():
        *jstate[:4], loss, _ = jstep(*jstate, jx, jy)
        float(loss)

    peers["JAX jit"] = jax_run
    report(alternate(peers, steps, rounds, cpu=True), f"{kind} step")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="mlp", help="comma-separated: mlp, lenet, transformer (bench_train's steps)")
    parser.add_argument("--min-size", type=int, default=64, help="tune products whose sizes are all at least this")
    parser.add_argument("--repetitions", type=int, default=5, help="iree-benchmark-module repetitions per candidate")
    parser.add_argument("--margin", type=float, default=0.05, help="keep a winner only this much faster than IREE's choice")
    parser.add_argument("--calls", type=int, default=20, help="calls per round in the comparisons")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds in the comparisons")
    parser.add_argument("--verify-kept", action="store_true", help="check the kept tiles in the whole steps; drop those that do not help")
    parser.add_argument("--no-verify", action="store_true", help="keep winners without checking them in the whole step")
    parser.add_argument("--compare-only", action="store_true", help="skip the search; compare with the kept winners")
    parser.add_argument("--max-products", type=int, help="tune only the first N products (quick runs)")
    parser.add_argument("--quick", action="store_true", help="two candidates per product (smoke tests)")
    options = parser.parse_args(argv)
    cpu = host_cpu().name
    print(f"load average {os.getloadavg()[0]:.1f}, CPU {cpu}")
    kinds = options.models.split(",")
    if options.verify_kept:
        for kind in kinds:
            _, x, y, step, opt = problem(kind, BATCH[kind])
            model = fresh_model(kind)
            args = (model, opt.init(model), x, y)
            stablehlo = step_stablehlo(step, args)
            with tempfile.TemporaryDirectory() as folder:
                shapes = products(stablehlo, Path(folder), options.min_size)
                kept = {shape: config for shape, config in load_configs(cpu).items() if shape in shapes}
                print(f"{len(kept)} kept tile(s) for the {kind} step's products")
                accepted = verify(stablehlo, Path(folder), kept, zero_inputs(args), options.repetitions, options.margin)
            save_configs(cpu, {}, drop=set(kept) - set(accepted))
    elif not options.compare_only:
        winners = {}
        for kind in kinds:
            _, x, y, step, opt = problem(kind, BATCH[kind])
            model = fresh_model(kind)
            stablehlo = step_stablehlo(step, (model, opt.init(model), x, y))
            with tempfile.TemporaryDirectory() as folder:
                found = {s: b for s, b in products(stablehlo, Path(folder), options.min_size).items() if s not in winners}
                print(f"{len(found)} product shapes of the {kind} step to tune: {', '.join('x'.join(map(str, s)) for s in found)}")
                alone = {}
                for shape, benchmark in list(found.items())[:options.max_products]:
                    config = tune(shape, benchmark, Path(folder), options.repetitions, options.margin, options.quick)
                    if config is not None:
                        alone[shape] = config
                if alone and not options.no_verify:
                    alone = verify(stablehlo, Path(folder), alone, zero_inputs((model, opt.init(model), x, y)),
                                   options.repetitions, options.margin)
                winners.update(alone)
        print(f"kept {len(winners)} winner(s) in {save_configs(cpu, winners)}")
    kept = load_configs(cpu)
    print(f"\nin one process, alternating (load average {os.getloadavg()[0]:.1f}):")
    for shape in list(kept)[:options.max_products]:
        compare_product(shape, options.calls, options.rounds)
    for kind in kinds:
        compare_step(kind, options.calls, options.rounds)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
