"""Checkpoints: round trips of models and optimizer state, atomic writes, clear errors."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from s4tf import nn, optim, pytree
from s4tf.checkpoint import load_checkpoint, save_checkpoint
from s4tf.errors import S4tfError


def model_and_state(seed):
    model = nn.Sequential([nn.Dense(3, 4, seed=seed), nn.Dense(4, 2, seed=seed + 1)])
    opt = optim.Adam(1e-2)
    return model, opt.init(model)


def leaves_equal(a, b):
    left, _ = pytree.flatten(a)
    right, _ = pytree.flatten(b)
    assert len(left) == len(right)
    for x, y in zip(left, right):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_round_trip_restores_every_array_and_the_info(tmp_path):
    model, state = model_and_state(0)
    path = save_checkpoint(tmp_path / "c.npz", {"model": model, "opt": state}, epoch=3, note="x")
    template = dict(zip(("model", "opt"), model_and_state(7)))
    restored, info = load_checkpoint(path, like=template)
    leaves_equal(restored, {"model": model, "opt": state})
    assert info == {"epoch": 3, "note": "x"}
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~_umask()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_an_interrupted_save_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    model, state = model_and_state(0)
    path = save_checkpoint(tmp_path / "c.npz", {"model": model}, epoch=1)
    before = path.read_bytes()

    def interrupted(descriptor):
        raise KeyboardInterrupt  # Ctrl-C after the new data is written, before it is in place

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, {"model": model, "opt": state}, epoch=2)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]


@pytest.mark.parametrize("template, message", [
    (lambda m: {"model": m, "more": np.zeros(3, np.float32)}, "holds"),
    (lambda m: {"model": nn.Sequential([nn.Dense(3, 5), nn.Dense(5, 2)])}, "template's"),
])
def test_a_template_that_does_not_match_is_a_clear_error(tmp_path, template, message):
    model, _ = model_and_state(0)
    path = save_checkpoint(tmp_path / "c.npz", {"model": model})
    with pytest.raises(S4tfError, match=message):
        load_checkpoint(path, like=template(model))


def test_a_file_that_is_not_a_checkpoint_is_a_clear_error(tmp_path):
    path = tmp_path / "c.npz"
    path.write_text("not a checkpoint")
    with pytest.raises(S4tfError, match="cannot read checkpoint"):
        load_checkpoint(path, like={"a": np.zeros(1)})
