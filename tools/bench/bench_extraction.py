"""Benchmark graph program extraction: host/device overlap, and a logging training loop.

```
python tools/bench/bench_extraction.py                            # ~100 ms device part, ~100 ms host part
python tools/bench/bench_extraction.py --device-ms 50 --host-ms 50 --steps 40
```

**Overlap.** One function with a device part (a chain of ``tanh(a @ a + 0.5)``, its
length calibrated to ``--device-ms``) and an independent host part (``np.sort`` of an
array sized to ``--host-ms``; ``--host-work sleep`` sleeps instead, like host work waiting
for I/O), timed four ways in one process, in alternating rounds (the best of
``--rounds``): the device part alone, the host part alone, both *sequentially* (the device
call and its result, then the host part) and *partitioned*
(``@s4tf.function(extract=True)`` with the host part as ``s4tf.host``). The figure of
merit is partitioned / the longer part (1.0 is perfect overlap; the target is at most 1.2).

**Training loop.** ``--steps`` SGD steps of a ``--layers``-deep tanh network whose loss
is logged every step by a host function doing ``--log-ms`` of work (sorting, standing in
for writing summaries): the step with ``s4tf.host(log)`` inside, extracted, against the
same step compiled whole with the loop reading the loss (``float(loss)``) every step.

The device's workers are limited to ``--device-workers`` (IREE's
``--task_topology_max_group_count``) so that on a 2-core machine one core is left for the
host; results are checked against the sequential version before timing.
"""

from __future__ import annotations

import argparse
import functools
import os
import time

import iree.runtime as iree_runtime
import numpy as np

import s4tf

CALIBRATION_DEPTH = 8
SORT_PROBE = 1 << 20


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=384, help="matrix size of the device work")
    parser.add_argument("--device-ms", type=float, default=100.0, help="length of the device part")
    parser.add_argument("--host-ms", type=float, default=100.0, help="length of the host part")
    parser.add_argument("--host-work", choices=("sort", "sleep"), default="sort",
                        help="host work: sorting (CPU-bound) or sleeping (like waiting for I/O)")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds of the overlap figures (best of)")
    parser.add_argument("--loop-rounds", type=int, default=3, help="timed rounds of the training loops (best of)")
    parser.add_argument("--steps", type=int, default=30, help="training-loop steps per timing")
    parser.add_argument("--layers", type=int, default=4, help="depth of the training loop's network")
    parser.add_argument("--log-ms", type=float, default=30.0, help="host work of each loss log")
    parser.add_argument("--device-workers", type=int, default=1, help="IREE task-topology groups (0: IREE's default)")
    return parser.parse_args(argv)


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def device_chain(depth: int):
    """The device part: ``depth`` rounds of ``tanh(a @ a + 0.5)``."""

    def device_part(a):
        for _ in range(depth):
            a = s4tf.tanh(a @ a + 0.5)
        return a

    return device_part


def best_seconds(fn, repeats: int = 5) -> float:
    return min(seconds(fn) for _ in range(repeats))


def calibrated_device_part(a: np.ndarray, target_s: float):
    """The device chain whose call takes about ``target_s``: scaled from a probe, then
    rescaled once from the chain itself."""
    depth = CALIBRATION_DEPTH
    for _ in range(2):
        chain = s4tf.function(device_chain(depth))
        chain(a).block_until_ready()
        depth = max(1, round(depth * target_s / best_seconds(lambda: chain(a).block_until_ready())))
    return device_chain(depth)


def host_worker(kind: str, target_s: float, seed: int = 0):
    """A host function ``y -> y + 1`` that also works for about ``target_s``: sorting an
    array (``"sort"``, CPU-bound) or sleeping (``"sleep"``, like waiting for I/O)."""
    if kind == "sleep":
        work = functools.partial(time.sleep, target_s)
    else:
        rng = np.random.default_rng(seed)
        data = rng.random(SORT_PROBE)
        for _ in range(2):  # sorting is n log n: rescale twice
            data = rng.random(max(1, int(data.size * target_s / best_seconds(lambda: np.sort(data)))))
        work = functools.partial(np.sort, data)

    def host_part(y):
        work()
        return (y + 1).astype(np.float32)

    return host_part


def best_times(variants: dict, rounds: int) -> dict[str, float]:
    """Each variant once per round, in turn; the best time per variant (as ``timeit``
    advises: on a shared machine the slower runs measure the other processes)."""
    times = {name: [] for name in variants}
    for _ in range(rounds):
        for name, fn in variants.items():
            times[name].append(seconds(fn))
    return {name: min(values) for name, values in times.items()}


def bench_overlap(options: argparse.Namespace) -> None:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((options.size, options.size)) / options.size**0.5).astype(np.float32)
    y = np.arange(8, dtype=np.float32)
    device_part = calibrated_device_part(a, options.device_ms / 1e3)
    host_part = host_worker(options.host_work, options.host_ms / 1e3)

    def both(a, y):
        return device_part(a), s4tf.host(host_part)(y)

    device_fn = s4tf.function(device_part)
    extracted = s4tf.function(both, extract=True)
    device_result, host_result = extracted(a, y)
    np.testing.assert_allclose(np.asarray(device_result), np.asarray(device_fn(a)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(host_result), host_part(y))

    def partitioned():
        for result in extracted(a, y):
            result.block_until_ready()

    times = best_times(
        {
            "device part alone": lambda: device_fn(a).block_until_ready(),
            "host part alone": lambda: host_part(y),
            "sequential (device, then host)": lambda: (device_fn(a).block_until_ready(), host_part(y)),
            "partitioned (extract=True)": partitioned,
        },
        options.rounds,
    )
    for name, value in times.items():
        print(f"  {name + ':':34} {value * 1e3:8.1f} ms")
    longer = max(times["device part alone"], times["host part alone"])
    print(f"  partitioned / longer part: {times['partitioned (extract=True)'] / longer:.2f}x (target <= 1.2x)")
    print(f"  partitioned / sequential: {times['partitioned (extract=True)'] / times['sequential (device, then host)']:.2f}x")


def training_step(layers: int):
    """``loss(w, x)`` of a ``layers``-deep tanh network and its SGD step."""

    def loss_fn(w, x):
        for _ in range(layers):
            x = s4tf.tanh(x @ w)
        return s4tf.mean(x**2)

    def sgd(w, x):
        loss, grad = s4tf.value_and_grad(loss_fn)(w, x)
        return w - 0.5 * grad, loss

    return sgd


def bench_training_loop(options: argparse.Namespace) -> None:
    rng = np.random.default_rng(2)
    w0 = (rng.standard_normal((options.size, options.size)) / options.size**0.5).astype(np.float32)
    x = rng.standard_normal((options.size, options.size)).astype(np.float32)
    sgd = training_step(options.layers)
    logging_work = host_worker(options.host_work, options.log_ms / 1e3, seed=3)
    logged: list[float] = []

    def log_loss(loss):
        logging_work(np.zeros(1, np.float32))
        logged.append(float(loss))

    def logging_step(w, x):
        w, loss = sgd(w, x)
        s4tf.host(log_loss, result=())(loss)
        return w

    extracted = s4tf.function(logging_step, extract=True)
    whole = s4tf.function(sgd)

    def with_host_logging():
        w = w0
        for _ in range(options.steps):
            w = extracted(w, x)
        return w.block_until_ready()

    def with_synchronous_reads():
        w = w0
        for _ in range(options.steps):
            w, loss = whole(w, x)
            log_loss(loss)
        return w.block_until_ready()

    np.testing.assert_allclose(np.asarray(with_host_logging()), np.asarray(with_synchronous_reads()), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(logged[: options.steps], logged[options.steps :], rtol=1e-4)
    times = best_times({"host logging": with_host_logging, "synchronous reads": with_synchronous_reads}, options.loop_rounds)
    rates = {name: options.steps / value for name, value in times.items()}
    print(f"  loss logged inside the step (extract=True): {rates['host logging']:7.1f} steps/s")
    print(f"  loss read every step (float(loss)):         {rates['synchronous reads']:7.1f} steps/s")
    print(f"  host logging / synchronous reads throughput: {rates['host logging'] / rates['synchronous reads']:.2f}x")


def main(argv=None) -> None:
    options = parse_args(argv)
    if options.device_workers:  # before the first use of the device
        iree_runtime.flags.parse_flags(f"--task_topology_max_group_count={options.device_workers}")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load}; device workers: {options.device_workers or 'default'}")
    print(f"overlap, device part ~{options.device_ms:g} ms, host part ~{options.host_ms:g} ms of {options.host_work} "
          f"(best of {options.rounds}):")
    bench_overlap(options)
    print(f"training loop, {options.steps} steps, {options.layers} layers of {options.size}, "
          f"{options.log_ms:g} ms of {options.host_work} per log (best of {options.loop_rounds}):")
    bench_training_loop(options)


if __name__ == "__main__":
    main()
