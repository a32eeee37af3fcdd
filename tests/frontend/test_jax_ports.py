"""Programs written for JAX port by renames alone: each is written once, as a function of a
namespace bundle (``ns.jnp``, ``ns.lax``, ``ns.stax``, ...), and run with JAX's modules and
with s4tf's under the same names; the results agree to float32 rounding."""

from types import SimpleNamespace

import numpy as np
import pytest

import s4tf
from s4tf.example_libraries import optimizers as s4tf_optimizers, stax as s4tf_stax

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jax = pytest.importorskip("jax")
from jax.example_libraries import optimizers as jax_optimizers, stax as jax_stax  # noqa: E402
import jax.scipy.stats  # noqa: E402, F401
import jax.test_util  # noqa: E402, F401

JAX = SimpleNamespace(
    jnp=jax.numpy, lax=jax.lax, stats=jax.scipy.stats, special=jax.scipy.special, stax=jax_stax,
    optimizers=jax_optimizers, random=jax.random, grad=jax.grad, value_and_grad=jax.value_and_grad, jit=jax.jit,
    check_grads=jax.test_util.check_grads, device_put=jax.device_put, make_jaxpr=jax.make_jaxpr,
)
S4TF = SimpleNamespace(  # the renames: jax.numpy -> s4tf, jax.jit -> s4tf.function, jax.test_util.check_grads -> s4tf.check_grads
    jnp=s4tf, lax=s4tf.lax, stats=s4tf.scipy.stats, special=s4tf.scipy.special, stax=s4tf_stax,
    optimizers=s4tf_optimizers, random=s4tf.random, grad=s4tf.grad, value_and_grad=s4tf.value_and_grad,
    jit=s4tf.function, check_grads=s4tf.check_grads, device_put=s4tf.device_put, make_jaxpr=s4tf.make_jaxpr,
)
RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def jax_in_float32():
    """JAX's peers in float32, as s4tf's, whatever another test module set for the process
    (``jax_enable_x64`` is process-wide)."""
    with jax.enable_x64(False):
        yield


def mlp_with_adam(ns, x, labels):
    """A stax MLP trained for a few steps with example_libraries.optimizers.adam."""
    init_fun, apply_fun = ns.stax.serial(ns.stax.Dense(16), ns.stax.Relu, ns.stax.Dense(4), ns.stax.LogSoftmax)
    _, params = init_fun(ns.random.PRNGKey(0), (-1, x.shape[1]))
    opt_init, opt_update, get_params = ns.optimizers.adam(0.05)

    def loss(params, x, labels):
        return -ns.jnp.mean(ns.jnp.sum(apply_fun(params, x) * labels, axis=1))

    @ns.jit
    def step(i, opt_state, x, labels):
        value, grads = ns.value_and_grad(loss)(get_params(opt_state), x, labels)
        return opt_update(i, grads, opt_state), value

    opt_state, losses = opt_init(params), []
    for i in range(8):
        opt_state, value = step(i, opt_state, x, labels)
        losses.append(f"{value:.4f}")
    return [float(v) for v in losses], get_params(opt_state)


def linear_regression(ns, x, y):
    """Least squares by gradient descent, its gradient checked first; a shape error caught
    as JAX's TypeError."""
    def loss(w, b):
        return ns.jnp.mean((ns.jnp.dot(x, w, precision="highest") + b - y) ** 2)

    w, b = ns.device_put((np.zeros(x.shape[1], np.float32), np.float32(0.0)))
    ns.check_grads(loss, (w + 0.5, b + 0.25), order=1, modes=("fwd", "rev"), eps=1e-2)  # quadratic: no truncation error
    update = ns.jit(lambda w, b: [p - 0.1 * g for p, g in zip((w, b), ns.grad(loss, argnums=(0, 1))(w, b))])
    for _ in range(10):
        w, b = update(w, b)
    try:
        ns.jnp.dot(x, x[:2])
        caught = False
    except TypeError:
        caught = True
    assert "sin" in str(ns.make_jaxpr(ns.jnp.sin)(x))
    return w, b, loss(w, b), caught


def pooling_cnn(ns, images, kernel):
    """A convolution, max and average pooling through reduce_window, and lax's slicing and
    scans on the features."""
    lax = ns.lax
    h = lax.conv_general_dilated(images, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = ns.jnp.tanh(h)
    pooled = lax.reduce_window(h, -ns.jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    summed = lax.reduce_window(h, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0))) / 9.0
    features = ns.jnp.reshape(pooled + summed, (images.shape[0], -1))
    head = lax.dynamic_slice_in_dim(features, 2, 8, axis=1)
    gram = lax.batch_matmul(head[:, :, None], head[:, None, :])
    rows = lax.map(lambda row: ns.jnp.sum(row ** 2), features)
    return [head, gram, rows, lax.cumlogsumexp(features, axis=1), lax.associative_scan(lax.max, features, axis=1),
            lax.dynamic_index_in_dim(features, 3, axis=1, keepdims=False)]


def normal_fit(ns, data):
    """The maximum-likelihood normal for ``data`` by gradient ascent on scipy.stats' logpdf,
    then its quantiles and other distributions' likelihoods, in one jitted function."""
    stats = ns.stats

    def nll(theta, data):
        return -ns.jnp.mean(stats.norm.logpdf(data, theta[0], ns.jnp.exp(theta[1])))

    @ns.jit
    def fit(data):
        theta = ns.lax.fori_loop(0, 50, lambda i, t: t - 0.5 * ns.grad(nll)(t, data), ns.jnp.zeros(2, data.dtype))
        loc, scale = theta[0], ns.jnp.exp(theta[1])
        cov = ns.jnp.array([[1.0, 0.3], [0.3, 2.0]], dtype=data.dtype)
        return [theta, stats.norm.ppf(ns.jnp.array([0.05, 0.5, 0.95]), loc, scale), stats.norm.cdf(data[:4], loc, scale),
                stats.norm.logcdf(-data[:4] * 10), stats.logistic.logpdf(data, loc, scale),
                stats.multivariate_normal.logpdf(data.reshape(-1, 2), ns.jnp.zeros(2), cov),
                ns.special.logsumexp(stats.uniform.logpdf(data, -4.0, 8.0))]

    return fit(data)


def _run_both(program, *args):
    ours = program(S4TF, *args)
    theirs = program(JAX, *args)
    ours_leaves, theirs_leaves = s4tf.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
    assert len(ours_leaves) == len(theirs_leaves)
    for index, (a, b) in enumerate(zip(ours_leaves, theirs_leaves)):
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=2e-4, atol=2e-5, err_msg=str(index))


def test_stax_mlp_trained_with_adam():
    x = RNG.standard_normal((32, 6)).astype(np.float32)
    labels = np.eye(4, dtype=np.float32)[RNG.integers(0, 4, 32)]
    _run_both(mlp_with_adam, x, labels)


def test_linear_regression_with_check_grads():
    x = RNG.standard_normal((20, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    _run_both(linear_regression, x, y)


def test_pooling_cnn_forward():
    images, kernel = RNG.standard_normal((2, 8, 8, 3)).astype(np.float32), RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
    _run_both(lambda ns, *args: ns.jit(lambda *a: pooling_cnn(ns, *a))(*args), images, kernel)


def test_scipy_stats_likelihood_fit():
    _run_both(normal_fit, (RNG.standard_normal(40) * 1.5 + 0.7).astype(np.float32))


def test_check_grads_fails_on_a_wrong_derivative():
    @s4tf.function
    def softplus(x):
        return s4tf.log1p(s4tf.exp(x))

    @s4tf.derivative(of=softplus)
    def softplus_vjp(x):
        return softplus(x), lambda dy: (dy * s4tf.sigmoid(x) * 1.5,)  # deliberately 1.5 times too large

    x = np.array([0.3, -1.0, 2.0])
    s4tf.check_grads(softplus, (x,), order=1, modes=("fwd",))  # forward mode differentiates the body
    with pytest.raises(AssertionError, match=r"VJP: <s4tf.vjp's cotangent, tangent> against <cotangent, central finite"):
        s4tf.check_grads(softplus, (x,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match=r"VJP: "):  # after the forward checks of orders 1 and 2 pass
        s4tf.check_grads(softplus, (x,), order=2)


def test_make_jaxpr_device_put_format_and_precision():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    def scaled_sum(a, n):
        return s4tf.sum(a) * n

    text = s4tf.make_jaxpr(scaled_sum, static_argnums=1)(x, 3)
    assert text == s4tf.function(scaled_sum, static_argnums=1).lower(x, 3).as_text() and '"s4tf.mul"' in text
    put = s4tf.device_put({"w": x, "b": [np.float32(1.0), 2]})
    assert all(isinstance(leaf, s4tf.Tensor) for leaf in s4tf.tree_util.tree_leaves(put))
    with pytest.raises(s4tf.DeviceError, match=r"device_put: unknown device 'tpu'; s4tf puts tensors on the device of a target: cpu, vmvx, vulkan"):
        s4tf.device_put(x, device="tpu")
    on_vmvx = s4tf.device_put({"w": x}, device="vmvx")["w"]  # read by a function of that target without a copy
    assert on_vmvx.target == "vmvx" and np.asarray(s4tf.function(lambda a: a * 2, target="vmvx")(on_vmvx)).tolist() == (x * 2).tolist()
    loss = s4tf.mean(s4tf.asarray(x))
    assert f"{loss:.3f} {loss:>9.2e}" == f"{2.5:.3f} {2.5:>9.2e}"
    with pytest.raises(TypeError, match="unsupported format string"):  # as NumPy's arrays
        f"{s4tf.asarray(x):.1f}"
    assert f"{loss}" == str(loss) and f"{s4tf.asarray(np.int32(7)):04d}" == "0007"
    with pytest.raises(s4tf.StagingError, match=r"cannot format the value \(with '.2f'\) of a traced tensor"):
        s4tf.function(lambda a: f"{a:.2f}" and a)(x)
    int8 = np.arange(-3, 3, dtype=np.int8).reshape(2, 3) * 40
    products = [s4tf.matmul(int8, int8.T, preferred_element_type=np.int32), s4tf.dot(int8, int8.T, precision="highest",
                preferred_element_type=np.int32), s4tf.lax.dot(int8, int8.T, preferred_element_type=np.float32),
                s4tf.matmul(x, x.T, precision=jax.lax.Precision.HIGHEST)]
    expected = [jax.numpy.matmul(int8, int8.T, preferred_element_type=np.int32), jax.numpy.dot(int8, int8.T, precision="highest",
                preferred_element_type=np.int32), jax.lax.dot(int8, int8.T, preferred_element_type=np.float32), x @ x.T]
    for ours, theirs in zip(products, expected):
        assert np.asarray(ours).dtype == np.asarray(theirs).dtype
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def stax_zoo(ns, images):
    """Most stax layers in one network: its output shape, parameters and outputs."""
    stax = ns.stax
    init_fun, apply_fun = stax.serial(
        stax.Conv(4, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), strides=(2, 2)),
        stax.AvgPool((3, 3), strides=(1, 1), padding="SAME"), stax.SumPool((2, 1)), stax.Flatten, stax.Dense(8), stax.Tanh,
        stax.FanOut(2), stax.parallel(stax.Dense(3), stax.serial(stax.Dense(2), stax.Sigmoid)), stax.FanInConcat(),
        stax.Dropout(0.5, mode="train"), stax.LogSoftmax)
    output_shape, params = init_fun(ns.random.PRNGKey(3), images.shape)
    return output_shape, params, ns.jit(apply_fun)(params, images, rng=ns.random.PRNGKey(4))


def optimizer_steps(ns, params):
    """Three steps of each example_libraries optimizer on a pytree, staged."""
    results = []
    for name, args in [("sgd", (0.1,)), ("momentum", (0.1, 0.9)), ("rmsprop", (0.01,)), ("adam", (0.01,))]:
        opt_init, opt_update, get_params = getattr(ns.optimizers, name)(*args)

        @ns.jit
        def run(state):
            for i in range(3):
                p = get_params(state)
                state = opt_update(i, {"a": p["a"] * 2.0 + 1.0, "b": [ns.jnp.sin(p["b"][0])]}, state)
            return get_params(state)

        results.append(run(opt_init(params)))
    return results


def test_stax_layers_and_optimizers_match_jax():
    _run_both(stax_zoo, RNG.standard_normal((2, 8, 8, 1)).astype(np.float32))
    _run_both(optimizer_steps, {"a": np.ones(3, np.float32), "b": [np.arange(2.0, dtype=np.float32)]})
