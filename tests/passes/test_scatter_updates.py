"""``s4tf-scatter-updates-through-barriers`` on whole programs: reverse mode of a
``fori_loop`` updating rows compiles for ``cuda`` (IREE 3.13 refused its scatters there:
tests/lit/iree_reproducers/scatter_of_selected_updates_cuda.mlir), so does the ``hessian``
of a ``vmap``ped ``while_loop`` with a trip count per example (six scatters in a loop body,
one barrier), and the rewrites give JAX's derivatives on the CPU."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.passes.iree.scatter_updates import ScatterUpdatesThroughBarriers
from s4tf.passes.pipeline import lowering_pipeline
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.device import to_device


def _rows(np_, lax):
    def f(x):
        def body(i, acc):
            return lax.dynamic_update_slice(acc, np_.tanh(acc[i - 1] * x)[None], (i, 0))
        return np_.sum(lax.fori_loop(1, 6, body, np_.zeros((6, x.shape[0]), x.dtype).at[0].set(x)) ** 2)
    return f


def _batched_trips(np_, lax, vmap):
    def one(a):
        return lax.while_loop(lambda c: c[0] < a * 3.0 + 4.0, lambda c: (c[0] + 1.0, c[1] * np_.cos(a) + a), (0.0, a))[1]
    return lambda x: np_.sum(vmap(one)(x))


X = np.linspace(0.1, 0.9, 3).astype(np.float32)
GRAD = s4tf.grad(_rows(s4tf, s4tf.lax))
HESSIAN = s4tf.hessian(_batched_trips(s4tf, s4tf.lax, s4tf.vmap))


def test_the_gradient_compiles_for_cuda():
    assert s4tf.compile(GRAD, (X,), target="cuda").entry_points


def test_the_hessian_of_batched_trip_counts_compiles_for_cuda():
    assert s4tf.compile(HESSIAN, (X,), target="cuda").entry_points


@pytest.mark.parametrize("ours, theirs", [
    (GRAD, jax.grad(_rows(jnp, jax.lax))),
    (HESSIAN, jax.jacfwd(jax.jacfwd(_batched_trips(jnp, jax.lax, jax.vmap)))),  # JAX: forward over forward
], ids=["grad of rows", "hessian of batched trips"])
def test_the_rewrite_gives_jaxs_derivatives_on_the_cpu(ours, theirs):
    lowered = s4tf.function(ours).lower(X)
    rewritten = lowered.stablehlo(lowering_pipeline("cpu") + [ScatterUpdatesThroughBarriers()])
    assert rewritten.count("optimization_barrier") > lowered.stablehlo(lowering_pipeline("cpu")).count("optimization_barrier")
    (got,) = compile_and_load(rewritten, "cpu").invoke(lowered.entry, [to_device(X)])
    np.testing.assert_allclose(np.asarray(got), np.asarray(theirs(X)), rtol=2e-5, atol=1e-6)
