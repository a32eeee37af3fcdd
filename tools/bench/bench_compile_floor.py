"""How fast IREE compiles JAX's own program: a zoo model's training step as JAX lowers it to
StableHLO, compiled by XLA (through JAX) and by IREE with s4tf's flags, beside IREE's
compile of the StableHLO s4tf lowers the same step to. What IREE takes for JAX's program
bounds what any lowering of s4tf's can reach against XLA's compile.

```
python tools/bench/bench_compile_floor.py                          # ResNet-20 and the character GPT
python tools/bench/bench_compile_floor.py --models resnet20 --rounds 3
```

Each compile runs ``--rounds`` times (best wall and CPU seconds printed); IREE runs as
``iree-compile`` in a process of its own, so its CPU time is that child's; XLA's is this
process's while it compiles (its threads included).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import jax

from s4tf.runtime.targets import compile_flags
from s4tf.tools.iree_benchmarks import IREE_COMPILE, step_stablehlo

from zoo_models import load_zoo_model


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _best(runs) -> tuple[float, float]:
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def _xla_compile(lowered) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    lowered.compile()
    return time.perf_counter() - wall, time.process_time() - cpu


def _iree_compile(path: Path) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), _children_cpu()
    subprocess.run([IREE_COMPILE, *compile_flags("cpu"), "--iree-input-type=stablehlo", str(path), "-o", "/dev/null"],
                   check=True, capture_output=True)
    return time.perf_counter() - wall, _children_cpu() - cpu


def measure(name: str, config_name: str, rounds: int, folder: Path) -> dict[str, tuple[float, float]]:
    """Best (wall, CPU) seconds of each compile of model ``name``'s step."""
    zoo = load_zoo_model(name)
    config = zoo.CONFIGS[config_name]
    model, opt = zoo.make_model(config), zoo.make_optimizer(config)
    batch = zoo.make_batch(config, 0)
    peer = __import__(f"zoo_peers.{name}", fromlist=["jax_train_step"]).jax_train_step
    with jax.enable_x64(False):
        init, step = peer(config, model, opt)
        state = init(model)
        theirs = folder / f"{name}_jax.mlir"
        theirs.write_text(step.lower(state, *batch).as_text())
        xla = []
        for _ in range(rounds):
            jax.clear_caches()
            xla.append(_xla_compile(step.lower(state, *batch)))
    two = type(opt) is tuple  # the DCGAN: an optimizer per network
    opt_state = tuple(o.init(part) for o, part in zip(opt, model)) if two else opt.init(model)
    ours = folder / f"{name}_s4tf.mlir"
    ours.write_text(step_stablehlo(zoo.make_train_step(config), (model, opt_state, *batch)))
    return {"XLA, JAX's StableHLO": _best(xla),
            "IREE, JAX's StableHLO": _best([_iree_compile(theirs) for _ in range(rounds)]),
            "IREE, s4tf's StableHLO": _best([_iree_compile(ours) for _ in range(rounds)])}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet20,char_gpt", help="zoo models, comma-separated")
    parser.add_argument("--config", default="bench", help="the models' configuration (bench, test)")
    parser.add_argument("--rounds", type=int, default=2, help="compiles of each kind (the best is printed)")
    options = parser.parse_args(argv)
    print("| model | compile | wall s | CPU s | wall / XLA's |")
    print("| --- | --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="s4tf-compile-floor-") as folder:
        for name in options.models.split(","):
            found = measure(name, options.config, options.rounds, Path(folder))
            xla_wall = found["XLA, JAX's StableHLO"][0]
            for kind, (wall, cpu) in found.items():
                print(f"| {name} | {kind} | {wall:.2f} | {cpu:.2f} | {wall / xla_wall:.2f} |", flush=True)


if __name__ == "__main__":
    main()
