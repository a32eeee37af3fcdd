"""The uniform distribution on ``[loc, loc + scale]``: ``s4tf.scipy.stats.uniform``
(``jax.scipy.stats.uniform``'s functions)."""

from __future__ import annotations

import numpy as np

from s4tf.arrays import numpy_api as snp
from s4tf.scipy.stats.location_scale import standardized


def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` inside the interval, ``-inf`` outside."""
    z, scale = standardized(x, loc, scale)
    return snp.where((z >= 0) & (z <= 1), -snp.log(scale), -np.inf)


def pdf(x, loc=0, scale=1):
    return snp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return snp.clip(standardized(x, loc, scale)[0], 0.0, 1.0)


def ppf(q, loc=0, scale=1):
    """``loc + q * scale``; NaN outside ``[0, 1]``."""
    q = snp.asarray(snp._float_operand(q))
    return snp.where((q >= 0) & (q <= 1), loc + q * scale, np.nan)


__all__ = ["cdf", "logpdf", "pdf", "ppf"]
