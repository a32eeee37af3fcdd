"""Learning-rate schedules under Optax's names: functions of the step count (0, 1, ...)
that return the value for that step. Inside ``@s4tf.function`` the count is a traced
tensor (the optimizer state's), so the schedule is part of the compiled step; outside,
a count is a number and the value is computed on the host."""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError

Schedule = Callable[[object], object]


def _float_count(count, what: str):
    """``(namespace, count as float32)``: NumPy for a number (checked: a count below 0 is
    an error), s4tf for a tensor."""
    if isinstance(count, (int, float, np.number, np.ndarray)):
        if np.any(np.asarray(count) < 0):
            raise S4tfError(f"{what}: the step count must be 0 or more, got {count}")
        return np, np.asarray(count, np.float32)
    return snp, snp.astype(count, np.float32)


def _positive_steps(steps, what: str) -> None:
    if not isinstance(steps, (int, np.integer)) or steps <= 0:
        raise S4tfError(f"{what}: expected a positive whole number of steps, got {steps!r}")


def constant_schedule(value: float) -> Schedule:
    """``value`` at every step."""

    def schedule(count):
        _float_count(count, "constant_schedule")
        return value

    return schedule


def linear_schedule(init_value: float, end_value: float, transition_steps: int, transition_begin: int = 0) -> Schedule:
    """``init_value`` until ``transition_begin``, then a straight line to ``end_value`` over
    ``transition_steps`` steps (and ``end_value`` after)."""
    if transition_steps <= 0:  # as Optax: no transition, the initial value throughout
        return constant_schedule(init_value)

    def schedule(count):
        xp, count = _float_count(count, "linear_schedule")
        done = xp.clip(count - transition_begin, 0.0, float(transition_steps))
        return (init_value - end_value) * (1.0 - done / transition_steps) + end_value

    return schedule


def cosine_decay_schedule(init_value: float, decay_steps: int, alpha: float = 0.0, exponent: float = 1.0) -> Schedule:
    """``init_value`` falling along a half cosine to ``alpha * init_value`` at ``decay_steps``
    (and staying there)."""
    _positive_steps(decay_steps, "cosine_decay_schedule")

    def schedule(count):
        xp, count = _float_count(count, "cosine_decay_schedule")
        cosine = 0.5 * (1.0 + xp.cos(math.pi * xp.minimum(count, float(decay_steps)) / decay_steps))
        return init_value * ((1.0 - alpha) * cosine**exponent + alpha)

    return schedule


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """``schedules[0]`` until ``boundaries[0]``, then ``schedules[1]`` counted from that
    boundary, and so on."""
    if len(boundaries) != len(schedules) - 1:
        raise S4tfError(f"join_schedules: expected {len(schedules) - 1} boundaries for {len(schedules)} schedules, got {len(boundaries)}")

    def schedule(count):
        xp, _ = _float_count(count, "join_schedules")
        value = schedules[0](count)
        for boundary, later in zip(boundaries, schedules[1:]):
            # Before the boundary the later schedule's value is not used: count it from 0 there.
            value = xp.where(count < boundary, value, later(xp.maximum(count - boundary, 0)))
        return value

    return schedule


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int, decay_steps: int, end_value: float = 0.0, exponent: float = 1.0) -> Schedule:
    """A linear warmup from ``init_value`` to ``peak_value`` over ``warmup_steps``, then a
    cosine decay to ``end_value`` at ``decay_steps`` (counted from step 0, as Optax)."""
    alpha = 0.0 if peak_value == 0 else end_value / peak_value
    decay = cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)
    return join_schedules([linear_schedule(init_value, peak_value, warmup_steps), decay], [warmup_steps])


def piecewise_constant_schedule(init_value: float, boundaries_and_scales: dict[int, float] | None = None) -> Schedule:
    """``init_value``, multiplied by ``scale`` from each ``boundary`` of ``boundaries_and_scales`` on."""
    ordered = sorted((boundaries_and_scales or {}).items())
    if any(scale < 0 for _, scale in ordered):
        raise S4tfError(f"piecewise_constant_schedule: expected scales of 0 or more, got {dict(ordered)}")

    def schedule(count):
        xp, count = _float_count(count, "piecewise_constant_schedule")
        value = init_value
        for boundary, scale in ordered:
            value = xp.where(count < boundary, value, value * scale)
        return value

    return schedule
