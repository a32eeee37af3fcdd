"""The Array API's ``linalg`` extension (2023.12) in ``s4tf.linalg``: every function with
its keyword arguments, batched, against NumPy in f64 and f32; the named-tuple results;
derivatives against float64 finite differences; errors that name the user's line."""

import sys
from pathlib import Path

import numpy as np
import pytest

import s4tf
from s4tf.linalg import LinAlgError

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

sys.path.insert(0, str(Path(__file__).parents[1] / "autodiff"))
from gradient_checks import directional_check  # noqa: E402

L = s4tf.linalg
RNG = np.random.default_rng(3)
TOLERANCE = {np.float64: 1e-10, np.float32: 3e-5}
STANDARD = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
    "trace", "vecdot", "vector_norm",
]


def _close(actual, expected, dtype, scale=1.0):
    tolerance = TOLERANCE[dtype] * scale
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=tolerance, atol=tolerance)


def _spd(n, batch=()):
    a = RNG.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def test_every_standard_function_is_there_and_results_are_named_tuples():
    assert [name for name in STANDARD if not callable(getattr(L, name, None))] == []
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    results = s4tf.function(lambda a: (L.eigh(a), L.qr(a), L.slogdet(a), L.svd(a)))(a)
    expected = [("eigenvalues", "eigenvectors"), ("Q", "R"), ("sign", "logabsdet"), ("U", "S", "Vh")]
    assert [type(r).__name__ for r in results] == ["EighResult", "QRResult", "SlogdetResult", "SVDResult"]
    assert [type(r)._fields for r in results] == expected
    assert all(r[0] is getattr(r, fields[0]) for r, fields in zip(results, expected))


def _products(x3, y3, sq, a, v, w):
    return (
        L.cross(x3, y3), L.cross(np.swapaxes(x3, -1, -2)[..., :3, :], y3.T, axis=-2),
        L.diagonal(sq), L.diagonal(sq, offset=1), L.diagonal(a, offset=-2),
        L.trace(sq), L.trace(a, offset=-1), L.trace(sq, dtype=np.float64),
        L.matmul(sq, a[:, :3, :]), L.tensordot(sq, a[:, :3, :], axes=([0, 1], [0, 1])), L.tensordot(v, w, axes=0),
        L.vecdot(sq, v[:3]), L.vecdot(sq, sq, axis=-2), L.outer(v, w), L.matrix_transpose(a),
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_products_and_diagonals_against_numpy(dtype):
    x3, y3 = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((4, 3))
    sq, a = RNG.standard_normal((2, 3, 3)), RNG.standard_normal((2, 5, 4))
    v, w = RNG.standard_normal(4), RNG.standard_normal(5)
    args = [t.astype(dtype) for t in (x3, y3, sq, a, v, w)]
    actual = s4tf.function(_products)(*args)
    expected = [
        np.cross(x3, y3), np.cross(np.swapaxes(x3, -1, -2)[..., :3, :], y3.T, axis=-2),
        np.diagonal(sq, 0, -2, -1), np.diagonal(sq, 1, -2, -1), np.diagonal(a, -2, -2, -1),
        np.trace(sq, 0, -2, -1), np.trace(a, -1, -2, -1), np.trace(sq, 0, -2, -1),
        sq @ a[:, :3, :], np.tensordot(sq, a[:, :3, :], axes=([0, 1], [0, 1])), np.tensordot(v, w, axes=0),
        np.sum(sq * v[:3], -1), np.sum(sq * sq, -2), np.outer(v, w), np.swapaxes(a, -1, -2),
    ]
    for result, value in zip(actual, expected):
        assert result.shape == value.shape
        _close(result, value, dtype, 10)
    assert actual[7].dtype == np.float64 and actual[0].dtype == dtype
    small = np.array([[1, -2, 3]], np.int8)
    assert np.asarray(L.vecdot(small, small)).tolist() == [14] and L.vecdot(small, small).dtype == np.int8  # the standard's dtype


def _factorizations(spd, sq, tall, b, deficient):
    return (
        L.cholesky(spd, upper=True), L.solve(sq[0], b), L.solve(sq, b[0, :, 0]), L.inv(sq), L.det(sq),
        L.slogdet(sq), L.matrix_power(sq, -2), L.matrix_power(sq, 0), L.matrix_power(sq, 5),
        L.qr(tall, mode="complete"), L.qr(np.swapaxes(tall, -1, -2), mode="complete"),
        L.svd(tall), L.svd(np.swapaxes(tall, -1, -2), full_matrices=False), L.svdvals(tall), L.eigvalsh(spd),
        L.pinv(tall), L.pinv(deficient), L.matrix_rank(deficient), L.matrix_rank(deficient, rtol=np.array([1e-3, 0.5])),
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_factorizations_against_numpy(dtype):
    spd, sq = _spd(3, (2,)), RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    tall, b = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 3, 2))
    columns = RNG.integers(-4, 5, (2, 4, 2)).astype(np.float64)
    deficient = np.concatenate([columns, columns[..., :1] + columns[..., 1:]], axis=-1)  # rank 2, exactly
    args = [t.astype(dtype) for t in (spd, sq, tall, b, deficient)]
    (chol, solved, vector, inverse, det, (sign, logdet), inverse_square, identity, fifth,
     (q, r), (wide_q, wide_r), (u, s, vh), (wide_u, wide_s, wide_vh), svdvals, eigenvalues,
     pinv, deficient_pinv, rank, ranks) = s4tf.function(_factorizations)(*args)
    _close(chol, np.swapaxes(np.linalg.cholesky(spd), -1, -2), dtype, 10)
    _close(solved, np.linalg.solve(sq[0], b), dtype, 10)
    _close(vector, np.linalg.solve(sq, b[0, :, 0][None, :, None])[..., 0], dtype, 10)
    _close(inverse, np.linalg.inv(sq), dtype, 10)
    _close(det, np.linalg.det(sq), dtype, 10)
    np.testing.assert_array_equal(np.asarray(sign), np.linalg.slogdet(sq)[0])
    _close(logdet, np.linalg.slogdet(sq)[1], dtype, 10)
    _close(inverse_square, np.stack([np.linalg.matrix_power(m, -2) for m in sq]), dtype, 100)
    np.testing.assert_array_equal(np.asarray(identity), np.broadcast_to(np.eye(3), (2, 3, 3)))
    _close(fifth, np.stack([np.linalg.matrix_power(m, 5) for m in sq]), dtype, 100)
    eye4 = np.broadcast_to(np.eye(4), (2, 4, 4))
    q, r, wide_q, wide_r = (np.asarray(t, np.float64) for t in (q, r, wide_q, wide_r))
    assert q.shape == (2, 4, 4) and r.shape == (2, 4, 3) and wide_q.shape == (2, 3, 3) and wide_r.shape == (2, 3, 4)
    _close(q @ r, tall, dtype, 10)
    _close(np.swapaxes(q, -1, -2) @ q, eye4, dtype, 10)
    _close(wide_q @ wide_r, np.swapaxes(tall, -1, -2), dtype, 10)
    np.testing.assert_array_equal(np.tril(r, -1), 0)
    _close(np.abs(r[:, :3]), np.abs(np.linalg.qr(tall)[1]), dtype, 10)
    u, s, vh, wide_u, wide_vh = (np.asarray(t, np.float64) for t in (u, s, vh, wide_u, wide_vh))
    assert u.shape == (2, 4, 4) and vh.shape == (2, 3, 3) and wide_u.shape == (2, 3, 3) and wide_vh.shape == (2, 3, 4)
    _close(u[..., :3] * s[..., None, :] @ vh, tall, dtype, 100)
    _close(np.swapaxes(u, -1, -2) @ u, eye4, dtype, 100)
    _close(wide_u * np.asarray(wide_s, np.float64)[..., None, :] @ wide_vh, np.swapaxes(tall, -1, -2), dtype, 100)
    _close(s, np.linalg.svd(tall, compute_uv=False), dtype, 100)
    _close(svdvals, np.linalg.svd(tall, compute_uv=False), dtype, 100)
    _close(eigenvalues, np.linalg.eigvalsh(spd), dtype, 100)
    _close(pinv, np.linalg.pinv(tall), dtype, 100)
    _close(deficient_pinv, np.linalg.pinv(deficient, rtol=1e-3), dtype, 100)
    np.testing.assert_array_equal(np.asarray(rank), [2, 2])
    np.testing.assert_array_equal(np.asarray(ranks), np.linalg.matrix_rank(deficient, rtol=np.array([1e-3, 0.5])))
    assert np.asarray(rank).dtype == np.int32


ORDS = [2, 1, 0, -1, 3, 0.5, -2.5, np.inf, -np.inf]
MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_norms_against_numpy(dtype):
    x = RNG.standard_normal((2, 3, 4))
    x[0, 0, 0] = 0.0

    def norms(x):
        vectors = [L.vector_norm(x, ord=o) for o in ORDS]
        vectors += [L.vector_norm(x, axis=(0, 2), keepdims=True, ord=o) for o in ORDS]
        vectors += [L.vector_norm(x, axis=-2, ord=o) for o in ORDS]
        return vectors + [L.matrix_norm(x, ord=o, keepdims=k) for o in MATRIX_ORDS for k in (False, True)]

    actual = s4tf.function(norms)(x.astype(dtype))
    with np.errstate(divide="ignore"):  # NumPy's negative orders of the zero
        expected = _numpy_norms(x)
    for result, value in zip(actual, expected, strict=True):
        assert result.shape == value.shape and result.dtype == dtype
        _close(result, value, dtype, 100)


def _numpy_norms(x):
    flat = x.reshape(-1)
    moved = np.moveaxis(x, 1, 0).reshape(3, -1)
    expected = [np.linalg.norm(flat, o) for o in ORDS]
    expected += [np.linalg.norm(moved, o, axis=1).reshape(1, 3, 1) for o in ORDS]
    expected += [np.linalg.norm(x, o, axis=-2) for o in ORDS]
    return expected + [np.linalg.norm(x, o, axis=(-2, -1), keepdims=k) for o in MATRIX_ORDS for k in (False, True)]


# -- derivatives ------------------------------------------------------------------------


def _flat(*results):
    return s4tf.concatenate([s4tf.reshape(r, (-1,)) for r in results])


def test_derivatives_of_the_new_functions():
    sq, tall, spd = RNG.standard_normal((3, 3)) + 2 * np.eye(3), RNG.standard_normal((4, 3)), _spd(3)
    x3, y3 = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    directional_check(lambda sq, x3, y3: _flat(
        L.matrix_power(sq, 3), L.matrix_power(sq, -2), L.trace(sq, offset=1), L.diagonal(sq, offset=-1),
        L.cross(x3, y3), L.outer(y3, x3[0]), L.vecdot(x3, y3), L.cholesky(sq @ sq.T, upper=True),
        L.matrix_norm(sq, ord="fro"), L.matrix_norm(sq, ord=1), L.vector_norm(x3, ord=3), L.vector_norm(x3, axis=0, ord=np.inf),
    ), [sq, x3, y3])
    directional_check(lambda tall, spd: _flat(
        L.eigvalsh(spd, sweeps=5), L.svdvals(tall, sweeps=5), L.pinv(tall, sweeps=5),
        L.qr(tall, mode="complete").R, L.qr(tall, mode="complete").Q[:, :3],
    ), [tall, spd], rtol=1e-3)


# -- errors -----------------------------------------------------------------------------


def test_bad_arguments_name_the_users_line():
    here = rf"{Path(__file__).name}:\d+"
    with pytest.raises(LinAlgError, match=rf"{here}.*matrix_power needs an integer exponent, got 1.5"):
        L.matrix_power(np.eye(2), 1.5)
    with pytest.raises(LinAlgError, match=rf"{here}.*qr: mode must be 'reduced' or 'complete', got 'r'"):
        L.qr(np.eye(2), mode="r")
    with pytest.raises(LinAlgError, match=rf"{here}.*outer needs two vectors, got shapes \(2, 2\) and \(2,\)"):
        L.outer(np.eye(2), np.ones(2))
    with pytest.raises(LinAlgError, match=rf"{here}.*ord 'fro' is a matrix norm"):
        L.vector_norm(np.ones(3), ord="fro")
    with pytest.raises(LinAlgError, match=rf"{here}.*matrix_norm needs matrices \(\.\.\., m, n\), got shape \(3,\)"):
        L.matrix_norm(np.ones(3))
    with pytest.raises(LinAlgError, match=rf"{here}.*the batch axes of a \(2, 2, 2\) and b \(3, 2, 1\) do not broadcast"):
        L.solve(np.ones((2, 2, 2)), np.ones((3, 2, 1)))
    with pytest.raises(s4tf.ShapeError, match=rf"{here}.*axis 2 is out of range for a tensor of rank 2"):
        L.vector_norm(np.ones((2, 2)), axis=(0, 2))
