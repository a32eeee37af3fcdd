"""ResNet-20 (He et al. 2016, the CIFAR variant) trained on scikit-learn's digits at CIFAR's
shapes: 32x32 images (the digits resized, three equal channels), three stages of three
basic blocks (16, 32 and 64 channels), BatchNorm, SGD with momentum.

```sh
python docs/examples/zoo/resnet20.py --steps 200
```
"""

from __future__ import annotations

import argparse
import functools
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

import s4tf
from s4tf import nn, optim
from s4tf.data import load_digits

CONFIGS = {
    "test": {"image_size": 8, "batch": 4, "widths": (4, 8, 16), "blocks": 1, "lr": 0.05},
    "bench": {"image_size": 32, "batch": 32, "widths": (16, 32, 64), "blocks": 3, "lr": 0.05},
}


@dataclass
class Block:
    """Two 3x3 convolutions with BatchNorm; a 1x1 projection on the shortcut where the shape changes."""

    conv1: nn.Conv2D
    bn1: nn.BatchNorm
    conv2: nn.Conv2D
    bn2: nn.BatchNorm
    project: nn.Conv2D | None = None
    project_bn: nn.BatchNorm | None = None

    def __call__(self, x):
        h = s4tf.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        shortcut = x if self.project is None else self.project_bn(self.project(x))
        return s4tf.relu(h + shortcut)


def block(channels_in: int, channels: int, stride: int, seed: int) -> Block:
    conv = functools.partial(nn.Conv2D, padding="same", use_bias=False)
    projected = stride != 1 or channels_in != channels
    return Block(conv(channels_in, channels, 3, stride, seed=seed), nn.BatchNorm(channels),
                 conv(channels, channels, 3, seed=seed + 1), nn.BatchNorm(channels),
                 conv(channels_in, channels, 1, stride, seed=seed + 2) if projected else None,
                 nn.BatchNorm(channels) if projected else None)


def make_model(config: dict, seed: int = 0) -> nn.Sequential:
    widths, layers = config["widths"], []
    layers += [nn.Conv2D(3, widths[0], 3, padding="same", use_bias=False, seed=seed), nn.BatchNorm(widths[0]), s4tf.relu]
    channels = widths[0]
    for stage, width in enumerate(widths):
        for index in range(config["blocks"]):
            stride = 2 if stage > 0 and index == 0 else 1
            layers.append(block(channels, width, stride, seed + 10 * len(layers)))
            channels = width
    layers += [lambda h: s4tf.mean(h, axis=(1, 2)), nn.Dense(channels, 10, seed=seed + 1000)]
    return nn.Sequential(layers)


@functools.lru_cache(maxsize=None)
def _digits(image_size: int):
    (x, y), _ = load_digits(image_size=image_size)
    return np.repeat(x, 3, axis=-1), y


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray]:
    x, y = _digits(config["image_size"])
    rows = np.random.default_rng(step).choice(len(x), config["batch"], replace=False)
    return x[rows], y[rows]


def make_optimizer(config: dict):
    return optim.sgd(config["lr"], momentum=0.9)


def make_train_step(config: dict):
    opt = make_optimizer(config)

    def loss_fn(model, x, y):
        # the model in training: BatchNorm normalizes with the batch's statistics, and the
        # model that comes back holds the updated running statistics
        logits, model = nn.apply(model, x, training=True)
        return nn.softmax_cross_entropy(logits, y), model

    @s4tf.function(donate_argnums=(0, 1))
    def step(model, opt_state, x, y):
        (loss, model), grads = s4tf.value_and_grad(loss_fn, has_aux=True)(model, x, y)
        updates, opt_state = opt.update(grads, opt_state, model)
        return optim.apply_updates(model, updates), opt_state, loss

    return step


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    options = parser.parse_args(argv)
    config = CONFIGS[options.config]
    model, opt, step = make_model(config), make_optimizer(config), make_train_step(config)
    opt_state, losses = opt.init(model), []
    for index in tqdm(range(options.steps), desc="resnet20"):
        model, opt_state, loss = step(model, opt_state, *make_batch(config, index))
        losses.append(float(loss))
    (x, y), _ = load_digits(image_size=config["image_size"])
    logits, _ = nn.apply(model, np.repeat(x[:256], 3, axis=-1))  # inference: the running statistics
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; training accuracy {float(nn.accuracy(logits, y[:256])):.2f}")


if __name__ == "__main__":
    main()
