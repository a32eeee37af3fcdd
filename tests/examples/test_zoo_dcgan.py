"""The zoo's DCGAN (docs/examples/zoo/dcgan.py): three training steps (both networks) give
JAX's discriminator and generator losses from the same weights, batches and noise, and the
script runs."""

import numpy as np

from zoo_models import load_zoo_model, steps_beside_jax
from zoo_peers.dcgan import jax_train_step

DCGAN = load_zoo_model("dcgan")
CONFIG = DCGAN.CONFIGS["test"]


def test_three_steps_match_jax():
    got, wanted, _, _ = steps_beside_jax(DCGAN, CONFIG, jax_train_step)
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_runs(capsys):
    DCGAN.main(["--config", "test", "--steps", "2"])
    assert "generated digit" in capsys.readouterr().out
