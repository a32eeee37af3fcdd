"""The dialect's IRDL spec, checked by MLIR itself: ``iree-opt --irdl-file=<spec>``
accepts staged modules and the well-formed lit inputs, and rejects malformed ops.

Skipped only where ``iree-opt`` (from the iree-base-compiler wheel) is not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf.dialects import OPS
from s4tf.dialects.irdl import irdl_spec
from s4tf.tools.opt import split_chunks

LIT_DIR = Path(__file__).resolve().parents[1] / "lit"
LIT_MLIR_FILES = sorted(  # files on s4tf ops; the passes after lowering (s4tf-donate, ...) read StableHLO only
    p for p in LIT_DIR.rglob("*.mlir") if "Output" not in p.parts and '"s4tf.' in p.read_text()
)


def iree_opt() -> str | None:
    return shutil.which("iree-opt", path=str(Path(sys.executable).parent)) or shutil.which("iree-opt")


@pytest.fixture(scope="module")
def check_with_irdl(tmp_path_factory):
    """``check(text, split=False)``: run ``iree-opt --irdl-file=<spec>`` on ``text``."""
    tool = iree_opt()
    if tool is None:
        pytest.skip("iree-opt is not installed")
    spec = tmp_path_factory.mktemp("irdl") / "s4tf.irdl.mlir"
    spec.write_text(irdl_spec())

    def check(text: str, split: bool = False) -> subprocess.CompletedProcess:
        command = [tool, f"--irdl-file={spec}", "-"] + (["--split-input-file"] if split else [])
        return subprocess.run(command, input=text, capture_output=True, text=True, timeout=120)

    return check


def test_spec_defines_every_op():
    spec = irdl_spec()
    defined = set(re.findall(r"irdl\.operation @(\w+)", spec))
    assert {name.removeprefix("s4tf.") for name in OPS} == defined


# -- accepted --------------------------------------------------------------------------


def classifier(images, filters, w, labels):
    x = s4tf.relu(s4tf.conv2d(images, filters, padding="same"))
    x = s4tf.avg_pool2d(s4tf.max_pool2d(x, 2), 2, strides=1, padding="same")
    logits = s4tf.reshape(x, (x.shape[0], -1)) @ w
    scores = s4tf.concatenate([logits, -logits], axis=1)
    scores = s4tf.where(scores > 0, scores, s4tf.exp(scores) - 1)
    hits = s4tf.cast(s4tf.equal(s4tf.argmax(scores, axis=1), labels), np.float32)
    spread = s4tf.max(scores, axis=1) - s4tf.min(scores, axis=1)
    return s4tf.mean(hits), s4tf.sum(spread), s4tf.transpose(s4tf.log_softmax(scores))


def loss(w, x):
    return s4tf.sum(s4tf.tanh(x @ w) ** 2)


def training_step(w, x):
    return w - 0.1 * s4tf.grad(loss)(w, x)


STAGED = {
    "classifier": (
        classifier,
        (
            np.ones((2, 8, 8, 3), np.float32),
            np.ones((3, 3, 3, 4), np.float32),
            np.ones((64, 5), np.float32),
            np.zeros(2, np.int32),
        ),
        {"conv2d", "max_pool2d", "avg_pool2d", "dot_general", "reshape", "concatenate", "select", "gt", "eq",
         "argmax", "cast", "reduce_max", "reduce_min", "reduce_mean", "reduce_sum", "transpose", "exp", "log"},
    ),
    # grad adds the derivative functions the AD passes build, with their s4tf.* attributes
    "training_step": (
        training_step,
        (np.ones((3, 2), np.float32), np.ones((4, 3), np.float32)),
        {"dot_general", "tanh", "pow", "reduce_sum", "broadcast_in_dim"},
    ),
}


@pytest.mark.parametrize("name", sorted(STAGED))
def test_accepts_staged_module(check_with_irdl, name):
    python_fn, args, expected_ops = STAGED[name]
    text = s4tf.function(python_fn).lower(*args).as_text()
    staged_ops = set(re.findall(r'"s4tf\.(\w+)"', text))
    assert expected_ops <= staged_ops, f"not staged: {expected_ops - staged_ops}"
    result = check_with_irdl(text)
    assert result.returncode == 0, result.stderr


def well_formed_text(path: Path) -> tuple[str, bool]:
    """The file's text without chunks that expect diagnostics, and whether it is split."""
    text = path.read_text()
    split = re.search(r"\s--?split-input-file\b", text) is not None  # mlir-opt's one-dash spelling too
    chunks = [chunk for chunk, _ in split_chunks(text, split) if "expected-" not in chunk]
    return "\n// -----\n".join(chunks), split


@pytest.mark.parametrize("path", LIT_MLIR_FILES, ids=lambda p: str(p.relative_to(LIT_DIR)))
def test_accepts_lit_inputs(check_with_irdl, path):
    text, split = well_formed_text(path)
    assert '"s4tf.' in text
    result = check_with_irdl(text, split)
    assert result.returncode == 0, result.stderr


# -- rejected --------------------------------------------------------------------------

MALFORMED = {
    "too-few-operands": ('"s4tf.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>', "expects exactly 2 operands, but got 1"),
    "too-many-operands": (
        '"s4tf.neg"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        "expects exactly 1 operands, but got 2",
    ),
    "missing-attribute": (
        '"s4tf.reduce_sum"(%x) {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>',
        'attribute "keepdims" is expected but not provided',
    ),
    "int-instead-of-array": (
        '"s4tf.reduce_sum"(%x) {axes = 0 : i64, keepdims = false} : (tensor<4xf32>) -> tensor<f32>',
        "expected base attribute 'builtin.dense_array' but got 'builtin.integer'",
    ),
    "int-instead-of-type": (
        '"s4tf.cast"(%x) {dtype = 3 : i64} : (tensor<4xf32>) -> tensor<4xi32>',
        "expected base attribute 'builtin.type' but got 'builtin.integer'",
    ),
    "string-instead-of-bool": (
        '"s4tf.reduce_max"(%x) {axes = array<i64: 0>, keepdims = "no"} : (tensor<4xf32>) -> tensor<f32>',
        "expected base attribute 'builtin.integer' but got 'builtin.string'",
    ),
    "unknown-op": (
        '"s4tf.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>',
        "unregistered operation 's4tf.frobnicate' found in dialect ('s4tf')",
    ),
    "scalar-operand": ('"s4tf.exp"(%s) : (f32) -> f32', "expected base type 'builtin.tensor' but got 'builtin.f32'"),
    "unranked-operand": (
        '"s4tf.exp"(%u) : (tensor<*xf32>) -> tensor<*xf32>',
        "expected base type 'builtin.tensor' but got 'builtin.unranked_tensor'",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_rejects_malformed_op(check_with_irdl, case):
    op, message = MALFORMED[case]
    text = f"func.func @f(%x: tensor<4xf32>, %s: f32, %u: tensor<*xf32>) {{\n  %0 = {op}\n  return\n}}\n"
    result = check_with_irdl(text)
    assert result.returncode != 0
    assert "<stdin>:2:8: error: " in result.stderr and message in result.stderr, result.stderr


def test_rejects_op_without_result(check_with_irdl):
    result = check_with_irdl('func.func @f(%x: tensor<4xf32>) {\n  "s4tf.neg"(%x) : (tensor<4xf32>) -> ()\n  return\n}\n')
    assert result.returncode != 0
    assert "expects exactly 1 results, but got 0" in result.stderr
