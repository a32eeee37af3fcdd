"""f64 sin/cos/tanh on the host CPU link the system's libm; cross-compiled targets refuse them."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import s4tf
from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.system_libm import needs_system_libm

SINE = """
func.func @f(%x: tensor<3x{dtype}>) -> tensor<3x{dtype}> {{
  %0 = stablehlo.sine %x : tensor<3x{dtype}>
  return %0 : tensor<3x{dtype}>
}}"""


def test_only_f64_libm_ops_on_the_host_target_link_the_system_libm():
    def sine(dtype, op="sine"):
        return ModuleTraits.parse(SINE.format(dtype=dtype).replace("sine", op))

    assert needs_system_libm(sine("f64"), "cpu")
    assert not needs_system_libm(sine("f32"), "cpu")
    assert not needs_system_libm(sine("f64"), "android-arm64")
    assert not needs_system_libm(sine("f64", "exponential"), "cpu")


def relax(x, n):
    i = n * 0
    while i < n:
        x = x * 0.9999 + 0.0001 * s4tf.sin(x) + 0.0001 * s4tf.tanh(s4tf.cos(x))
        i = i + 1
    return x


def test_an_f64_loop_with_sin_cos_tanh_runs_inside_one_dispatch_on_the_cpu():
    x = np.array([0.3, 1.2, -2.0])
    got = np.asarray(s4tf.function(relax)(x, np.int32(500)))
    want = x.copy()
    for _ in range(500):
        want = want * 0.9999 + 0.0001 * np.sin(want) + 0.0001 * np.tanh(np.cos(want))
    np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("target", ["android-arm64", "linux-arm64"])
def test_phones_keep_the_located_availability_error(target):
    def wave(x):
        return s4tf.sin(x) * 2.0

    line = inspect.getsourcelines(wave)[1] + 1
    with pytest.raises(s4tf.CompilationError) as caught:
        s4tf.compile(wave, (np.ones(4),), target=target)
    message = str(caught.value)
    assert f"{__file__}:{line}:" in message
    assert f"s4tf.sin on f64 is not available on target '{target}': IREE's CPU code generation calls libm's sin" in message
