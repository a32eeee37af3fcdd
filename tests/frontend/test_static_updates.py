"""``x.at[index]`` updates through ints and slices (a hand tracker's pose, built element by
element) of tensors of up to ``SELECTED_UPDATE_ELEMENTS`` are selects of a constant mask,
which IREE fuses with the code around them; larger tensors keep one scatter. Values against
NumPy on IREE for every kind and dtype, derivatives against finite differences, ``vmap``."""

import sys
from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf.arrays import indexing

sys.path.insert(0, str(Path(__file__).parents[1] / "autodiff"))
from gradient_checks import directional_check  # noqa: E402

RNG = np.random.default_rng(5)
X = RNG.normal(size=(5, 6, 4)).astype(np.float32)
INDICES = [np.s_[3, 0], np.s_[1, :], np.s_[::2, 1:5:3, 2], np.s_[::-2, 1], np.s_[-1, ::-1, 0], np.s_[2:2], np.s_[..., 3],
           np.s_[1:4, 2], np.s_[4, 5, 3]]
UFUNCS = {"set": None, "add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}


def _values(x):
    """One update value for each of INDICES: a number where even, else the indexed shape."""
    return [np.asarray(2.5 + i, x.dtype) if i % 2 == 0 else (RNG.normal(size=x[index].shape) * 3).astype(x.dtype)
            for i, index in enumerate(INDICES)]


def _numpy(x, index, value, kind):
    result = x.copy()
    result[index] = value if kind == "set" else UFUNCS[kind](result[index], value)
    return result


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_values_match_numpy_on_iree(dtype):
    x = (X * 3).astype(dtype)
    values = _values(x)
    kinds = ["set", "max"] if dtype == np.bool_ else list(UFUNCS)
    staged = s4tf.function(lambda x, *values: [getattr(x.at[index], kind)(value)
                                               for kind in kinds for index, value in zip(INDICES, values)])
    results = iter(staged(x, *values))
    for kind in kinds:
        for index, value in zip(INDICES, values):
            np.testing.assert_array_equal(np.asarray(next(results)), _numpy(x, index, value, kind), err_msg=f"{kind} {index!r}")


def test_small_tensors_update_by_select_large_ones_by_scatter():
    small = str(s4tf.function(lambda x, v: x.at[1, ::2].set(v)).lower(X, np.ones((3, 4), np.float32)))
    assert '"s4tf.scatter"' not in small and '"s4tf.pad"' in small and '"s4tf.iota"' in small  # a mask of iotas
    rows = indexing.SELECTED_UPDATE_ELEMENTS // 4 + 1
    large = str(s4tf.function(lambda x, v: x.at[3].set(v)).lower(np.zeros((rows, 4), np.float32), np.ones(4, np.float32)))
    assert '"s4tf.scatter"' in large and '"s4tf.select"' not in large


def test_a_pose_built_element_by_element():
    """The GradBench hand tracker's pose: rows of a matrix set from a parameter vector."""
    def pose(theta):
        params = s4tf.zeros((6, 3), theta.dtype).at[0, :].set(theta[0:3]).at[1, :].set(1.0)
        for row in range(2, 6):
            params = params.at[row, row % 3].set(theta[row])
        return s4tf.sin(params) * params

    theta = RNG.normal(size=6)
    expected = np.zeros((6, 3))
    expected[0], expected[1] = theta[0:3], 1.0
    for row in range(2, 6):
        expected[row, row % 3] = theta[row]
    np.testing.assert_allclose(np.asarray(s4tf.function(pose)(theta)), np.sin(expected) * expected, rtol=1e-15)
    directional_check(pose, [theta])


@pytest.mark.parametrize("kind", list(UFUNCS))
def test_derivatives_against_finite_differences(kind):
    x, value = RNG.normal(size=(4, 5)) + 3, RNG.normal(size=(2, 3))
    directional_check(lambda x, v: s4tf.tanh(getattr(x.at[1:4:2, ::-2], kind)(v)),
                      [x, value])


def test_vmap_over_the_value_and_the_tensor():
    x, values = X[0], RNG.normal(size=(3, 4)).astype(np.float32)
    batched = s4tf.function(s4tf.vmap(lambda x, v: x.at[2, 1:].add(v[1:]).at[0, 0].set(v[0]), in_axes=(None, 0)))(x, values)
    for row, value in zip(np.asarray(batched), values):
        expected = x.copy()
        expected[2, 1:] += value[1:]
        expected[0, 0] = value[0]
        np.testing.assert_array_equal(row, expected)
    stacked = s4tf.function(s4tf.vmap(lambda x: x.at[::2, 1].multiply(2.0)))(X)
    expected = X.copy()
    expected[:, ::2, 1] *= 2
    np.testing.assert_array_equal(np.asarray(stacked), expected)


@pytest.mark.arm64
def test_updates_and_a_reversed_scan_on_android_arm64_under_qemu(arm64_runner, tmp_path):
    """The mask of a static update is computed from iotas: a select on a constant boolean
    mask read its true positions as false on android-arm64 (IREE 3.13;
    tests/lit/iree_reproducers/select_on_a_constant_mask_arm64.mlir), so ``x.at[5].set(v)``
    and the first row of a reversed ``scan`` came back as zeros."""
    x = np.random.default_rng(0).normal(size=(6, 3)).astype(np.float32)

    def programs(x):
        def step(c, xi):
            c = s4tf.tanh(c * 0.9 + xi)
            return c, c * xi

        return s4tf.zeros((6, 3)).at[5].set(s4tf.tanh(x[5])), s4tf.scan(step, x[0] * 0.0, x, reverse=True)[1]

    module = s4tf.compile(programs, (x,), target="android-arm64")
    row, ys = arm64_runner.invoke(module.save(tmp_path / "updates.vmfb"), module.entry_points[0], [x], results=2)
    want_row, want_ys = (np.asarray(r) for r in s4tf.function(programs)(x))
    np.testing.assert_allclose(row, want_row, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ys, want_ys, rtol=1e-5, atol=1e-6)
    assert np.abs(want_row[5]).min() > 0.1 and np.abs(want_ys[5]).min() > 0.05
