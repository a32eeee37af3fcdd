"""Errors users see: each names the line of user code that caused it."""

from pathlib import Path

import numpy as np

import s4tf


@s4tf.function
def product(x, y):
    return x @ y


@s4tf.function
def absolute(x):
    if float(s4tf.sum(x)) > 0:  # a traced tensor has no value yet (`if s4tf.sum(x) > 0` is staged)
        return x
    return -x


@s4tf.function
def absolute_staged(x):
    return s4tf.where(x > 0, x, -x)  # the staged way to choose by value


def where_and_what(error: s4tf.S4tfError) -> str:
    """``file:line`` without the folder, and the message."""
    place = Path(error.location).name if error.location else "(no location)"
    return f"{type(error).__name__} at {place}: {error.message}"


x = np.ones((2, 3), np.float32)
attempts = {
    "shape mismatch": lambda: product(x, x),
    "Python value of a tensor": lambda: absolute(x),
    "raw op without an attribute": lambda: s4tf.op("reduce_sum", x, axes=(0,)),
}
for name, attempt in attempts.items():
    try:
        attempt()
    except s4tf.S4tfError as error:
        print(f"{name}: {where_and_what(error)}")

print("absolute_staged:", np.asarray(absolute_staged(np.array([-1.0, 2.0], np.float32))).tolist())
