"""An LSTM character language model on the Zen of Python (the text ``import this`` prints,
shipped with Python): character embeddings, an ``nn.RNN`` over an ``nn.LSTMCell`` (one
``s4tf.scan`` over time in the compiled step, and backwards through it for the gradient),
and a dense readout to one logit per character; trained with the next character's softmax
cross entropy and Adam. After training, a compiled function advances the cell one
character at a time, carrying ``(c, h)``: it reads a prompt, then samples the next
character (Gumbel-max on the logits, the noise from NumPy) and the script prints the text.

```sh
python docs/examples/zoo/lstm_lm.py --steps 300
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
    "test": {"embed": 8, "hidden": 16, "length": 8, "batch": 4, "lr": 1e-2},
    "bench": {"embed": 32, "hidden": 128, "length": 64, "batch": 32, "lr": 1e-2},
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
class CharLSTM:
    embed: nn.Embedding
    rnn: nn.RNN  # over an nn.LSTMCell
    readout: nn.Dense

    def __call__(self, ids):
        """Logits ``(batch, length, vocabulary)`` of each position's next character."""
        return self.readout(self.rnn(self.embed(ids)))


def make_model(config: dict, seed: int = 0) -> CharLSTM:
    vocabulary = len(corpus()[1])
    return CharLSTM(nn.Embedding(vocabulary, config["embed"], seed=seed),
                    nn.RNN(nn.LSTMCell(config["embed"], config["hidden"], seed=seed + 1)),
                    nn.Dense(config["hidden"], vocabulary, seed=seed + 3))


def make_batch(config: dict, step: int) -> tuple[np.ndarray, np.ndarray]:
    """``(inputs, targets)``: random windows of the text, and the same windows one character on."""
    ids, length = corpus()[2], config["length"]
    starts = np.random.default_rng(step).integers(0, len(ids) - length, config["batch"])
    windows = ids[starts[:, None] + np.arange(length + 1)]
    return windows[:, :-1], windows[:, 1:]


def make_optimizer(config: dict):
    return optim.Adam(lr=config["lr"])


def loss_fn(model: CharLSTM, inputs, targets):
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
def advance(model: CharLSTM, carry, ids, noise):
    """One character for each row of ``ids`` through the cell: the new carry, and the next
    character drawn from the softmax by Gumbel-max (``noise``: Gumbel draws, one a logit)."""
    carry, h = model.rnn.cell(carry, model.embed(ids))
    return carry, s4tf.argmax(model.readout(h) + noise, axis=-1)


def generate(model: CharLSTM, prompt: str, length: int, seed: int = 0) -> str:
    """``prompt`` and ``length`` sampled characters more."""
    _, vocabulary, _ = corpus()
    rng, ids = np.random.default_rng(seed), [vocabulary.index(c) for c in prompt]
    carry = model.rnn.cell.initialize_carry(1)
    for position in range(len(prompt) + length - 1):
        noise = rng.gumbel(size=(1, len(vocabulary))).astype(np.float32)
        carry, sampled = advance(model, carry, np.array([ids[position]], np.int32), noise)
        if position + 1 >= len(prompt):  # past the prompt: keep what was sampled
            ids.append(int(sampled[0]))
    return "".join(vocabulary[i] for i in ids)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--config", choices=sorted(CONFIGS), default="bench")
    parser.add_argument("--generate", type=int, default=200, help="characters to sample after training")
    options = parser.parse_args(argv)
    config = CONFIGS[options.config]
    model, opt, step = make_model(config), make_optimizer(config), make_train_step(config)
    opt_state, losses = opt.init(model), []
    for index in tqdm(range(options.steps), desc="lstm_lm"):
        model, opt_state, loss = step(model, opt_state, *make_batch(config, index))
        losses.append(float(loss))
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    print("generated:\n" + generate(model, "Beautiful is ", options.generate))


if __name__ == "__main__":
    main()
