"""``(x - loc) / scale`` in the floating dtype of the three, shared by the distributions."""

from __future__ import annotations

from s4tf.arrays import numpy_api as snp


def standardized(x, loc, scale):
    """``(z, scale)``: ``z = (x - loc) / scale`` and ``scale`` as a tensor of ``z``'s dtype."""
    x = snp.asarray(snp._float_operand(x))
    scale = snp.astype(snp.asarray(scale), x.dtype)
    return (x - loc) / scale, scale
