"""NumPy's functions users reach for, in ``s4tf``: values against NumPy's (one lazy trace,
one compilation), a few derivatives against JAX's, clear errors for bad input, and a list
of NumPy's main names that ``s4tf`` must have."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(7)
A = RNG.uniform(-2.0, 2.0, (4, 6)).astype(np.float32)
B = RNG.uniform(-2.0, 2.0, (4, 6)).astype(np.float32)
C = RNG.uniform(-2.0, 2.0, (2, 3, 4)).astype(np.float32)
V3 = RNG.uniform(-2.0, 2.0, (5, 3)).astype(np.float32)
W3 = RNG.uniform(-2.0, 2.0, (3,)).astype(np.float32)
U = np.array([1.0, -2.0, 0.5, 3.0, 0.0, -1.5, 2.0], np.float32)
K = np.array([0.5, 1.0, -0.25], np.float32)
SPECIAL = np.array([-np.inf, -3.0, -0.0, 0.0, 0.25, 2.0, np.inf, np.nan], np.float32)
ALSO = np.array([1.0, np.nan, 2.0, -1.0, np.nan, -np.inf, 0.5, np.nan], np.float32)
INTS = np.array([7, -7, 6, -5, 0, 9], np.int32)
DIVS = np.array([3, 3, -4, 2, 5, 0], np.int32)

#: label -> (s4tf's call, NumPy's call): functions of the module (``s4tf`` or ``np``).
CASES = {
    "split": lambda m: m.split(A, 3, axis=1),
    "split at": lambda m: m.split(A, [1, 3, 9]),
    "array_split": lambda m: m.array_split(U, 3),
    "vsplit": lambda m: m.vsplit(A, 2),
    "hsplit": lambda m: m.hsplit(A, [2]),
    "hsplit 1-d": lambda m: m.hsplit(U, [3]),
    "dsplit": lambda m: m.dsplit(C, 2),
    "vstack": lambda m: m.vstack([A, A[0], B]),
    "row_stack": lambda m: m.vstack((A, B)),
    "hstack": lambda m: m.hstack([A, B]),
    "hstack 1-d": lambda m: m.hstack([U, K]),
    "column_stack": lambda m: m.column_stack([A[:, 0], A, B[:, 1]]),
    "dstack": lambda m: m.dstack([A, B]),
    "dstack 1-d": lambda m: m.dstack([U, U]),
    "atleast_1d": lambda m: m.atleast_1d(np.float32(2.0)),
    "atleast_2d": lambda m: m.atleast_2d(U, A),
    "atleast_3d": lambda m: (m.atleast_3d(U), m.atleast_3d(A), m.atleast_3d(C)),
    "diag": lambda m: m.diag(A),
    "diag k": lambda m: m.diag(A, k=2),
    "diag k<0": lambda m: m.diag(A, -1),
    "diag of a vector": lambda m: m.diag(K),
    "diag of a vector k": lambda m: (m.diag(K, 2), m.diag(K, -1)),
    "diagonal": lambda m: m.diagonal(C, 1, 2, 1),
    "diagonal far": lambda m: m.diagonal(A, 7),
    "trace": lambda m: m.trace(A),
    "trace offset": lambda m: m.trace(C, -1, 1, 2),
    "dot": lambda m: (m.dot(A, B.T), m.dot(C, A[:, :4].T), m.dot(U, U), m.dot(C, K[:1].repeat(4)), m.dot(2.0, K)),
    "vdot": lambda m: m.vdot(A, B),
    "kron": lambda m: (m.kron(A[:2, :3], B[:3, :2]), m.kron(K, A[:2])),
    "cross": lambda m: (m.cross(V3, W3), m.cross(V3.T, V3.T, axis=0), m.cross(V3, V3[::-1], axisc=0)),
    "exp2": lambda m: m.exp2(A),
    "cbrt": lambda m: m.cbrt(A * 5),
    "sinc": lambda m: m.sinc(np.concatenate([A.ravel(), [0.0]]).astype(np.float32)),
    "logaddexp2": lambda m: m.logaddexp2(A, B),
    "deg2rad": lambda m: (m.deg2rad(A * 90), m.radians(A * 90)),
    "rad2deg": lambda m: (m.rad2deg(A), m.degrees(A)),
    "fmax": lambda m: (m.fmax(SPECIAL, ALSO), m.fmax(A, B)),
    "fmin": lambda m: (m.fmin(SPECIAL, ALSO), m.fmin(A, B)),
    "fmod": lambda m: (m.fmod(A * 3, B), m.fmod(INTS, DIVS), m.fmod(SPECIAL[1:6], np.float32(-0.75))),
    "append": lambda m: (m.append(A, B), m.append(A, B, axis=0), m.append(U, 3.0)),
    "rot90": lambda m: (m.rot90(A), m.rot90(A, 2), m.rot90(A, 3), m.rot90(C, -1, axes=(2, 0)), m.rot90(C, 4)),
    "nan_to_num": lambda m: (m.nan_to_num(SPECIAL), m.nan_to_num(SPECIAL, nan=-1.0, posinf=9.0, neginf=-9.0)),
    "array": lambda m: (m.array(U), m.array(U, ndmin=3), m.array([[1, 2], [3, 4]], dtype=np.float32)),
    "convolve": lambda m: tuple(m.convolve(x, y, mode) for mode in ("full", "same", "valid") for x, y in ((U, K), (K, U), (U, U))),
}


def _flat(result):
    return [r for item in result for r in _flat(item)] if isinstance(result, (tuple, list)) else [result]


def test_functions_match_numpy_in_one_trace():
    with s4tf.lazy():
        got = {label: case(s4tf) for label, case in CASES.items()}
        s4tf.barrier()
    with np.errstate(all="ignore"):
        for label, case in CASES.items():
            want, result = _flat(case(np)), _flat(got[label])
            assert len(result) == len(want), label
            for g, w in zip(result, want):
                g = np.asarray(g)
                assert g.shape == np.shape(w), f"{label}: {g.shape} against NumPy's {np.shape(w)}"
                np.testing.assert_allclose(g.astype(np.float64), np.asarray(w, np.float64), rtol=2e-6, atol=2e-6,
                                           equal_nan=True, err_msg=label)


def test_erfc_against_scipy_and_ndim():
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(s4tf.erfc(x)), scipy.special.erfc(x), rtol=1e-5, atol=1e-6)
    assert s4tf.ndim(s4tf.asarray(C)) == 3 and s4tf.ndim([[1, 2]]) == 2 and s4tf.ndim(2.0) == 0
    assert s4tf.fmod(np.float32(-0.0), 2.0).item() == 0 and np.signbit(np.asarray(s4tf.fmod(-4.0, 2.0)))


#: name -> a function of a module (``s4tf`` or ``jax.numpy``) and one float64 6 x 6 matrix.
DERIVATIVES = {
    "split": lambda m, x: m.split(x, 3, axis=1)[1] * m.split(x, [2])[0].sum(),
    "vstack": lambda m, x: m.vstack([m.sin(x), x[0]]),
    "dstack": lambda m, x: m.dstack([x, x * x]),
    "diag": lambda m, x: m.diag(m.diag(x, 1), -1) + m.trace(x) * m.diagonal(x),
    "rot90": lambda m, x: m.rot90(x) * x,
    "kron": lambda m, x: m.kron(x[:2, :3], x[3:, 4:]),
    "cross": lambda m, x: m.cross(x[:, :3], x[:, 3:]),
    "dot": lambda m, x: m.dot(x, x[0]) + m.vdot(x, x.T),
    "convolve": lambda m, x: m.convolve(x[0], x[1, :3], mode="same") + m.convolve(x[2], x[3], mode="full")[:6],
    "math": lambda m, x: m.exp2(x) + m.cbrt(x + 5) + m.sinc(x) + m.logaddexp2(x, x.T) + m.deg2rad(x) + m.rad2deg(x),
    "fmax": lambda m, x: m.fmax(x, x.T) * m.fmin(x, 0.5) + m.fmod(x, 0.7),
    "sinc at 0": lambda m, x: m.sinc(x * 0),
    "append": lambda m, x: m.append(x, x[0] * 2),
}


def _weighted(module, case):
    def f(x):
        y = case(module, x)
        return (y * np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape)).sum()
    return f


def test_derivatives_match_jax():
    x = np.random.default_rng(2).uniform(-1.5, 1.5, (6, 6))
    with s4tf.lazy():
        got = {name: s4tf.grad(_weighted(s4tf, case))(x) for name, case in DERIVATIVES.items()}
        s4tf.barrier()
    for name, case in DERIVATIVES.items():
        want = jax.grad(_weighted(jnp, case))(jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(got[name]), want, rtol=1e-10, atol=1e-10, err_msg=name)


@pytest.mark.parametrize("call, match", [
    (lambda: s4tf.split(U, 3), "do not divide"),
    (lambda: s4tf.split(U, 2.5), "Python int"),
    (lambda: s4tf.split(np.float32(1), 1), "rank >= 1"),
    (lambda: s4tf.vsplit(U, 7), "rank >= 2"),
    (lambda: s4tf.vstack([]), "non-empty"),
    (lambda: s4tf.diag(C), "1-D or 2-D"),
    (lambda: s4tf.diagonal(A, axis1=1, axis2=1), "must differ"),
    (lambda: s4tf.rot90(U), "rank >= 2"),
    (lambda: s4tf.cross(U, U), "3-vectors"),
    (lambda: s4tf.convolve(U, U[:0]), "non-empty"),
    (lambda: s4tf.convolve(U, K, mode="middle"), "mode"),
    (lambda: s4tf.vdot(U, K), "one size"),
], ids=["sections", "float sections", "0-d", "vsplit 1-d", "no arrays", "diag 3-d", "same axes", "rot90 1-d",
        "cross 7", "empty", "mode", "vdot sizes"])
def test_bad_input_is_an_s4tf_error_at_the_callers_line(call, match):
    with pytest.raises(s4tf.S4tfError, match=match) as error:
        call()
    assert "test_numpy_functions.py" in str(error.value)


#: NumPy's main-namespace functions that users reach for: each is in ``s4tf``, of the same name.
REACH_FOR = """
abs absolute add all allclose amax amin any append arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh
argmax argmin argsort array array_split asarray astype atleast_1d atleast_2d atleast_3d broadcast_arrays
broadcast_to cbrt ceil clip column_stack concatenate convolve copysign cos cosh count_nonzero cross cumprod
cumsum deg2rad degrees diag diagonal diff divide dot dsplit dstack einsum empty empty_like equal exp exp2
expand_dims expm1 eye fabs flip fliplr flipud floor floor_divide fmax fmin fmod full full_like greater greater_equal hsplit hstack
hypot inner isclose isfinite isinf isnan kron less less_equal linspace log log10 log1p log2 logaddexp logaddexp2
logical_and logical_not logical_or logical_xor matmul max maximum mean meshgrid min minimum moveaxis multiply
nan_to_num ndim negative nextafter nonzero not_equal ones ones_like outer pad permute_dims positive pow power
prod rad2deg radians ravel reciprocal remainder repeat reshape roll rot90 round row_stack searchsorted sign signbit sin
sinc sinh sort split sqrt square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot
tile trace transpose tril triu trunc var vdot vsplit vstack where zeros zeros_like
""".split()


def test_numpy_names_users_reach_for_are_in_s4tf():
    assert [name for name in REACH_FOR if not hasattr(np, name)] == []  # the list names NumPy's own
    assert [name for name in REACH_FOR if name not in s4tf.__all__] == []


def test_ravel_flips_and_fabs_against_numpy_eager_and_staged():
    x = np.arange(-6.0, 6.0).reshape(3, 4)
    fns = (s4tf.ravel, s4tf.flipud, s4tf.fliplr, s4tf.fabs)
    expected = [np.ravel(x), np.flipud(x), np.fliplr(x), np.fabs(x)]
    for got in ([fn(x) for fn in fns], s4tf.function(lambda x: [fn(x) for fn in fns])(x)):
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(np.asarray(g), e)
    assert np.asarray(s4tf.fabs(np.array([-2, 3], np.int32))).dtype == np.float32  # the default float, as in JAX
    with pytest.raises(s4tf.S4tfError, match="fliplr needs a tensor of rank >= 2"):
        s4tf.fliplr(np.ones(3))
