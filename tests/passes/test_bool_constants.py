"""``s4tf-bool-constants-behind-barriers`` on whole programs: selects on constant masks a
user writes give NumPy's numbers on android-arm64 (IREE 3.13 read the true positions of some
masks as false there: tests/lit/iree_reproducers/select_on_a_constant_mask_arm64.mlir)."""

import numpy as np
import pytest

import s4tf
from s4tf.passes.pipeline import lowering_pipeline


def _last_row(shape):
    mask = np.zeros(shape, bool)
    mask[-1] = True
    return mask


def test_only_the_aarch64_pipelines_put_masks_behind_barriers():
    mask = _last_row((6, 3))
    lowered = s4tf.function(lambda x: s4tf.where(mask, x, 0.0)).lower(np.ones((6, 3), np.float32))
    assert "optimization_barrier" in lowered.stablehlo(lowering_pipeline("android-arm64"))
    assert "optimization_barrier" not in lowered.stablehlo(lowering_pipeline("cpu"))


@pytest.mark.arm64
def test_selects_on_constant_masks_on_android_arm64_under_qemu(arm64_runner, tmp_path):
    """The masks IREE 3.13 got wrong (a 6x3, a 2x3 and a 6x2 mask whose last row alone is
    true) in ``where`` and in a loop's body, beside a random mask."""
    rng = np.random.default_rng(0)
    masks = [_last_row((6, 3)), _last_row((2, 3)), _last_row((6, 2)), rng.random((5, 7)) < 0.4]
    inputs = [rng.normal(size=m.shape).astype(np.float32) for m in masks]

    def programs(*xs):
        selected = [s4tf.where(m, x, 0.0) for m, x in zip(masks, xs)]
        looped = s4tf.lax.fori_loop(0, 3, lambda i, c: s4tf.where(masks[0], s4tf.sin(c), c * 0.5), xs[0])
        return (*selected, looped)

    module = s4tf.compile(programs, inputs, target="android-arm64")
    got = arm64_runner.invoke(module.save(tmp_path / "masks.vmfb"), module.entry_points[0], inputs, results=5)
    looped = inputs[0]
    for _ in range(3):
        looped = np.where(masks[0], np.sin(looped), looped * 0.5)
    for g, want in zip(got, [*(np.where(m, x, 0) for m, x in zip(masks, inputs)), looped]):
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
