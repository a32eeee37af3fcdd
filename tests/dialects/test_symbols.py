"""The functions of a module by symbol (dialects/symbols.py)."""

from s4tf.dialects.symbols import find_function, functions, symbol_name, unique_symbol
from s4tf.mlir import ir, new_context

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
    taken = {"step"}
    assert unique_symbol("step", taken) == "step_1"
    assert unique_symbol("step", taken) == "step_2"
    assert unique_symbol("<lambda>.inner", taken) == "_lambda__inner"
    assert unique_symbol("", taken) == "fn"
    assert taken == {"step", "step_1", "step_2", "_lambda__inner", "fn"}
