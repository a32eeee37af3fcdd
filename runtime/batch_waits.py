"""Calls that block on IREE's CPU workers without preempting them.

IREE-3.13-WORKAROUND: IREE 3.13's blocking semaphore wait (``iree_async_semaphore_multi_wait``) registers a
timepoint that the worker completing the submission runs: it wakes the waiting thread
(a futex), then marks the timepoint done. The woken thread spins on that mark with
``pause`` and never yields. With as many workers as cores (IREE's default), Linux runs the
woken thread on a core whose worker has not marked it yet and, the waiter having slept,
lets it preempt that worker: the waiter then spins until its time slice ends, which on two
cores delays a third of the MLP training step's steps (figures: docs/benchmarks.md).

A ``SCHED_BATCH`` thread does not preempt the running thread when it wakes, so the worker
finishes its callback before the waiter runs. :func:`batch_while_waiting` makes the calling
thread ``SCHED_BATCH`` for the duration of one call and restores ``SCHED_OTHER`` after it
(an unprivileged thread may switch between the two); a thread with another policy
(``SCHED_IDLE``, a real-time one) and systems without ``sched_setscheduler`` are left as
they are::

    call = batch_while_waiting(prepared_call)   # for modules on local-task
    results = call(arguments)
    batch_while_waiting(fence.wait)(timeout=...)  # a pending result (extracted functions)
"""

from __future__ import annotations

import os

_BATCH = getattr(os, "SCHED_BATCH", None)
_PARAMETERS = os.sched_param(0) if _BATCH is not None else None


def batch_while_waiting(call):
    """``call`` made with the calling thread under ``SCHED_BATCH`` (see the module
    docstring); ``call`` itself where the platform has no such policy."""
    if _BATCH is None:
        return call

    def batched(*arguments, **keywords):
        try:
            switch = os.sched_getscheduler(0) == os.SCHED_OTHER
            if switch:
                os.sched_setscheduler(0, _BATCH, _PARAMETERS)
        except OSError:  # a sandbox refusing scheduler calls: run as we are
            switch = False
        try:
            return call(*arguments, **keywords)
        finally:
            if switch:
                os.sched_setscheduler(0, os.SCHED_OTHER, _PARAMETERS)

    return batched
