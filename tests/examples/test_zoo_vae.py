"""The zoo's variational autoencoder (docs/examples/zoo/vae.py): three training steps
equal JAX's from the same weights, batches and noise, and the script runs."""

import jax
import numpy as np

from zoo_models import load_zoo_model
from zoo_peers.vae import jax_train_step

VAE = load_zoo_model("vae")
CONFIG = VAE.CONFIGS["test"]


def test_three_steps_match_jax():
    model, opt = VAE.make_model(CONFIG), VAE.make_optimizer(CONFIG)
    batches = [VAE.make_batch(CONFIG, index) for index in range(3)]
    with jax.enable_x64(False):
        init, jax_step = jax_train_step(CONFIG, model, opt)
        state, wanted = init(model), []
        for batch in batches:
            state, loss = jax_step(state, *batch)
            wanted.append(float(loss))
    step, opt_state, got = VAE.make_train_step(CONFIG), opt.init(model), []
    for batch in batches:
        model, opt_state, loss = step(model, opt_state, *batch)
        got.append(float(loss))
    print("s4tf", got, "JAX", wanted)
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_runs(capsys):
    VAE.main(["--config", "test", "--steps", "2"])
    assert "loss" in capsys.readouterr().out
