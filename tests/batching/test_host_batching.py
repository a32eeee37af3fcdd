"""Batching host ops: a host function declared vectorized is called once on the batch,
any other is a located error; the transfers keep their operand's batch axis. Host ops
never run on the device, so the batched functions run through the ops' references
(which call the host functions), against a Python loop over the batch."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.dialects.reference import run_function
from s4tf.core.mlir import ir, new_context
from s4tf.passes.batching import BatchingError, batch_function

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(3)
XS = RNG.standard_normal((4, 3)).astype(np.float32)
SHIFT = RNG.standard_normal(3).astype(np.float32)
#: The ops whose batching this module checks (read by tests/dialects/test_op_coverage.py).
BATCHED_OPS = {"host_call", "send", "recv"}


def _batched(fn, args, batched, size):
    """``fn`` staged on one example, batched by ``s4tf-batch`` along ``batched``."""
    lowered = s4tf.function(fn).lower(*args)
    with lowered.module.context:
        return lowered.module, batch_function(lowered.module, lowered.entry, batched, size)


def test_vectorized_host_function_is_called_once_on_the_batch():
    shapes = []

    def normalize(x, shift):
        shapes.append((x.shape, shift.shape))
        return (x / np.linalg.norm(x, axis=-1, keepdims=True) + shift).astype(np.float32)

    host = s4tf.host(normalize, vectorized=True)
    module, name = _batched(lambda x, s: host(x * 2.0, s) + 1.0, (XS[0], SHIFT), [0], len(XS))
    (result,) = run_function(module, name, [XS, SHIFT])
    assert shapes == [((4, 3), (4, 3))]  # one call; the shared operand broadcast along the batch
    expected = np.stack([normalize(x * 2.0, SHIFT) + 1.0 for x in XS])
    assert len(shapes) == 1 + len(XS)
    np.testing.assert_allclose(result, expected, rtol=1e-6)


def test_host_function_not_declared_vectorized_is_a_located_error():
    def reverse(x):
        return x[::-1].copy()

    with pytest.raises(BatchingError, match=r"host function 'reverse' is called on a batch.*vectorized=True") as error:
        _batched(lambda x: s4tf.host(reverse)(x), (XS[0],), [0], len(XS))
    assert error.value.location.startswith(__file__)


def test_transfers_keep_the_batch_axis():
    text = """
    func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
      %0 = "s4tf.recv"(%x) : (tensor<3xf32>) -> tensor<3xf32>
      %1 = "s4tf.send"(%0) : (tensor<3xf32>) -> tensor<3xf32>
      %2 = "s4tf.mul"(%1, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      return %2 : tensor<3xf32>
    }
    """
    with new_context():
        module = ir.Module.parse(text)
        name = batch_function(module, "f", [0], len(XS))
        assert '"s4tf.send"' in str(module) and "tensor<4x3xf32>" in str(module)
        (result,) = run_function(module, name, [XS, SHIFT])
    np.testing.assert_allclose(result, np.stack([x * SHIFT for x in XS]))
