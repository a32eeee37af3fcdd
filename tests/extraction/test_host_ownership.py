"""The host-function table holds its entries weakly: an entry lives as long as a staged
function (and its compiled versions) that calls it, and leaves the table after."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import s4tf
from s4tf.core.mlir import ir, new_context
from s4tf.dialects.host_ops import HOST_FUNCTIONS, register_host_function
from s4tf.dialects.symbols import functions
from s4tf.passes.needs import MissingCallablesError
from s4tf.runtime.extracted_program import HostProgram

X = np.arange(3, dtype=np.float32)


def _entries_of(fn) -> list:
    return [weakref.ref(entry) for entry in list(HOST_FUNCTIONS.values()) if entry.fn is fn]


def test_a_host_function_entry_lives_as_long_as_the_staged_function_calling_it():
    def shift(x):
        return (x + 1.0).astype(np.float32)

    @s4tf.function(extract=True)
    def f(x):
        return s4tf.host(shift)(x) * 2.0  # the s4tf.host wrapper is gone after the trace

    np.testing.assert_allclose(np.asarray(f(X)), (X + 1.0) * 2.0)
    gc.collect()
    (entry,) = _entries_of(shift)
    symbol = entry().symbol
    np.testing.assert_allclose(np.asarray(f(X + 1.0)), (X + 2.0) * 2.0)  # still registered: the same program runs
    assert HOST_FUNCTIONS[symbol].fn is shift
    del f
    gc.collect()
    assert entry() is None and symbol not in HOST_FUNCTIONS


def test_a_freed_symbol_is_given_again_to_its_function_only():
    def twin(x):
        return x

    first = register_host_function(twin)
    symbol = first.symbol
    del first
    gc.collect()
    assert symbol not in HOST_FUNCTIONS

    def twin(x):  # another function of the same name
        return -x

    other = register_host_function(twin)
    assert other.symbol != symbol and HOST_FUNCTIONS[other.symbol] is other


def test_a_host_program_calling_unregistered_host_functions_is_refused_before_it_runs():
    text = """
    func.func @step(%x: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.host_program} {
      %0 = "s4tf.host_call"(%x) {callee = "nowhere", result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
      %1 = "s4tf.host_call"(%0) {callee = "elsewhere", result_types = [tensor<3xf32>]} : (tensor<3xf32>) -> tensor<3xf32>
      return %1 : tensor<3xf32>
    }
    """
    with new_context():
        module = ir.Module.parse(text)
        step = functions(module)["step"]
        with pytest.raises(MissingCallablesError, match="the module needs host functions 'elsewhere', 'nowhere', which this process"):
            HostProgram.from_function(step)
