"""Checkpoints: round trips of models and optimizer state, atomic writes, clear errors."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest

from s4tf import nn, optim, pytree
from s4tf.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from s4tf.core.errors import S4tfError
from s4tf.tools.train import MODELS

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


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


# -- damaged and foreign files --------------------------------------------------------------------


def saved_model(tmp_path):
    model, _ = model_and_state(0)
    return model, save_checkpoint(tmp_path / "c.npz", {"model": model}, epoch=1)


def test_every_flipped_byte_or_cut_is_an_error_or_changes_nothing(tmp_path):
    """A zip holds fields that no check covers (timestamps, ...): damage there is harmless.
    Everything else is a CheckpointError, never another exception or other numbers."""
    tree = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(2, np.float32)}
    data = save_checkpoint(tmp_path / "c.npz", tree, epoch=1).read_bytes()
    damaged = tmp_path / "damaged.npz"
    errors = 0
    variants = [data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:] for i in range(len(data))]
    variants += [data[:n] for n in range(len(data))]
    for variant in variants:
        damaged.write_bytes(variant)
        try:
            loaded, info = load_checkpoint(damaged, like=tree)
        except CheckpointError as error:
            assert "\n" not in str(error)
            errors += 1
            continue
        leaves_equal(loaded, tree)
        assert info == {"epoch": 1}
    assert errors > len(data)  # every cut, and most flips


def test_an_array_changed_after_saving_does_not_match_the_checksum(tmp_path):
    model, path = saved_model(tmp_path)
    with np.load(path) as archive:
        members = dict(archive)
    members["leaf_0"] = members["leaf_0"] + 1
    np.savez(path, **members)  # a well-formed zip with its own CRCs, holding other numbers
    with pytest.raises(CheckpointError, match=r"^checkpoint .*c.npz does not match its checksum: the file was damaged or changed after s4tf wrote it$"):
        load_checkpoint(path, like={"model": model})


@pytest.mark.parametrize("members, message", [
    (lambda m: {k: v for k, v in m.items() if k != "info"}, "has no member 'info'"),
    (lambda m: {**m, "extra": np.zeros(1)}, "holds a member 'extra' that s4tf does not write"),
    (lambda m: {"weights": m["leaf_0"]}, "holds 0 arrays; the template has 4"),
])
def test_members_other_than_s4tf_writes_are_one_line_errors(tmp_path, members, message):
    model, path = saved_model(tmp_path)
    with np.load(path) as archive:
        np.savez(path, **members(dict(archive)))
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path, like={"model": model})


@pytest.mark.parametrize("write, message", [
    (lambda path: np.save(path.open("wb"), np.zeros(3)), "it is not a whole .npz (zip) file"),
    (lambda path: path.write_bytes(b""), "it is not a whole .npz (zip) file"),
    (lambda path: None, "No such file or directory"),
])
def test_files_that_are_no_checkpoint(tmp_path, write, message):
    path = tmp_path / "c.npz"
    write(path)
    with pytest.raises(CheckpointError, match=f"^{re.escape(f'cannot read checkpoint {path}: {message}')}$"):
        load_checkpoint(path, like={"a": np.zeros(1)})


KILLED_SAVE = """
import os, signal, sys
import numpy as np
from s4tf.checkpoint import save_checkpoint

os.fsync = lambda descriptor: os.kill(os.getpid(), signal.SIGKILL)  # killed after writing, before renaming
save_checkpoint(sys.argv[1], {"w": np.zeros(3, np.float32)}, epoch=2)
"""


def test_the_next_save_removes_what_a_killed_save_left(tmp_path):
    path = save_checkpoint(tmp_path / "c.npz", {"w": np.ones(3, np.float32)}, epoch=1)
    killed = subprocess.run([sys.executable, "-c", KILLED_SAVE, str(path)], capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    assert len(list(tmp_path.iterdir())) == 2  # the checkpoint and the killed save's temporary file
    assert load_checkpoint(path, like={"w": np.zeros(3, np.float32)})[1] == {"epoch": 1}
    save_checkpoint(path, {"w": np.ones(3, np.float32)}, epoch=3)
    assert [p.name for p in tmp_path.iterdir()] == ["c.npz"]


def resume(tmp_path) -> subprocess.CompletedProcess:
    argv = ["mlp", "--epochs", "1", "--out", str(tmp_path / "mlp.vmfb"), "--targets", "none", "--no-progress", "--resume"]
    return subprocess.run([sys.executable, "-m", "s4tf.tools.train", *argv], capture_output=True, text=True)


def mlp_checkpoint(path, **info):
    model = MODELS["mlp"](10, 0)
    return save_checkpoint(path, {"model": model, "opt": optim.Adam().init(model)}, **info)


def flip_middle_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1  # inside an array: most of the file is arrays
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage, message", [
    (lambda path: path.write_bytes(path.read_bytes()[:-100]), "it is not a whole .npz (zip) file"),
    (flip_middle_byte, "cannot read checkpoint"),
    (lambda path: save_checkpoint(path, {"model": MODELS["lenet"](10, 0)}, epoch=0), "the template has"),
    (lambda path: mlp_checkpoint(path, note="no epoch"), "records no epoch: it was not written by s4tf-train"),
])
def test_resume_from_a_bad_checkpoint_is_one_line(tmp_path, damage, message):
    path = mlp_checkpoint(tmp_path / "mlp.npz", epoch=0)
    damage(path)
    result = resume(tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("s4tf-train: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr
