"""Calls on IREE's CPU workers wait under SCHED_BATCH and restore the thread's policy."""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import s4tf
from s4tf.runtime.batch_waits import batch_while_waiting


def in_thread(fn):
    """``fn()``'s result (or its error), run in a new thread (scheduler policies are per thread)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn).result()


def may_switch_policies() -> bool:
    """Whether this platform has SCHED_BATCH and lets a thread switch to it and back."""
    if not hasattr(os, "SCHED_BATCH"):
        return False

    def switch():
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))

    try:
        in_thread(switch)
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(not may_switch_policies(), reason="no SCHED_BATCH here, or a thread may not switch to it")


def test_the_call_runs_under_batch_and_the_policy_comes_back():
    def check():
        inside = batch_while_waiting(lambda: os.sched_getscheduler(0))()
        return inside, os.sched_getscheduler(0)

    assert in_thread(check) == (os.SCHED_BATCH, os.SCHED_OTHER)


def test_the_policy_comes_back_when_the_call_raises():
    def check():
        def fails():
            raise ValueError("from the call")

        with pytest.raises(ValueError, match="from the call"):
            batch_while_waiting(fails)()
        return os.sched_getscheduler(0)

    assert in_thread(check) == os.SCHED_OTHER


def test_a_thread_with_another_policy_is_left_as_it_is():
    def check():
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        inside = batch_while_waiting(lambda: os.sched_getscheduler(0))()
        return inside, os.sched_getscheduler(0)

    assert in_thread(check) == (os.SCHED_IDLE, os.SCHED_IDLE)


def test_a_staged_call_on_the_cpu_leaves_the_callers_policy_and_its_numbers():
    x = np.linspace(0, 1 / 16, 64 * 1024, dtype=np.float32).reshape(256, 256)  # over 64 KiB: runs on local-task

    @s4tf.function
    def f(a):
        return s4tf.tanh(a @ a) * 2.0

    def check():
        return np.asarray(f(x)), os.sched_getscheduler(0)

    result, policy = in_thread(check)
    assert policy == os.SCHED_OTHER
    np.testing.assert_allclose(result, np.tanh(x.astype(np.float64) @ x) * 2.0, rtol=1e-5)
