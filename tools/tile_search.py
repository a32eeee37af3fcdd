"""The search of ``s4tf-tune``: tile configurations of a training step's matrix products,
each timed alone, then checked in the whole step (issue 17).

```python
shapes = products(stablehlo, folder, min_size=64)     # {(m, n, k): standalone benchmark}
config = tune(shape, shapes[shape], folder, repetitions=5, margin=0.05)   # None: IREE's own is as good
kept = verify(stablehlo, folder, {shape: config}, zero_inputs(args), repetitions=5, margin=0.05)
```
"""

from __future__ import annotations

import itertools
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from tqdm import tqdm

from s4tf.runtime.targets import compile_flags
from s4tf.runtime.tuning import NO_THREADING, Shape, TileConfig, write_spec
from s4tf.tools.iree_benchmarks import IREE_COMPILE, benchmark_module

PRODUCT = re.compile(r"hal\.executable\.export public @\w+?_dispatch_\d+_matmul\w*?_(\d+)x(\d+)x(\d+)_f32\b")
VECTOR_TILES = ((4, 16), (6, 16), (8, 16), (8, 32), (16, 16), (4, 32))
REDUCTION_TILES = (1, 4, 16)
WORKGROUP_TILES = ((32, 64), (64, 64), (64, 128), (128, 64), (128, 128), (32, 256), (64, 256))
QUICK_TILES = (((6, 16), 1), ((8, 16), 4))  # ``quick``: the register and reduction tiles tried


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
    """The fastest candidate for ``shape``, or ``None`` when IREE's own choice is as good.
    Staged: register and reduction tiles under IREE's default workgroup tile, then workgroup
    tiles under the best of them; ``quick``: two candidates (smoke tests)."""
    default, default_bytes = time_dispatch(benchmark, folder, None, shape, repetitions)
    print(f"  {'x'.join(map(str, shape))}: IREE's choice {default:.0f} us CPU")
    best, best_time = None, default
    first = [(v, r) for v, r in itertools.product(VECTOR_TILES, REDUCTION_TILES) if not quick or (v, r) in QUICK_TILES]
    # a workgroup tile need not divide by the register tile: IREE peels
    second = [] if quick else [w for w in WORKGROUP_TILES if w != (64, 64)]
    progress = tqdm(total=len(first) + len(second), desc="x".join(map(str, shape)), unit="candidate",
                    leave=False, file=sys.stderr, disable=None)

    def attempt(config: TileConfig) -> None:
        nonlocal best, best_time
        try:
            seconds, code = time_dispatch(benchmark, folder, config, shape, repetitions)
        except subprocess.CalledProcessError:
            progress.write(f"    {config}: does not compile", file=sys.stdout)
            return
        finally:
            progress.update()
        applied = "" if code != default_bytes else "  (same code as IREE's choice)"
        progress.write(f"    {config.distribution} {config.vector} {config.reduction}: {seconds:.0f} us{applied}", file=sys.stdout)
        if seconds < best_time:
            best, best_time = config, seconds

    with progress:
        for vector, reduction in first:
            attempt(TileConfig((64, 64), vector, reduction))
        if best is not None:
            for workgroup in second:
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
