"""The multivariate normal distribution: ``s4tf.scipy.stats.multivariate_normal``
(``jax.scipy.stats.multivariate_normal``'s functions), through the Cholesky factor of
``cov``."""

from __future__ import annotations

import math

from s4tf.arrays import numpy_api as snp
from s4tf.arrays.shaping import diagonal
from s4tf.core.locations import shape_error
from s4tf.linalg import cholesky, triangular_solve


def logpdf(x, mean, cov, allow_singular=None):
    """The log density at ``x`` (``(..., d)``) of ``N(mean, cov)`` (``mean``: ``(d,)``,
    ``cov``: ``(d, d)``, positive definite)."""
    if allow_singular:
        raise shape_error("s4tf.scipy.stats.multivariate_normal has no allow_singular: cov must be positive definite")
    diff = snp.asarray(snp._float_operand(x)) - mean
    cov = snp.astype(snp.asarray(cov), diff.dtype)
    d = diff.shape[-1] if diff.ndim else 0
    if cov.shape != (d, d):
        raise shape_error(f"multivariate_normal: cov must have shape ({d}, {d}) for x of shape {tuple(diff.shape)}, "
                          f"got {tuple(cov.shape)}")
    factor = cholesky(cov)
    solved = triangular_solve(factor, snp.reshape(diff, (-1, d)).T, lower=True)
    mahalanobis = snp.reshape(snp.sum(solved * solved, axis=0), diff.shape[:-1])
    return -0.5 * mahalanobis - snp.sum(snp.log(diagonal(factor))) - 0.5 * d * math.log(2 * math.pi)


def pdf(x, mean, cov, allow_singular=None):
    return snp.exp(logpdf(x, mean, cov, allow_singular))


__all__ = ["logpdf", "pdf"]
