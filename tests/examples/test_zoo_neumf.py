"""The zoo's NeuMF (docs/examples/zoo/neumf.py): three training steps equal JAX's from the
same weights and batches, and the script runs."""

import numpy as np

from zoo_models import load_zoo_model, steps_beside_jax
from zoo_peers.neumf import jax_train_step

NEUMF = load_zoo_model("neumf")
CONFIG = NEUMF.CONFIGS["test"]


def test_three_steps_match_jax():
    got, wanted, _, _ = steps_beside_jax(NEUMF, CONFIG, jax_train_step)
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_runs(capsys):
    NEUMF.main(["--config", "test", "--steps", "2"])
    assert "loss" in capsys.readouterr().out
