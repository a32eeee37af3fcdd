"""The README's job gives the same model from a cold module cache and a warm one
(docs/trust.md, "Determinism"): ``s4tf-train`` in two fresh processes, the first compiling
every module, the second loading them, with s4tf's default first calls (the suite's
``S4TF_FIRST_CALL`` is removed), and checkpoints compared bit for bit."""

import os
import subprocess

import numpy as np


def train(tmp_path, name: str) -> dict[str, np.ndarray]:
    env = {k: v for k, v in os.environ.items() if k != "S4TF_FIRST_CALL"}
    env["S4TF_CACHE_DIR"] = str(tmp_path / "cache")
    checkpoint = tmp_path / f"{name}.npz"
    subprocess.run(["s4tf-train", "lenet", "--epochs", "1", "--batch-size", "64", "--targets", "none", "--no-progress",
                    "--checkpoint", str(checkpoint)], env=env, check=True, capture_output=True, timeout=600)
    with np.load(checkpoint) as archive:
        return {key: archive[key] for key in archive.files}


def test_lenet_trained_from_a_cold_cache_and_a_warm_one_is_the_same_bits(tmp_path):
    cold = train(tmp_path, "cold")
    assert any((tmp_path / "cache").rglob("*.vmfb")), "the first run filled the module cache"
    warm = train(tmp_path, "warm")
    assert cold.keys() == warm.keys() and len(cold) > 10
    for key in cold:
        np.testing.assert_array_equal(np.atleast_1d(cold[key]).view(np.uint8), np.atleast_1d(warm[key]).view(np.uint8), err_msg=key)
