"""``s4tf.linalg`` against NumPy in f32 and f64, batched, and its derivatives against
float64 finite differences, forward and reverse (the AD passes differentiate the
composed factorizations)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf.core.errors import DTypeError
from s4tf.linalg import LinAlgError

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

sys.path.insert(0, str(Path(__file__).parents[1] / "autodiff"))
from gradient_checks import directional_check  # noqa: E402

L = s4tf.linalg
RNG = np.random.default_rng(0)
TOLERANCE = {np.float64: 1e-10, np.float32: 2e-5}


def _general(n, batch=()):
    return RNG.standard_normal((*batch, n, n)) + 2 * np.eye(n)


def _spd(n, batch=()):
    a = RNG.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _close(actual, expected, dtype, scale=1.0):
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=TOLERANCE[dtype] * scale, atol=TOLERANCE[dtype] * scale)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lu_family_against_numpy(dtype):
    a, b, v = _general(4, (2,)), RNG.standard_normal((2, 4, 3)), RNG.standard_normal(4)
    a[0, 0, 0] = 0.0  # a zero first pivot: only partial pivoting gets this right
    f = s4tf.function(lambda a, b, v: (L.solve(a, b), L.solve(a[0], v), L.inv(a), L.det(a), *L.slogdet(a)))
    solved, vector, inverse, det, sign, logdet = f(a.astype(dtype), b.astype(dtype), v.astype(dtype))
    _close(solved, np.linalg.solve(a, b), dtype, 10)
    _close(vector, np.linalg.solve(a[0], v), dtype, 10)
    _close(inverse, np.linalg.inv(a), dtype, 10)
    _close(det, np.linalg.det(a), dtype, 10)
    expected_sign, expected_logdet = np.linalg.slogdet(a)
    np.testing.assert_array_equal(np.asarray(sign), expected_sign)
    _close(logdet, expected_logdet, dtype, 10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cholesky_and_triangular_solve_against_numpy(dtype):
    spd, b = _spd(4, (3,)), RNG.standard_normal((3, 4, 2))
    lower = np.tril(_general(4))
    f = s4tf.function(lambda s, t, b: (
        L.cholesky(s), L.triangular_solve(t, b[0], lower=True), L.triangular_solve(t.T, b[0]),
        L.triangular_solve(t, b[0], lower=True, transpose=True), L.triangular_solve(t, b[0], lower=True, unit_diagonal=True),
    ))
    chol, forward, backward, transposed, unit = f(spd.astype(dtype), lower.astype(dtype), b.astype(dtype))
    _close(chol, np.linalg.cholesky(spd), dtype, 10)
    _close(forward, np.linalg.solve(lower, b[0]), dtype, 10)
    _close(backward, np.linalg.solve(lower.T, b[0]), dtype, 10)
    _close(transposed, np.linalg.solve(lower.T, b[0]), dtype, 10)
    unit_lower = np.tril(lower, -1) + np.eye(4)
    _close(unit, np.linalg.solve(unit_lower, b[0]), dtype, 10)


@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (2, 4)])
def test_qr_factors_are_orthonormal_and_triangular(shape):
    a = RNG.standard_normal((2, *shape))
    q, r = (np.asarray(t) for t in s4tf.function(L.qr)(a))
    k = min(shape)
    assert q.shape == (2, shape[0], k) and r.shape == (2, k, shape[1])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), (2, k, k)), atol=1e-12)
    np.testing.assert_array_equal(np.tril(r, -1), 0)
    _, expected_r = np.linalg.qr(a)
    np.testing.assert_allclose(np.abs(r), np.abs(expected_r), atol=1e-12)  # unique up to the signs of rows


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eigh_and_svd_against_numpy(dtype):
    spd, a = _spd(4), RNG.standard_normal((2, 5, 3))
    w, v, u, s, vh, wide_s = _eigh_svd(spd.astype(dtype), a.astype(dtype))
    _close(w, np.linalg.eigh(spd)[0], dtype, 100)
    v = np.asarray(v, np.float64)
    _close(spd @ v, v * np.asarray(w, np.float64), dtype, 200)
    _close(np.swapaxes(v, -1, -2) @ v, np.eye(4), dtype, 100)
    _close(s, np.linalg.svd(a)[1], dtype, 100)
    _close(np.asarray(u, np.float64) * np.asarray(s, np.float64)[..., None, :] @ np.asarray(vh, np.float64), a, dtype, 100)
    _close(wide_s, np.linalg.svd(a[0].T)[1], dtype, 100)


def _eigh_svd(spd, a):
    return s4tf.function(lambda spd, a: (*L.eigh(spd), *L.svd(a, full_matrices=False), L.svd(a[0].T, compute_uv=False)))(spd, a)


@pytest.mark.parametrize("ord", [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"])
def test_matrix_norms_against_numpy(ord):
    a = RNG.standard_normal((3, 4))
    _close(s4tf.function(lambda a: L.norm(a, ord))(a), np.linalg.norm(a, ord), np.float64, 100)


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, np.inf, -np.inf])
def test_vector_norms_against_numpy(ord):
    x = RNG.standard_normal((3, 4))
    x[0, 0] = 0.0
    actual = s4tf.function(lambda x: (L.norm(x, ord, axis=1), L.norm(x, ord, axis=0, keepdims=True)))(x)
    _close(actual[0], np.linalg.norm(x, ord, axis=1), np.float64)
    _close(actual[1], np.linalg.norm(x, ord, axis=0, keepdims=True), np.float64)
    _close(s4tf.function(L.norm)(x), np.linalg.norm(x), np.float64)


# -- derivatives ------------------------------------------------------------------------


def test_derivatives_of_solve_inv_det_slogdet():
    a, b = _general(3), RNG.standard_normal((3, 2))
    directional_check(L.solve, [a, b])
    directional_check(L.inv, [a])
    directional_check(L.det, [a])
    directional_check(lambda a: L.slogdet(a)[1], [a])


def test_derivatives_of_cholesky_and_triangular_solve():
    directional_check(L.cholesky, [_spd(3)])
    directional_check(lambda t, b: L.triangular_solve(t, b, lower=True), [_general(3), RNG.standard_normal((3, 2))])


def test_derivatives_of_qr_eigh_svd():
    directional_check(lambda a: L.qr(a)[1], [RNG.standard_normal((4, 3))])
    directional_check(lambda a: L.eigh(a, sweeps=5)[0], [_spd(3)], rtol=1e-3)
    directional_check(lambda a: L.svd(a, compute_uv=False, sweeps=5), [RNG.standard_normal((4, 3))], rtol=1e-3)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(LinAlgError, match=r"a must be a square matrix \(\.\.\., n, n\), got shape \(2, 3\)"):
        L.inv(np.ones((2, 3)))
    with pytest.raises(LinAlgError, match=r"b of shape \(2,\) does not match a of shape \(3, 3\)"):
        L.solve(np.eye(3), np.ones(2))
    with pytest.raises(DTypeError, match="s4tf.linalg needs float matrices, got a of int32"):
        L.det(np.eye(2, dtype=np.int32))
    with pytest.raises(LinAlgError, match="ord 'nuc' is a matrix norm"):
        L.norm(np.ones(3), "nuc", axis=0)
