"""DCGAN (Radford et al. 2016) on scikit-learn's 8x8 digits scaled to [-1, 1]: a generator
from a latent vector (a dense projection to 2x2, two stride-2 transposed convolutions with
BatchNorm and ReLU, tanh) and a discriminator (two stride-2 convolutions with leaky ReLU, a
dense logit). One compiled step updates the discriminator, then the generator against the
updated discriminator, each with its own Adam (lr 2e-4, beta1 0.5).

```sh
python docs/examples/zoo/dcgan.py --steps 200
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
    "test": {"latent": 4, "features": 4, "batch": 8},
    "bench": {"latent": 64, "features": 64, "batch": 128},
}


def leaky_relu(x):
    return nn.leaky_relu(x, negative_slope=0.2)  # DCGAN's slope


@dataclass
class Generator:
    project: nn.Dense  # latent -> 2x2x(4 features)
    bn0: nn.BatchNorm
    up1: nn.ConvTranspose2D  # 2x2 -> 4x4
    bn1: nn.BatchNorm
    up2: nn.ConvTranspose2D  # 4x4 -> 8x8, one channel

    def __call__(self, z):
        h = s4tf.reshape(self.project(z), (z.shape[0], 2, 2, self.bn0.scale.shape[0]))
        h = s4tf.relu(self.bn1(self.up1(s4tf.relu(self.bn0(h)))))
        return s4tf.tanh(self.up2(h))


def make_model(config: dict, seed: int = 0) -> tuple[Generator, nn.Sequential]:
    """``(generator, discriminator)``."""
    latent, f = config["latent"], config["features"]
    generator = Generator(nn.Dense(latent, 2 * 2 * 4 * f, use_bias=False, seed=seed), nn.BatchNorm(4 * f),
                          nn.ConvTranspose2D(4 * f, 2 * f, 4, stride=2, padding="same", use_bias=False, seed=seed + 1),
                          nn.BatchNorm(2 * f), nn.ConvTranspose2D(2 * f, 1, 4, stride=2, padding="same", seed=seed + 2))
    discriminator = nn.Sequential([nn.Conv2D(1, f, 4, stride=2, padding="same", activation=leaky_relu, seed=seed + 3),
                                   nn.Conv2D(f, 2 * f, 4, stride=2, padding="same", activation=leaky_relu, seed=seed + 4),
                                   nn.Flatten(), nn.Dense(2 * 2 * 2 * f, 1, seed=seed + 5)])
    return generator, discriminator


@functools.lru_cache(maxsize=None)
def _digits() -> np.ndarray:
    (x, _), _ = load_digits(image_size=8)
    return x * 2.0 - 1.0  # NHWC 8x8x1 in [-1, 1]


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray]:
    """``(real images, latent noise)``."""
    x, rng = _digits(), np.random.default_rng(step)
    rows = rng.choice(len(x), config["batch"], replace=False)
    return x[rows], rng.standard_normal((config["batch"], config["latent"])).astype(np.float32)


def make_optimizer(config: dict) -> tuple[optim.Adam, optim.Adam]:
    """The generator's and the discriminator's optimizers."""
    return optim.Adam(lr=2e-4, beta1=0.5), optim.Adam(lr=2e-4, beta1=0.5)


def bce(logits, label: float):
    """The mean sigmoid cross entropy of the logits against one label for all."""
    return s4tf.mean(nn.softplus(logits) - label * logits)


def make_train_step(config: dict):
    g_opt, d_opt = make_optimizer(config)

    @s4tf.function(donate_argnums=(0, 1))
    def step(model, opt_state, real, z):
        (generator, discriminator), (g_state, d_state) = model, opt_state
        fake, _ = nn.apply(generator, z, training=True)  # a constant for the discriminator's step
        d_loss, d_grads = s4tf.value_and_grad(lambda d: bce(d(real), 1.0) + bce(d(fake), 0.0))(discriminator)
        discriminator, d_state = d_opt.update(discriminator, d_state, d_grads)

        def g_loss_fn(g):
            fake, g = nn.apply(g, z, training=True)  # g: the new BatchNorm statistics
            return bce(discriminator(fake), 1.0), g

        (g_loss, generator), g_grads = s4tf.value_and_grad(g_loss_fn, has_aux=True)(generator)
        generator, g_state = g_opt.update(generator, g_state, g_grads)
        return (generator, discriminator), (g_state, d_state), (d_loss, g_loss)

    return step


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    options = parser.parse_args(argv)
    config = CONFIGS[options.config]
    model, opts, step = make_model(config), make_optimizer(config), make_train_step(config)
    opt_state, losses = tuple(opt.init(part) for opt, part in zip(opts, model)), []
    for index in tqdm(range(options.steps), desc="dcgan"):
        model, opt_state, (d_loss, g_loss) = step(model, opt_state, *make_batch(config, index))
        losses.append((float(d_loss), float(g_loss)))
    (d_first, g_first), (d_last, g_last) = losses[0], losses[-1]
    print(f"discriminator loss {d_first:.3f} -> {d_last:.3f}, generator loss {g_first:.3f} -> {g_last:.3f}")
    images, _ = nn.apply(model[0], make_batch(config, 10**6)[1])  # inference: the running statistics
    print("a generated digit:")
    for row in np.asarray(images)[0, :, :, 0]:
        print("".join(" .:#"[min(int((v + 1) * 2), 3)] for v in row))


if __name__ == "__main__":
    main()
