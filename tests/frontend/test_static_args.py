"""``static_argnums`` / ``static_argnames`` (frontend/staging/static_args.py): static values
reach the Python function as they are and key the compiled versions, against NumPy."""

import functools

import numpy as np
import pytest

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

X = np.linspace(-1.0, 1.0, 5).astype(np.float32)


def test_a_callable_as_a_static_argument_compiles_a_version_per_value():
    @functools.partial(s4tf.function, static_argnums=(1,))
    def apply(x, activation):
        return activation(x)

    np.testing.assert_allclose(np.asarray(apply(X, s4tf.tanh)), np.tanh(X), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(apply(X, s4tf.sigmoid)), 1 / (1 + np.exp(-X)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(apply(X, s4tf.tanh)), np.tanh(X), rtol=1e-6)
    signatures = apply.compiled_signatures()
    assert len(signatures) == 2 and all(s.startswith("(tensor<5xf32>) static {'activation': ") for s in signatures)


def test_static_argnames_by_keyword_or_position_and_tensor_control_flow_inside():
    @functools.partial(s4tf.function, static_argnames=("sizes",))
    def pieces(x, sizes):
        out, start = [], 0
        for n in sizes:  # a Python loop over a static tuple
            part = x[start:start + n].sum()
            if part > 0:  # a tensor condition: staged as a region op
                part = part * 2.0
            out.append(part)
            start += n
        return out

    x = np.arange(-2.0, 4.0)
    want = [np.float32(-2.0), np.float32(-1.0 + 0.0), np.float32((1.0 + 2.0 + 3.0) * 2)]
    for got in (pieces(x, sizes=(1, 2, 3)), pieces(x, (1, 2, 3))):
        np.testing.assert_allclose([float(np.asarray(v)) for v in got], want)
    assert len(pieces.compiled_signatures()) == 1  # the positional call is the same static value


def test_donated_positions_count_the_dynamic_arguments_only():
    @functools.partial(s4tf.function, static_argnums=(0,), donate_argnums=(1,))
    def scaled(factor, x):
        return x * factor

    x = s4tf.asarray(X)
    out = scaled(3.0, x)
    np.testing.assert_allclose(np.asarray(out), X * 3.0)
    assert x.donated_to == "scaled"


def test_an_array_cannot_be_static_and_extract_refuses_static_arguments():
    staged = s4tf.function(lambda x, w: x * w, static_argnums=(1,))
    with pytest.raises(s4tf.S4tfError, match="static argument 1 must be hashable, got ndarray"):
        staged(X, np.ones(5))
    with pytest.raises(s4tf.S4tfError, match="static arguments are not supported with extract=True"):
        s4tf.function(lambda x: x, extract=True, static_argnums=(0,))
