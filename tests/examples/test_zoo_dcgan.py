"""The zoo's DCGAN (docs/examples/zoo/dcgan.py): three training steps (both networks) give
JAX's discriminator and generator losses from the same weights, batches and noise, and the
script runs."""

import jax
import numpy as np

from zoo_models import load_zoo_model
from zoo_peers.dcgan import jax_train_step

DCGAN = load_zoo_model("dcgan")
CONFIG = DCGAN.CONFIGS["test"]


def test_three_steps_match_jax():
    model, opts = DCGAN.make_model(CONFIG), DCGAN.make_optimizer(CONFIG)
    batches = [DCGAN.make_batch(CONFIG, index) for index in range(3)]
    with jax.enable_x64(False):
        init, jax_step = jax_train_step(CONFIG, model, opts)
        state, wanted = init(model), []
        for batch in batches:
            state, (d_loss, g_loss) = jax_step(state, *batch)
            wanted.append((float(d_loss), float(g_loss)))
    step, got = DCGAN.make_train_step(CONFIG), []
    opt_state = tuple(opt.init(part) for opt, part in zip(opts, model))
    for batch in batches:
        model, opt_state, (d_loss, g_loss) = step(model, opt_state, *batch)
        got.append((float(d_loss), float(g_loss)))
    print("s4tf", got, "JAX", wanted)
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)


def test_script_runs(capsys):
    DCGAN.main(["--config", "test", "--steps", "2"])
    assert "generated digit" in capsys.readouterr().out
