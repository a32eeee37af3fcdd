"""Phones without a phone: arm64 modules run under qemu-aarch64 and match NumPy and the host.

Needs ``qemu-aarch64`` and the arm64 C and C++ libraries (Debian ``qemu-user``,
``libc6-arm64-cross``, ``libstdc++6-arm64-cross``; ``.ci/run`` installs them), and the
aarch64 ``iree-run-module`` from the ``iree-base-runtime`` aarch64 wheel, which the
fixture downloads once with pip into pytest's cache folder. Without them the tests skip.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.arm64

ARM64_SYSROOT = Path("/usr/aarch64-linux-gnu")
TOOL_IN_WHEEL = "iree/_runtime_libs/iree-run-module"


def predict(w, b, x):
    return s4tf.tanh(x @ w + b)


def model_inputs():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    return w, b, x


def download_aarch64_tool(folder: Path, version: str) -> Path:
    """``iree-run-module`` for aarch64 from the ``iree-base-runtime`` wheel, kept in ``folder``."""
    tool = folder / "iree-run-module"
    if tool.exists():
        return tool
    with tempfile.TemporaryDirectory(dir=folder) as download:
        command = [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            "--platform", "manylinux_2_28_aarch64", "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}",
            "--dest", download, f"iree-base-runtime=={version}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            pytest.skip(f"cannot download the aarch64 IREE runtime: {result.stderr.strip()[-300:]}")
        (wheel,) = Path(download).glob("*.whl")
        partial = Path(download) / "iree-run-module"
        with zipfile.ZipFile(wheel) as archive:
            partial.write_bytes(archive.read(TOOL_IN_WHEEL))
        partial.chmod(0o755)
        os.replace(partial, tool)  # atomic: a parallel worker sees the whole file or none
    return tool


@pytest.fixture(scope="session")
def run_arm64(pytestconfig):
    """Runs the aarch64 ``iree-run-module`` under qemu with the given flags; returns the process."""
    qemu = shutil.which("qemu-aarch64")
    if qemu is None or not (ARM64_SYSROOT / "lib" / "ld-linux-aarch64.so.1").exists():
        pytest.skip("needs qemu-aarch64 and the arm64 C libraries (apt: qemu-user libc6-arm64-cross libstdc++6-arm64-cross)")
    version = importlib.metadata.version("iree-base-runtime")
    tool = download_aarch64_tool(pytestconfig.cache.mkdir(f"iree-runtime-aarch64-{version}"), version)

    def run(*flags: str) -> subprocess.CompletedProcess:
        command = [qemu, "-L", str(ARM64_SYSROOT), str(tool), "--device=local-task", *flags]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    return run


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """target -> path of the saved module (weights in a .irpa beside it), with the input x.npy."""
    directory = tmp_path_factory.mktemp("arm64")
    np.save(directory / "x.npy", model_inputs()[2])
    return {
        target: s4tf.compile(predict, model_inputs(), target=target, weights=(0, 1)).save(directory / f"predict-{target}.vmfb")
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
    w, b, x = model_inputs()
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
