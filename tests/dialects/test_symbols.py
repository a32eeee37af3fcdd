"""The functions of a module by symbol (dialects/symbols.py)."""

from s4tf.dialects.symbols import find_function, functions, symbol_name, unique_symbol
from s4tf.core.mlir import ir, new_context

MODULE = """
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
func.func private @second(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }
"""


def test_functions_by_symbol_in_module_order():
    with new_context():
        module = ir.Module.parse(MODULE)
        assert list(functions(module)) == ["first", "second"]
        assert list(functions(module.operation)) == ["first", "second"]
        assert symbol_name(find_function(module, "second")) == "second"
        assert find_function(module, "third") is None


def test_unique_symbols_are_valid_and_new():
    assert unique_symbol("step", {"other"}) == "step"
    assert unique_symbol("step", {"step", "step_1"}) == "step_2"
    assert unique_symbol("<lambda>.inner", set()) == "_lambda__inner"
    assert unique_symbol("", {"fn"}) == "fn_1"
    assert unique_symbol("", {}, empty="host_fn") == "host_fn"
