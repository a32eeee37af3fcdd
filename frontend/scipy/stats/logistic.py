"""The logistic distribution: ``s4tf.scipy.stats.logistic`` (``jax.scipy.stats.logistic``'s
functions)."""

from __future__ import annotations

from s4tf.arrays import numpy_api as snp
from s4tf.scipy.special import expit, logit
from s4tf.scipy.stats.location_scale import standardized, symmetric_family


def logpdf(x, loc=0, scale=1):
    """``-|z| - 2 log1p(exp(-|z|)) - log(scale)`` (the density is symmetric): no overflow."""
    z, scale = standardized(x, loc, scale)
    magnitude = snp.abs(z)
    return -magnitude - 2.0 * snp.log1p(snp.exp(-magnitude)) - snp.log(scale)


def pdf(x, loc=0, scale=1):
    return snp.exp(logpdf(x, loc, scale))


cdf, sf, ppf, isf = symmetric_family(expit, logit)


__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]
