"""``s4tf-tune``: autotune the tile sizes of a training step's matrix products for this CPU
(issue 17).

```
s4tf-tune                                  # the MLP step's products; keep the winners, then compare
s4tf-tune --models transformer
s4tf-tune --compare-only                   # compare with the winners already kept
s4tf-tune --verify-kept --models mlp,transformer   # re-check kept tiles in the whole steps
```

IREE dumps one standalone benchmark per dispatch of the step (``--models``: the MLP
784-512-512-10 at batch 128, LeNet-5 at 64, the transformer block at 8; Adam;
``s4tf.tools.train_problems``), with the configuration IREE chose taken out again; each
dispatch whose root is a product ``matmul_<m>x<n>x<k>`` with every size at least
``--min-size`` is compiled with each candidate tile configuration (a tuning spec that names
only its shape, :mod:`s4tf.runtime.tuning`) and timed alone with ``iree-benchmark-module``
on ``local-sync`` (one thread: the code's speed, not the scheduling), CPU time, median of
repetitions. The search is staged: register tiles and reduction tile under IREE's default
workgroup tile, then workgroup tiles under the best register tile. A candidate that is not
at least ``--margin`` faster than IREE's own choice is dropped; so is a winner that does
not make the whole step (compiled with it, on ``local-sync``, alternating with the step
without it) at least half that margin faster: a dispatch alone runs with its operands hot
in cache, and tiles good for one dispatch of a shape may not be for another of the same
shape with another fused epilogue. Winners go to ``<cache>/tuning/<cpu>-iree<version>.json``,
which every later compilation for this CPU reads.

Then, in this process, alternating: each tuned product alone (``(m, k) @ (k, n)``) through
IREE without and with the tuning against JAX-jit (where JAX is installed), and each whole
step the same way; wall and CPU time (CPU time: the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from s4tf.core.errors import S4tfError
from s4tf.runtime.cpu import host_cpu
from s4tf.runtime.tuning import load_configs, save_configs
from s4tf.tools.cli import add_version, report_errors
from s4tf.tools.iree_benchmarks import step_stablehlo, zero_inputs
from s4tf.tools.tile_search import products, tune, verify
from s4tf.tools.train_problems import BATCH, fresh_model, problem
from s4tf.tools.tune_compare import compare_product, compare_step


class TuneError(S4tfError, RuntimeError):
    """IREE could not compile or run what the tuner gave it."""


def model_list(text: str) -> list[str]:
    """``--models``: comma-separated names of :data:`BATCH`."""
    kinds = [kind.strip() for kind in text.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in BATCH]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"unknown model {unknown[0]!r}: choose from {', '.join(BATCH)}" if unknown
                                         else f"no model named: choose from {', '.join(BATCH)}")
    return kinds


def positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return number


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="s4tf-tune", description=__doc__.replace("```\n", "").replace("``", ""),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=model_list, default=["mlp"], metavar="LIST",
                        help=f"comma-separated: {', '.join(f'{k} (batch {b})' for k, b in BATCH.items())}; default mlp")
    parser.add_argument("--min-size", type=positive, default=64, help="tune products whose sizes are all at least this")
    parser.add_argument("--repetitions", type=positive, default=5, help="iree-benchmark-module repetitions per candidate")
    parser.add_argument("--margin", type=float, default=0.05, help="keep a winner only this much faster than IREE's choice")
    parser.add_argument("--calls", type=positive, default=20, help="calls per round in the comparisons")
    parser.add_argument("--rounds", type=positive, default=7, help="alternating rounds in the comparisons")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--verify-kept", action="store_true", help="check the kept tiles in the whole steps; drop those that do not help")
    mode.add_argument("--compare-only", action="store_true", help="skip the search; compare with the kept winners")
    parser.add_argument("--no-verify", action="store_true", help="keep winners without checking them in the whole step")
    parser.add_argument("--max-products", type=positive, help="tune only the first N products (quick runs)")
    parser.add_argument("--quick", action="store_true", help="two candidates per product (smoke tests)")
    return add_version(parser)


def step_source(kind: str) -> tuple[str, list[str]]:
    """The StableHLO of ``kind``'s training step, and zero inputs for it."""
    _, x, y, step, opt = problem(kind, BATCH[kind])
    model = fresh_model(kind)
    args = (model, opt.init(model), x, y)
    return step_stablehlo(step, args), zero_inputs(args)


def verify_kept(options, cpu: str) -> None:
    for kind in options.models:
        stablehlo, inputs = step_source(kind)
        with tempfile.TemporaryDirectory() as folder:
            shapes = products(stablehlo, Path(folder), options.min_size)
            kept = {shape: config for shape, config in load_configs(cpu).items() if shape in shapes}
            print(f"{len(kept)} kept tile(s) for the {kind} step's products")
            accepted = verify(stablehlo, Path(folder), kept, inputs, options.repetitions, options.margin)
        save_configs(cpu, {}, drop=set(kept) - set(accepted))


def search(options, cpu: str) -> None:
    winners = {}
    for kind in options.models:
        stablehlo, inputs = step_source(kind)
        with tempfile.TemporaryDirectory() as folder:
            found = {s: b for s, b in products(stablehlo, Path(folder), options.min_size).items() if s not in winners}
            print(f"{len(found)} product shapes of the {kind} step to tune: {', '.join('x'.join(map(str, s)) for s in found)}")
            alone = {}
            for shape, benchmark in list(found.items())[:options.max_products]:
                config = tune(shape, benchmark, Path(folder), options.repetitions, options.margin, options.quick)
                if config is not None:
                    alone[shape] = config
            if alone and not options.no_verify:
                alone = verify(stablehlo, Path(folder), alone, inputs, options.repetitions, options.margin)
            winners.update(alone)
    print(f"kept {len(winners)} winner(s) in {save_configs(cpu, winners)}")


def work(options) -> None:
    cpu = host_cpu().name
    print(f"load average {os.getloadavg()[0]:.1f}, CPU {cpu}")
    try:
        if options.verify_kept:
            verify_kept(options, cpu)
        elif not options.compare_only:
            search(options, cpu)
    except subprocess.CalledProcessError as error:
        detail = (error.stderr or b"").decode(errors="replace") if isinstance(error.stderr, bytes) else (error.stderr or "")
        raise TuneError(f"{Path(str(error.cmd[0])).name} failed (exit code {error.returncode})"
                        + (f": {detail.strip().splitlines()[-1]}" if detail.strip() else "")) from None
    kept = load_configs(cpu)
    print(f"\nin one process, alternating (load average {os.getloadavg()[0]:.1f}):")
    for shape in list(kept)[:options.max_products]:
        compare_product(shape, options.calls, options.rounds)
    for kind in options.models:
        compare_step(kind, options.calls, options.rounds)
    print(f"load average {os.getloadavg()[0]:.1f}")


def run(argv=None) -> int:
    """The whole tool; returns the exit code."""
    options = argument_parser().parse_args(argv)
    return report_errors("s4tf-tune", lambda: work(options))


def main(argv=None) -> None:
    sys.exit(run(argv))


if __name__ == "__main__":
    main()
