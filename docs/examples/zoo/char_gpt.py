"""A character-level GPT on the Zen of Python (the text ``import this`` prints, shipped
with Python): token and learned position embeddings, two pre-LayerNorm transformer blocks
(causal multi-head self-attention, then a GELU MLP, each added to the residual stream), a
final LayerNorm and a readout to one logit per character; trained with the next
character's softmax cross entropy and AdamW. After training, a compiled function picks
the most likely next character (greedy decoding) over a sliding window of the last
``context`` characters, and the script prints what it writes.

```sh
python docs/examples/zoo/char_gpt.py --steps 300
```
"""

import argparse
import codecs
import contextlib
import functools
import io
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

import s4tf
from s4tf import nn, optim

CONFIGS = {
    "test": {"d_model": 32, "heads": 4, "layers": 2, "context": 16, "batch": 4, "lr": 3e-3, "weight_decay": 0.01},
    "bench": {"d_model": 128, "heads": 4, "layers": 2, "context": 64, "batch": 32, "lr": 3e-3, "weight_decay": 0.01},
}


@functools.lru_cache(maxsize=None)
def corpus() -> tuple[str, str, np.ndarray]:
    """``(text, vocabulary, ids)``: the Zen of Python, its sorted characters, and the text as ids."""
    with contextlib.redirect_stdout(io.StringIO()):  # the first `import this` prints the Zen
        import this
    text = codecs.decode(this.s, "rot13")
    vocabulary = "".join(sorted(set(text)))
    return text, vocabulary, np.array([vocabulary.index(c) for c in text], np.int32)


@dataclass
class Block:
    """``x + attention(ln(x))``, then ``x + mlp(ln(x))`` (pre-LayerNorm)."""

    attention_norm: nn.LayerNorm
    attention: nn.MultiHeadAttention
    mlp_norm: nn.LayerNorm
    mlp: nn.Sequential

    def __call__(self, x):
        x = x + self.attention(self.attention_norm(x), causal=True)
        return x + self.mlp(self.mlp_norm(x))


@dataclass
class GPT:
    tokens: nn.Embedding
    positions: nn.Embedding
    blocks: list
    norm: nn.LayerNorm
    readout: nn.Dense

    def __call__(self, ids):
        """Logits ``(batch, length, vocabulary)`` of each position's next character."""
        x = self.tokens(ids) + self.positions(np.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.readout(self.norm(x))


def make_model(config: dict, seed: int = 0) -> GPT:
    d, vocabulary = config["d_model"], len(corpus()[1])
    blocks = [Block(nn.LayerNorm(d), nn.MultiHeadAttention(config["heads"], d, seed=seed + 10 * i), nn.LayerNorm(d),
                    nn.Sequential([nn.Dense(d, 4 * d, "gelu", seed=seed + 10 * i + 4),
                                   nn.Dense(4 * d, d, seed=seed + 10 * i + 5)]))
              for i in range(1, config["layers"] + 1)]
    return GPT(nn.Embedding(vocabulary, d, seed=seed), nn.Embedding(config["context"], d, seed=seed + 1), blocks,
               nn.LayerNorm(d), nn.Dense(d, vocabulary, seed=seed + 2))


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray]:
    """``(inputs, targets)``: random windows of the text, and the same windows one character on."""
    ids, context = corpus()[2], config["context"]
    starts = np.random.default_rng(step).integers(0, len(ids) - context, config["batch"])
    windows = ids[starts[:, None] + np.arange(context + 1)]
    return windows[:, :-1], windows[:, 1:]


def make_optimizer(config: dict):
    return optim.AdamW(lr=config["lr"], weight_decay=config["weight_decay"])


def loss_fn(model: GPT, inputs, targets):
    """The mean cross entropy of every position's next character."""
    return nn.softmax_cross_entropy(model(inputs), targets)


def make_train_step(config: dict):
    opt = make_optimizer(config)

    @s4tf.function(donate_argnums=(0, 1))
    def step(model, opt_state, inputs, targets):
        loss, grads = s4tf.value_and_grad(loss_fn)(model, inputs, targets)
        model, opt_state = opt.update(model, opt_state, grads)
        return model, opt_state, loss

    return step


@s4tf.function
def next_character(model: GPT, window):
    """The id of the most likely character after ``window`` (``(1, context)`` ids)."""
    return s4tf.argmax(model(window)[0, -1])


def generate(model: GPT, prompt: str, length: int) -> str:
    """``prompt`` (``context`` characters of the text) and ``length`` characters more."""
    _, vocabulary, _ = corpus()
    ids = [vocabulary.index(c) for c in prompt]
    for _ in range(length):
        window = np.array([ids[-len(prompt):]], np.int32)
        ids.append(int(next_character(model, window)))
    return "".join(vocabulary[i] for i in ids)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    parser.add_argument("--generate", type=int, default=200, help="characters to generate after training")
    options = parser.parse_args(argv)
    config = CONFIGS[options.config]
    model, opt, step = make_model(config), make_optimizer(config), make_train_step(config)
    opt_state, losses = opt.init(model), []
    for index in tqdm(range(options.steps), desc="char_gpt"):
        model, opt_state, loss = step(model, opt_state, *make_batch(config, index))
        losses.append(float(loss))
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    print("generated:\n" + generate(model, corpus()[0][:config["context"]], options.generate))


if __name__ == "__main__":
    main()
