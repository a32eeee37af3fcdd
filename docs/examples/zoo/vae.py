"""A variational autoencoder (Kingma and Welling 2014) on scikit-learn's 8x8 digits: a dense
encoder to the mean and log-variance of a Gaussian latent, a sample by reparameterisation
(``mean + exp(log_var / 2) * noise``, the noise drawn by NumPy in ``make_batch``), a dense
decoder to one logit per pixel; the loss is the pixels' sigmoid cross entropy plus the KL
divergence from the standard normal prior, trained with Adam.

```sh
python docs/examples/zoo/vae.py --steps 200
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
    "test": {"latent": 4, "hidden": 16, "batch": 16, "lr": 1e-3},
    "bench": {"latent": 16, "hidden": 256, "batch": 128, "lr": 1e-3},
}
PIXELS = 64


@dataclass
class VAE:
    encoder: nn.Dense  # pixels -> hidden, ReLU
    mean: nn.Dense  # hidden -> latent
    log_var: nn.Dense  # hidden -> latent
    decoder: nn.Sequential  # latent -> hidden -> pixel logits

    def encode(self, x):
        h = self.encoder(x)
        return self.mean(h), self.log_var(h)


def make_model(config: dict, seed: int = 0) -> VAE:
    hidden, latent = config["hidden"], config["latent"]
    return VAE(nn.Dense(PIXELS, hidden, "relu", seed=seed), nn.Dense(hidden, latent, seed=seed + 1),
               nn.Dense(hidden, latent, seed=seed + 2),
               nn.Sequential([nn.Dense(latent, hidden, "relu", seed=seed + 3), nn.Dense(hidden, PIXELS, seed=seed + 4)]))


@functools.lru_cache(maxsize=None)
def _digits():
    (x_train, _), (x_test, _) = load_digits(image_size=8)  # already in [0, 1]
    return x_train.reshape(-1, PIXELS), x_test.reshape(-1, PIXELS)


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray]:
    """``(images, noise)``: a batch of flattened training digits and the reparameterisation's noise."""
    x = _digits()[0]
    rng = np.random.default_rng(step)
    rows = rng.choice(len(x), config["batch"], replace=False)
    return x[rows], rng.standard_normal((config["batch"], config["latent"])).astype(np.float32)


def make_optimizer(config: dict):
    return optim.Adam(lr=config["lr"])


def loss_fn(model: VAE, x, noise):
    """The negative evidence lower bound per image: reconstruction + KL(q(z|x) || N(0, 1))."""
    mean, log_var = model.encode(x)
    logits = model.decoder(mean + s4tf.exp(0.5 * log_var) * noise)
    reconstruction = s4tf.sum(nn.softplus(logits) - x * logits, axis=-1)
    kl = -0.5 * s4tf.sum(1.0 + log_var - mean * mean - s4tf.exp(log_var), axis=-1)
    return s4tf.mean(reconstruction + kl)


def make_train_step(config: dict):
    opt = make_optimizer(config)

    @s4tf.function(donate_argnums=(0, 1))
    def step(model, opt_state, x, noise):
        loss, grads = s4tf.value_and_grad(loss_fn)(model, x, noise)
        model, opt_state = opt.update(model, opt_state, grads)
        return model, opt_state, loss

    return step


@s4tf.function
def reconstruct(model: VAE, x):
    """The decoded mean of each image's posterior, as pixel values in [0, 1]."""
    return nn.sigmoid(model.decoder(model.encode(x)[0]))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    options = parser.parse_args(argv)
    config = CONFIGS[options.config]
    model, opt, step = make_model(config), make_optimizer(config), make_train_step(config)
    opt_state, losses = opt.init(model), []
    for index in tqdm(range(options.steps), desc="vae"):
        model, opt_state, loss = step(model, opt_state, *make_batch(config, index))
        losses.append(float(loss))
    x_test = _digits()[1]
    error = np.mean(np.abs(np.asarray(reconstruct(model, x_test)) - x_test))
    print(f"loss {losses[0]:.2f} -> {losses[-1]:.2f}; held-out mean absolute reconstruction error {error:.3f}")


if __name__ == "__main__":
    main()
