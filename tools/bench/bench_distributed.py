"""Benchmark data-parallel training (:mod:`s4tf.distributed`) on 1, 2 and 4 ranks.

```
python tools/bench/bench_distributed.py                      # ranks 1,2,4; global batch 64
python tools/bench/bench_distributed.py --ranks 1,2 --steps 10 --widths 256,256
```

For each rank count the script launches ``mpiexec -n N`` on itself (``--worker``) and
times, at a fixed global batch (each rank gets ``batch / N`` rows), the training step of
an MLP (``--widths``) with Adam three ways:

- **compute only**: the staged step on the rank's shard, without any communication (the
  step with the all-reduce removed);
- **no overlap**: the distributed step with every gradient in one bucket, all-reduced
  after the whole backward pass;
- **overlap**: the distributed step with buckets of ``--bucket-kib``, split by
  ``s4tf-split-device-functions`` so that each bucket is all-reduced while the device
  computes the gradients of the layers before it.

Each figure is the best of ``--rounds`` rounds of ``--steps`` steps (after a warm-up that
compiles), as step time, samples per second of the whole job, and the time the host
spent waiting for all-reduces per step (measured inside the host functions). Each rank's
device gets ``--device-workers`` IREE worker groups (one core per rank, as MPI jobs use).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", default="1,2,4", help="comma-separated rank counts")
    parser.add_argument("--batch", type=int, default=64, help="global batch size (divisible by every rank count)")
    parser.add_argument("--widths", default="512,512,512,512", help="hidden layer widths of the MLP (784 inputs, 10 classes)")
    parser.add_argument("--bucket-kib", type=int, default=1024, help="gradient bytes per all-reduce with overlap")
    parser.add_argument("--steps", type=int, default=20, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (best of)")
    parser.add_argument("--device-workers", type=int, default=1, help="IREE worker groups per rank (0: IREE's default)")
    parser.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)  # a rank's results file
    return parser.parse_args(argv)


def timed(step, model, state, x, y, steps: int, rounds: int, group=None) -> tuple[float, float]:
    """Best seconds per step over ``rounds`` and the all-reduce seconds per step in that round."""
    best, communication = float("inf"), 0.0
    for _ in range(rounds):
        waited = group.communication_s if group else 0.0
        began = time.perf_counter()
        for _ in range(steps):
            model, state, loss, _ = step(model, state, x, y)
        np.asarray(loss)  # waits for the last step (and its host program)
        per_step = (time.perf_counter() - began) / steps
        if per_step < best:
            best = per_step
            communication = ((group.communication_s - waited) / steps) if group else 0.0
    return best, communication


def worker(options) -> None:
    import iree.runtime as iree_runtime

    if options.device_workers:
        iree_runtime.flags.parse_flags(f"--task_topology_max_group_count={options.device_workers}")
    from s4tf import distributed
    from s4tf.nn import MLP
    from s4tf.nn.training import train_step
    from s4tf.optim import Adam

    group = distributed.init()
    widths = [int(w) for w in options.widths.split(",")]
    model = distributed.broadcast(MLP((784, *widths, 10), seed=0))
    opt = Adam(1e-3)
    state = opt.init(model)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((options.batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, options.batch).astype(np.int32)
    xs, ys = distributed.shard((x, y))
    steps = {
        "compute only": (train_step(opt), None),
        "no overlap": (distributed.train_step(opt, overlap=False), group),
        "overlap": (distributed.train_step(opt, bucket_bytes=options.bucket_kib * 1024), group),
    }
    results = {}
    for name, (step, measured) in steps.items():
        for _ in range(2):  # compile and warm up
            model, state, loss, _ = step(model, state, xs, ys)
        np.asarray(loss)
        distributed.barrier()
        results[name] = timed(step, model, state, xs, ys, options.steps, options.rounds, measured)
        if name == "compute only":  # its step donates the model and state: take fresh copies
            model = distributed.broadcast(MLP((784, *widths, 10), seed=0))
            state = opt.init(model)
    if distributed.is_root():
        options.worker.write_text(json.dumps(results))


def main(argv=None) -> None:
    options = parse_args(argv)
    if options.worker is not None:
        worker(options)
        return
    mpiexec = shutil.which("mpiexec", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if mpiexec is None:
        sys.exit("bench_distributed: needs mpiexec and mpi4py: pip install -e '.[distributed]'")
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}; global batch {options.batch}, MLP 784-"
          f"{options.widths.replace(',', '-')}-10, buckets {options.bucket_kib} KiB, device workers per rank "
          f"{options.device_workers or 'default'}")
    print("| ranks | variant | step time | samples/s | all-reduce wait per step | step / compute only |")
    print("| --- | --- | --- | --- | --- | --- |")
    for ranks in [int(r) for r in options.ranks.split(",")]:
        out = Path(f".bench_distributed_{os.getpid()}_{ranks}.json")
        command = [mpiexec, "-n", str(ranks), sys.executable, __file__, *(argv or sys.argv[1:]), "--worker", str(out)]
        subprocess.run(command, check=True, timeout=1800)
        results = json.loads(out.read_text())
        out.unlink()
        compute = results["compute only"][0]
        for name, (seconds, communication) in results.items():
            print(f"| {ranks} | {name} | {seconds * 1e3:.1f} ms | {options.batch / seconds:.0f} | "
                  f"{communication * 1e3:.1f} ms | {seconds / compute:.2f}x |", flush=True)
    print(f"load average after: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
