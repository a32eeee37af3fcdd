"""Host functions that fail: wrong results and exceptions become errors naming the host
function and the user's line, and nothing waits forever."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import s4tf
from s4tf.dialects.host_ops import HostFunctionError
from s4tf.core.errors import CompilationError
from s4tf.runtime.extracted_program import MAX_IN_FLIGHT

DEADLINE_S = 60.0
X = np.arange(6, dtype=np.float32).reshape(2, 3)


def within_deadline(fn, *args):
    """``fn(*args)`` on a thread that must finish within :data:`DEADLINE_S`; its result, or
    the exception it raised, re-raised here."""
    outcome = {}

    def target():
        try:
            outcome["value"] = fn(*args)
        except BaseException as error:  # handed to the test thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    assert not thread.is_alive(), f"still running after {DEADLINE_S} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def wrong_shape(x):
    return np.zeros((3, 2), np.float32)


def wrong_dtype(x):
    return x.astype(np.float64)


def two_results(x):
    return x, x


def calling(host_fn):
    """A staged function: device work, ``host_fn`` on its result, device work on that."""

    def step(x):
        y = s4tf.exp(x)
        z = s4tf.host(host_fn)(y)
        return s4tf.tanh(z) + y

    return step


def line_of(text: str) -> int:
    """The line of this file holding ``text`` (for expected ``file:line`` prefixes)."""
    with open(__file__, encoding="utf-8") as file:
        return next(number for number, line in enumerate(file, start=1) if text in line)


HOST_CALL_LINE = line_of("z = s4tf.host(host_fn)(y)")


@pytest.mark.parametrize(
    "host_fn, message",
    [
        (wrong_shape, "host function 'wrong_shape' returned an array of shape (3, 2) and dtype float32, "
                      "it declares shape (2, 3) and dtype float32"),
        (wrong_dtype, "host function 'wrong_dtype' returned an array of shape (2, 3) and dtype float64, "
                      "it declares shape (2, 3) and dtype float32"),
        (two_results, "host function 'two_results' returned an array of shape (2, 2, 3) and dtype float32, "
                      "it declares shape (2, 3) and dtype float32"),
    ],
)
def test_wrong_results_name_the_host_function_and_line(host_fn, message):
    step = s4tf.function(calling(host_fn), extract=True)
    with pytest.raises(HostFunctionError) as caught:
        within_deadline(lambda: np.asarray(step(X)))
    assert str(caught.value) == f"{__file__}:{HOST_CALL_LINE}: {message}"


class Flaky:
    """A host function that raises while ``failing`` is set."""

    __name__ = "flaky_solver"

    def __init__(self):
        self.failing = True

    def __call__(self, x):
        if self.failing:
            raise ZeroDivisionError("pivot is zero")
        return (x * 2).astype(np.float32)


def test_a_raising_host_function_fails_the_call_and_the_next_call_works():
    flaky = Flaky()
    step = s4tf.function(calling(flaky), extract=True)
    with pytest.raises(HostFunctionError) as caught:
        within_deadline(lambda: np.asarray(step(X)))
    assert str(caught.value) == f"{__file__}:{HOST_CALL_LINE}: host function 'flaky_solver' raised ZeroDivisionError: pivot is zero"
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    flaky.failing = False
    got = within_deadline(lambda: np.asarray(step(X)))
    np.testing.assert_allclose(got, np.tanh(2 * np.exp(X)) + np.exp(X), rtol=1e-6)


def test_a_device_function_waiting_for_a_failed_host_call_does_not_hang():
    """The second device function waits for the host result; the failure releases it."""
    flaky = Flaky()
    step = s4tf.function(calling(flaky), extract=True)
    kinds = [s.kind for s in step.host_program(X).steps]
    assert kinds == ["launch", "recv", "host_call", "send", "launch", "return"]
    for _ in range(3):
        with pytest.raises(HostFunctionError, match=re.escape("'flaky_solver' raised ZeroDivisionError")):
            within_deadline(lambda: np.asarray(step(X)))


def test_a_host_function_without_results_that_returns_one():
    def step(x):
        s4tf.host(wrong_dtype, result=())(x)
        return s4tf.exp(x)

    with pytest.raises(HostFunctionError, match="host function 'wrong_dtype' returned a value but declares no results"):
        within_deadline(lambda: np.asarray(s4tf.function(step, extract=True)(X)))


def disk_full(x):
    raise OSError("disk full")


def logs_then_exp(x):
    s4tf.host(disk_full, result=())(x)
    return s4tf.exp(x)


def test_reading_any_result_raises_the_calls_host_error():
    """``exp(x)`` does not need the failed host call, but reading it reports the failure."""
    step = s4tf.function(logs_then_exp, extract=True)
    result = step(X)
    with pytest.raises(HostFunctionError, match="host function 'disk_full' raised OSError: disk full"):
        within_deadline(result.block_until_ready)


def test_an_unread_host_error_is_raised_by_a_later_call():
    """Calls return before their host programs ran; one that failed and was never read is
    raised by the call that has to wait for it (at the latest MAX_IN_FLIGHT calls later)."""
    step = s4tf.function(logs_then_exp, extract=True)
    with pytest.raises(HostFunctionError, match="host function 'disk_full' raised OSError: disk full"):
        within_deadline(lambda: [step(X) for _ in range(MAX_IN_FLIGHT + 1)])


def doubled(x):
    return (2.0 * x).astype(np.float32)


@s4tf.function
def staged_with_host_call(x):
    return s4tf.host(doubled)(s4tf.sin(x)) + 1.0  # the staged function's host call


@s4tf.function
def staged_calling_staged(x):
    return staged_with_host_call(x) * 3.0


def calls_a_staged_host_call(x):
    return staged_with_host_call(x) * 2.0


def calls_through_another(x):
    return staged_calling_staged(x) * 2.0


def test_a_host_call_in_a_called_staged_function_is_inlined_into_the_extracted_function():
    """s4tf-inline-host-calls inlines the calls (directly and through another staged
    function), so the host calls run from the extracted function's host program."""
    np.testing.assert_allclose(np.asarray(s4tf.function(calls_a_staged_host_call, extract=True)(X)),
                               (2.0 * np.sin(X) + 1.0) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s4tf.function(calls_through_another, extract=True)(X)),
                               (2.0 * np.sin(X) + 1.0) * 6.0, rtol=1e-6)


def test_a_called_staged_function_with_host_calls_inside_control_flow_is_an_error_at_the_call():
    host_line = line_of("# the staged function's host call")

    def branch(x):
        if s4tf.sum(x) > 0:
            x = staged_with_host_call(x)  # a call inside s4tf.if
        return x

    with pytest.raises(CompilationError) as caught:
        s4tf.function(branch, extract=True)(X)
    assert str(caught.value).splitlines()[1] == (
        f"{__file__}:{line_of('# a call inside s4tf.if')}:17: error: 'staged_with_host_call' calls host function 'doubled' "
        f"at line {host_line}; it is called inside 's4tf.if', and an extracted function calls s4tf.host at its top level, "
        "outside control flow"
    )


def test_a_host_call_inside_control_flow_is_an_error_at_the_host_call():
    def branch(x):
        if s4tf.sum(x) > 0:
            x = s4tf.host(two_results)(x)  # inside s4tf.if
        return x

    with pytest.raises(CompilationError, match=re.escape(
        f"{__file__}:{line_of('# inside s4tf.if')}:17: error: host function 'two_results' is called inside 's4tf.if'"
    )):
        s4tf.function(branch, extract=True)(X)
