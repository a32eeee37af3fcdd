"""``s4tf-transposed-products`` on whole programs: the gradient of ``sum(x @ x.T)`` and of
products read transposed give NumPy's numbers on vulkan (IREE 3.13's SPIR-V code read such
transposes wrongly: tests/lit/iree_reproducers/transposed_product_vulkan.mlir; with
``s4tf-products-apart``, as the vulkan pipeline runs them), and the rewrite is right on the
CPU as well."""

import numpy as np
import pytest

import s4tf
from devices_here import needs_device
from s4tf.passes.iree.transposed_products import TransposedProducts
from s4tf.passes.pipeline import lowering_pipeline
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.device import to_device


def _programs(x, y):
    gram = s4tf.grad(lambda f: s4tf.sum(f @ f.T) / f.shape[0])(x)
    batched = s4tf.exp(s4tf.swapaxes(s4tf.matmul(y, y), 1, 2)) + y  # a batch of products read transposed
    return gram, batched


def _exact(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    return 2 * np.ones((x.shape[0], x.shape[0])) @ x / x.shape[0], np.exp(np.swapaxes(y @ y, 1, 2)) + y


ARGS = (np.random.default_rng(0).normal(size=(4, 6)).astype(np.float32),
        np.random.default_rng(1).normal(size=(3, 5, 5)).astype(np.float32) * 0.5)


def test_the_rewrite_equals_numpys_on_the_cpu():
    lowered = s4tf.function(_programs).lower(*ARGS)
    plain = lowered.stablehlo(lowering_pipeline("cpu"))
    swapped = lowered.stablehlo(lowering_pipeline("cpu") + [TransposedProducts()])
    assert swapped.count("stablehlo.transpose") < plain.count("stablehlo.transpose")
    module = compile_and_load(swapped, "cpu")
    got = module.invoke(lowered.entry, [to_device(a) for a in ARGS])
    for g, want in zip(got, _exact(*ARGS)):
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)


@pytest.mark.vulkan
@needs_device("vulkan")
def test_products_read_transposed_on_vulkan_equal_numpys():
    lowered = s4tf.function(_programs).lower(*ARGS)
    assert lowered.stablehlo(lowering_pipeline("vulkan")).count("stablehlo.transpose") < \
        lowered.stablehlo(lowering_pipeline("cpu")).count("stablehlo.transpose")
    got = s4tf.function(_programs, target="vulkan")(*ARGS)
    for g, want in zip(got, _exact(*ARGS)):
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-6)
