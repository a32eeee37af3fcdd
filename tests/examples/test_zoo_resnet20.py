"""The zoo's ResNet-20 (docs/examples/zoo/resnet20.py): three training steps equal JAX's
from the same weights and batches (losses and every BatchNorm's running statistics, with
buffer donation), and the script runs."""

import jax
import numpy as np

from zoo_models import load_zoo_model
from zoo_peers.resnet20 import _convert, jax_train_step

RESNET = load_zoo_model("resnet20")
CONFIG = RESNET.CONFIGS["test"]


def _stats_equal(ours, theirs, rtol, atol):
    """Every running statistic of the s4tf model (in the JAX state's layout) equals JAX's."""
    assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
    for (path, got), wanted in zip(jax.tree_util.tree_flatten_with_path(ours)[0], jax.tree_util.tree_leaves(theirs)):
        np.testing.assert_allclose(got, wanted, rtol=rtol, atol=atol, err_msg=jax.tree_util.keystr(path))


def test_three_steps_match_jax():
    model, opt = RESNET.make_model(CONFIG), RESNET.make_optimizer(CONFIG)
    assert model.layers[4].project is not None  # a downsampling block with its 1x1 projection
    batches = [RESNET.make_batch(CONFIG, index) for index in range(3)]
    with jax.enable_x64(False):
        init, jax_step = jax_train_step(CONFIG, model, opt)
        state, wanted, jax_stats = init(model), [], []
        for batch in batches:
            state, loss = jax_step(state, *batch)
            wanted.append(float(loss))
            jax_stats.append(jax.tree_util.tree_map(np.array, state[1]))  # copies: the state is donated
    step, opt_state, got, stats = RESNET.make_train_step(CONFIG), opt.init(model), [], []
    for batch in batches:
        model, opt_state, loss = step(model, opt_state, *batch)
        got.append(float(loss))
        stats.append(jax.tree_util.tree_map(np.array, _convert(model)[1]))
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)
    assert not np.allclose(stats[0][1]["mean"], 0)  # the statistics moved
    for ours, theirs in zip(stats, jax_stats):
        _stats_equal(ours, theirs, rtol=1e-4, atol=1e-5)


def test_script_runs(capsys):
    RESNET.main(["--config", "test", "--steps", "2"])
    assert "training accuracy" in capsys.readouterr().out
