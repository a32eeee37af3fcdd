"""Product modules on the CPU (:mod:`s4tf.runtime.product_modules`): which modules are, and
that the data-tiled module IREE makes of them computes what NumPy does, its value and
gradient (against float64 finite differences)."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.runtime.cache import DiskCache
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.compiler import module_cache_key, module_flags
from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.product_modules import DATA_TILING_FLAGS, data_tiling_flags, product_module
from s4tf.runtime.targets import host_architecture
from s4tf.passes.pipeline import lowering_pipeline


def two_layers(w1, w2, x):
    """Two dense layers without biases, ``tanh(x @ w1) @ w2``, summed (smooth, for finite differences)."""
    return (s4tf.tanh(x @ w1) @ w2).sum()


def inputs(rows=48, width=160, out=24, dtype=np.float32):
    rng = np.random.default_rng(3)
    return (rng.standard_normal((width, width)).astype(dtype) / width, rng.standard_normal((width, out)).astype(dtype) / width,
            rng.standard_normal((rows, width)).astype(dtype))


def numpy_two_layers(w1, w2, x):
    return (np.tanh(x @ w1) @ w2).sum()


def lowered_text(fn, *args) -> str:
    return s4tf.function(fn).lower(*args).stablehlo(lowering_pipeline("cpu"))


def traits(fn, *args) -> ModuleTraits:
    return ModuleTraits.parse(lowered_text(fn, *args))


def test_which_modules_are_product_modules():
    mlp = traits(two_layers, *inputs())  # a 160x160 float32 weight: 100 KiB
    assert product_module(mlp)
    assert data_tiling_flags(mlp, "x86_64") == list(DATA_TILING_FLAGS)
    assert data_tiling_flags(mlp, "aarch64") == [] and data_tiling_flags(mlp, None) == []
    assert not product_module(traits(two_layers, *inputs(width=64)))  # all small: dispatch-bound instead
    assert not product_module(traits(two_layers, *inputs(dtype=np.float64)))  # float64 products
    large = traits(lambda a, b: a @ b, *(np.ones((1024, 1024), np.float32),) * 2)
    assert product_module(large) and data_tiling_flags(large, "x86_64") == list(DATA_TILING_FLAGS)
    assert not product_module(traits(lambda a: s4tf.tanh(a) * 2, np.ones((256, 256), np.float32)))  # no product
    conv = traits(lambda x, k, w: (s4tf.conv2d(x, k).reshape((8, -1)) @ w).sum(),
                  np.ones((8, 16, 16, 1), np.float32), np.ones((3, 3, 1, 4), np.float32), np.ones((14 * 14 * 4, 512), np.float32))
    assert conv.convolutions and not product_module(conv)


def test_data_tiling_can_be_turned_off(monkeypatch):
    mlp = traits(two_layers, *inputs())
    monkeypatch.setenv("S4TF_DATA_TILING", "0")
    assert data_tiling_flags(mlp, "x86_64") == [] and product_module(mlp)


@pytest.mark.skipif(host_architecture() != "x86_64", reason="data tiling is chosen for x86-64 hosts")
def test_a_product_module_runs_data_tiled_on_local_task_and_agrees_with_numpy():
    w1, w2, x = inputs()
    text = lowered_text(two_layers, w1, w2, x)
    module = compile_and_load(text)
    assert module.driver == "local-task"
    entry = s4tf.function(two_layers).lower(w1, w2, x).entry
    (result,) = module.invoke(entry, [w1, w2, x])
    np.testing.assert_allclose(result.to_host(), numpy_two_layers(*(a.astype(np.float64) for a in (w1, w2, x))), rtol=1e-4)


@pytest.mark.skipif(host_architecture() != "x86_64", reason="data tiling is chosen for x86-64 hosts")
def test_derivatives_of_data_tiled_modules_against_finite_differences():
    """Reverse mode (``grad``) and forward mode (``jvp``) in float32, both product modules,
    against central differences of the float64 NumPy function along random directions."""
    w1, w2, x = inputs()
    grad = s4tf.grad(two_layers, argnums=(0, 1))
    assert product_module(traits(grad, w1, w2, x))
    g1, g2 = (np.asarray(g, np.float64) for g in s4tf.function(grad)(w1, w2, x))
    w1d, w2d, xd = (a.astype(np.float64) for a in (w1, w2, x))
    rng, epsilon = np.random.default_rng(4), 1e-6
    for _ in range(4):
        d1, d2 = rng.standard_normal(w1.shape), rng.standard_normal(w2.shape)
        numeric = (numpy_two_layers(w1d + epsilon * d1, w2d + epsilon * d2, xd)
                   - numpy_two_layers(w1d - epsilon * d1, w2d - epsilon * d2, xd)) / (2 * epsilon)
        np.testing.assert_allclose((g1 * d1).sum() + (g2 * d2).sum(), numeric, rtol=1e-4)
        tangent = s4tf.jvp(lambda a, b: two_layers(a, b, x), (w1, w2), (d1.astype(np.float32), d2.astype(np.float32)))[1]
        np.testing.assert_allclose(float(np.asarray(tangent)), numeric, rtol=1e-4)


@pytest.mark.skipif(host_architecture() != "x86_64", reason="data tiling is chosen for x86-64 hosts")
def test_a_cached_product_module_that_does_not_load_is_compiled_again(tmp_path):
    """The entry discarded is the one its data-tiling flags name (:func:`module_flags`)."""
    w1, w2, x = inputs()
    text = lowered_text(two_layers, w1, w2, x)
    cache = DiskCache(tmp_path)
    assert set(DATA_TILING_FLAGS) <= set(module_flags(text, "cpu"))
    cache.put(module_cache_key(text, "cpu", module_flags(text, "cpu")), b"not an IREE module")
    module = compile_and_load(text, "cpu", cache=cache)
    (result,) = module.invoke(s4tf.function(two_layers).lower(w1, w2, x).entry, [w1, w2, x])
    np.testing.assert_allclose(result.to_host(), numpy_two_layers(*(a.astype(np.float64) for a in (w1, w2, x))), rtol=1e-4)
