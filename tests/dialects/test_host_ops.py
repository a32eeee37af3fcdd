"""Host ops against NumPy: a function with host calls, partitioned into device functions
and a host program (``s4tf.recv``, ``s4tf.host_call``, ``s4tf.send``), run by IREE and the
extraction runtime, and interpreted op by op with the ops' references."""

from __future__ import annotations

import numpy as np
import pytest
from op_testing import assert_matches, covers

import s4tf
from s4tf.dialects.host_ops import HostFunctionError, call_host_function, register_host_function
from s4tf.dialects.reference import run_function
from s4tf.dialects.symbols import functions
from s4tf.dialects.types import TensorType


def ranks(x):
    return np.argsort(np.argsort(x, axis=1), axis=1).astype(np.float32)


def scale_rows(x, s):
    return (x * s).astype(np.float32), x.sum(axis=1).astype(np.float32)


def model(w, x, s):
    logits = x @ w
    r = s4tf.host(ranks)(logits)
    scaled, sums = s4tf.host(scale_rows, result=(logits, np.zeros(2, np.float32)))(logits + r, s)
    return s4tf.exp(scaled * 0.1) - r, sums * 2.0


@covers("host_call", "send", "recv")
def test_host_calls_against_numpy():
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)
    s = np.float32(1.5) * np.ones((2, 1), np.float32)
    logits = x @ w
    r = ranks(logits)
    scaled = (logits + r) * s
    expected = [np.exp(scaled * 0.1) - r, ((logits + r).sum(axis=1) * 2.0).astype(np.float32)]

    staged = s4tf.function(model, extract=True)
    partitioned = staged.partitioned(w, x, s)
    names = {view.operation.name for f in functions(partitioned.module.operation).values() for view in f.regions[0].blocks[0]}
    assert {"s4tf.host_call", "s4tf.send", "s4tf.recv"} <= names
    device = staged(w, x, s)
    reference = run_function(partitioned.module, partitioned.lowered.entry, [w, x, s])
    for index, (got, ref, want) in enumerate(zip(device, reference, expected)):
        assert_matches(np.asarray(got), want, f"IREE result {index}")
        assert_matches(ref, want, f"reference result {index}")


def test_wrong_result_shape_or_dtype_names_the_host_function():
    def as_float64(x):
        return x.astype(np.float64)

    entry = register_host_function(as_float64)
    with pytest.raises(HostFunctionError, match=r"host function 'as_float64\w*' returned an array of shape \(2,\) and dtype float64, it declares shape \(2,\) and dtype float32"):
        call_host_function(entry.symbol, [np.ones(2, np.float32)], [TensorType((2,), "f32")])
    with pytest.raises(HostFunctionError, match=r"returned None"):
        printer = register_host_function(print)
        call_host_function(printer.symbol, [np.ones(2, np.float32)], [TensorType((2,), "f32")])


def test_host_ops_are_not_lowered():
    @s4tf.function
    def not_extracted(x):
        return s4tf.host(ranks)(x)

    with pytest.raises(s4tf.CompilationError, match=r"test_host_ops.py:\d+:\d+: error: 's4tf.host_call' runs on the host; stage with @s4tf.function\(extract=True\)"):
        not_extracted(np.ones((2, 3), np.float32))
