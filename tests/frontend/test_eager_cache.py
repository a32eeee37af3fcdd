"""Eager execution keeps a bounded number of compiled one-op functions in memory."""

from __future__ import annotations

import gc
import weakref

import numpy as np

import s4tf
from s4tf.staging import eager


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
