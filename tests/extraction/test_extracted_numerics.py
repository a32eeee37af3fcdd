"""Extracted functions against the same functions run eagerly (unpartitioned: every op and
host call at once) and against NumPy; the byte counters show what crossed host and device."""

from __future__ import annotations

import numpy as np
import pytest

import extraction_programs as programs
import s4tf

RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = {
    "middle": (normal(3, 4), normal(2, 3)),
    "flows_back": (normal(5, 3), normal(5, 2)),
    "two_independent": (normal(3, 5),),
    "no_device_dependency": (normal(4, 4) * 0.3, normal(6)),
    "with_constants": (normal(64, 64),),
    "host_only": (normal(6),),
    "canonicalized_away": (normal(6),),
    "host_chain": (normal(6),),
}


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


@pytest.mark.parametrize("name", sorted(CASES))
def test_extracted_equals_eager_and_numpy(name):
    fn, reference, args = getattr(programs, name), getattr(programs, f"{name}_numpy"), CASES[name]
    extracted = as_tuple(s4tf.function(fn, extract=True)(*args))
    eager = as_tuple(fn(*args))
    expected = as_tuple(reference(*args))
    assert len(extracted) == len(eager) == len(expected)
    for got, unpartitioned, want in zip(extracted, eager, expected):
        np.testing.assert_allclose(np.asarray(got), np.asarray(unpartitioned), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)


def test_partitioned_programs_have_the_expected_shape():
    """Each program exercises what its name says: launches, receives, host calls and sends."""
    kinds = {}
    for name, args in CASES.items():
        steps = s4tf.function(getattr(programs, name), extract=True).host_program(*args).steps
        kinds[name] = [step.kind for step in steps]
    assert kinds["middle"] == ["launch", "recv", "host_call", "send", "launch", "return"]
    assert kinds["flows_back"] == ["launch", "recv", "recv", "host_call", "send", "launch", "return"]
    assert kinds["two_independent"] == ["launch", "recv", "host_call", "host_call", "send", "send", "launch", "return"]
    assert kinds["no_device_dependency"] == ["launch", "recv", "host_call", "send", "launch", "return"]
    assert kinds["with_constants"] == ["constant", "launch", "recv", "host_call", "send", "launch", "return"]
    assert kinds["host_only"] == ["recv", "host_call", "send", "return"]
    assert kinds["canonicalized_away"] == ["recv", "host_call", "send", "launch", "return"]
    assert kinds["host_chain"] == ["recv", "host_call", "send", "launch", "recv", "host_call", "send", "launch",
                                   "recv", "host_call", "send", "launch", "return"]


def test_only_host_call_operands_and_results_cross():
    """Receives: exactly the host calls' device operands; sends: exactly their results."""
    a, b = CASES["flows_back"]
    step = s4tf.function(programs.flows_back, extract=True)
    np.asarray(step(a, b)[0])
    assert step.bytes_transferred == {"recv": (5 * 5 + 5 * 2) * 4, "send": 5 * 2 * 4}
    np.asarray(step(a, b)[0])
    assert step.bytes_transferred == {"recv": 2 * (5 * 5 + 5 * 2) * 4, "send": 2 * 5 * 2 * 4}


def test_two_host_calls_share_one_receive():
    (x,) = CASES["two_independent"]
    step = s4tf.function(programs.two_independent, extract=True)
    np.asarray(step(x))
    assert step.bytes_transferred == {"recv": x.nbytes, "send": (3 * 1 + 1 * 5) * 4}


def test_a_host_call_on_an_argument_receives_only_the_argument():
    x, y = CASES["no_device_dependency"]
    step = s4tf.function(programs.no_device_dependency, extract=True)
    np.asarray(step(x, y)[1])
    assert step.bytes_transferred == {"recv": y.nbytes, "send": y.nbytes}


def test_host_only_results_feed_the_next_call():
    """Without device work nothing is compiled; results are still device tensors, and a
    pending one passed to the next call is received once its send is done."""
    (y,) = CASES["host_only"]
    step = s4tf.function(programs.host_only, extract=True)
    twice = step(step(y))
    np.testing.assert_allclose(np.asarray(twice), np.cumsum(np.cumsum(y)), rtol=1e-5, atol=1e-6)
    assert step.bytes_transferred == {"recv": 2 * y.nbytes, "send": 2 * y.nbytes}


def test_constants_are_folded_not_sent():
    """A 16 KiB constant of the device functions and one of the host call: neither is sent."""
    (x,) = CASES["with_constants"]
    step = s4tf.function(programs.with_constants, extract=True)
    np.testing.assert_allclose(np.asarray(step(x)), programs.with_constants_numpy(x), rtol=1e-6)
    assert step.bytes_transferred == {"recv": x.nbytes, "send": x.nbytes}


def big_then_small(x):
    """A 256x256 intermediate passes from the first device function to the second; the
    host only sees its 4-byte sum."""
    h = s4tf.tanh(x @ x)
    return h * s4tf.host(damping)(s4tf.sum(h))


def damping(total):
    return np.float32(1.0 / (1.0 + abs(total)))


def big_then_small_numpy(x):
    h = np.tanh(x @ x)
    return h * damping(h.sum())


def test_device_values_between_device_functions_never_visit_the_host():
    x = normal(256, 256) * 0.05
    step = s4tf.function(big_then_small, extract=True)
    assert [s.kind for s in step.host_program(x).steps] == ["launch", "recv", "host_call", "send", "launch", "return"]
    first = step(x)
    second = step(first)  # a result feeds the next call on the device
    expected = big_then_small_numpy(x)
    np.testing.assert_allclose(np.asarray(first), expected, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(second), big_then_small_numpy(expected), rtol=1e-4, atol=1e-6)
    assert step.bytes_transferred == {"recv": 2 * 4, "send": 2 * 4}


def test_pending_results_feed_ordinary_staged_functions_and_eager_ops():
    """Anything but an extracted function waits for a pending result before using it."""
    w, x = CASES["middle"]
    result = s4tf.function(programs.middle, extract=True)(w, x)
    doubled = s4tf.function(lambda t: t * 2.0)(result)
    expected = programs.middle_numpy(w, x)
    np.testing.assert_allclose(np.asarray(doubled), 2 * expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(s4tf.exp(result)), np.exp(expected), rtol=1e-5)
    assert result.is_ready()
