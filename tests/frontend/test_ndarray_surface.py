"""Every public name of ``numpy.ndarray`` on ``s4tf.Tensor``: implemented (and then
checked against NumPy's result on a small array, all in one lazy trace) or refused with a
reason; in-place methods name ``x.at[]``; a wrong argument is an s4tf error at the caller's line."""

import pickle

import numpy as np
import pytest

import s4tf
from s4tf.staging import tensor_methods

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(3)
X = RNG.uniform(-2.0, 2.0, (2, 3, 4)).astype(np.float32)
M = RNG.uniform(-2.0, 2.0, (3, 3)).astype(np.float32)
V = np.array([3.0, -1.0, 2.0, 0.0], np.float32)
I = np.array([[0, 1, 2], [2, 1, 0]], np.int32)

#: name -> calls of the method: (label, function of the array, NumPy's or s4tf's alike).
COMPUTED = {
    "T": [("", lambda a: a.T)],
    "mT": [("", lambda a: a.mT)],
    "all": [("", lambda a: (a > -1).all()), ("axis", lambda a: (a > 0).all(axis=1, keepdims=True))],
    "any": [("", lambda a: (a > 1.9).any()), ("axis", lambda a: (a > 0).any(axis=(0, 2)))],
    "argmax": [("", lambda a: a.argmax()), ("axis", lambda a: a.argmax(axis=2)),
               ("keepdims", lambda a: a.argmax(axis=1, keepdims=True))],
    "argmin": [("", lambda a: a.argmin()), ("axis", lambda a: a.argmin(axis=0))],
    "argsort": [("", lambda a: a.argsort()), ("axis", lambda a: a.argsort(axis=1)),
                ("none", lambda a: a.argsort(axis=None))],
    "astype": [("", lambda a: a.astype(np.int32))],
    "choose": [("", lambda a: (a[0, :, :3] > 0).astype(np.int32).choose([a[0, :, :3], a[1, :, :3]]))],
    "clip": [("", lambda a: a.clip(-1, 0.5)), ("min", lambda a: a.clip(min=0.0))],
    "compress": [("", lambda a: a.compress([True, False, True], axis=1)), ("flat", lambda a: a.compress([0, 1, 1]))],
    "conj": [("", lambda a: a.conj())],
    "conjugate": [("", lambda a: a.conjugate())],
    "copy": [("", lambda a: a.copy())],
    "cumprod": [("", lambda a: a.cumprod()), ("axis", lambda a: a.cumprod(axis=2))],
    "cumsum": [("", lambda a: a.cumsum()), ("axis", lambda a: a.cumsum(axis=1))],
    "diagonal": [("", lambda a: a.diagonal()), ("offset", lambda a: a.diagonal(1, 1, 2))],
    "dot": [("", lambda a: a.dot(a[0].T)), ("vector", lambda a: a.dot(a[0, 0]))],
    "flatten": [("", lambda a: a.flatten()), ("F", lambda a: a.flatten("F"))],
    "imag": [("", lambda a: a.imag)],
    "max": [("", lambda a: a.max()), ("axis", lambda a: a.max(axis=1)), ("initial", lambda a: a.max(initial=1.5))],
    "mean": [("", lambda a: a.mean()), ("axis", lambda a: a.mean(axis=(0, 2), keepdims=True))],
    "min": [("", lambda a: a.min()), ("axis", lambda a: a.min(axis=-1))],
    "prod": [("", lambda a: a.prod()), ("axis", lambda a: a.prod(axis=0))],
    "ravel": [("", lambda a: a.ravel())],
    "real": [("", lambda a: a.real)],
    "repeat": [("", lambda a: a.repeat(2)), ("axis", lambda a: a.repeat(2, axis=1))],
    "reshape": [("args", lambda a: a.reshape(4, 6)), ("tuple", lambda a: a.reshape((6, -1))),
                ("list", lambda a: a.reshape([24]))],
    "round": [("", lambda a: a.round()), ("decimals", lambda a: a.round(1))],
    "searchsorted": [("", lambda a: a[0, 0].cumsum().searchsorted(a[1, 1]))],
    "squeeze": [("", lambda a: a[:1].squeeze()), ("axis", lambda a: a[:, :1].squeeze(1))],
    "std": [("", lambda a: a.std()), ("ddof", lambda a: a.std(axis=1, ddof=1))],
    "sum": [("", lambda a: a.sum()), ("axis", lambda a: a.sum(axis=(1, 2), keepdims=True)),
            ("initial", lambda a: a.sum(initial=2.0))],
    "swapaxes": [("", lambda a: a.swapaxes(0, 2))],
    "take": [("", lambda a: a.take([0, 5, 7])), ("axis", lambda a: a.take([2, 0], axis=1)),
             ("wrap", lambda a: a.take([5, -1], axis=2, mode="wrap")), ("clip", lambda a: a.take([9], mode="clip"))],
    "trace": [("", lambda a: a.trace()), ("offset", lambda a: a.trace(1, 1, 2))],
    "transpose": [("", lambda a: a.transpose()), ("args", lambda a: a.transpose(0, 2, 1)),
                  ("tuple", lambda a: a.transpose((1, 0, 2))), ("none", lambda a: a.transpose(None))],
    "var": [("", lambda a: a.var()), ("axis", lambda a: a.var(axis=0, keepdims=True))],
}

#: name -> a check on an eager tensor ``t`` of ``X`` (host results, properties, devices).
HOST = {
    "dtype": lambda t: t.dtype == X.dtype,
    "shape": lambda t: t.shape == X.shape,
    "ndim": lambda t: t.ndim == X.ndim,
    "size": lambda t: t.size == X.size,
    "nbytes": lambda t: t.nbytes == X.nbytes,
    "itemsize": lambda t: t.itemsize == X.itemsize,
    "device": lambda t: t.device == "cpu",
    "to_device": lambda t: t.to_device("cpu") is t,
    "item": lambda t: t[1, 2, 3].item() == X[1, 2, 3].item() and t.item(5) == X.item(5),
    "tolist": lambda t: t.tolist() == X.tolist(),
    "tobytes": lambda t: t.tobytes() == X.tobytes(),
    "dumps": lambda t: np.array_equal(pickle.loads(t.dumps()), X),
    "nonzero": lambda t: all(np.array_equal(g, w) for g, w in zip((t > 1).nonzero(), (X > 1).nonzero())),
}

#: name -> a check that writes a file in ``path``.
FILES = {
    "tofile": lambda t, path: (t.tofile(path / "x.bin"), np.array_equal(np.fromfile(path / "x.bin", np.float32), X.ravel()))[1],
    "dump": lambda t, path: (t.dump(path / "x.pkl"), np.array_equal(np.load(path / "x.pkl", allow_pickle=True), X))[1],
}

#: Refused: changes an array in place (the error names x.at[]).
IN_PLACE = {"fill", "itemset", "partition", "put", "resize", "setfield", "setflags", "sort", "byteswap"}
#: Refused, with the reason the error gives.
REFUSED = {
    "view": "shares the array.s memory", "getfield": "structured dtypes", "argpartition": "top_k",
    "strides": "device", "ctypes": "device", "data": "device", "base": "view", "flags": "read-only", "flat": r"x\.at\[\]",
}


def test_every_public_ndarray_name_is_classified():
    public = {name for name in dir(np.ndarray) if not name.startswith("_")}
    classified = set(COMPUTED) | set(HOST) | set(FILES) | IN_PLACE | set(REFUSED)
    assert sorted(public - classified) == [], "NumPy names with no entry here"
    assert sorted(classified - public - {"itemset"}) == []  # itemset: NumPy 1's, refused all the same


def test_computed_methods_match_numpy_in_one_trace():
    x = s4tf.asarray(X)
    with s4tf.lazy():
        got = {(name, label): fn(x) for name, calls in COMPUTED.items() for label, fn in calls}
        s4tf.barrier()
    for name, calls in COMPUTED.items():
        for label, fn in calls:
            want, result = fn(X), got[name, label]
            result = np.asarray(result)
            assert result.shape == np.shape(want), (name, label)
            np.testing.assert_allclose(result.astype(np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-5,
                                       err_msg=f"x.{name} ({label})")


def test_methods_stage_and_differentiate():
    @s4tf.function
    def f(a):
        return a.transpose(0, 2, 1).reshape(2, -1).std(axis=1), a.swapaxes(0, 1).cumsum(axis=0).clip(-1, 1)

    got = f(X)
    np.testing.assert_allclose(np.asarray(got[0]), X.transpose(0, 2, 1).reshape(2, -1).std(axis=1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got[1]), X.swapaxes(0, 1).cumsum(axis=0).clip(-1, 1), rtol=1e-5)
    gradient = s4tf.grad(lambda a: (a.ravel().prod() + a.var() + a.trace()))(M.astype(np.float64))
    m = M.astype(np.float64)
    np.testing.assert_allclose(np.asarray(gradient), m.prod() / m + 2 * (m - m.mean()) / m.size + np.eye(3), rtol=1e-10)


def test_host_methods_and_properties():
    t = s4tf.asarray(X)
    assert [name for name, check in HOST.items() if not check(t)] == []


def test_file_methods(tmp_path):
    t = s4tf.asarray(X)
    assert [name for name, check in FILES.items() if not check(t, tmp_path)] == []


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_methods_name_at(name):
    with pytest.raises(s4tf.ImmutableTensorError, match=r"x\.at\[") as error:
        getattr(s4tf.asarray(V), name)(0)
    assert "test_ndarray_surface.py" in str(error.value)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_names_say_why(name):
    t = s4tf.asarray(V)
    with pytest.raises(s4tf.S4tfError, match=REFUSED[name]) as error:
        value = getattr(t, name)
        value()
    assert "test_ndarray_surface.py" in str(error.value)
    if name in tensor_methods.NO_ATTRIBUTE:
        assert not hasattr(t, name)  # an AttributeError: hasattr and getattr(t, name, default) work


@pytest.mark.parametrize("call", [
    lambda t: t.sum(axes=0),
    lambda t: t.reshape(2, "a"),
    lambda t: t.mean(out=np.zeros(())),
    lambda t: t.max(where=t > 0),
    lambda t: t.take([0], mode="bogus"),
    lambda t: t.argsort(order="f"),
    lambda t: t.reshape(),
    lambda t: t.flatten("Q"),
    lambda t: t.clip(0, 1, 2, 3),
], ids=["keyword", "shape", "out", "where", "mode", "order", "no shape", "flatten order", "too many"])
def test_a_wrong_argument_is_an_s4tf_error_at_the_callers_line(call):
    with pytest.raises(s4tf.S4tfError) as error:
        call(s4tf.asarray(V))
    assert "test_ndarray_surface.py" in str(error.value)


def test_nonzero_is_eager_only():
    with pytest.raises(s4tf.StagingError):
        s4tf.function(lambda a: a.nonzero())(V)
