"""Training on a phone: the compiled training step as an ``android-arm64`` module, run
under qemu-aarch64 for a few steps (the S4TF paper's on-device training, its Table 4).

```
python tools/bench/train_arm64.py                 # 8x8 digits, 64-32-10 MLP, Adam, batch 32, 5 steps
python tools/bench/train_arm64.py --steps 10 --model lenet
```

The module's one entry point is the training step itself:
``train_step(parameters..., optimizer state..., images, labels) -> (parameters...,
optimizer state..., loss, accuracy)``. Each step is one run of the aarch64
``iree-run-module`` (``s4tf.runtime.qemu``): its outputs, written as ``.npy`` files, are
the next run's inputs, so the model trains across runs as an app would across calls.
The losses are checked against the same steps run on the host, and the tool prints the
module's size and each run's peak resident memory (under qemu: including the emulator's
own, an upper bound for a phone).
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from s4tf import nn, pytree
from s4tf.data import batches, load_digits
from s4tf.deploy import compile as compile_module
from s4tf.core.errors import S4tfError
from s4tf.nn.training import train_step
from s4tf.optim import Adam
from s4tf.runtime.qemu import Arm64Runner
from s4tf.staging.tracing import Static, leaf_spec

from arm64_runs import find_runner, run_measured

MODELS = {
    "mlp": (8, lambda: nn.Sequential([nn.Flatten(), *nn.MLP((64, 32, 10)).layers])),
    "lenet": (28, lambda: nn.LeNet5(in_channels=1, num_classes=10)),
}


@dataclass
class PhoneTraining:
    losses: list[float]  # per step, read from the phone module's outputs
    host_losses: list[float]  # the same steps run on the host
    module_bytes: int
    peak_memory_bytes: list[int | None]  # per run


def array_leaves(tree) -> list[np.ndarray]:
    """The arrays a module takes or returns for ``tree``, in order (static fields dropped)."""
    leaves, _ = pytree.flatten(tree)
    return [np.asarray(leaf) for leaf in leaves if not isinstance(leaf_spec(leaf), Static)]


def train_on_phone(runner: Arm64Runner, folder: Path, model_name: str = "mlp", steps: int = 5, batch: int = 32) -> PhoneTraining:
    """Compile the training step for ``android-arm64``, then run ``steps`` steps under qemu."""
    image_size, make_model = MODELS[model_name]
    (x_train, y_train), _ = load_digits(image_size=image_size)
    data = list(batches((x_train, y_train), batch, seed=0))[:steps]
    opt = Adam(3e-3)
    model = make_model()
    state = opt.init(model)
    step = train_step(opt)
    module = compile_module(step, (model, state, *data[0]), target="android-arm64", embed_weights=True)
    path = module.save(folder / "train_step.vmfb")

    host_losses, host_model, host_state = [], model, state
    for x, y in data:
        host_model, host_state, loss, _ = step(host_model, host_state, x, y)
        host_losses.append(float(np.asarray(loss)))

    carried = array_leaves((model, state))
    losses, peaks = [], []
    for index, (x, y) in enumerate(data):
        inputs = []
        for position, array in enumerate([*carried, x, y]):
            inputs.append(folder / f"in{position}.npy")
            np.save(inputs[-1], array)
        outputs = [folder / f"out{position}.npy" for position in range(len(carried) + 2)]
        run = run_measured(runner.command(
            f"--module={path}", f"--function={module.entry_points[0]}",
            *(f"--input=@{p}" for p in inputs), *(f"--output=@{p}" for p in outputs),
        ))
        if run.returncode != 0:
            raise S4tfError(f"step {index + 1} of the arm64 training module failed under qemu: {run.stderr.strip()[-500:]}")
        carried = [np.load(p) for p in outputs[: len(carried)]]
        losses.append(float(np.load(outputs[len(carried)])))
        peaks.append(run.peak_memory_bytes)
    return PhoneTraining(losses, host_losses, path.stat().st_size, peaks)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS), default="mlp")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    options = parser.parse_args(argv)
    runner = find_runner(Path(tempfile.gettempdir()) / "s4tf-arm64")
    if runner is None:
        raise SystemExit("needs qemu-aarch64 and the arm64 C libraries (apt: qemu-user libc6-arm64-cross libstdc++6-arm64-cross)")
    with tempfile.TemporaryDirectory() as folder:
        result = train_on_phone(runner, Path(folder), options.model, options.steps, options.batch)
    print(f"{options.model} training step for android-arm64: module {result.module_bytes / 1e3:.0f} KB (weights are inputs)")
    for index, (loss, host, peak) in enumerate(zip(result.losses, result.host_losses, result.peak_memory_bytes)):
        memory = "n/a (no GNU time)" if peak is None else f"{peak / 1e6:.1f} MB"
        print(f"step {index + 1}: loss {loss:.4f} (host {host:.4f}), peak memory under qemu {memory}")
    np.testing.assert_allclose(result.losses, result.host_losses, rtol=1e-3, atol=1e-4)
    print("losses match the host's")


if __name__ == "__main__":
    main()
