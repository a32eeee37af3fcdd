"""Transfer warnings (S4TF's "value implicitly copied to the host") at the user's
``file:line``: from ``s4tf.function(extract=True, warn_transfers=True)`` and from
``s4tf-opt -p 's4tf-partition{warn_transfers=true}'`` over the staged module."""

from __future__ import annotations

import warnings

import numpy as np

import s4tf
from s4tf.dialects.symbols import functions
from s4tf.staging.extracted import TransferWarning
from s4tf.core.mlir import ir, new_context
from s4tf.passes.extraction.partition import HOST_PROGRAM_ATTR
from s4tf.tools.opt import run as s4tf_opt

W = np.ones((3, 4), np.float32)
X = np.ones((2, 3), np.float32)


def scaled(logits):
    return (logits * 0.5).astype(np.float32)


def step(w, x):
    logits = x @ w
    plan = s4tf.host(scaled)(logits)  # receive logits, send plan
    return logits + plan


def line_of(text: str) -> int:
    with open(__file__, encoding="utf-8") as file:
        return next(number for number, line in enumerate(file, start=1) if text in line)


HOST_LINE = line_of("plan = s4tf.host(scaled)(logits)")
RECEIVE = "value of type tensor<2x4xf32> is copied from the device to the host for host function 'scaled'"
SEND = "result of host function 'scaled' (tensor<2x4xf32>) is copied from the host to the device"


def test_warn_transfers_points_at_the_host_call():
    extracted = s4tf.function(step, extract=True, warn_transfers=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_allclose(np.asarray(extracted(W, X)), 1.5 * (X @ W))
    found = [(w.category, w.filename, w.lineno, str(w.message)) for w in caught]
    assert found == [(TransferWarning, __file__, HOST_LINE, RECEIVE), (TransferWarning, __file__, HOST_LINE, SEND)]


def test_no_warnings_by_default():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.asarray(s4tf.function(step, extract=True)(W, X))
    assert [w for w in caught if w.category is TransferWarning] == []


def test_partitioned_transfer_messages():
    partitioned = s4tf.function(step, extract=True).partitioned(W, X)
    assert partitioned.transfer_messages() == [f"{__file__}:{HOST_LINE}: {RECEIVE}", f"{__file__}:{HOST_LINE}: {SEND}"]


def test_s4tf_opt_reports_transfers_at_the_python_line(tmp_path, capsys):
    staged = tmp_path / "step.mlir"
    staged.write_text(s4tf.function(step, extract=True).lower(W, X).as_text(debug_info=True))
    assert s4tf_opt([str(staged), "-p", "s4tf-partition{warn_transfers=true}"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"{__file__}:{HOST_LINE}:12: warning: {RECEIVE}",
        f"{__file__}:{HOST_LINE}:12: warning: {SEND}",
    ]
    with new_context():
        table = functions(ir.Module.parse(out).operation)
    assert {name: HOST_PROGRAM_ATTR in op.attributes for name, op in table.items()} == {
        "step": True, "step_device_0": False, "step_device_1": False,
    }
