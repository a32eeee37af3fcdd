"""Every target compiles the same small model; the ones this machine runs match NumPy.

Each target is compiled once per session (module-scoped fixture). cpu and vmvx always
run; vulkan runs on Mesa's lavapipe when installed, cuda on a GPU; arm64 modules run
under qemu in test_targets_arm64.py.
"""

from __future__ import annotations

import inspect

import iree.runtime as iree_runtime
import numpy as np
import pytest

import s4tf
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.passes.iree.availability import LIMITATIONS, TARGET_NAMES, find_limitation
from s4tf.runtime.device import (
    DeviceUnavailableError, LoadedModule, WrongTargetError, device_available, device_config,
)
from s4tf.runtime.reflection import TARGET_KEY
from s4tf.runtime.targets import DEVICES, TARGETS, UnknownTargetError, compile_flags, get_target, host_architecture
from devices_here import needs_device
from small_model import expected, model_inputs, predict


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """target -> path of the saved ``.vmfb`` (weights embedded), each compiled once."""
    directory = tmp_path_factory.mktemp("targets")
    return {
        target: s4tf.compile(predict, model_inputs(5), target=target, weights=(0, 1), embed_weights=True).save(directory / f"predict-{target}.vmfb")
        for target in TARGETS
    }


# -- the tables ---------------------------------------------------------------------------------


def test_each_target_names_its_backend_and_a_known_device():
    for target in TARGETS.values():
        assert target.compile_flags[0] == f"--iree-hal-target-backends={target.backend}"
        assert target.device in DEVICES


def test_extra_flags_come_last():
    flags = compile_flags("vulkan", ["--iree-vulkan-target=llvmpipe"])
    assert flags[-1] == "--iree-vulkan-target=llvmpipe"
    assert flags[:-1] == get_target("vulkan").compile_flags


def test_unknown_target_lists_the_known_ones():
    with pytest.raises(UnknownTargetError, match="unknown target 'tpu'; known targets: cpu, vmvx, vulkan"):
        get_target("tpu")


def test_arm64_targets_run_only_on_arm64_machines():
    arm64 = get_target("android-arm64")
    assert arm64.runs_on("cpu") == (host_architecture() == "aarch64")
    assert not arm64.runs_on("vulkan")
    assert get_target("cpu").runs_on("cpu") and not get_target("cpu").runs_on("cuda")


# -- every target compiles the model; the local ones run it ---------------------------------------


@pytest.mark.parametrize("target", list(TARGETS))
def test_every_target_compiles_the_model(modules, target):
    vmfb = modules[target].read_bytes()
    module = iree_runtime.VmModule.copy_buffer(device_config("cpu").vm_instance, vmfb)  # parses, loads no code
    assert module.lookup_function("predict").reflection[TARGET_KEY] == target
    assert TARGETS[target].executable_format.encode() in vmfb  # code for this target's processor
    formats = {other.executable_format for other in TARGETS.values()} - {TARGETS[target].executable_format}
    assert not any(other.encode() in vmfb for other in formats)


@pytest.mark.parametrize(
    "target, device",
    [
        ("cpu", "cpu"),
        ("vmvx", "cpu"),
        pytest.param("vulkan", "vulkan", marks=[pytest.mark.vulkan, needs_device("vulkan")]),
        pytest.param("cuda", "cuda", marks=[pytest.mark.gpu, needs_device("cuda")]),
    ],
)
def test_model_runs_and_matches_numpy(modules, target, device):
    module = s4tf.load(modules[target], device=device)
    w, b, x = model_inputs(5)
    result = module.predict(x)
    assert result.target == target
    np.testing.assert_allclose(np.asarray(result), expected(w, b, x), rtol=1e-5, atol=1e-6)


@pytest.mark.vulkan
@needs_device("vulkan")
def test_staged_function_on_vulkan_reads_results_back():
    staged = s4tf.function(predict, target="vulkan")
    w, b, x = model_inputs(5)
    np.testing.assert_allclose(np.asarray(staged(w, b, x)), expected(w, b, x), rtol=1e-5, atol=1e-6)


# -- a module built for another target -----------------------------------------------------------


@pytest.mark.parametrize("target", ["vulkan", "cuda", "android-arm64"])
def test_module_for_another_target_names_both(modules, target):
    with pytest.raises(WrongTargetError) as caught:
        s4tf.load(modules[target], device="cpu")
    message = str(caught.value)
    assert f"built for target '{target}'" in message and "cannot run on device 'cpu'" in message


def test_module_without_s4tf_reflection_is_named_by_its_code_format():
    """A module compiled by IREE directly (no s4tf.target) is recognized from IREE's refusal."""
    import iree.compiler as iree_compiler

    text = """
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.exponential %a : tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    vmfb = iree_compiler.compile_str(text, input_type="stablehlo", extra_args=compile_flags("linux-arm64"))
    with pytest.raises(WrongTargetError, match="built for target 'android-arm64' or 'linux-arm64' and cannot run on device 'cpu'"):
        LoadedModule(vmfb, "cpu", source="foreign.vmfb")


@pytest.mark.skipif(device_available("cuda"), reason="this machine has a CUDA device")
def test_missing_device_is_a_clear_error(modules):
    with pytest.raises(DeviceUnavailableError, match="device 'cuda' is not available here: .+"):
        s4tf.load(modules["cuda"], device="cuda")


# -- availability: errors at the user's line before IREE runs -------------------------------------


def test_f64_on_vulkan_is_reported_at_the_users_line():
    @s4tf.function(target="vulkan")
    def scale(x):
        return s4tf.exp(x) * 2.0

    line = inspect.getsourcelines(scale.python_fn)[1] + 2  # the `return` line
    with pytest.raises(s4tf.CompilationError) as caught:
        scale(np.ones(4))  # float64
    message = str(caught.value)
    assert f"{__file__}:{line}:" in message
    assert "s4tf.exp on f64 is not available on target 'vulkan'" in message
    assert "s4tf.mul on f64 is not available on target 'vulkan'" in message


def test_the_same_function_in_f32_runs_on_the_target():
    @s4tf.function(target="vmvx")
    def scale(x):
        return s4tf.exp(x) * 2.0

    x = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(scale(x)), np.exp(x) * 2, rtol=1e-6)


def test_every_limitation_names_a_known_target():
    assert {limitation.target for limitation in LIMITATIONS} <= set(TARGETS)


def test_the_passes_know_the_targets_of_the_runtime():
    assert tuple(TARGETS) == TARGET_NAMES


def test_limitations_apply_to_the_dtypes_and_ops_they_name():
    assert find_limitation("vulkan", "s4tf.exp", ["f64"], ["f64"]) is not None
    assert find_limitation("vulkan", "s4tf.exp", ["f32"], ["f32"]) is None
    assert find_limitation("android-arm64", "s4tf.tanh", ["f64"], ["f64"]) is not None
    assert find_limitation("cpu", "s4tf.tanh", ["f64"], ["f64"]) is None  # it links the system's libm
    assert find_limitation("cpu", "s4tf.exp", ["f64"], ["f64"]) is None
    assert find_limitation("vmvx", "s4tf.cast", ["f64"], ["f32"]) is not None  # a conversion from f64
    assert find_limitation("vmvx", "s4tf.cast", ["f32"], ["f64"]) is None
    assert find_limitation("vmvx", "s4tf.cast", ["i32"], ["f64"]) is not None  # IREE 3.13: no i32 -> f64 there
    assert find_limitation("vmvx", "s4tf.cast", ["i64"], ["f64"]) is None


def test_an_int32_counter_added_to_a_float_is_an_error_at_the_users_line_on_vmvx():
    """NumPy's promotion makes ``int32 + float32`` float64, and VMVX cannot convert the int32."""
    line = inspect.currentframe().f_lineno + 1
    add = s4tf.function(lambda k, x: x + k, target="vmvx")
    with pytest.raises(s4tf.CompilationError) as caught:
        add(np.int32(3), np.float32(1.0))
    assert f"{__file__}:{line}:" in str(caught.value) and "VMVX cannot convert 8- and 32-bit integers to f64" in str(caught.value)
    bare = ("func.func @main(%k: tensor<i32>) -> tensor<f64> {\n"
            "  %x = stablehlo.convert %k : (tensor<i32>) -> tensor<f64>\n  return %x : tensor<f64>\n}")
    with pytest.raises(s4tf.CompilationError, match="arith.sitofp"):  # the limitation is IREE's
        compile_and_load(bare, "vmvx")
