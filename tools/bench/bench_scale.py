"""How the training-step ratios to JAX move with batch size, model width and cores (issue 17).

```
python tools/bench/bench_scale.py                      # 2 cores, then 1: MLP and LeNet-5 at batch 32/128/512, MLP width 512/2048
python tools/bench/bench_scale.py --cores 2 --steps 5 --rounds 3
```

Each configuration is ``bench_train``'s step (forward, softmax cross-entropy, reverse mode,
Adam; s4tf's ``train_step`` against ``jax.jit`` of the same model, first losses checked to
agree), timed in alternating rounds: medians of wall and CPU time per step. The MLP is
784-W-W-10 (W the width), LeNet-5 takes 28x28x1 images. One core: a fresh process pinned to
CPU 0 (``sched_setaffinity``) before IREE or XLA start their threads, and IREE's task
system told to use one worker group (``--task_topology_max_group_count=1``); XLA sizes its
pool from the process's CPUs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

CONFIGS = [("mlp", 32, 512), ("mlp", 128, 512), ("mlp", 512, 512), ("mlp", 128, 2048),
           ("lenet", 32, None), ("lenet", 128, None), ("lenet", 512, None)]
ROW_TAG = "scale-row:"


def run_configs(configs, steps: int, rounds: int) -> None:
    """Time each configuration in this process; print a tagged row each."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_train import step_times
    from s4tf.tools.train_problems import fresh_model, problem

    from s4tf import nn

    for kind, batch, width in configs:
        _, x, y, step, opt = problem(kind, batch)
        model = nn.MLP((784, width, width, 10)) if kind == "mlp" else fresh_model(kind)
        times, _ = step_times(kind, model, x, y, step, opt, steps, rounds)
        (wall, cpu), (jax_wall, jax_cpu) = [[statistics.median(t[i] for t in times[name]) for i in (0, 1)]
                                            for name in ("s4tf", "JAX jit")]
        print(f"{ROW_TAG}{kind},{batch},{width or ''},{wall * 1e3:.2f},{cpu * 1e3:.2f},{jax_wall * 1e3:.2f},{jax_cpu * 1e3:.2f}",
              flush=True)


def run_pinned(cores: int, configs, steps: int, rounds: int) -> list[list[str]]:
    """:func:`run_configs` in a fresh process on ``cores`` CPUs; its rows."""
    spec = ";".join(f"{kind},{batch},{width or ''}" for kind, batch, width in configs)
    command = [sys.executable, __file__, "--child", spec, "--cores", str(cores), "--steps", str(steps), "--rounds", str(rounds)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=3000, check=True)
    return [line.removeprefix(ROW_TAG).split(",") for line in completed.stdout.splitlines() if line.startswith(ROW_TAG)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", default="2,1", help="comma-separated core counts")
    parser.add_argument("--steps", type=int, default=10, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per peer")
    parser.add_argument("--configs", help="kind,batch,width;... (default: the table's seven)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        cores = int(options.cores)
        os.sched_setaffinity(0, set(range(cores)))
        if cores == 1:
            import iree.runtime

            iree.runtime.flags.parse_flags("--task_topology_max_group_count=1")
        configs = [(k, int(b), int(w) if w else None) for k, b, w in (c.split(",") for c in options.child.split(";"))]
        run_configs(configs, options.steps, options.rounds)
        return
    configs = CONFIGS
    if options.configs:
        configs = [(k, int(b), int(w) if w else None) for k, b, w in (c.split(",") for c in options.configs.split(";"))]
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    print(f"{'cores':>5} {'model':>6} {'batch':>6} {'width':>6} {'s4tf ms':>9} {'JAX ms':>9} {'wall ratio':>11} "
          f"{'s4tf CPU ms':>12} {'JAX CPU ms':>11} {'CPU ratio':>10}")
    for cores in (int(c) for c in options.cores.split(",")):
        for kind, batch, width, wall, cpu, jax_wall, jax_cpu in run_pinned(cores, configs, options.steps, options.rounds):
            wall, cpu, jax_wall, jax_cpu = map(float, (wall, cpu, jax_wall, jax_cpu))
            print(f"{cores:>5} {kind:>6} {batch:>6} {width or '-':>6} {wall:>9.2f} {jax_wall:>9.2f} {wall / jax_wall:>11.2f} "
                  f"{cpu:>12.2f} {jax_cpu:>11.2f} {cpu / jax_cpu:>10.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
