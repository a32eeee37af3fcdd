"""The zoo's MobileNetV2 (docs/examples/zoo/mobilenet_v2.py): three training steps equal
JAX's from the same weights and batches (losses and every BatchNorm's running statistics,
with buffer donation), and the script runs."""

import numpy as np

from zoo_models import load_zoo_model, statistics_equal, steps_beside_jax
from zoo_peers.mobilenet_v2 import _convert, jax_train_step

MOBILENET = load_zoo_model("mobilenet_v2")
CONFIG = MOBILENET.CONFIGS["test"]


def test_three_steps_match_jax():
    model = MOBILENET.make_model(CONFIG)
    assert model.blocks[0].expand is None and model.blocks[1].depthwise.groups == 8  # both kinds of block, depthwise
    statistics = (lambda model: _convert(model)[1], lambda state: state[1])  # in the JAX state's layout
    got, wanted, stats, jax_stats = steps_beside_jax(MOBILENET, CONFIG, jax_train_step, observe=statistics)
    assert got[0] != got[2]  # the steps train
    # 1e-7 apart seen; tighter than 1e-4 because Adam's normalized steps hide a wrong learning
    # rate: 1% more lr moves the third loss by only 6e-5
    np.testing.assert_allclose(got, wanted, rtol=2e-5)
    # The first step's statistics come from the initial weights: equal to float32 rounding.
    statistics_equal(stats[0], jax_stats[0], rtol=1e-4, atol=1e-6)
    assert not np.allclose(stats[0]["blocks"][2]["project_bn"]["var"], 1)  # the statistics moved
    # After three steps, looser: Adam's first steps move every weight by about +-lr whatever
    # its gradient's size, so a gradient within rounding of 0 moves by the sign of its
    # rounding. Each block ends in a BatchNorm whose offset has a gradient of exactly 0 in
    # exact arithmetic (the next BatchNorm, in training, removes a per-channel constant), 3e-8
    # of rounding here: the two sides move those offsets apart by up to 2 lr a step, and the
    # means after the next 1x1 convolution (the expansions and the head) by the filters
    # times that (1.5e-3 seen, against means of 1e-3 to 0.2). Elsewhere 5e-5 is the most
    # seen (the depthwise statistics). The losses do not see it (rtol 2e-5 above).
    statistics_equal(stats[2], jax_stats[2], rtol=1e-3, atol=1e-4, loose=("['expand_bn']['mean']", "['head_bn']['mean']"))


def test_script_runs(capsys):
    MOBILENET.main(["--config", "test", "--steps", "2"])
    assert "test accuracy" in capsys.readouterr().out
