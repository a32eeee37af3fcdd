"""MobileNetV2 (Sandler et al. 2018) trained on scikit-learn's digits at CIFAR's shapes:
32x32 images (the digits resized, three equal channels), a 3x3 stem, inverted residual
blocks (a 1x1 expansion, a 3x3 depthwise convolution, a linear 1x1 projection, each with
BatchNorm; ReLU6 after the first two; a residual connection where the shapes match), a
1x1 head, global average pooling and a dense classifier, trained with Adam.

```sh
python docs/examples/zoo/mobilenet_v2.py --steps 200
```
"""

import argparse
import functools
import itertools
from dataclasses import dataclass

import numpy as np
import s4tf
from s4tf import nn, optim
from s4tf.data import load_digits
from tqdm import tqdm

# blocks: (expansion factor, output channels, stride) of each inverted residual block
CONFIGS = {
    "test": {"image_size": 8, "batch": 4, "stem": 4, "blocks": ((1, 4, 1), (2, 8, 2), (2, 8, 1)), "head": 16,
             "lr": 2e-3},
    "bench": {"image_size": 32, "batch": 32, "stem": 32,
              "blocks": ((1, 16, 1), (6, 24, 2), (6, 24, 1), (6, 32, 2), (6, 32, 1), (6, 64, 2), (6, 64, 1)),
              "head": 256, "lr": 2e-3},
}


@dataclass
class InvertedResidual:
    """1x1 expansion (left out when the factor is 1), 3x3 depthwise, linear 1x1 projection."""

    expand: nn.Conv2D | None
    expand_bn: nn.BatchNorm | None
    depthwise: nn.Conv2D
    depthwise_bn: nn.BatchNorm
    project: nn.Conv2D
    project_bn: nn.BatchNorm

    def __call__(self, x):
        h = x if self.expand is None else nn.relu6(self.expand_bn(self.expand(x)))
        h = nn.relu6(self.depthwise_bn(self.depthwise(h)))
        h = self.project_bn(self.project(h))  # no activation: the "linear bottleneck"
        return x + h if h.shape == x.shape else h  # the residual where stride 1 keeps the shape


@dataclass
class MobileNetV2:
    stem: nn.Conv2D
    stem_bn: nn.BatchNorm
    blocks: list
    head: nn.Conv2D
    head_bn: nn.BatchNorm
    classifier: nn.Dense

    def __call__(self, x):
        x = nn.relu6(self.stem_bn(self.stem(x)))
        for block in self.blocks:
            x = block(x)
        x = nn.relu6(self.head_bn(self.head(x)))
        return self.classifier(s4tf.mean(x, axis=(1, 2)))  # global average pool


def make_model(config: dict, seed: int = 0) -> MobileNetV2:
    seeds = itertools.count(seed)
    conv = functools.partial(nn.Conv2D, padding="same", use_bias=False)
    blocks, channels = [], config["stem"]
    for expansion, out, stride in config["blocks"]:
        hidden = channels * expansion
        blocks.append(InvertedResidual(
            conv(channels, hidden, 1, seed=next(seeds)) if expansion != 1 else None,
            nn.BatchNorm(hidden) if expansion != 1 else None,
            conv(hidden, hidden, 3, stride, groups=hidden, seed=next(seeds)), nn.BatchNorm(hidden),  # depthwise
            conv(hidden, out, 1, seed=next(seeds)), nn.BatchNorm(out)))
        channels = out
    return MobileNetV2(conv(3, config["stem"], 3, seed=next(seeds)), nn.BatchNorm(config["stem"]), blocks,
                       conv(channels, config["head"], 1, seed=next(seeds)), nn.BatchNorm(config["head"]),
                       nn.Dense(config["head"], 10, seed=next(seeds)))


@functools.cache
def _digits(image_size: int):
    (x, y), (x_test, y_test) = load_digits(image_size=image_size)
    return np.repeat(x, 3, axis=-1), y, np.repeat(x_test, 3, axis=-1), y_test


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray]:
    x, y, _, _ = _digits(config["image_size"])
    rows = np.random.default_rng(step).choice(len(x), config["batch"], replace=False)
    return x[rows], y[rows]


def make_optimizer(config: dict):
    return optim.adam(config["lr"])


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
    for index in tqdm(range(options.steps), desc="mobilenet_v2"):
        model, opt_state, loss = step(model, opt_state, *make_batch(config, index))
        losses.append(float(loss))
    _, _, x_test, y_test = _digits(config["image_size"])
    predict = s4tf.function(lambda model, x: nn.apply(model, x)[0])  # inference: the running statistics
    logits = predict(model, x_test)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; test accuracy {float(nn.accuracy(logits, y_test)):.2f}")


if __name__ == "__main__":
    main()
