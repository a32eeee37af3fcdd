"""nn.Embedding gathers rows: its forward pass and table gradient against JAX's
``jnp.take``, and its staged module is one gather (no one-hot product over the vocabulary)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf import nn

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jax.config.update("jax_platforms", "cpu")


def loss(layer, ids, weights):
    return s4tf.sum(s4tf.sin(layer(ids)) * weights)


def jax_loss(table, ids, weights):
    return jnp.sum(jnp.sin(jnp.take(table, ids, axis=0)) * weights)


def test_embedding_rows_and_their_gradient_equal_jax_take():
    rng = np.random.default_rng(0)
    layer = nn.Embedding(50, 6, seed=1)
    ids = np.array([[3, 49, 3], [0, 17, 3]], np.int32)  # repeated ids add their cotangents
    weights = rng.standard_normal((2, 3, 6)).astype(np.float32)
    rows = s4tf.function(lambda layer, ids: layer(ids))(layer, ids)
    np.testing.assert_allclose(np.asarray(rows), np.asarray(jnp.take(layer.table, ids, axis=0)), rtol=1e-6)
    gradient = s4tf.grad(loss)(layer, ids, weights)
    wanted = jax.grad(jax_loss)(jnp.asarray(layer.table), ids, weights)
    np.testing.assert_allclose(np.asarray(gradient.table), np.asarray(wanted), rtol=1e-5, atol=1e-6)
    assert np.count_nonzero(np.abs(np.asarray(gradient.table)).sum(axis=1)) == 4  # rows 0, 3, 17, 49 only


def test_embedding_stages_a_gather_and_its_gradient_a_scatter_add():
    layer = nn.Embedding(100_000, 8, seed=0)
    ids = np.zeros(16, np.int32)
    forward = s4tf.function(lambda layer, ids: layer(ids)).lower(layer, ids).stablehlo()
    assert "stablehlo.gather" in forward and "dot_general" not in forward and "100000x16" not in forward
    backward = s4tf.function(s4tf.grad(loss)).lower(layer, ids, np.ones((16, 8), np.float32)).stablehlo()
    assert "stablehlo.scatter" in backward and "dot_general" not in backward
