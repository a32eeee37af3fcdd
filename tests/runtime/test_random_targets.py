"""The same key gives the same draws on every target: bit for bit where the draw is
integer arithmetic (bits, keys, permutations, Bernoulli draws, uniform floats in
``[0, 1)``), within a few float roundings where float math follows (IREE's CPU code fuses
multiply-adds into FMAs, and each target has its own ``log``)."""

import numpy as np
import pytest

import s4tf
from s4tf.runtime.device import device_available

KEY = np.array([7, -99], np.int32)


def exact_draws(key):
    """Draws that are integer arithmetic on every target."""
    return (
        s4tf.random.bits(key, (500,)),
        s4tf.random.bits(key, (64,), np.int64),
        s4tf.random.uniform(key, (500,)),
        s4tf.random.split(key, 4),
        s4tf.random.fold_in(key, 3),
        s4tf.random.permutation(key, 40),
        s4tf.random.bernoulli(key, 0.25, (500,)),
    )


def float_draws(key):
    """Draws computed from the exact ones with float arithmetic."""
    return (
        s4tf.random.uniform(key, (500,), minval=-2.0, maxval=3.0),
        s4tf.random.normal(key, (500,)),
        s4tf.random.truncated_normal(key, -1.0, 2.0, (500,)),
        s4tf.random.gumbel(key, (500,)),
    )


def run(fn, target):
    return [np.asarray(result) for result in s4tf.function(fn, target=target)(KEY)]


TARGETS = [
    "vmvx",
    pytest.param("vulkan", marks=[pytest.mark.vulkan, pytest.mark.skipif(not device_available("vulkan"), reason="no Vulkan")]),
]


@pytest.fixture(scope="module")
def on_cpu():
    return run(exact_draws, "cpu"), run(float_draws, "cpu")


@pytest.mark.parametrize("target", TARGETS)
def test_draws_on_each_target_equal_the_cpus(on_cpu, target):
    exact, floats = on_cpu
    for index, (got, want) in enumerate(zip(run(exact_draws, target), exact)):
        np.testing.assert_array_equal(got, want, err_msg=f"exact draw {index} on {target}")
    for index, (got, want) in enumerate(zip(run(float_draws, target), floats)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"float draw {index} on {target}")


@pytest.mark.arm64
@pytest.mark.parametrize("target", ["linux-arm64"])
def test_draws_under_qemu_equal_the_hosts(arm64_runner, on_cpu, target, tmp_path):
    exact, floats = on_cpu
    module = s4tf.compile(exact_draws, (KEY,), target=target).save(tmp_path / "exact.vmfb")
    for index, (got, want) in enumerate(zip(arm64_runner.invoke(module, "exact_draws", [KEY], results=len(exact)), exact)):
        np.testing.assert_array_equal(got, want, err_msg=f"exact draw {index} on arm64")
    module = s4tf.compile(float_draws, (KEY,), target=target).save(tmp_path / "floats.vmfb")
    for index, (got, want) in enumerate(zip(arm64_runner.invoke(module, "float_draws", [KEY], results=len(floats)), floats)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"float draw {index} on arm64")
