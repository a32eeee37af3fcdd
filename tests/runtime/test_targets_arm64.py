"""Phones without a phone: arm64 modules run under qemu-aarch64 and match NumPy and the host.

Needs ``qemu-aarch64`` and the arm64 C and C++ libraries (Debian ``qemu-user``,
``libc6-arm64-cross``, ``libstdc++6-arm64-cross``; ``.ci/run`` installs them), and the
aarch64 ``iree-run-module`` (``tools/bench/arm64_runs.py``), downloaded once with pip into
pytest's cache folder (the ``run_arm64`` fixture of tests/conftest.py). Without them the tests skip.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import s4tf
from small_model import model_inputs, predict

pytestmark = pytest.mark.arm64


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """target -> path of the saved module (weights in a .irpa beside it), with the input x.npy."""
    directory = tmp_path_factory.mktemp("arm64")
    np.save(directory / "x.npy", model_inputs(7)[2])
    return {
        target: s4tf.compile(predict, model_inputs(7), target=target, weights=(0, 1)).save(directory / f"predict-{target}.vmfb")
        for target in ("android-arm64", "linux-arm64", "cpu")
    }


def run_flags(module: Path, output: Path) -> list[str]:
    return [
        f"--module={module}", "--function=predict", f"--input=@{module.parent / 'x.npy'}",
        f"--parameters=model={module.with_suffix('.irpa')}", f"--output=@{output}",
    ]


@pytest.mark.parametrize("target", ["android-arm64", "linux-arm64"])
def test_arm64_module_runs_under_qemu_and_matches_numpy_and_the_host(run_arm64, saved, target, tmp_path):
    result = run_arm64(*run_flags(saved[target], tmp_path / "y.npy"))
    assert result.returncode == 0, result.stderr
    w, b, x = model_inputs(7)
    arm64 = np.load(tmp_path / "y.npy")
    np.testing.assert_allclose(arm64, np.tanh(x @ w + b), rtol=1e-5, atol=1e-6)
    host = np.asarray(s4tf.load(saved["cpu"]).predict(x))
    np.testing.assert_allclose(arm64, host, rtol=1e-5, atol=1e-6)


def test_the_arm64_runtime_rejects_the_host_module(run_arm64, saved, tmp_path):
    """The other half of what makes the test above real: each runtime refuses the other's code."""
    result = run_arm64(*run_flags(saved["cpu"], tmp_path / "y.npy"))
    assert result.returncode != 0
    assert "embedded-elf-x86_64" in result.stderr
    assert not (tmp_path / "y.npy").exists()
