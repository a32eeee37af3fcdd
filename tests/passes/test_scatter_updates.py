"""``s4tf-scatter-updates-through-barriers`` on whole programs: reverse mode of a
``fori_loop`` updating rows compiles for ``cuda`` (IREE 3.13 refused its scatters there:
tests/lit/iree_reproducers/scatter_of_selected_updates_cuda.mlir), and the rewrite gives
JAX's gradient on the CPU."""

import jax
import jax.numpy as jnp
import numpy as np

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


X = np.linspace(0.1, 0.9, 3).astype(np.float32)
GRAD = s4tf.grad(_rows(s4tf, s4tf.lax))


def test_the_gradient_compiles_for_cuda():
    assert s4tf.compile(GRAD, (X,), target="cuda").entry_points


def test_the_rewrite_gives_jaxs_gradient_on_the_cpu():
    lowered = s4tf.function(GRAD).lower(X)
    rewritten = lowered.stablehlo(lowering_pipeline("cpu") + [ScatterUpdatesThroughBarriers()])
    assert rewritten.count("optimization_barrier") > lowered.stablehlo(lowering_pipeline("cpu")).count("optimization_barrier")
    (got,) = compile_and_load(rewritten, "cpu").invoke(lowered.entry, [to_device(X)])
    exact = jax.grad(_rows(jnp, jax.lax))(X)
    np.testing.assert_allclose(np.asarray(got), np.asarray(exact), rtol=1e-5)
