"""The zoo's variational autoencoder (docs/examples/zoo/vae.py): three training steps
equal JAX's from the same weights, batches and noise, and the script runs."""

import numpy as np

from zoo_models import load_zoo_model, steps_beside_jax
from zoo_peers.vae import jax_train_step

VAE = load_zoo_model("vae")
CONFIG = VAE.CONFIGS["test"]


def test_three_steps_match_jax():
    got, wanted, _, _ = steps_beside_jax(VAE, CONFIG, jax_train_step)
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_runs(capsys):
    VAE.main(["--config", "test", "--steps", "2"])
    assert "loss" in capsys.readouterr().out
