"""The zoo's ResNet-20 (docs/examples/zoo/resnet20.py): three training steps equal JAX's
from the same weights and batches (losses and every BatchNorm's running statistics, with
buffer donation), and the script runs."""

import numpy as np

from zoo_models import load_zoo_model, statistics_equal, steps_beside_jax
from zoo_peers.resnet20 import _convert, jax_train_step

RESNET = load_zoo_model("resnet20")
CONFIG = RESNET.CONFIGS["test"]


def test_three_steps_match_jax():
    assert RESNET.make_model(CONFIG).layers[4].project is not None  # a downsampling block with its 1x1 projection
    statistics = (lambda model: _convert(model)[1], lambda state: state[1])  # in the JAX state's layout
    got, wanted, stats, jax_stats = steps_beside_jax(RESNET, CONFIG, jax_train_step, observe=statistics)
    assert got[0] != got[2]  # the steps train
    np.testing.assert_allclose(got, wanted, rtol=1e-4)
    assert not np.allclose(stats[0][1]["mean"], 0)  # the statistics moved
    for ours, theirs in zip(stats, jax_stats):
        statistics_equal(ours, theirs, rtol=1e-4, atol=1e-5)


def test_script_runs(capsys):
    RESNET.main(["--config", "test", "--steps", "2"])
    assert "training accuracy" in capsys.readouterr().out
