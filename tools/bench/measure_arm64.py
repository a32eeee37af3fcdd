"""Size and peak memory of a model's module for phones, run under qemu-aarch64.

```
python tools/bench/measure_arm64.py                 # the 784-512-512-10 MLP, batch 1
python tools/bench/measure_arm64.py --batch 16
```

Compiles the MLP's forward pass for ``android-arm64`` (weights in a ``.irpa`` beside the
module), runs it with the aarch64 ``iree-run-module`` under qemu (``s4tf.runtime.qemu``)
and checks its output against NumPy; runs the host module with the host's
``iree-run-module`` the same way. Prints file sizes and each run's peak resident memory
(under qemu that includes the emulator's own, so it is an upper bound for a phone).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np

import s4tf

from arm64_runs import find_runner, run_measured

LAYER_SIZES = (784, 512, 512, 10)


def predict(params, x):
    *hidden, (w_out, b_out) = params
    for w, b in hidden:
        x = s4tf.relu(x @ w + b)
    return x @ w_out + b_out


def numpy_predict(params, x):
    *hidden, (w_out, b_out) = params
    for w, b in hidden:
        x = np.maximum(x @ w + b, 0)
    return x @ w_out + b_out


def host_run_module() -> Path:
    return Path(metadata.distribution("iree-base-runtime").locate_file("iree/_runtime_libs/iree-run-module"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=1)
    options = parser.parse_args()
    rng = np.random.default_rng(0)
    params = [
        (rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
        for m, n in zip(LAYER_SIZES, LAYER_SIZES[1:])
    ]
    x = rng.standard_normal((options.batch, LAYER_SIZES[0])).astype(np.float32)
    expected = numpy_predict(params, x)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        runner = find_runner(Path(tempfile.gettempdir()) / "s4tf-arm64")
        if runner is None:
            raise SystemExit("needs qemu-aarch64 and the arm64 C libraries (apt: qemu-user libc6-arm64-cross libstdc++6-arm64-cross)")
        np.save(folder / "x.npy", x)
        print(f"MLP {'-'.join(map(str, LAYER_SIZES))}, batch {options.batch}, weights {sum(w.nbytes + b.nbytes for w, b in params) / 1e6:.2f} MB")
        print(f"{'target':<15}{'module':>12}{'weights':>12}{'peak memory':>14}{'wall':>9}")
        for target in ("android-arm64", "cpu"):
            module = s4tf.compile(predict, (params, x), target=target, weights=(0,)).save(folder / f"mlp-{target}.vmfb")
            output = folder / f"y-{target}.npy"
            flags = [
                f"--module={module}", "--function=predict", f"--input=@{folder / 'x.npy'}",
                f"--parameters=model={module.with_suffix('.irpa')}", f"--output=@{output}",
            ]
            start = time.perf_counter()
            run = run_measured([str(host_run_module()), "--device=local-task", *flags]) if target == "cpu" else run_measured(runner.command(*flags))
            wall = time.perf_counter() - start
            if run.returncode != 0:
                raise SystemExit(f"{target}: {run.stderr}")
            peak = "n/a (no GNU time)" if run.peak_memory_bytes is None else f"{run.peak_memory_bytes / 1e6:.1f}MB"
            np.testing.assert_allclose(np.load(output), expected, rtol=1e-4, atol=1e-4)
            print(
                f"{target:<15}{module.stat().st_size / 1e6:>10.3f}MB{module.with_suffix('.irpa').stat().st_size / 1e6:>10.2f}MB"
                f"{peak:>14}{wall:>8.2f}s"
            )
        print("outputs match NumPy on both")


if __name__ == "__main__":
    main()
