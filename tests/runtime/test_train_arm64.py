"""Training on a phone: the training step compiled for android-arm64 trains under qemu,
step after step, with the host's losses (tools/bench/train_arm64.py)."""

from __future__ import annotations

import numpy as np
import pytest

from train_arm64 import train_on_phone

pytestmark = pytest.mark.arm64


def test_the_training_step_trains_under_qemu_like_on_the_host(arm64_runner, tmp_path):
    result = train_on_phone(arm64_runner, tmp_path, "mlp", steps=4, batch=32)
    np.testing.assert_allclose(result.losses, result.host_losses, rtol=1e-3, atol=1e-4)
    assert result.losses[-1] < result.losses[0]
    assert len(set(result.losses)) == 4  # the state really carried from run to run
    assert 10_000 < result.module_bytes < 1_000_000
