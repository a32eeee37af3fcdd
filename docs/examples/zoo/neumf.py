"""NeuMF, neural matrix factorisation (He et al. 2017), on generated implicit feedback:
user and item embeddings feed a GMF branch (their element-wise product) and an MLP branch
(the concatenated embeddings through two ReLU layers); both are concatenated and read out
to one logit, trained with the sigmoid cross entropy and Adam. A user's positive items
come from a random low-rank "taste" model (the best of 16 random items), the negatives
are sampled uniformly.

```sh
python docs/examples/zoo/neumf.py --steps 200
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

CONFIGS = {
    "test": {"users": 1_000, "items": 500, "dim": 8, "hidden": (16, 8), "batch": 64, "negatives": 3, "rank": 4, "lr": 1e-2},
    "bench": {"users": 100_000, "items": 100_000, "dim": 64, "hidden": (128, 64), "batch": 1024, "negatives": 3,
              "rank": 8, "lr": 1e-3},
}


@dataclass
class NeuMF:
    """Separate GMF and MLP embeddings (as in the paper), one logit per (user, item) pair."""

    user_gmf: nn.Embedding
    item_gmf: nn.Embedding
    user_mlp: nn.Embedding
    item_mlp: nn.Embedding
    mlp: nn.Sequential
    readout: nn.Dense

    def __call__(self, users, items):
        gmf = self.user_gmf(users) * self.item_gmf(items)
        mlp = self.mlp(s4tf.concatenate([self.user_mlp(users), self.item_mlp(items)], axis=-1))
        return self.readout(s4tf.concatenate([gmf, mlp], axis=-1))[:, 0]


def make_model(config: dict, seed: int = 0) -> NeuMF:
    users, items, dim, (h1, h2) = config["users"], config["items"], config["dim"], config["hidden"]
    return NeuMF(nn.Embedding(users, dim, seed=seed), nn.Embedding(items, dim, seed=seed + 1),
                 nn.Embedding(users, dim, seed=seed + 2), nn.Embedding(items, dim, seed=seed + 3),
                 nn.Sequential([nn.Dense(2 * dim, h1, "relu", seed=seed + 4), nn.Dense(h1, h2, "relu", seed=seed + 5)]),
                 nn.Dense(dim + h2, 1, seed=seed + 6))


@functools.lru_cache(maxsize=None)
def _tastes(users: int, items: int, rank: int):
    """The hidden low-rank model that decides which items a user likes (its first factor, the
    same for every user, makes some items popular)."""
    rng = np.random.default_rng(1234)
    user_taste = rng.standard_normal((users, rank)).astype(np.float32)
    user_taste[:, 0] = 2.0
    return user_taste, rng.standard_normal((items, rank)).astype(np.float32)


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(users, items, labels)``: one positive pair for every ``negatives`` sampled negatives."""
    user_taste, item_taste = _tastes(config["users"], config["items"], config["rank"])
    rng, batch = np.random.default_rng(step), config["batch"]
    positives = batch // (1 + config["negatives"])
    users = rng.integers(0, config["users"], batch)
    candidates = rng.integers(0, config["items"], (positives, 16))
    scores = np.einsum("br,bcr->bc", user_taste[users[:positives]], item_taste[candidates])
    items = np.concatenate([candidates[np.arange(positives), scores.argmax(axis=1)],
                            rng.integers(0, config["items"], batch - positives)])
    labels = (np.arange(batch) < positives).astype(np.float32)
    return users.astype(np.int32), items.astype(np.int32), labels


def make_optimizer(config: dict):
    return optim.Adam(lr=config["lr"])


def loss_fn(model: NeuMF, users, items, labels):
    """The mean sigmoid (logistic) cross entropy of the logits."""
    logits = model(users, items)
    return s4tf.mean(nn.softplus(logits) - labels * logits)


def make_train_step(config: dict):
    opt = make_optimizer(config)

    # Adam's moments decay in every row, so each step rewrites the whole tables (and moments):
    # its time grows with the tables (55-150 ms a step at the bench sizes on 2 cores). Plain SGD
    # could touch only the looked-up rows of the donated tables (docs/nn.md), e.g.
    # `table.at[ids].add(-lr * s4tf.grad(f)(table[ids]))`, at a cost that does not grow with them.
    @s4tf.function(donate_argnums=(0, 1))  # the tables and Adam's moments are updated in place
    def step(model, opt_state, users, items, labels):
        loss, grads = s4tf.value_and_grad(loss_fn)(model, users, items, labels)
        model, opt_state = opt.update(model, opt_state, grads)
        return model, opt_state, loss

    return step


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    options = parser.parse_args(argv)
    config = CONFIGS[options.config]
    model, opt, step = make_model(config), make_optimizer(config), make_train_step(config)
    opt_state, losses = opt.init(model), []
    for index in tqdm(range(options.steps), desc="neumf"):
        model, opt_state, loss = step(model, opt_state, *make_batch(config, index))
        losses.append(float(loss))
    users, items, labels = make_batch(config, 10**6)  # a batch not trained on
    predicted = np.asarray(s4tf.function(lambda m, u, i: m(u, i))(model, users, items)) > 0
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}; held-out pair accuracy {np.mean(predicted == labels):.3f}")


if __name__ == "__main__":
    main()
