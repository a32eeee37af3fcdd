"""The examples of docs/ run and print what the docs say; docs/dialect.md is up to date
and its MLIR examples pass s4tf-verify."""

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from s4tf.dialects import OPS
from s4tf.core.mlir import ir, new_context
from s4tf.passes import build_pass_manager
from s4tf.passes.diagnostics import format_mlir_error
from s4tf.tools.gen_dialect_docs import DEFAULT_OUTPUT, mlir_example, render

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


@dataclass(frozen=True)
class Expected:
    """Whole lines an example prints: ``stdout`` in this order, ``stderr`` in any order."""

    stdout: list[str]
    stderr: list[str] = field(default_factory=list)


EXPECTED = {
    "autodiff.py": Expected([
        "grad matches NumPy: True",
        "value_and_grad shapes: [(3, 2), (2,)] (4, 3)",
        "jvp matches NumPy: True",
        "vjp matches NumPy: True",
        "second derivative matches NumPy: True",
        "straight-through gradient: [1.0, 1.0, 1.0]",
        "stop_gradient: [1.0, 2.0]",
        "through argmax: [2.0, 2.0, 2.0]",
        "warning at autodiff.py:72: 's4tf.argmax' is piecewise constant: the derivative through it is zero; "
        "wrap its operand in s4tf.stop_gradient(...) to say that this is intended",
        "$ s4tf-opt model.mlir -p s4tf-vjp,s4tf-canonicalize,cse",
        "  func.func private @f_vjp_bwd(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> tensor<3xf32> {",
        '    %2 = "s4tf.mul"(%1, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>',
    ]),
    "nn.py": Expected([
        "loss went down: True",
        "test accuracy above 90%: True",
        "the gradient is a model too: Sequential of ['Flatten', 'Dense', 'Dense']",
        "checkpoint after epoch 4 restores the same predictions: True",
    ]),
    "quickstart.py": Expected([
        "staged module:",
        '    %2 = "s4tf.tanh"(%1) : (tensor<4x2xf32>) -> tensor<4x2xf32>',
        "matches NumPy: True",
    ]),
    "staging.py": Expected([
        "entry function: mlp",
        '    %3 = "s4tf.maximum"(%1, %2) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>',
        '#loc5 = loc("hidden"(#loc2))',
        '#loc7 = loc("logits"(#loc4))',
        "    %4 = stablehlo.maximum %2, %3 : tensor<4x8xf32>",
        "matches NumPy: True",
    ]),
    "pytrees.py": Expected([
        "result keys: ['loss', 'prediction']",
        "probabilities sum to 1: True",
        "loss is a scalar: True",
        "gradient type: list of Dense",
        "gradient shapes: [((3, 5), (5,)), ((5, 2), (2,))]",
    ]),
    "eager.py": Expected([
        "type: Tensor (2, 3) float32",
        "matches NumPy: True",
        "x * 2 dtype: float32",
        "asarray([1.0, 2.0]) dtype: float64",
        "asarray([1.0, 2.0], dtype=float32) dtype: float32",
        "x[1, ::2]: [3.0, 5.0]",
        "argmax of each row: [2, 2]",
    ]),
    "errors.py": Expected([
        "shape mismatch: ShapeError at errors.py:12: matmul: incompatible shapes (2, 3) and (2, 3): 3 columns against 2 rows",
        "Python value of a tensor: StagingError at errors.py:17: cannot take float() of a traced tensor tensor<f32> "
        "inside a staged function: its value is only known when the compiled function runs. Use s4tf.where for "
        "tensor-dependent choices, or return the tensor and inspect it outside.",
        "raw op without an attribute: OpAttributeError at errors.py:37: s4tf.reduce_sum needs attribute(s) keepdims",
        "absolute_staged: [1.0, 2.0]",
    ]),
    "control_flow.py": Expected([
        "newton_sqrt matches NumPy: True",
        "gradient matches 0.5 / sqrt(a): True",
        "piecewise(x, 1.0) matches NumPy: True",
        "piecewise(x, -1.0) matches NumPy: True",
        "piecewise staged ops: ['s4tf.add', 's4tf.constant', 's4tf.gt', 's4tf.if', 's4tf.mul', 's4tf.sin']",
        "power(x, 5) matches NumPy: True",
        "power staged: 1 s4tf.while, 1 s4tf.mul",
        "absolute matches NumPy: True",
        "halve_until_small(x): [0.0625, -0.125, 0.25]",
        "error at control_flow.py:55: 'y' is assigned in only one branch of an `if` on a tensor and used after it; "
        "give it a value before the `if` or in the other branch too (y = ...)",
    ]),
    "deploy.py": Expected([
        "cpu: ['predict-cpu.irpa', 'predict-cpu.irpa.sha256', 'predict-cpu.vmfb', 'predict-cpu.vmfb.sha256']",
        "android-arm64: ['predict-android-arm64.irpa', 'predict-android-arm64.irpa.sha256', "
        "'predict-android-arm64.vmfb', 'predict-android-arm64.vmfb.sha256']",
        "host run matches NumPy: True",
        "arm64 module on this machine: predict-android-arm64.vmfb was built for target 'android-arm64' and cannot run on device 'cpu'",
        "s4tf-compile exit code: 0",
        "s4tf-run exit code: 0",
        "s4tf-run output matches NumPy: True",
    ]),
    "extraction.py": Expected([
        '  func.func @step(%arg0: tensor<3x4xf32>, %arg1: tensor<8x3xf32>) -> tensor<8x4xf32> attributes {s4tf.host_program} {',
        '    %1 = "s4tf.recv"(%0) : (tensor<8x4xf32>) -> tensor<8x4xf32>',
        '    %3 = "s4tf.send"(%2) : (tensor<8x4xf32>) -> tensor<8x4xf32>',
        "extraction.py:25: value of type tensor<8x4xf32> is copied from the device to the host for host function 'log_histogram'",
        "extraction.py:26: result of host function 'cpu_solver' (tensor<8x4xf32>) is copied from the host to the device",
        "matches NumPy: True",
        "histograms logged: 1",
        "bytes copied: {'recv': 128, 'send': 128}",
        "losses logged: 20 decreasing: True",
    ]),
    "s4tf_opt.py": Expected(
        [
            "$ s4tf-opt model.mlir -p s4tf-canonicalize,s4tf-lower-to-stablehlo,cse",
            "    %3 = stablehlo.tanh %2 : tensor<4x2xf32>",
            "exit code: 0",
            "$ s4tf-opt model.mlir '--pass-pipeline=builtin.module(s4tf-canonicalize,s4tf-lower-to-stablehlo)' --print-ir-after-all",
            "exit code: 0",
            "$ s4tf-opt diagnostics.mlir --split-input-file --verify-diagnostics",
            '    %0 = "s4tf.neg"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>',
            "exit code: 0",
            "$ s4tf-opt diagnostics.mlir --split-input-file",
            "exit code: 1",
        ],
        stderr=[
            "// -----// IR Dump After s4tf-lower-to-stablehlo: s4tf-lower-to-stablehlo //----- //",
            "diagnostics.mlir:12:8: error: 's4tf.add' result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>",
        ],
    ),
}


def missing_in_order(expected: list[str], lines: list[str]) -> list[str]:
    """The expected lines that do not appear, in this order, among ``lines``."""
    remaining = iter(lines)
    return [line for line in expected if line not in remaining]


def test_every_example_has_expectations():
    assert sorted(path.name for path in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name):
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=600, check=False
    )
    assert completed.returncode == 0, completed.stderr
    expected = EXPECTED[name]
    assert missing_in_order(expected.stdout, completed.stdout.splitlines()) == [], completed.stdout
    stderr_lines = set(completed.stderr.splitlines())
    assert [line for line in expected.stderr if line not in stderr_lines] == [], completed.stderr


def test_dialect_reference_is_up_to_date():
    assert DEFAULT_OUTPUT.read_text(encoding="utf-8") == render(), "run: python tools/gen_dialect_docs.py"


GENERIC_OP = re.compile(
    r'%0(?::(?P<count>\d+))? = "s4tf\.\w+"\((?P<operands>[^)]*)\)(?: \(\{\n.*\n\}\))?(?: \{[^\n]*\})? : '
    r'\((?P<types>[^\n]*)\) -> (?P<result>\([^\n]*\)|\S+)',
    re.DOTALL,
)

def example_function(example: str) -> str:
    """A ``func.func`` whose arguments are the example op's operands, returning its results
    (ops with regions span several lines)."""
    match = GENERIC_OP.fullmatch(example)
    assert match, f"not a one-line generic s4tf op: {example}"
    names = [name.strip() for name in match["operands"].split(",") if name.strip()]
    types = re.findall(r"tensor<[^>]*>", match["types"])
    arguments = ", ".join(f"{name}: {type_}" for name, type_ in zip(names, types))
    result = match["result"]
    count = int(match["count"] or 1)
    values = "%0" if count == 1 else ", ".join(f"%0#{i}" for i in range(count))
    result_types = result.removeprefix("(").removesuffix(")") if count > 1 else result
    return f"func.func @example({arguments}) -> {result} {{\n  {example}\n  return {values} : {result_types}\n}}\n"


@pytest.mark.parametrize("name", sorted(OPS))
def test_dialect_reference_example_verifies(name):
    context = new_context()
    with context:
        module = ir.Module.parse(example_function(mlir_example(OPS[name])))
        try:
            build_pass_manager("s4tf-verify", context).run(module.operation)
        except ir.MLIRError as error:
            pytest.fail(format_mlir_error(error, "example"))
