"""``s4tf.nn`` draws with ``s4tf.random``: initializers from ``key(seed)``, Dropout masks
from a seed or a key, reproducible and of the right distribution."""

import jax
import numpy as np
import pytest
from scipy import stats

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)


JAX_NAMES = ["glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "lecun_uniform", "lecun_normal"]


@pytest.mark.parametrize("name", JAX_NAMES)
def test_initializers_are_jaxs_draws_from_the_seeds_key(name):
    for shape in [(30, 20), (3, 3, 2, 8)]:
        ours = getattr(nn.initializers, name)(shape, seed=3)
        with jax.enable_x64(False):
            theirs = getattr(jax.nn.initializers, name)()(jax.random.PRNGKey(3), shape, jax.numpy.float32)
        if name.endswith("uniform"):
            np.testing.assert_array_equal(ours, np.asarray(theirs))
        else:  # the truncated normal's inverse erf is evaluated by another polynomial: equal to an ulp or two
            np.testing.assert_allclose(ours, np.asarray(theirs), rtol=3e-7, atol=1e-7)
    assert stats.kstest(nn.initializers.normal((5000,), seed=5, stddev=2.0), stats.norm(0, 2).cdf).pvalue > 1e-4


@pytest.mark.parametrize("shape", [(6, 4), (3, 8), (3, 3, 2, 4)])
def test_orthogonal_is_jaxs_and_orthonormal(shape):
    q = nn.initializers.orthogonal(shape, seed=2, scale=1.5)
    with jax.enable_x64(False):  # other test modules turn x64 on: JAX would draw float64s
        theirs = np.asarray(jax.nn.initializers.orthogonal(1.5)(jax.random.PRNGKey(2), shape, jax.numpy.float32))
    np.testing.assert_allclose(q, theirs, atol=1e-6)
    matrix = q.reshape(-1, shape[-1]) / 1.5
    small = matrix.T @ matrix if matrix.shape[0] >= matrix.shape[1] else matrix @ matrix.T
    np.testing.assert_allclose(small, np.eye(len(small)), atol=1e-5)


def test_initializer_mistakes_are_errors():
    with pytest.raises(s4tf.S4tfError, match="rank >= 2"):
        nn.initializers.orthogonal((5,))
    with pytest.raises(s4tf.S4tfError, match="mode must be one of fan_in, fan_out, fan_avg"):
        nn.initializers.variance_scaling((2, 2), mode="fan")
    with pytest.raises(s4tf.S4tfError, match="unknown initializer 'kaiming'"):
        nn.Dense(2, 3, initializer="kaiming")


def test_dropout_masks_come_from_the_key_and_keep_one_minus_rate():
    layer, x = nn.Dropout(0.3), np.ones((4000,), np.float32)
    by_seed = np.asarray(layer(x, key=9, training=True))
    kept = np.asarray(s4tf.random.bernoulli(s4tf.random.key(9), 0.7, (4000,)))
    np.testing.assert_array_equal(by_seed != 0, kept)
    np.testing.assert_array_equal(np.asarray(layer(x, key=s4tf.random.key(9), training=True)), by_seed)
    assert stats.binomtest(int(kept.sum()), kept.size, 0.7).pvalue > 1e-4

    @s4tf.function
    def step(x, step):
        return layer(x, key=step, training=True)

    np.testing.assert_array_equal(np.asarray(step(x, np.int32(9))), by_seed)
