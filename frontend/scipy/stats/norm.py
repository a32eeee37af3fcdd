"""The normal distribution: ``s4tf.scipy.stats.norm`` (``jax.scipy.stats.norm``'s functions)."""

from __future__ import annotations

import math

from s4tf.arrays import numpy_api as snp
from s4tf.scipy.special import log_ndtr, ndtr, ndtri
from s4tf.scipy.stats.location_scale import standardized


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -0.5 * z * z - 0.5 * math.log(2 * math.pi) - snp.log(scale)


def pdf(x, loc=0, scale=1):
    return snp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return ndtr(standardized(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    """``log(cdf)``, finite far into the lower tail (:func:`s4tf.scipy.special.log_ndtr`)."""
    return log_ndtr(standardized(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    """``1 - cdf``, without cancellation in the upper tail."""
    return ndtr(-standardized(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    return log_ndtr(-standardized(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    """The quantile function, the inverse of ``cdf``."""
    return ndtri(q) * scale + loc


def isf(q, loc=0, scale=1):
    """The inverse of ``sf``."""
    return -ndtri(q) * scale + loc


__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
