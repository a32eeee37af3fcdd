"""The zoo's character-level GPT (docs/examples/zoo/char_gpt.py): three training steps equal
JAX's from the same weights and batches, and the script trains and generates text."""

import numpy as np

from zoo_models import load_zoo_model, steps_beside_jax
from zoo_peers.char_gpt import jax_train_step

GPT = load_zoo_model("char_gpt")
CONFIG = GPT.CONFIGS["test"]


def test_three_steps_match_jax():
    got, wanted, _, _ = steps_beside_jax(GPT, CONFIG, jax_train_step)
    assert abs(got[0] - np.log(len(GPT.corpus()[1]))) < 0.5  # about uniform over the characters at first
    assert got[0] != got[1] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_trains_and_generates(capsys):
    GPT.main(["--config", "test", "--steps", "2", "--generate", "8"])
    out = capsys.readouterr().out
    prompt = GPT.corpus()[0][:CONFIG["context"]]
    assert "loss" in out
    generated = out.split("generated:\n")[1][:-1]  # print adds one newline; the text may hold more
    assert generated.startswith(prompt) and len(generated) == len(prompt) + 8
