"""s4tf-run: run a compiled module's function on a device; inputs from .npy or literals."""

from __future__ import annotations

import numpy as np
import pytest
from loop_program import LOOP

import s4tf
from s4tf.deploy import describe
from s4tf.runtime.cpu import host_cpu
from s4tf.runtime.device import LoadedModule
from s4tf.runtime.targets import UnknownTargetError
from s4tf.tools.compile import run as compile_tool
from s4tf.tools.run import run

MLIR = """\
func.func @scale(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.mul"(%0, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func @negate(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = "s4tf.neg"(%x) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""

X = np.array([0.0, 0.5, -1.0, 2.0], np.float32)
Y = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """model.vmfb for the cpu, model-vmvx.vmfb and model-vulkan.vmfb, with x.npy and y.npy beside them."""
    folder = tmp_path_factory.mktemp("run")
    (folder / "model.mlir").write_text(MLIR)
    np.save(folder / "x.npy", X)
    np.save(folder / "y.npy", Y)
    for target, name in (("cpu", "model.vmfb"), ("vmvx", "model-vmvx.vmfb"), ("vulkan", "model-vulkan.vmfb")):
        assert compile_tool([str(folder / "model.mlir"), "--target", target, "-o", str(folder / name)]) == 0
    return folder


@pytest.fixture
def in_modules(modules, monkeypatch):
    monkeypatch.chdir(modules)
    return modules


def run_ok(capsys, *argv: str) -> str:
    code = run(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def run_error(capsys, *argv: str) -> str:
    code = run(list(argv))
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("s4tf-run: error: ") and "Traceback" not in err
    return err


def test_npy_inputs_to_an_npy_output(in_modules, capsys):
    run_ok(capsys, "model.vmfb", "--function", "scale", "--input", "@x.npy", "--input", "@y.npy", "--output", "@out.npy")
    np.testing.assert_allclose(np.load(in_modules / "out.npy"), np.exp(X) * Y, rtol=1e-6)


def test_literal_inputs_take_the_declared_dtype_and_print_to_stdout(in_modules, capsys):
    out = run_ok(capsys, "model.vmfb", "--function", "negate", "--input", "[3, -7]")
    assert out.splitlines() == ["result 0: int32[2]", "[-3,  7]"]


def test_portable_vmvx_module_on_the_cpu(in_modules, capsys):
    run_ok(capsys, "model-vmvx.vmfb", "--function", "scale", "--input", "@x.npy", "--input", "@y.npy", "--output", "@v.npy")
    np.testing.assert_allclose(np.load(in_modules / "v.npy"), np.exp(X) * Y, rtol=1e-6)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["model.vmfb", "--input", "@x.npy"], "the module has several functions, choose one with --function: "),
        (["model.vmfb", "--function", "scale", "--input", "@x.npy"], "'scale' takes 2 input(s) (tensor<4xf32>, tensor<4xf32>), got 1"),
        (["model.vmfb", "--function", "scale", "--input", "[1, 2]", "--input", "@y.npy"],
         "input 0 of 'scale' is float32[2], but the function takes tensor<4xf32>"),
        (["model.vmfb", "--function", "negate", "--input", "@missing.npy"], "cannot read input @missing.npy"),
        (["model.vmfb", "--function", "negate", "--input", "[1, 2"], "bad input '[1, 2'"),
        (["model.vmfb", "--function", "negate", "--input", "[1, 2]", "--output", "out.npy"], "bad --output 'out.npy': write @file.npy"),
        (["model.vmfb", "--function", "predict", "--input", "[1, 2]"], "predict"),
        (["model.vmfb", "--device", "tpu", "--function", "negate", "--input", "[1, 2]"], "tpu"),
        (["missing.vmfb"], "missing.vmfb"),
    ],
)
def test_bad_input(in_modules, capsys, argv, message):
    assert message in run_error(capsys, *argv)


def test_corrupt_module(in_modules, capsys):
    data = (in_modules / "model.vmfb").read_bytes()
    (in_modules / "corrupt.vmfb").write_bytes(data[: len(data) // 3])
    assert "corrupt.vmfb" in run_error(capsys, "corrupt.vmfb", "--function", "negate", "--input", "[1, 2]")


def test_module_for_another_target_names_both(in_modules, capsys):
    err = run_error(capsys, "model-vulkan.vmfb", "--device", "cpu", "--function", "negate", "--input", "[1, 2]")
    assert "vulkan" in err and "cpu" in err, err


# -- --list ------------------------------------------------------------------------------


def test_list_a_module_without_an_archive(in_modules, capsys):
    out = run_ok(capsys, "model.vmfb", "--list")
    assert out.splitlines() == [
        f"model.vmfb: built for target 'cpu', CPU '{host_cpu().name}'",
        "functions:",
        "  scale(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
        "  negate(tensor<2xi32>) -> tensor<2xi32>",
        "parameters: none read from an archive (weights, if any, are embedded)",
    ]


def test_list_the_parameters_of_a_phone_module(tmp_path, monkeypatch, capsys):
    """Names, dtypes and shapes of the weights, for a module this machine cannot run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text("import s4tf\n\n\ndef predict(w, b, x):\n    return s4tf.tanh(x @ w + b)\n")
    np.save(tmp_path / "w.npy", np.ones((3, 2), np.float32))
    np.save(tmp_path / "b.npy", np.ones(2, np.float32))
    assert compile_tool([
        "model.py:predict", "--arg", "@w.npy", "--arg", "@b.npy", "--arg", "f32[4,3]", "--weights", "0,1",
        "--entry", "predict_vjp", "--target", "android-arm64", "-o", "phone.vmfb",
    ]) == 0
    capsys.readouterr()
    out = run_ok(capsys, "phone.vmfb", "--list")
    assert out.splitlines() == [
        "phone.vmfb: built for target 'android-arm64', CPU 'generic'",
        "functions:",
        "  predict(tensor<4x3xf32>) -> tensor<4x2xf32>",
        "  predict_vjp(tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<4x3xf32>",
        "parameters, read from a .irpa archive (scope 'model'):",
        "  name  dtype  shape   bytes",
        "  w     f32    [3, 2]  24",
        "  b     f32    [2]     8",
    ]


def test_list_a_damaged_module(in_modules, capsys, tmp_path):
    bad = tmp_path / "bad.vmfb"
    bad.write_bytes(b"not a module")
    assert "bad.vmfb is not a valid IREE module" in run_error(capsys, str(bad), "--list")


# -- --device: IREE's CPU drivers ----------------------------------------------------------

#: No loop, a 128 KiB tensor: large enough to stay on local-task (s4tf.runtime.loop_driver).
WIDE = """\
func.func @wide(%x: tensor<32768xf32>) -> tensor<32768xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<32768xf32>) -> tensor<32768xf32>
  %1 = "s4tf.mul"(%0, %x) : (tensor<32768xf32>, tensor<32768xf32>) -> tensor<32768xf32>
  return %1 : tensor<32768xf32>
}
"""


@pytest.fixture(scope="module")
def driver_modules(tmp_path_factory):
    """loop.vmfb (loop-bound: records local-sync) and wide.vmfb (records local-task), with
    their inputs loop-x.npy and wide-x.npy."""
    folder = tmp_path_factory.mktemp("drivers")
    (folder / "loop.py").write_text(LOOP)
    (folder / "wide.mlir").write_text(WIDE)
    np.save(folder / "loop-x.npy", np.array([0.5, 1.0, 2.0, 7.0], np.float32))
    np.save(folder / "wide-x.npy", np.linspace(-3, 3, 32768, dtype=np.float32))
    assert compile_tool([str(folder / "loop.py:relax"), "--arg", "f32[4]", "-o", str(folder / "loop.vmfb")]) == 0
    assert compile_tool([str(folder / "wide.mlir"), "-o", str(folder / "wide.vmfb")]) == 0
    return folder


@pytest.mark.parametrize("name, recorded", [("loop", "local-sync"), ("wide", "local-task")])
def test_each_cpu_driver_gives_the_same_bits_and_says_it_ran(driver_modules, monkeypatch, capsys, name, recorded):
    """``--device cpu`` runs on the driver the module recorded when compiled (the rule of
    s4tf.runtime.loop_driver); ``--device local-sync|local-task`` on the one named."""
    monkeypatch.chdir(driver_modules)
    assert describe(f"{name}.vmfb").driver == recorded
    capsys.readouterr()
    outputs = {}
    for device, driver in (("cpu", recorded), ("local-sync", "local-sync"), ("local-task", "local-task")):
        code = run([f"{name}.vmfb", "--input", f"@{name}-x.npy", "--output", f"@{device}.npy", "--device", device, "-v"])
        err = capsys.readouterr().err
        assert code == 0, err
        function = "relax" if name == "loop" else "wide"
        assert err == f"s4tf-run: running '{function}' of {name}.vmfb on device 'cpu' with IREE driver '{driver}'\n"
        outputs[device] = np.load(driver_modules / f"{device}.npy")
    assert outputs["cpu"].tobytes() == outputs["local-sync"].tobytes() == outputs["local-task"].tobytes()


def test_quiet_without_verbose(in_modules, capsys):
    code = run(["model.vmfb", "--function", "negate", "--input", "[1, 2]", "--device", "local-task"])
    assert code == 0
    assert capsys.readouterr().err == ""


def test_unknown_device_names_the_choices(in_modules, capsys):
    err = run_error(capsys, "model.vmfb", "--device", "local-threads", "--function", "negate", "--input", "[1, 2]")
    assert err == (
        "s4tf-run: error: unknown device 'local-threads'; known devices: cpu, vulkan, cuda, "
        "or a CPU driver: local-sync, local-task\n"
    )


def test_help_spells_out_the_devices_and_drivers(capsys):
    with pytest.raises(SystemExit):
        run(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--device cpu|vulkan|cuda|local-sync|local-task" in out
    assert "local-sync: runs dispatches on the calling thread" in out


def test_a_gpu_module_is_refused_on_a_cpu_driver(in_modules, capsys):
    err = run_error(capsys, "model-vulkan.vmfb", "--device", "local-sync", "--function", "negate", "--input", "[1, 2]")
    assert "was built for target 'vulkan' and cannot run on device 'cpu'" in err


def test_load_takes_the_same_device_choices(driver_modules):
    x = np.load(driver_modules / "loop-x.npy")
    results = {}
    for device, driver in (("cpu", "local-sync"), ("local-sync", "local-sync"), ("local-task", "local-task")):
        module = s4tf.load(driver_modules / "loop.vmfb", device=device)
        assert module.driver == driver
        assert module._module.driver == driver and module._module.device == "cpu"
        results[device] = np.asarray(module.relax(x)).tobytes()
    assert len(set(results.values())) == 1
    with pytest.raises(UnknownTargetError, match=r"unknown device 'tpu'; known devices: cpu, vulkan, cuda, or a CPU driver: local-sync, local-task"):
        s4tf.load(driver_modules / "loop.vmfb", device="tpu")


def test_an_unknown_driver_is_refused():
    with pytest.raises(UnknownTargetError, match=r"unknown driver 'vulkan' for device 'cpu'; its drivers: local-sync, local-task"):
        LoadedModule(b"", "cpu", driver="vulkan")
