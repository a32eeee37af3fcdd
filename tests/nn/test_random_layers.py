"""``s4tf.nn`` draws with ``s4tf.random``: initializers from ``key(seed)``, Dropout masks
from a seed or a key, reproducible and of the right distribution."""

import numpy as np
from scipy import stats

import s4tf
from s4tf import nn


def test_initializers_are_draws_of_the_seeds_key():
    limit = np.sqrt(6 / (30 + 20))
    glorot = nn.initializers.glorot_uniform((30, 20), seed=3)
    np.testing.assert_array_equal(glorot, np.asarray(s4tf.random.uniform(s4tf.random.key(3), (30, 20), np.float32, -limit, limit)))
    he = nn.initializers.he_normal((3, 3, 2, 8), seed=4)
    unit = np.asarray(s4tf.random.normal(s4tf.random.key(4), (3, 3, 2, 8)))
    np.testing.assert_allclose(he, unit * np.sqrt(2 / 18), rtol=1e-6)
    assert stats.kstest(nn.initializers.normal((5000,), seed=5, stddev=2.0), stats.norm(0, 2).cdf).pvalue > 1e-4


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
