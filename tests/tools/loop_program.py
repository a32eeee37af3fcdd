"""A loop-bound program for s4tf-compile, shared by the tests of s4tf-run's drivers (host and qemu)."""

LOOP = """\
import s4tf


def relax(x):
    i = 0
    while i < 40:
        x = 0.5 * (x + 2.0 / (x + 1.0))
        i += 1
    return x
"""
