"""Eager execution keeps a bounded number of compiled one-op functions in memory, and calls
them directly on Tensors once seen."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import s4tf
from s4tf.staging import eager
from s4tf.staging.tensor import DonatedTensorError


def test_the_in_memory_cache_drops_the_least_recently_used_functions(monkeypatch):
    monkeypatch.setattr(eager, "CACHE_SIZE", 3)
    monkeypatch.setattr(eager, "_one_op_functions", type(eager._one_op_functions)())
    inputs = [np.arange(n, dtype=np.float32) for n in range(1, 6)]
    first = weakref.ref(eager.one_op_function("exp", {}, [inputs[0]]))
    for x in inputs:
        np.testing.assert_allclose(np.asarray(s4tf.exp(x)), np.exp(x), rtol=1e-6)
        assert eager.cached_functions() <= 3
    gc.collect()
    assert first() is None  # evicted and freed, with its loaded module
    np.testing.assert_allclose(np.asarray(s4tf.exp(inputs[0])), np.exp(inputs[0]), rtol=1e-6)  # back again


def test_a_recently_used_function_is_kept(monkeypatch):
    monkeypatch.setattr(eager, "CACHE_SIZE", 2)
    monkeypatch.setattr(eager, "_one_op_functions", type(eager._one_op_functions)())
    a, b, c = (np.ones(n, np.float32) for n in (1, 2, 3))
    kept = eager.one_op_function("exp", {}, [a])
    eager.one_op_function("exp", {}, [b])
    assert eager.one_op_function("exp", {}, [a]) is kept  # used again: now the newest
    eager.one_op_function("exp", {}, [c])  # drops b's, not a's
    assert eager.one_op_function("exp", {}, [a]) is kept


def test_repeated_ops_on_tensors_take_the_direct_call_with_the_general_paths_results(monkeypatch):
    monkeypatch.setattr(eager, "_direct_calls", type(eager._direct_calls)())
    x = s4tf.asarray(np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4))
    first = np.asarray(x * x + s4tf.exp(x))  # the general path, which registers each op's direct call
    assert len(eager._direct_calls) == 3
    again = x * x + s4tf.exp(x)
    assert len(eager._direct_calls) == 3 and again.shape == (3, 4)
    np.testing.assert_array_equal(np.asarray(again), first)
    i = s4tf.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert np.asarray(i * i).dtype == np.int32  # another operand type: another entry
    np.testing.assert_array_equal(np.asarray(s4tf.sum(x, axis=0)), np.asarray(x).sum(axis=0))
    np.testing.assert_array_equal(np.asarray(s4tf.sum(x, axis=0)), np.asarray(x).sum(axis=0))  # axis as given, keyed
    np.testing.assert_array_equal(np.asarray(s4tf.sum(x, axis=1)), np.asarray(x).sum(axis=1))


def test_a_donated_tensor_is_refused_on_the_direct_call_too(monkeypatch):
    x = s4tf.asarray(np.ones(3, np.float32))
    s4tf.exp(x)
    s4tf.exp(x)  # the direct call
    x.donate("step")
    with pytest.raises(DonatedTensorError, match="donated to 'step'"):
        s4tf.exp(x)
