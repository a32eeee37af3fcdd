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


def test_the_interpreter_reads_a_loop_body_once_and_checks_the_inputs(monkeypatch):
    """The reference interpreter reads each block's ops and attributes once per call, however
    often the loop runs it (200 trips here), calls a callee from inside the loop, gives every
    result of a multi-result op (the sort's values and indices) its own value, and refuses
    a call with the wrong number of inputs."""
    from s4tf.dialects import reference

    def body(i, state):
        total, order = state
        values, indices = s4tf.sort(order * -1.0), s4tf.argsort(order * -1.0)
        return total + step(values[0] + indices[0].astype(np.float32)), order

    step = s4tf.function(lambda v: v * 0.5)
    fn = lambda x: s4tf.fori_loop(0, 200, body, (s4tf.zeros(()), x))[0]
    x = np.array([1.0, 4.0, 2.0], np.float32)
    lowered = s4tf.function(fn).lower(x)
    reads = []
    original = reference.read_attributes
    monkeypatch.setattr(reference, "read_attributes", lambda op, operation: reads.append(op.name) or original(op, operation))
    (got,) = reference.run_function(lowered.module, lowered.entry, [x])
    want = 200 * 0.5 * (np.sort(-x)[0] + np.argsort(-x)[0])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert 0 < len(reads) < 50, reads
    with pytest.raises(ValueError, match="takes 1 values, not 2"):
        reference.run_function(lowered.module, lowered.entry, [x, x])
