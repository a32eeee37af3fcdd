"""``s4tf-row-copies-through-barriers`` on whole programs: reverse mode of a data-dependent
``while`` (whose tapes of checkpoints are thinned in place) compiles for ``cuda`` and
``vulkan`` (IREE 3.13 refused it: tests/lit/iree_reproducers/row_copy_in_place_gpu.mlir), and
the rewrite gives the exact derivative on the CPU (``vmvx``, whose loops stay StableHLO loops)."""

import numpy as np
import pytest

import s4tf
from loop_examples import newton_sqrt
from s4tf.passes.iree.row_copies import RowCopiesThroughBarriers
from s4tf.passes.pipeline import lowering_pipeline
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.device import to_device

GRAD = s4tf.grad(lambda a: s4tf.sum(newton_sqrt(a)))
A = np.linspace(0.5, 4.0, 64).astype(np.float32)


@pytest.mark.parametrize("target", ["cuda", "vulkan"])
def test_the_gradient_compiles_for_the_gpus(target):
    assert "stablehlo.optimization_barrier" in s4tf.function(GRAD).lower(A).stablehlo(lowering_pipeline(target))
    assert s4tf.compile(GRAD, (A,), target=target).entry_points


def test_the_rewrite_gives_the_exact_derivative_on_vmvx():
    lowered = s4tf.function(GRAD).lower(A)
    rewritten = lowered.stablehlo(lowering_pipeline("vmvx") + [RowCopiesThroughBarriers()])
    assert rewritten.count("stablehlo.optimization_barrier") > lowered.stablehlo(lowering_pipeline("vmvx")).count(
        "stablehlo.optimization_barrier")
    (got,) = compile_and_load(rewritten, "vmvx").invoke(lowered.entry, [to_device(A, "vmvx")])
    np.testing.assert_allclose(np.asarray(got), 0.5 / np.sqrt(A.astype(np.float64)), rtol=1e-5)
