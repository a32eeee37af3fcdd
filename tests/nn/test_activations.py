"""``s4tf.nn``'s activations against ``jax.nn``'s of the same names: values and gradients,
all in one trace (one compilation)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf import nn
from s4tf.dialects.types import TensorType

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jax.config.update("jax_enable_x64", True)

#: Points away from the kinks (0, -1, 1, 3, -3, 6), where one-sided derivatives differ.
X = np.array([-7.5, -3.5, -2.2, -1.3, -0.6, -0.05, 0.07, 0.4, 1.2, 2.5, 4.0, 6.5, 9.0], np.float64)

#: name -> (s4tf's, JAX's), each a function of one float tensor.
PAIRS = {
    "relu6": (nn.relu6, jax.nn.relu6),
    "leaky_relu": (nn.leaky_relu, jax.nn.leaky_relu),
    "leaky_relu 0.2": (lambda x: nn.leaky_relu(x, negative_slope=0.2), lambda x: jax.nn.leaky_relu(x, 0.2)),
    "softplus": (nn.softplus, jax.nn.softplus),
    "log_sigmoid": (nn.log_sigmoid, jax.nn.log_sigmoid),
    "silu": (nn.silu, jax.nn.silu),
    "swish": (nn.swish, jax.nn.swish),
    "elu": (nn.elu, jax.nn.elu),
    "elu 0.5": (lambda x: nn.elu(x, 0.5), lambda x: jax.nn.elu(x, 0.5)),
    "selu": (nn.selu, jax.nn.selu),
    "celu": (nn.celu, jax.nn.celu),
    "celu 2": (lambda x: nn.celu(x, 2.0), lambda x: jax.nn.celu(x, 2.0)),
    "hard_tanh": (nn.hard_tanh, jax.nn.hard_tanh),
    "hard_sigmoid": (nn.hard_sigmoid, jax.nn.hard_sigmoid),
    "hard_silu": (nn.hard_silu, jax.nn.hard_silu),
    "gelu": (nn.gelu, jax.nn.gelu),
    "gelu exact": (lambda x: nn.gelu(x, approximate=False), lambda x: jax.nn.gelu(x, approximate=False)),
    "glu": (lambda x: nn.glu(x.reshape(2, -1)[:, :6], axis=-1), lambda x: jax.nn.glu(x.reshape(2, -1)[:, :6], axis=-1)),
    "glu axis 0": (lambda x: nn.glu(x[:12].reshape(4, 3), axis=0), lambda x: jax.nn.glu(x[:12].reshape(4, 3), axis=0)),
    "sigmoid": (nn.sigmoid, jax.nn.sigmoid),
    "relu": (nn.relu, jax.nn.relu),
    "softmax": (nn.softmax, jax.nn.softmax),
    "log_softmax": (nn.log_softmax, jax.nn.log_softmax),
    "logsumexp": (nn.logsumexp, jax.scipy.special.logsumexp),
}


def _scalar(fn):
    """``fn`` summed with fixed weights, so that its gradient checks every output."""
    def summed(x):
        y = fn(x)
        return (y * np.linspace(0.5, 1.5, int(np.prod(np.shape(y)))).reshape(np.shape(y))).sum()
    return summed


def test_activations_match_jax_values_and_gradients():
    inputs = {dtype: X[:12].astype(dtype) for dtype in (np.float32, np.float64)}  # glu needs an even count
    with s4tf.lazy():  # both dtypes in one trace: one compilation
        got = {(name, dtype): (ours(x), s4tf.grad(_scalar(ours))(x))
               for dtype, x in inputs.items() for name, (ours, _) in PAIRS.items()}
        s4tf.barrier()
    for dtype, x in inputs.items():
        tolerance = 1e-5 if dtype == np.float32 else 1e-12
        for name, (_, theirs) in PAIRS.items():
            value, gradient = got[name, dtype]
            # JAX's value and gradient as one program: one XLA compile, not one per primitive
            want, want_gradient = jax.jit(lambda v: (theirs(v), jax.grad(_scalar(theirs))(v)))(jnp.asarray(x))
            assert np.asarray(value).dtype == dtype, name
            np.testing.assert_allclose(np.asarray(value), want, rtol=tolerance, atol=tolerance, err_msg=name)
            np.testing.assert_allclose(np.asarray(gradient), want_gradient, rtol=tolerance, atol=tolerance,
                                       err_msg=f"gradient of {name}")


def test_gelu_defaults_to_the_tanh_form_as_jax():
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(nn.gelu(x)), jax.nn.gelu(x), rtol=1e-6, atol=1e-7)
    assert not np.allclose(np.asarray(nn.gelu(x)), np.asarray(nn.gelu(x, approximate=False)), rtol=0, atol=1e-6)


def test_glu_refuses_an_odd_axis():
    with pytest.raises(s4tf.ShapeError, match="even size"):
        nn.glu(np.ones((2, 3), np.float32))


def test_nn_is_reached_from_import_s4tf():
    import subprocess
    import sys

    code = "import s4tf; print(s4tf.nn.relu6, s4tf.nn.Dense)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", ["gelu", "gelu exact", "silu"])
def test_reverse_mode_keeps_one_tensor_for_gelu_and_silu(name):
    """Their derivative rules keep the slope alone (the composition kept three to six
    tensors: IREE wrote each in the forward pass and read it in the backward one)."""
    ours = PAIRS[name][0]
    x = X[:12].astype(np.float32)
    assert s4tf.saved_residuals(lambda v: ours(v).sum(), x) == [TensorType((12,), "f32")]


@pytest.mark.parametrize("name, function, count", [("gelu", "tanh", 2), ("gelu exact", "erf", 2), ("silu", "exponential", 1)])
def test_the_slope_of_gelu_and_silu_shares_no_op_with_the_value(name, function, count):
    """The slope is written with other ops than the value, so that CSE leaves it one
    function of ``x`` that IREE computes in the backward pass: the step keeps ``x`` alone,
    not the value's intermediates too."""
    ours = PAIRS[name][0]
    x = X[:12].astype(np.float32)
    stablehlo = s4tf.function(s4tf.value_and_grad(lambda v: ours(v).sum())).lower(x).stablehlo()
    # gelu: the value's tanh (erf) and the slope's; silu: the slope's 1 / (1 + exp(-x)) beside the value's logistic
    assert stablehlo.count(f"stablehlo.{function} ") + stablehlo.count(f"chlo.{function} ") == count, stablehlo
