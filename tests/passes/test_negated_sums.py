"""``s4tf-negations-out-of-sums`` on whole programs: sums of negations, and reverse mode of a
LayerNorm over heads (sums of negated cotangents through reshapes), compile for ``cuda``
(IREE 3.13 refused sums of negations: tests/lit/iree_reproducers/sum_of_a_negation_cuda.mlir),
and the rewrite gives NumPy's numbers on the CPU."""

import numpy as np

import s4tf
from s4tf.passes.iree.negated_sums import NegationsOutOfSums
from s4tf.passes.pipeline import lowering_pipeline
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.device import to_device


def _heads_norm_loss(x, scale):
    heads = x.reshape(x.shape[0], 4, -1)
    centred = heads - s4tf.mean(heads, axis=-1, keepdims=True)
    normed = centred / s4tf.sqrt(s4tf.mean(centred * centred, axis=-1, keepdims=True) + 1e-5)
    return s4tf.sum(s4tf.tanh(normed.reshape(x.shape) * scale))


def _programs(x, scale):
    return (s4tf.sum(-x, axis=1), s4tf.sum(-(x * x), axis=1),
            *s4tf.grad(_heads_norm_loss, argnums=(0, 1))(x, scale))


X = np.random.default_rng(0).normal(size=(16, 32)).astype(np.float32)
SCALE = np.random.default_rng(1).normal(size=(32,)).astype(np.float32)


def test_the_programs_compile_for_cuda():
    assert s4tf.compile(_programs, (X, SCALE), target="cuda").entry_points


def test_the_rewrite_equals_numpys_on_the_cpu():
    lowered = s4tf.function(_programs).lower(X, SCALE)
    plain = lowered.stablehlo(lowering_pipeline("cpu"))
    rewritten = lowered.stablehlo(lowering_pipeline("cpu") + [NegationsOutOfSums()])
    assert rewritten.count("stablehlo.negate") > plain.count("stablehlo.negate")
    got = compile_and_load(rewritten, "cpu").invoke(lowered.entry, [to_device(X), to_device(SCALE)])
    exact = s4tf.function(_programs)(X.astype(np.float64), SCALE.astype(np.float64))
    for g, want in zip(got, exact):
        np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=2e-5, atol=2e-6)
