"""s4tf-params: parameter archives written from .npy/.npz, listed, and read back."""

from __future__ import annotations

import iree.runtime as iree_runtime
import numpy as np
import pytest

import s4tf
from s4tf.tools.params import run

W = np.arange(6, dtype=np.float32).reshape(3, 2)
STEPS = np.array([1, 2, 3], np.int64)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "w.npy", W)
    np.savez(tmp_path / "more.npz", steps=STEPS, mask=np.array([True, False]))
    return tmp_path


def params(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_pack_show_unpack(folder, capsys):
    code, _, err = params(capsys, "pack", "new.irpa", "w=@w.npy", "more.npz")
    assert code == 0, err
    assert (folder / "new.irpa.sha256").is_file()
    code, out, _ = params(capsys, "show", "new.irpa")
    assert code == 0
    assert out.splitlines() == [
        "name   dtype  shape   bytes",
        "w      f32    [3, 2]  24",
        "steps  i64    [3]     24",
        "mask   i1     [2]     2",
    ]
    assert params(capsys, "unpack", "new.irpa", "-o", "back.npz")[0] == 0
    with np.load(folder / "back.npz") as back:
        np.testing.assert_array_equal(back["w"], W)
        np.testing.assert_array_equal(back["steps"], STEPS)
        assert back["mask"].dtype == np.bool_
    loaded = s4tf.load_parameters(folder / "new.irpa")
    np.testing.assert_array_equal(loaded["w"], W)


def test_show_an_archive_without_metadata(folder, capsys):
    """Entries written by another tool (raw bytes, no shape or dtype) are listed by size."""
    index = iree_runtime.ParameterIndex()
    index.add_buffer("raw", np.zeros(16, np.uint8))
    index.create_archive_file(str(folder / "raw.irpa"))
    code, out, _ = params(capsys, "show", "raw.irpa")
    assert code == 0
    assert out.splitlines()[1] == "raw   ?      ?      16"
    code, _, err = params(capsys, "unpack", "raw.irpa", "-o", "raw.npz")
    assert code == 1
    assert err == "s4tf-params: error: parameter 'raw' in raw.irpa has no shape and dtype recorded (written by another tool): its 16 bytes cannot be read as an array\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["pack", "x.irpa", "w=w.npy"], "bad array 'w=w.npy': write KEY=@file.npy or give a .npz file"),
        (["pack", "x.irpa", "w=@missing.npy"], "cannot read missing.npy: "),
        (["pack", "x.irpa", "w=@w.npy", "w=@w.npy"], "key 'w' is given twice"),
        (["show", "missing.irpa"], "cannot read parameter archive missing.irpa: "),
    ],
)
def test_bad_input_is_one_line(folder, capsys, argv, message):
    code, _, err = params(capsys, *argv)
    assert code == 1
    assert err.startswith(f"s4tf-params: error: {message}") and err.count("\n") == 1


def test_bfloat16_cannot_go_to_npz(folder, capsys):
    s4tf.save_parameters(folder / "bf.irpa", {"w": W.astype(s4tf.bfloat16)})
    assert params(capsys, "show", "bf.irpa")[1].splitlines()[1] == "w     bf16   [3, 2]  12"
    code, _, err = params(capsys, "unpack", "bf.irpa", "-o", "bf.npz")
    assert code == 1
    assert "parameter 'w' is bfloat16, which .npz files cannot hold; read it with s4tf.load_parameters" in err
