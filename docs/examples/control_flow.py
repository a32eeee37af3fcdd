"""Python control flow on tensors inside @s4tf.function: staged as s4tf.if / s4tf.while."""

from pathlib import Path

import numpy as np

import s4tf


@s4tf.function
def newton_sqrt(a):
    x = a
    while s4tf.abs(x * x - a).max() > 1e-6:  # data-dependent trip count: one s4tf.while
        x = 0.5 * (x + a / x)
    return x


@s4tf.function
def piecewise(x, t):
    if t > 0:  # tensor predicate: staged, not evaluated in Python
        y = s4tf.sin(x)
    else:
        y = x * x
    for i in range(3):  # Python range: unrolled at trace time
        y = y + i
    return y


@s4tf.function
def power(x, n):
    y = s4tf.ones_like(x)
    for _ in range(n):  # a tensor trip count: one loop, whatever n is
        y = y * x
    return y


@s4tf.function
def absolute(x):
    if x.sum() > 0:
        return x  # an early return from an `if` on a tensor: the `if` returns x or -x
    return -x


@s4tf.function
def halve_until_small(x):
    while x.sum() > 0.1:
        x = x * 0.5
        if x.max() < 0.5:
            break  # ends an `if` branch: the loop also tests a flag
    return x


@s4tf.function
def normalized(x):
    if x.max() > 1.0:
        y = x / x.max()
    return y  # no value when the test is false: rejected, with what to write instead


a = np.array([2.0, 9.0, 0.25])
print("newton_sqrt matches NumPy:", np.allclose(newton_sqrt(a), np.sqrt(a)))
print("gradient matches 0.5 / sqrt(a):", np.allclose(s4tf.grad(lambda v: newton_sqrt(v).sum())(a), 0.5 / np.sqrt(a)))

x = np.array([0.5, -1.0, 2.0], np.float32)
for t in (1.0, -1.0):
    expected = (np.sin(x) if t > 0 else x * x) + 3
    print(f"piecewise(x, {t}) matches NumPy:", np.allclose(piecewise(x, np.float32(t)), expected))

staged = str(piecewise.lower(x, np.float32(1.0)))
print("piecewise staged ops:", sorted({line.split('"')[1] for line in staged.splitlines() if '"s4tf.' in line}))
print("power(x, 5) matches NumPy:", np.allclose(power(x, np.int32(5)), x**5))
power_ops = str(power.lower(x, np.int32(5)))
print(f"power staged: {power_ops.count('s4tf.while')} s4tf.while, {power_ops.count('s4tf.mul')} s4tf.mul")

print("absolute matches NumPy:", all(np.allclose(absolute(v), v if v.sum() > 0 else -v) for v in (x, -x)))
print("halve_until_small(x):", np.asarray(halve_until_small(x)).tolist())
try:
    normalized(x)
except s4tf.StagingError as error:
    print(f"error at {Path(error.location).name}: {error.message}")
