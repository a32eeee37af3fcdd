"""The zoo's ResNet-20 (docs/examples/zoo/resnet20.py): three training steps equal JAX's
from the same weights and batches (losses and BatchNorm's running statistics, with buffer
donation), and the script runs."""

import jax
import numpy as np

from zoo_models import load_zoo_model
from zoo_peers.resnet20 import jax_train_step

RESNET = load_zoo_model("resnet20")
CONFIG = RESNET.CONFIGS["test"]


def test_three_steps_match_jax():
    model, opt = RESNET.make_model(CONFIG), RESNET.make_optimizer(CONFIG)
    batches = [RESNET.make_batch(CONFIG, index) for index in range(3)]
    with jax.enable_x64(False):
        init, jax_step = jax_train_step(CONFIG, model, opt)
        state, wanted = init(model), []
        for batch in batches:
            state, loss = jax_step(state, *batch)
            wanted.append(float(loss))
        jax_stats = jax.tree_util.tree_map(np.asarray, state[1])
    step, opt_state, got = RESNET.make_train_step(CONFIG), opt.init(model), []
    for batch in batches:
        model, opt_state, loss = step(model, opt_state, *batch)
        got.append(float(loss))
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)
    stem, block = model.layers[1], model.layers[3]
    np.testing.assert_allclose(np.asarray(stem.running_mean), jax_stats[1]["mean"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(block.bn2.running_var), jax_stats[3]["bn2"]["var"], rtol=1e-4, atol=1e-6)


def test_script_runs(capsys):
    RESNET.main(["--config", "test", "--steps", "2"])
    assert "training accuracy" in capsys.readouterr().out
