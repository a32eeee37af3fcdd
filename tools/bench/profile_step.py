"""Profile a compiled training step: where its time goes (issue 17).

```
python tools/bench/profile_step.py                    # MLP at batch 128 and LeNet-5 at batch 64
python tools/bench/profile_step.py --models transformer  # the encoder block (d 256, 4 heads, seq 128) at batch 8
python tools/bench/profile_step.py --models mlp --no-dispatches
```

For each model, from the StableHLO that ``s4tf.nn.training.train_step`` compiles:

- **dispatches**: IREE writes one standalone benchmark per dispatch
  (``--iree-hal-dump-executable-benchmarks-to``); each is compiled and timed alone with
  ``iree-benchmark-module`` (wall and CPU time per dispatch);
- **module**: the whole step in ``iree-benchmark-module`` on ``local-task`` and on
  ``local-sync``, inputs zero, so no Python runs; its excess over the dispatches' sum is
  IREE's runtime overhead (scheduling, barriers, allocation);
- **in the step**: the dispatches' own times inside the whole step on ``local-task``
  (``iree-benchmark-module --dispatch_statistics``): unlike the dispatches alone, these
  carry no per-call cost of their own, which for a small dispatch is most of its time
  alone;
- **timeline**: the whole step again on ``local-task`` under IREE's own profiler
  (``--device_profiling_mode=host-execution,queue-events``, read back with
  ``iree-profile``): each step's main submission (its span), the time from one step's
  end to the next one's start, and how many of those gaps exceed 1 ms, with the calling
  thread as it is and under ``SCHED_BATCH`` (:mod:`s4tf.runtime.batch_waits`);
- **call path**: in this process, the time of each piece of ``StagedFunction.__call__``
  (flattening and lookup, argument conversion, donation bookkeeping, the IREE call,
  wrapping results) over many calls, against the step called straight through IREE (on
  the device's driver and on ``local-sync``) and against JAX-jit's step, alternating;
- **matmul**: the step's largest product (the first layer's forward) alone, through IREE,
  NumPy (OpenBLAS) and JAX-jit, alternating.

Timings on a shared machine are noisy: read ratios taken in one run, and the load average
printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
from collections import Counter
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import s4tf
from s4tf import pytree
from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.compiler import compile_stablehlo
from s4tf.runtime.device import LoadedModule, to_device
from s4tf.runtime.product_modules import data_tiling_flags
from s4tf.runtime.targets import compile_flags, host_architecture
from s4tf.staging.function import flat_key, module_input
from s4tf.staging.tensor import Tensor
from s4tf.staging.tracing import rebuild_outputs, signature
from s4tf.tools.alternating import alternate
from s4tf.tools.iree_benchmarks import IREE_COMPILE, TOOLS, benchmark_command, benchmark_module, step_stablehlo, zero_inputs
from s4tf.tools.train_problems import BATCH, fresh_model, jax_step, model_leaves, problem


def dispatch_times(stablehlo: str, folder: Path, device: str, limit: int | None = None) -> list[tuple[str, float, float]]:
    """``(name, median wall us, median CPU us)`` of each dispatch of the module (the first
    ``limit`` of them), alone."""
    source, dumps = folder / "step.mlir", folder / "dispatches"
    source.write_text(stablehlo)
    flags = [*compile_flags("cpu"), *data_tiling_flags(ModuleTraits.parse(stablehlo), host_architecture())]  # as s4tf compiles the step
    subprocess.run([IREE_COMPILE, *flags, "--iree-input-type=stablehlo",
                    f"--iree-hal-dump-executable-benchmarks-to={dumps}", str(source), "-o", os.devnull], check=True)
    times = []
    paths = sorted(dumps.glob("*.mlir"), key=lambda p: int(re.search(r"dispatch_(\d+)", p.name).group(1)))
    for path in paths[:limit]:
        vmfb = path.with_suffix(".vmfb")
        subprocess.run([IREE_COMPILE, *flags, str(path), "-o", str(vmfb)], check=True)
        records = benchmark_module(vmfb, device, repetitions=3)
        name = re.search(r"dispatch_\d+_(\w+?)(?:/|$)", records[0]["name"].split("x86_64_", 1)[-1]).group(1)
        times.append((name, statistics.median(r["real_time"] for r in records), statistics.median(r["cpu_time"] for r in records)))
    return times


def module_times(stablehlo: str, folder: Path, args) -> dict[str, tuple[float, float]]:
    """Median ``(wall us, CPU us)`` of the whole step in ``iree-benchmark-module``, per driver."""
    vmfb = folder / "step.vmfb"
    vmfb.write_bytes(compile_stablehlo(stablehlo, "cpu"))
    inputs = zero_inputs(args)
    times = {}
    for device in ("local-task", "local-sync"):
        records = benchmark_module(vmfb, device, "train_step", inputs)
        times[device] = statistics.median(r["real_time"] for r in records), statistics.median(r["cpu_time"] for r in records)
    return times


def dispatches_in_step(vmfb: Path, inputs) -> list[tuple[str, float, float, float]]:
    """``(name, wall us, CPU us, share of the step's dispatch time in %)`` of each dispatch
    function inside ``vmfb``'s ``train_step`` on ``local-task`` (all its calls in a step),
    the longest first."""
    records = [r for r in benchmark_module(vmfb, "local-task", "train_step", inputs, flags=["--dispatch_statistics=true"])
               if "_dispatch_" in r["name"]]
    rows = {}
    for r in records:
        name = re.search(r"_dispatch_\d+_(\w+)$", r["name"]).group(1)
        rows.setdefault(r["name"], (name, r["real_time"], r["cpu_time"], r["percent"]))
    return sorted(rows.values(), key=lambda row: -row[1])


def queue_timeline(vmfb: Path, inputs, steps: int = 40, batch: bool = False) -> dict:
    """Per-step figures of ``vmfb``'s ``train_step`` on ``local-task`` from IREE's profiler
    (microseconds): the median and largest span of each step's largest submission, and
    the median and largest gap from one step's end to the next one's start, with the
    count of gaps over 1 ms. ``batch``: the benchmark runs under ``SCHED_BATCH``."""
    capture = vmfb.with_suffix(".ireeprof")
    command = benchmark_command(vmfb, "local-task", "train_step", inputs,
                                ["--benchmark_repetitions=1", f"--benchmark_min_time={steps}x",
                                 "--device_profiling_mode=host-execution,queue-events", f"--device_profiling_output={capture}"])
    batched = (lambda: os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))) if batch else None
    subprocess.run(command, capture_output=True, check=True, preexec_fn=batched)
    lines = subprocess.run([str(TOOLS / "iree-profile"), "queue", "--format=jsonl", str(capture)],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    executes = [r for r in map(json.loads, lines) if r.get("op") == "execute" and "start_host_time_ns" in r]
    largest = max(Counter(r["command_buffer_id"] for r in executes).items(), key=lambda item: item[1])[0]
    steps_run = sorted((r for r in executes if r["command_buffer_id"] == largest), key=lambda r: r["start_host_time_ns"])
    spans = [r["duration_ns"] / 1e3 for r in steps_run]
    gaps = [(b["start_host_time_ns"] - a["end_host_time_ns"]) / 1e3 for a, b in zip(steps_run, steps_run[1:])]
    return {"span": statistics.median(spans), "span_max": max(spans), "gap": statistics.median(gaps),
            "gap_max": max(gaps), "long_gaps": sum(g > 1000 for g in gaps), "gaps": len(gaps)}


def call_path(kind: str, batch: int, calls: int, rounds: int) -> None:
    """Time of each piece of a staged call, and the step three ways (see the docstring)."""
    _, x, y, step, opt = problem(kind, batch)
    model = fresh_model(kind)
    state = opt.init(model)
    model, state, _, _ = step(model, state, x, y)
    x, y = s4tf.asarray(x), s4tf.asarray(y)
    model, state, _, _ = step(model, state, x, y)  # Tensors in: the key the timed calls look up
    pieces = {"flatten + lookup": [], "arguments": [], "donation": [], "IREE call": [], "results": []}
    for _ in range(calls):
        t0 = time.perf_counter()
        leaves, tree = pytree.flatten(((model, state, x, y), {}))
        compiled = step._by_leaf_key[(tree, flat_key(leaves))]  # as StagedFunction.__call__ looks a pytree up
        t1 = time.perf_counter()
        tensors = [leaf for leaf in leaves if isinstance(leaf, Tensor)]
        inputs = [module_input(leaf, compiled.module.device) for leaf in tensors]
        t2 = time.perf_counter()
        counts = Counter(map(id, tensors))  # as the staged call checks that no donated input is passed twice
        all(counts[id(tensors[position])] == 1 for position in compiled.donated)
        t3 = time.perf_counter()
        raw = compiled.module.invoke(compiled.lowered.entry, inputs)
        t4 = time.perf_counter()
        for position in compiled.donated:
            tensors[position].donate(compiled.lowered.entry)
        model, state, _, _ = rebuild_outputs(compiled.lowered.record, [Tensor(r, compiled.module.target) for r in raw])
        t5 = time.perf_counter()
        for name, (a, b) in zip(pieces, ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5))):
            pieces[name].append(b - a)
    print(f"  call path, median of {calls} calls (us):",
          ", ".join(f"{name} {1e6 * statistics.median(v):.0f}" for name, v in pieces.items()))

    state_holder = {"model": model, "state": state}

    def staged():
        state_holder["model"], state_holder["state"], _, _ = step(state_holder["model"], state_holder["state"], x, y)

    leaves, tree = pytree.flatten(((model, state, x, y), {}))
    compiled = step._compiled[signature(leaves, tree)]
    function = compiled.module._functions[compiled.lowered.entry]
    device = compiled.module.device  # a copy of the inputs, on the device, overwritten in place by each call
    raw_inputs = [to_device(np.asarray(leaf), device) for leaf in leaves if isinstance(leaf, Tensor)]

    def direct():
        function(*raw_inputs)

    # the same module on local-sync (dispatches on the calling thread; its arrays are host memory too)
    synchronous = LoadedModule(compile_stablehlo(step_stablehlo(step, (model, state, x, y)), "cpu"), driver="local-sync")
    sync_function = synchronous._functions[compiled.lowered.entry]

    def direct_sync():
        sync_function(*raw_inputs)

    peers = {"s4tf staged call": staged, "IREE call, same module": direct, "IREE call, local-sync": direct_sync}
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    if jax is not None:
        jstep = jax_step(kind)
        params = jax.device_put(model_leaves(fresh_model(kind)))
        zeros = jax.tree.map(jnp.zeros_like, params)
        jstate = [params, zeros, zeros, jnp.float32(0)]
        jx, jy = jax.device_put(np.asarray(x)), jax.device_put(np.asarray(y))

        def jax_run():
            *jstate[:4], loss, _ = jstep(*jstate, jx, jy)
            loss.block_until_ready()

        peers["JAX jit"] = jax_run
    medians = alternate(peers, calls // 5 or 1, rounds, cpu=True)
    wall_reference, cpu_reference = medians.get("JAX jit", (None, None))
    for name, (wall, cpu) in medians.items():
        ratios = f"  ({wall / wall_reference:.2f}x JAX wall, {cpu / cpu_reference:.2f}x CPU)" if wall_reference else ""
        print(f"  {name:<24}{wall * 1e3:8.2f} ms wall {cpu * 1e3:8.2f} ms CPU{ratios}")


def matmul(calls: int, rounds: int, m: int = 128, k: int = 784, n: int = 512) -> None:
    """The MLP's first forward product alone: IREE, NumPy and JAX-jit, alternating."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    text = (f"func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{\n"
            f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n"
            f"  return %0 : tensor<{m}x{n}xf32>\n}}")
    module = LoadedModule(compile_stablehlo(text, "cpu"))
    da, db = s4tf.asarray(a).device_array, s4tf.asarray(b).device_array
    function = module._functions["mm"]
    peers = {"IREE": lambda: function(da, db).to_host(), "NumPy": lambda: a @ b}
    try:
        import jax

        ja, jb = jax.device_put(a), jax.device_put(b)
        jmm = jax.jit(lambda a, b: a @ b)
        peers["JAX jit"] = lambda: jmm(ja, jb).block_until_ready()
    except ImportError:
        pass
    medians = alternate(peers, calls, rounds)
    print(f"  matmul {m}x{k} by {k}x{n}: " + ", ".join(
        f"{name} {s * 1e3:.3f} ms ({2 * m * k * n / s / 1e9:.0f} GFLOP/s)" for name, s in medians.items()))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="mlp,lenet",
                        help="comma-separated: mlp (batch 128), lenet (batch 64), transformer (batch 8)")
    parser.add_argument("--calls", type=int, default=100, help="calls timed per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per peer")
    parser.add_argument("--no-dispatches", action="store_true", help="skip the per-dispatch and whole-module benchmarks")
    parser.add_argument("--max-dispatches", type=int, help="time only the first N dispatches (quick runs)")
    options = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    for kind, batch in BATCH.items():
        if kind not in options.models.split(","):
            continue
        print(f"\n{kind}, batch {batch}")
        if not options.no_dispatches:
            _, x, y, step, opt = problem(kind, batch)
            model = fresh_model(kind)
            args = (model, opt.init(model), x, y)
            stablehlo = step_stablehlo(step, args)
            with tempfile.TemporaryDirectory() as folder:
                dispatches = dispatch_times(stablehlo, Path(folder), "local-task", options.max_dispatches)
                whole = module_times(stablehlo, Path(folder), args)
                in_step = dispatches_in_step(Path(folder) / "step.vmfb", zero_inputs(args))
                timelines = {batched: queue_timeline(Path(folder) / "step.vmfb", zero_inputs(args), batch=batched)
                             for batched in (False, True)}
            total = sum(t for _, t, _ in dispatches)
            print(f"  {len(dispatches)} dispatches, alone: sum {total / 1e3:.2f} ms wall "
                  f"({sum(c for *_, c in dispatches) / 1e3:.2f} ms CPU); whole module: "
                  + ", ".join(f"{d} {t / 1e3:.2f} ms wall ({c / 1e3:.2f} CPU)" for d, (t, c) in whole.items()))
            for name, wall, cpu in sorted(dispatches, key=lambda d: -d[1]):
                print(f"    {wall:8.0f} us wall {cpu:8.0f} us CPU  {100 * wall / total:4.1f} %  {name}")
            print(f"  in the step, local-task: {len(in_step)} dispatch functions, "
                  f"{sum(w for _, w, _, _ in in_step) / 1e3:.2f} ms wall ({sum(c for _, _, c, _ in in_step) / 1e3:.2f} ms CPU)")
            for name, wall, cpu, share in in_step[:options.max_dispatches or 10]:
                print(f"    {wall:8.0f} us wall {cpu:8.0f} us CPU  {share:4.1f} %  {name}")
            for batched, t in timelines.items():
                print(f"  timeline, local-task, caller {'SCHED_BATCH' if batched else 'as it is'}: step span median "
                      f"{t['span']:.0f} us (max {t['span_max']:.0f}), between steps median {t['gap']:.0f} us "
                      f"(max {t['gap_max']:.0f}), over 1 ms: {t['long_gaps']} of {t['gaps']}")
        call_path(kind, batch, options.calls, options.rounds)
        if kind == "mlp":
            matmul(options.calls, options.rounds)
    print(f"\nload average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
