"""``s4tf-runtime-loop-inits``: a ``stablehlo.while`` that holds another loop starts from
tensors computed at run time where it would start from constant tensors (not scalars).

IREE-3.13-WORKAROUND: IREE 3.13 segfaults in stream's resource usage analysis when a
constant is carried into nested loops (reverse mode of a loop seeded with a constant: a
one-hot in GradBench's ODE, ones for ``sum`` of an RNN's outputs; the reduced case is
tests/lit/iree_reproducers/while_constant_init_nested.mlir).
The constant goes through a ``select`` on a predicate that is always true but that IREE
cannot fold, built from an integer the loop starts from that is itself computed at run time:

```mlir
%seed = stablehlo.dynamic_update_slice %zeros, %one, %c7 : ...
%r:2 = stablehlo.while(%i = %n, %ct = %seed) ... { ... stablehlo.while ... }
// becomes
%ge = stablehlo.compare GE, %n, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
%lt = stablehlo.compare LT, %n, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
%always = stablehlo.or %ge, %lt : tensor<i1>
%computed = stablehlo.select %always, %seed, %zeros : tensor<i1>, tensor<8xf32>
%r:2 = stablehlo.while(%i = %n, %ct = %computed) ...
```

A loop with no integer operand computed at run time is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

WHILE = "stablehlo.while"


class _Constness:
    """Whether a value is computed from constants alone (no argument, no loop result)."""

    def __init__(self):
        self.known: dict = {}

    def __call__(self, value: ir.Value) -> bool:
        producer = defining_op(value)
        if producer is None or len(producer.regions) or producer.name == "stablehlo.custom_call":
            return False
        if producer not in self.known:
            self.known[producer] = all(self(operand) for operand in producer.operands)
        return self.known[producer]


def _runtime_integer(loop: ir.Operation, constant: _Constness) -> ir.Value | None:
    """A rank-0 integer the loop starts from that is computed at run time."""
    for value in loop.operands:
        kind = ir.RankedTensorType(value.type)
        if kind.rank == 0 and isinstance(kind.element_type, ir.IntegerType) and kind.element_type.width > 1:
            if not constant(value):
                return value
    return None


def _create(name: str, result_type, operands, **attributes) -> ir.Value:
    return ir.Operation.create(name, results=[result_type], operands=list(operands), attributes=attributes).results[0]


def _zeros(kind: ir.RankedTensorType) -> ir.Value:
    zero = ir.FloatAttr.get(kind.element_type, 0.0) if isinstance(kind.element_type, ir.FloatType) else ir.IntegerAttr.get(kind.element_type, 0)
    return _create("stablehlo.constant", kind, [], value=ir.DenseElementsAttr.get_splat(kind, zero))


def _always_true(integer: ir.Value) -> ir.Value:
    """``integer >= 0 or integer < 0``."""
    boolean = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    zero = _zeros(ir.RankedTensorType(integer.type))
    compare = [_create("stablehlo.compare", boolean, [integer, zero],
                       comparison_direction=ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"))
               for direction in ("GE", "LT")]
    return _create("stablehlo.or", boolean, compare)


@register
@dataclass(frozen=True)
class RuntimeLoopInits(ModulePass):
    name = "s4tf-runtime-loop-inits"
    description = "Start loops that hold loops from run-time tensors where they start from constant ones (IREE 3.13)"

    def apply(self, module: ir.Operation) -> None:
        runtime_loop_inits(module)


def runtime_loop_inits(module: ir.Operation) -> None:
    constant = _Constness()
    for loop in collect(module, lambda op: op.name == WHILE):
        if not collect(loop, lambda op: op.name == WHILE):
            continue
        rewritten = [i for i, value in enumerate(loop.operands)
                     if ir.RankedTensorType(value.type).rank and ir.RankedTensorType(value.type).has_static_shape
                     and constant(value)]
        integer = _runtime_integer(loop, constant) if rewritten else None
        if integer is None:
            continue
        with ir.InsertionPoint(loop), loop.location:
            always = _always_true(integer)
            for i in rewritten:
                value = loop.operands[i]
                loop.operands[i] = _create("stablehlo.select", value.type, [always, value, _zeros(ir.RankedTensorType(value.type))])
