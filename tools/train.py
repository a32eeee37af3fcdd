"""``s4tf-train``: train a model on a dataset that ships with a package, then deploy it.

```
s4tf-train lenet --data digits --epochs 10 --out lenet.vmfb
s4tf-train mlp --data digits --epochs 5 --out mlp.vmfb --targets cpu
s4tf-train lenet --data digits --epochs 20 --out lenet.vmfb --resume      # continue from lenet.npz
mpiexec -n 2 s4tf-train lenet --data digits --epochs 10 --distributed    # data-parallel on 2 ranks
```

Each epoch runs the compiled training step (forward, reverse mode and the Adam update
in one IREE function) over shuffled batches with a progress bar showing the loss and
accuracy, then evaluates on the held-out split and saves a checkpoint (model and
optimizer state, written atomically). The first epoch's line says how much of its time
went to staging and compiling (the first calls of the step and of the evaluation; from
a warm cache, loading). At the end it prints the test accuracy and writes
an inference module per target: ``lenet.vmfb`` for the host and
``lenet-android-arm64.vmfb`` for phones, each with its weights in a parameter archive
beside it (``.irpa``) unless ``--embed-weights``. The modules take raw images (pixels in
[0, 1], NHWC) and return logits; the input scaling is compiled in.

With ``--distributed``, under ``mpiexec``, every rank trains on its shard of each global
batch of ``--batch-size`` (:mod:`s4tf.distributed`); rank 0's initial weights are
broadcast, and only rank 0 shows progress, evaluates, and writes the checkpoint and modules.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from s4tf.checkpoint import load_checkpoint, save_checkpoint
from s4tf.data import batch_count, batches, load_digits
from s4tf.deploy import compile as compile_module
from s4tf.core.errors import S4tfError
from s4tf.nn import MLP, Flatten, LeNet5, Sequential
from s4tf.nn.training import evaluate, train_step
from s4tf.optim import Adam, cosine_decay
from s4tf.runtime.targets import TARGETS, get_target
from s4tf.tools.cli import add_version, report_errors

IMAGE_SIZE = 28
MODELS = {
    "lenet": lambda classes, seed: LeNet5(in_channels=1, num_classes=classes, image_size=IMAGE_SIZE, seed=seed),
    "mlp": lambda classes, seed: Sequential([Flatten(), *MLP((IMAGE_SIZE * IMAGE_SIZE, 256, 128, classes), seed).layers]),
}
DATASETS = {"digits": lambda seed: load_digits(image_size=IMAGE_SIZE, seed=seed)}


@dataclass(frozen=True)
class Scaling:
    """Standardization of the inputs by the training set's mean and standard deviation."""

    mean: float
    std: float

    def __call__(self, x):
        return (x - self.mean) / self.std


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s4tf-train",
        description="Train a model on a dataset that ships with a package (progress bars, a checkpoint "
        "every epoch), print its test accuracy, then write inference modules for the host and for phones.",
        epilog="The training step, the evaluation and the inference modules are compiled by IREE; "
        "compilations are cached on disk, so a second run starts at once.",
    )
    parser.add_argument("model", choices=sorted(MODELS), help="the model to train")
    parser.add_argument("--data", choices=sorted(DATASETS), default="digits",
                        help="the dataset: digits is scikit-learn's 1,797 handwritten digits, resized to 28x28")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the training split (default 10)")
    parser.add_argument("--batch-size", type=int, default=16, help="examples per step (default 16)")
    parser.add_argument("--lr", type=float, default=2e-3,
                        help="Adam's peak learning rate, decayed along a half cosine to 0 (default 2e-3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the initial weights, the split and the shuffling")
    parser.add_argument("--out", type=Path, default=None,
                        help="the host inference module (default <model>.vmfb); other targets get "
                        "<name>-<target>.vmfb beside it")
    parser.add_argument("--targets", default="cpu,android-arm64",
                        help=f"comma-separated targets of the inference modules, the first is the host's "
                        f"(default cpu,android-arm64; known: {', '.join(TARGETS)}); 'none' writes no module")
    parser.add_argument("--embed-weights", action="store_true", help="embed the weights in the modules instead of .irpa files")
    parser.add_argument("--checkpoint", type=Path, default=None,
                        help="checkpoint written after every epoch (default: the --out path with .npz)")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint if it exists")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (one line per epoch)")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel training over the ranks of mpiexec (needs the extra 'distributed'): "
                        "--batch-size is the global batch, split evenly; rank 0 logs and writes the files")
    return add_version(parser)


def parse_targets(text: str) -> list[str]:
    if text == "none":
        return []
    return [get_target(t.strip()).name for t in text.split(",") if t.strip()]


def check_options(options) -> None:
    for name in ("epochs", "batch_size"):
        if getattr(options, name) < 1:
            raise S4tfError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(options, name)}")
    if not options.lr > 0:
        raise S4tfError(f"--lr must be positive, got {options.lr}")


def module_paths(out: Path, targets: list[str]) -> dict[str, Path]:
    """The first target's module at ``out``, the others at ``<stem>-<target>.vmfb`` beside it."""
    return {target: out if i == 0 else out.with_name(f"{out.stem}-{target}{out.suffix}") for i, target in enumerate(targets)}


def start_distributed(options):
    """``s4tf.distributed`` initialized for ``--distributed`` (``None`` without it)."""
    if not options.distributed:
        return None
    from s4tf import distributed

    distributed.init()
    if options.batch_size % distributed.size():
        raise S4tfError(f"--batch-size {options.batch_size} cannot be split evenly over {distributed.size()} ranks")
    return distributed


def resumed(checkpoint: Path, model, opt_state, root: bool):
    """``(model, opt_state, first epoch)`` from ``checkpoint`` written by s4tf-train."""
    state, info = load_checkpoint(checkpoint, like={"model": model, "opt": opt_state})
    if not isinstance(info.get("epoch"), int):
        raise S4tfError(f"checkpoint {checkpoint} records no epoch: it was not written by s4tf-train")
    if root:
        print(f"resuming from {checkpoint} after epoch {info['epoch'] + 1}")
    return state["model"], state["opt"], info["epoch"] + 1


def run_epoch(step, model, opt_state, progress):
    """One pass of ``step`` over ``progress``'s batches: the model and optimizer state after
    it, the per-step losses and accuracies, and the seconds of the first step."""
    losses, accuracies, first_step = [], [], 0.0
    for x, y in progress:
        began = time.perf_counter()
        model, opt_state, loss, accuracy = step(model, opt_state, x, y)
        if not losses:
            first_step = time.perf_counter() - began
        losses.append(loss)
        accuracies.append(accuracy)
        if len(losses) % 10 == 0 and not progress.disable:  # reading back waits for the device: not every step
            progress.set_postfix(loss=f"{float(np.asarray(loss)):.4f}", accuracy=f"{float(np.asarray(accuracy)):.3f}")
    return model, opt_state, losses, accuracies, first_step


def train(options) -> None:
    check_options(options)
    distributed = start_distributed(options)
    root = distributed is None or distributed.is_root()
    targets = parse_targets(options.targets)
    out = options.out or Path(f"{options.model}.vmfb")
    checkpoint = options.checkpoint or out.with_suffix(".npz")
    (x_train, y_train), (x_test, y_test) = DATASETS[options.data](options.seed)
    scaling = Scaling(float(x_train.mean()), float(x_train.std()))
    x_train, x_test_scaled = scaling(x_train), scaling(x_test)
    steps_per_epoch = batch_count(len(x_train), options.batch_size)
    if steps_per_epoch == 0:
        raise S4tfError(f"--batch-size {options.batch_size} is larger than the {len(x_train)} training examples")

    model = MODELS[options.model](int(y_train.max()) + 1, options.seed)
    opt = Adam(cosine_decay(options.lr, options.epochs * steps_per_epoch))
    opt_state = opt.init(model)
    first_epoch = 0
    if options.resume and checkpoint.exists():
        model, opt_state, first_epoch = resumed(checkpoint, model, opt_state, root)
    if distributed is not None:
        model, opt_state, first_epoch = distributed.broadcast((model, opt_state, np.array(first_epoch)))
        first_epoch = int(first_epoch)
        step, epoch_batches = distributed.train_step(opt), distributed.batches
    else:
        step, epoch_batches = train_step(opt), batches
    started = time.perf_counter()
    test_accuracy = None
    for epoch in range(first_epoch, options.epochs):
        progress = tqdm(
            epoch_batches((x_train, y_train), options.batch_size, seed=options.seed, epoch=epoch),
            total=steps_per_epoch, desc=f"epoch {epoch + 1}/{options.epochs}", unit="step",
            disable=options.no_progress or not root, leave=False, file=sys.stderr,
        )
        model, opt_state, losses, accuracies, compiling = run_epoch(step, model, opt_state, progress)
        if not root:  # rank 0 evaluates and writes; the others go on to the next epoch
            continue
        began = time.perf_counter()
        test_loss, test_accuracy = (float(np.asarray(v)) for v in evaluate(model, x_test_scaled, y_test))
        compiling += time.perf_counter() - began  # the first calls: staging, compiling (or loading)
        save_checkpoint(checkpoint, {"model": model, "opt": opt_state}, epoch=epoch, test_accuracy=test_accuracy)
        spent = f"{time.perf_counter() - started:.1f} s"
        if epoch == first_epoch:
            spent += f", {compiling:.1f} s of it staging and compiling"
        print(
            f"epoch {epoch + 1}/{options.epochs}: train loss {float(np.mean([np.asarray(v) for v in losses])):.4f} "
            f"accuracy {float(np.mean([np.asarray(v) for v in accuracies])):.4f}, "
            f"test loss {test_loss:.4f} accuracy {test_accuracy:.4f} ({spent})",
            flush=True,
        )
    if not root:
        return
    if test_accuracy is None:  # resumed after the last epoch: nothing was trained or evaluated
        _, test_accuracy = (float(np.asarray(v)) for v in evaluate(model, x_test_scaled, y_test))
    print(f"test accuracy: {test_accuracy:.4f} on {len(y_test)} held-out images; checkpoint: {checkpoint}")
    export(model, scaling, x_test[:1], module_paths(out, targets), options)


def export(model, scaling: Scaling, example, paths: dict[str, Path], options) -> None:
    """Write an inference module ``predict(images) -> logits`` per target."""

    def predict(model, images):
        return model(scaling(images))

    bar = tqdm(paths.items(), desc="compiling", unit="module", disable=options.no_progress or len(paths) < 2, file=sys.stderr)
    for target, path in bar:
        began = time.perf_counter()
        module = compile_module(predict, (model, example), target=target, weights=(0,), embed_weights=options.embed_weights)
        module.save(path)
        archive = "" if options.embed_weights else f" + {path.with_suffix('.irpa').name}"
        tqdm.write(
            f"wrote {path} ({target}, {path.stat().st_size / 1024:.0f} KiB{archive}; {time.perf_counter() - began:.1f} s): "
            f"predict(f32{list(example.shape)}) -> logits"
        )


def run(argv=None) -> int:
    options = argument_parser().parse_args(argv)
    if options.distributed:
        return report_errors("s4tf-train", lambda: train_on_every_rank(options))
    return report_errors("s4tf-train", lambda: train(options))


def train_on_every_rank(options) -> None:
    """:func:`train` on this rank; if it fails, every rank stops (one line each, naming the
    rank that failed first) instead of waiting for it."""
    try:
        train(options)
    except Exception as error:
        from s4tf import distributed

        if not isinstance(error, (S4tfError, OSError)):
            traceback.print_exc()
        distributed.exit_after(error, "s4tf-train")


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
