"""The normal distribution: ``s4tf.scipy.stats.norm`` (``jax.scipy.stats.norm``'s functions)."""

from __future__ import annotations

import math

from s4tf.arrays import numpy_api as snp
from s4tf.scipy.special import log_ndtr, ndtr, ndtri
from s4tf.scipy.stats.location_scale import standardized, symmetric_family


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -0.5 * z * z - 0.5 * math.log(2 * math.pi) - snp.log(scale)


def pdf(x, loc=0, scale=1):
    return snp.exp(logpdf(x, loc, scale))


cdf, sf, ppf, isf = symmetric_family(ndtr, ndtri)


def logcdf(x, loc=0, scale=1):
    """``log(cdf)``, finite far into the lower tail (:func:`s4tf.scipy.special.log_ndtr`)."""
    return log_ndtr(standardized(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    return log_ndtr(-standardized(x, loc, scale)[0])


__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
