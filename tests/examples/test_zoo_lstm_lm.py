"""The zoo's LSTM language model (docs/examples/zoo/lstm_lm.py): three training steps equal
JAX's (a jax.lax.scan over the same cell) from the same weights and batches, and the script
trains and samples text."""

import numpy as np

from zoo_models import load_zoo_model, steps_beside_jax
from zoo_peers.lstm_lm import jax_train_step

LSTM = load_zoo_model("lstm_lm")
CONFIG = LSTM.CONFIGS["test"]


def test_three_steps_match_jax():
    got, wanted, _, _ = steps_beside_jax(LSTM, CONFIG, jax_train_step)
    assert abs(got[0] - np.log(len(LSTM.corpus()[1]))) < 0.5  # about uniform over the characters at first
    assert got[0] != got[1] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_trains_and_samples(capsys):
    LSTM.main(["--config", "test", "--steps", "2", "--generate", "8"])
    out = capsys.readouterr().out
    assert "loss" in out
    generated = out.split("generated:\n")[1][:-1]  # print adds one newline; the text may hold more
    assert generated.startswith("Beautiful is ") and len(generated) == len("Beautiful is ") + 8
