"""``s4tf.if`` and ``s4tf.while`` against NumPy: IREE's results and the reference interpreter's
(``s4tf.dialects.reference``), for float and integer loop-carried values.

More cases (errors, nesting, the frontend forms) are in ``tests/control_flow``."""

import numpy as np
import pytest
from op_testing import covers

import s4tf
from s4tf.dialects.reference import run_function


def both(fn, *args):
    staged = s4tf.function(fn)
    lowered = staged.lower(*args)
    return np.asarray(staged(*args)), run_function(lowered.module, lowered.entry, list(args))[0]


@covers("if")
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("flag", [True, False])
def test_if(dtype, flag):
    x = np.arange(4).astype(dtype)
    device, reference = both(lambda p, x: s4tf.cond(p, lambda v: v * 3, lambda v: v - 1, x), np.bool_(flag), x)
    want = x * 3 if flag else x - 1
    np.testing.assert_array_equal(device, want)
    np.testing.assert_array_equal(reference, want)


@covers("while")
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_while(dtype):
    x = np.array([1, 3], dtype)
    device, reference = both(lambda x: s4tf.while_loop(lambda v: v.sum() < 50, lambda v: v * 2 + 1, x), x)
    want = x.copy()
    while want.sum() < 50:
        want = want * 2 + 1
    np.testing.assert_array_equal(device, want)
    np.testing.assert_array_equal(reference, want)
