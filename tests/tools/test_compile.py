"""s4tf-compile: Python functions and .mlir files (s4tf dialect, StableHLO) to .vmfb per target."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s4tf
from s4tf.tools.compile import run

MODEL = """\
import s4tf


def predict(w, b, x):
    return s4tf.tanh(x @ w + b)
"""

S4TF_MLIR = """\
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "s4tf.add"(%0, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""

STABLEHLO_MLIR = """\
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

F64_MLIR = """\
func.func @scale(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "s4tf.exp"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
"""

STABLEHLO_CONVOLUTION = """func.func @f(%x: tensor<1x8x8x4xf32>, %t: tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32> {
  %0 = stablehlo.convolution(%x, %t) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>) -> tensor<1x6x6x2xf32>
  return %0 : tensor<1x6x6x2xf32>
}
"""

W = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)
B = np.random.default_rng(2).standard_normal(2).astype(np.float32)
X = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A folder with model.py, w.npy, b.npy and the .mlir inputs, as the working directory."""
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "s4tf.mlir").write_text(S4TF_MLIR)
    (tmp_path / "stablehlo.mlir").write_text(STABLEHLO_MLIR)
    (tmp_path / "f64.mlir").write_text(F64_MLIR)
    np.save(tmp_path / "w.npy", W)
    np.save(tmp_path / "b.npy", B)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def compile_ok(capsys, *argv: str) -> str:
    code = run(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def compile_error(capsys, *argv: str) -> str:
    """stderr of a failing run: one clear line (or located lines), exit code 1."""
    code = run(list(argv))
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("s4tf-compile: error: ") and "Traceback" not in err
    return err


def test_python_function_with_shapes(folder, capsys):
    compile_ok(capsys, "model.py:predict", "--arg", "f32[3,2]", "--arg", "f32[2]", "--arg", "f32[4,3]", "-o", "mlp.vmfb")
    result = s4tf.load(folder / "mlp.vmfb").predict(W, B, X)
    np.testing.assert_allclose(np.asarray(result), np.tanh(X @ W + B), rtol=1e-5, atol=1e-6)


def test_python_function_with_weights_in_an_archive_and_a_vjp_beside_it(folder, capsys):
    """``--entry predict_vjp`` adds the derivative: the module has predict and predict_vjp."""
    compile_ok(
        capsys, "model.py:predict", "--arg", "@w.npy", "--arg", "@b.npy", "--arg", "f32[4,3]", "--weights", "0,1",
        "--entry", "predict_vjp", "-o", "mlp.vmfb",
    )
    assert (folder / "mlp.irpa").is_file()
    module = s4tf.load(folder / "mlp.vmfb")
    assert sorted(module.functions) == ["predict", "predict_vjp"]
    np.testing.assert_allclose(np.asarray(module.predict(X)), np.tanh(X @ W + B), rtol=1e-5, atol=1e-6)
    dy = np.ones((4, 2), np.float32)
    dx = np.asarray(module.predict_vjp(X, dy)[-1])
    np.testing.assert_allclose(dx, ((1 - np.tanh(X @ W + B) ** 2) * dy) @ W.T, rtol=1e-4, atol=1e-5)


def test_s4tf_dialect_mlir_for_several_targets_into_a_folder(folder, capsys):
    compile_ok(capsys, "s4tf.mlir", "--target", "cpu", "--target", "vmvx", "--target", "android-arm64", "-o", "out")
    modules = ["s4tf-android-arm64.vmfb", "s4tf-cpu.vmfb", "s4tf-vmvx.vmfb"]
    assert sorted(p.name for p in (folder / "out").iterdir()) == sorted([*modules, *(f"{m}.sha256" for m in modules)])
    x = np.linspace(0, 1, 4, dtype=np.float32)
    for target in ("cpu", "vmvx"):
        result = s4tf.load(folder / "out" / f"s4tf-{target}.vmfb").scale(x)
        np.testing.assert_allclose(np.asarray(result), np.exp(x) + x, rtol=1e-6)


def test_stablehlo_mlir(folder, capsys):
    compile_ok(capsys, "stablehlo.mlir", "-o", "double.vmfb")
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(s4tf.load(folder / "double.vmfb").double(x)), 2 * x)


def test_emit_mlir_and_stablehlo(folder, capsys):
    staged = compile_ok(capsys, "model.py:predict", "--arg", "f32[3,2]", "--arg", "f32[2]", "--arg", "f32[4,3]", "--emit", "mlir")
    assert '"s4tf.tanh"' in staged and "func.func @predict" in staged
    lowered = compile_ok(capsys, "s4tf.mlir", "--emit", "stablehlo")
    assert "stablehlo.exponential" in lowered and '"s4tf.' not in lowered


def test_availability_errors_at_the_mlir_line(folder, capsys):
    err = compile_error(capsys, "f64.mlir", "--target", "vulkan", "-o", "out")
    assert "f64.mlir:2:8: error: s4tf.exp on f64 is not available on target 'vulkan'" in err
    assert not (folder / "out").exists()


def test_availability_errors_at_the_python_line(folder, capsys):
    err = compile_error(capsys, "model.py:predict", "--arg", "f64[3,2]", "--arg", "f64[2]", "--arg", "f64[4,3]", "--target", "vulkan")
    assert f"{folder / 'model.py'}:5:" in err and "s4tf.tanh on f64 is not available on target 'vulkan'" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["model.py:predict", "--arg", "f32[3,2]", "--target", "tpu"], "unknown target 'tpu'; known targets: cpu, vmvx, vulkan"),
        (["model.py:train"], "model.py has no function 'train'; its functions: predict"),
        (["nothing.py:predict"], "no such file: nothing.py"),
        (["model.py:predict", "--arg", "f32(3)"], "bad --arg 'f32(3)': write DTYPE[DIMS] like 'f32[1,784]'"),
        (["model.py:predict", "--arg", "float[3]"], "bad --arg 'float[3]': unknown dtype 'float'"),
        (["model.py:predict", "--arg", "f32[3,2]", "--arg", "f32[2]", "--arg", "f32[4,3]", "--weights", "0"],
         "weight argument 0 needs values: give it as --arg @file.npy"),
        (["model.py:predict", "--arg", "f32[3,2]", "--arg", "f32[2]", "--arg", "f32[5,4]"],
         "model.py:5: matmul: incompatible shapes (5, 4) and (3, 2)"),
        (["model.py:predict", "--arg", "f32[3,2]", "--arg", "f32[2]"],
         "predict(w, b, x) cannot be called with 2 example arguments: missing a required argument: 'x'"),
        (["s4tf.mlir", "--target", "cpu", "--target", "vmvx", "-o", "one.vmfb"], "-o one.vmfb is one file, but 2 targets were given"),
        (["s4tf.mlir", "--entry", "predict"], "no function 'predict' in the module; its functions: scale"),
        (["model.txt"], "input 'model.txt' is neither file.py:function nor a .mlir file"),
    ],
)
def test_bad_input(folder, capsys, argv, message):
    assert message in compile_error(capsys, *argv)


def test_broken_mlir_is_reported_at_its_line(folder, capsys):
    (folder / "broken.mlir").write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %y : tensor<4xf32>\n}\n")
    assert "broken.mlir:2:" in compile_error(capsys, "broken.mlir")


def test_a_convolution_layout_the_parser_cannot_take_is_reported_at_its_line(folder, capsys):
    text = STABLEHLO_CONVOLUTION.replace("dim_numbers = [b, 0, 1, f]", "dim_numbers = [b, 0, 9223372036854775807, f]")
    (folder / "conv.mlir").write_text(text)
    assert "conv.mlir:2:59: error: custom op 'stablehlo.convolution' names spatial dimension" in compile_error(capsys, "conv.mlir")


def test_the_console_script_exits_with_1_and_no_traceback(folder):
    command = [sys.executable, "-m", "s4tf.tools.compile", "model.py:predict", "--arg", "f32[3,2]", "--target", "tpu"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip() == textwrap.dedent(
        "s4tf-compile: error: unknown target 'tpu'; known targets: cpu, vmvx, vulkan, cuda, android-arm64, linux-arm64"
    )


def test_print_ir_after_all_dumps_every_pass_to_stderr(folder, capfd, monkeypatch):
    """MLIR prints the dumps to file descriptor 2 itself, hence capfd."""
    monkeypatch.setenv("S4TF_PRINT_IR_AFTER_ALL", "0")  # restored after the test
    assert run(["s4tf.mlir", "--emit", "stablehlo", "--print-ir-after-all"]) == 0
    captured = capfd.readouterr()
    dumps = [line for line in captured.err.splitlines() if "IR Dump After" in line]
    passes = [line.split("IR Dump After ")[1].split(":")[0] for line in dumps]
    assert passes[:5] == ["s4tf-check-availability", "s4tf-verify", "s4tf-canonicalize", "s4tf-single-row-scatters",
                          "s4tf-lower-to-stablehlo"]
    assert "s4tf-unroll-host-loops" in passes
    assert '"s4tf.exp"' in captured.err and "stablehlo.exponential" in captured.err
    assert "stablehlo.exponential" in captured.out
