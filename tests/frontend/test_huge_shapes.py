"""Staged functions whose tensors would need more memory than the machine has: a
reduction of one repeated constant folds (s4tf-canonicalize), anything else is a
ShapeError at the user's line before IREE is asked (s4tf.runtime.compiler.check_memory).
Each case takes well under a second (it ran for minutes before)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import s4tf
from s4tf.core.errors import ShapeError
from s4tf.runtime import compiler
from s4tf.runtime.compiler import compile_stablehlo

HUGE = 1 << 40  # float32: 4 TiB


def line_of(marker: str) -> str:
    """``file:line`` of the line in this file that holds ``marker``."""
    with open(__file__) as source:
        (number,) = [n for n, line in enumerate(source, 1) if marker in line and "line_of" not in line]
    return f"{__file__}:{number}"


def test_the_sum_of_huge_zeros_folds_and_runs_at_once():
    start = time.perf_counter()
    f = s4tf.function(lambda a: s4tf.sum(s4tf.zeros((HUGE,), s4tf.float32)) + a)
    assert np.asarray(f(np.float32(1))) == np.float32(1)
    assert "tensor<1099511627776" not in f.lower(np.float32(1)).stablehlo()
    assert time.perf_counter() - start < 30  # minutes before; under a second with a warm cache


def test_reductions_of_a_broadcast_constant_fold_to_numbers():
    @s4tf.function
    def f(a):
        threes = s4tf.full((1 << 20, 1 << 20), 3.0, s4tf.float32)  # 4 TiB
        sevens = s4tf.full((1 << 16, 1 << 16), 7, s4tf.int32)
        return s4tf.sum(threes, axis=0) + a, s4tf.mean(threes), s4tf.max(threes), s4tf.sum(sevens), s4tf.sum(sevens[:16])

    total, mean, largest, wrapped, small = f(np.float32(1))
    np.testing.assert_array_equal(np.asarray(total), np.full(1 << 20, 3.0 * (1 << 20) + 1, np.float32))
    assert (float(mean), float(largest)) == (3.0, 3.0)
    assert int(wrapped) == 0  # 7 * 2^32 in int32 arithmetic
    assert int(small) == 7 * 16 * (1 << 16)


def test_the_folded_sum_is_the_correctly_rounded_sum():
    """Above the fold limit (65536 elements), a repeated 0.1 sums to c * n rounded once."""
    n = 300_000
    f = s4tf.function(lambda: s4tf.sum(s4tf.full((n,), 0.1, s4tf.float32)))
    exact = np.float32(np.sum(np.full(n, 0.1, np.float32), dtype=np.float64))
    assert np.asarray(f()).tobytes() == exact.tobytes()
    assert "reduce" not in f.lower().stablehlo()


def test_a_huge_intermediate_is_a_shape_error_at_the_users_line():
    f = s4tf.function(lambda a: s4tf.sum(s4tf.zeros((HUGE,), s4tf.float32) + a))  # the huge add
    start = time.perf_counter()
    with pytest.raises(ShapeError) as raised:
        f(np.float32(1))
    assert time.perf_counter() - start < 1
    assert str(raised.value) == (
        f"{line_of('the huge add')}: s4tf.add makes a tensor<1099511627776xf32> of 4398046511104 bytes (4.0 TiB), "
        f"more than this machine's memory ({compiler._size_text(compiler.physical_memory_bytes())}); "
        "it was not compiled: make the shape smaller"
    )


def test_the_limit_is_the_machines_memory(monkeypatch):
    monkeypatch.setattr(compiler, "physical_memory_bytes", lambda: 1 << 20)

    @s4tf.function
    def f(x):
        return s4tf.sum(s4tf.broadcast_to(x, (512, 1024)))  # 2 MiB

    with pytest.raises(ShapeError, match=r"s4tf.broadcast_in_dim makes a tensor<512x1024xf32> of 2097152 bytes \(2.0 MiB\), "
                       r"more than this machine's memory \(1.0 MiB\)"):
        f(np.float32(1))
    g = s4tf.function(lambda x: s4tf.sum(s4tf.broadcast_to(x, (256, 1024))))  # 1 MiB: fits
    assert float(g(np.float32(1))) == 256 * 1024


def test_s4tf_compile_checks_too():
    def f(a):
        return s4tf.max(s4tf.ones((1 << 20, 1 << 20), s4tf.float32) * a)  # the huge product

    with pytest.raises(ShapeError, match=rf"^{line_of('the huge product')}: s4tf.mul makes a tensor<1048576x1048576xf32>"):
        s4tf.compile(f, (np.float32(2),))


def test_modules_from_text_are_checked_before_iree():
    text = """
    func.func @f(%a: tensor<f32>) -> tensor<1099511627776xf32> {
      %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<1099511627776xf32>
      return %0 : tensor<1099511627776xf32>
    }
    """
    with pytest.raises(ShapeError, match=r"^stablehlo.broadcast_in_dim makes a tensor<1099511627776xf32> of 4398046511104 bytes"):
        compile_stablehlo(text, "cpu")
