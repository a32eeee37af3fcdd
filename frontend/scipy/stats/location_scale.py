"""What the location-scale distributions share: ``(x - loc) / scale`` in the floating dtype
of the three, and the cdf, sf and quantiles of a symmetric one from its standard form."""

from __future__ import annotations

from s4tf.arrays import numpy_api as snp


def standardized(x, loc, scale):
    """``(z, scale)``: ``z = (x - loc) / scale`` and ``scale`` as a tensor of ``z``'s dtype."""
    x = snp.asarray(snp._float_operand(x))
    scale = snp.astype(snp.asarray(scale), x.dtype)
    return (x - loc) / scale, scale


def symmetric_family(standard_cdf, standard_quantile):
    """``cdf, sf, ppf, isf`` of the location-scale family of a distribution symmetric about
    0, from its standard ``cdf`` and quantile function: ``sf(x) = cdf(-z)``, without
    cancellation in the upper tail, and ``isf(q) = -ppf(q)`` about ``loc``."""

    def cdf(x, loc=0, scale=1):
        return standard_cdf(standardized(x, loc, scale)[0])

    def sf(x, loc=0, scale=1):
        return standard_cdf(-standardized(x, loc, scale)[0])

    def ppf(q, loc=0, scale=1):
        return standard_quantile(q) * scale + loc

    def isf(q, loc=0, scale=1):
        return -standard_quantile(q) * scale + loc

    return cdf, sf, ppf, isf
