"""Sparse adjoints of reads of parts of a tensor (slicing, indexing): the reverse pass adds
each read's cotangent into one adjoint buffer with ``s4tf.add_slice`` (in place once
compiled), instead of a full-size padded contribution per read."""

import numpy as np
from gradient_checks import directional_check

import s4tf
from s4tf.dialects.symbols import find_function
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import body_operations

RNG = np.random.default_rng(3)
N, INDICES = 40, (3, 7, 7, 20, 39)


def reads(x):
    """Reads of single elements (one of them twice) and of a window."""
    total = x[2:5].sum()
    for k, i in enumerate(INDICES):
        total = total + x[i] * (k + 1.0)
    return total


def _full_size_ops(module, symbol: str, shape) -> list[str]:
    """Names of the ops of ``@symbol`` whose result has ``shape``."""
    return [
        operation.name
        for operation in body_operations(find_function(module, symbol))
        if operation.results and TensorType.from_mlir(operation.results[0].type).shape == tuple(shape)
    ]


def test_reads_accumulate_into_one_adjoint_buffer():
    lowered = s4tf.function(lambda v: s4tf.grad(reads)(v)).lower(np.zeros(N))
    full_size = _full_size_ops(lowered.module, "reads_vjp_bwd", (N,))
    assert full_size == ["s4tf.constant"] + ["s4tf.add_slice"] * (len(INDICES) + 1)


def test_compiled_adjoint_updates_the_buffer_without_padding():
    lowered = s4tf.function(lambda v: s4tf.grad(reads)(v)).lower(np.zeros(N))
    with lowered.context:
        module = ir.Module.parse(lowered.stablehlo())
    names = [op.operation.name for function in module.body.operations for op in function.regions[0].blocks[0].operations]
    assert names.count("stablehlo.dynamic_update_slice") == len(INDICES) + 1
    assert "stablehlo.pad" not in names


def test_gradient_of_reads_matches_numpy():
    x = RNG.standard_normal(N)
    expected = np.zeros(N)
    expected[2:5] += 1
    np.add.at(expected, list(INDICES), np.arange(1.0, len(INDICES) + 1))
    np.testing.assert_allclose(np.asarray(s4tf.grad(reads)(x)), expected, rtol=1e-12)


def test_strided_and_row_reads_mixed_with_dense_use():
    """Rows, a strided window and the whole tensor: both lowerings of add_slice and a dense
    contribution in one buffer, against finite differences in both modes."""

    def mixed(x):
        rows = x[0] * x[3] + x[1:3].sum(axis=0)
        return rows * x[::2, 1::3].sum() + s4tf.exp(x).sum(axis=0)

    directional_check(mixed, [RNG.standard_normal((4, 6))])


def test_second_derivative_through_the_adjoint_buffer():
    """grad of grad: add_slice's own JVP and transpose carry the second pass."""
    x = RNG.standard_normal(N)

    def cubes(v):
        return sum(v[i] ** 3 for i in INDICES)

    second = s4tf.grad(lambda v: s4tf.sum(s4tf.grad(cubes)(v) * np.arange(N)))(x)
    expected = np.zeros(N)
    np.add.at(expected, list(INDICES), 6 * x[list(INDICES)] * np.array(INDICES, float))
    np.testing.assert_allclose(np.asarray(second), expected, rtol=1e-12)
