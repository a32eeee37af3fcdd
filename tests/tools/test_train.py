"""``s4tf-train``: trains on the digits, checkpoints, resumes, and writes modules that run."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import s4tf
from s4tf.checkpoint import load_checkpoint
from s4tf.data import load_digits
from s4tf.tools.train import MODELS, Scaling, run


def test_lenet_trains_and_its_host_and_phone_modules_agree_with_the_model(tmp_path, capsys, run_arm64):
    out = tmp_path / "lenet.vmfb"
    code = run(["lenet", "--epochs", "1", "--batch-size", "64", "--out", str(out), "--no-progress"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    epoch = re.search(
        r"epoch 1/1: train loss [\d.]+ accuracy [\d.]+, test loss [\d.]+ accuracy [\d.]+ "
        r"\(([\d.]+) s, ([\d.]+) s of it staging and compiling\)",
        printed.out,
    )
    assert epoch, printed.out
    assert 0 < float(epoch.group(2)) <= float(epoch.group(1))
    accuracy = float(re.search(r"test accuracy: ([\d.]+) on 359 held-out images", printed.out).group(1))
    assert accuracy > 0.5  # one epoch of 22 steps; the README's 10 epochs reach 0.97
    phone = tmp_path / "lenet-android-arm64.vmfb"
    assert f"wrote {phone} (android-arm64" in printed.out

    (x_train, _), (x_test, _) = load_digits()
    template = MODELS["lenet"](10, 0)
    state, info = load_checkpoint(out.with_suffix(".npz"), like={"model": template, "opt": s4tf.optim.Adam().init(template)})
    assert info["epoch"] == 0 and info["test_accuracy"] == pytest.approx(accuracy, abs=1e-4)
    image = x_test[:1]
    expected = np.asarray(state["model"](Scaling(float(x_train.mean()), float(x_train.std()))(image)))
    host = np.asarray(s4tf.load(out).predict(image))
    np.testing.assert_allclose(host, expected, rtol=1e-4, atol=1e-4)

    np.save(tmp_path / "image.npy", image)
    result = run_arm64(
        f"--module={phone}", "--function=predict", f"--input=@{tmp_path / 'image.npy'}",
        f"--parameters=model={phone.with_suffix('.irpa')}", f"--output=@{tmp_path / 'logits.npy'}",
    )
    assert result.returncode == 0, result.stderr
    np.testing.assert_allclose(np.load(tmp_path / "logits.npy"), host, rtol=1e-4, atol=1e-4)


def test_resume_continues_after_the_last_saved_epoch(tmp_path, capsys):
    common = ["mlp", "--batch-size", "128", "--out", str(tmp_path / "mlp.vmfb"), "--targets", "none", "--no-progress"]
    assert run([*common, "--epochs", "1"]) == 0
    first = capsys.readouterr().out
    assert "epoch 1/1" in first and "wrote" not in first
    assert run([*common, "--epochs", "3", "--resume"]) == 0
    resumed = capsys.readouterr().out
    assert f"resuming from {tmp_path / 'mlp.npz'} after epoch 1" in resumed
    assert "epoch 1/3" not in resumed and "epoch 2/3" in resumed and "epoch 3/3" in resumed


@pytest.mark.parametrize("flags, message", [
    (["--targets", "cpu,tpu"], "unknown target 'tpu'; known targets: cpu"),
    (["--epochs", "0"], "--epochs must be at least 1, got 0"),
    (["--lr", "-1"], "--lr must be positive"),
    (["--batch-size", "100000"], "larger than the 1438 training examples"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, flags, message):
    assert run(["mlp", "--out", str(tmp_path / "m.vmfb"), "--no-progress", *flags]) == 1
    err = capsys.readouterr().err
    assert err.startswith("s4tf-train: error: ") and message in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_help_names_the_models_and_datasets():
    result = subprocess.run(["s4tf-train", "--help"], capture_output=True, text=True, check=True)
    assert "{lenet,mlp}" in result.stdout and "digits" in result.stdout and "--resume" in result.stdout


@pytest.mark.slow
def test_the_readme_job_reaches_97_percent_for_every_seed(tmp_path, capsys):
    """The README's promise: LeNet-5 with s4tf-train's defaults, 10 epochs, at least 97 %
    held-out accuracy for seeds 0 to 4 (same bits cold or warm: test_train_determinism.py)."""
    for seed in range(5):
        assert run(["lenet", "--epochs", "10", "--seed", str(seed), "--targets", "none", "--no-progress",
                    "--checkpoint", str(tmp_path / f"seed{seed}.npz")]) == 0
        printed = capsys.readouterr().out
        accuracy = float(re.search(r"test accuracy: ([\d.]+) on 359 held-out images", printed).group(1))
        assert accuracy >= 0.97, f"seed {seed}: {accuracy}"
