"""``s4tf-check-availability{target=NAME}``: report every op the target cannot run.

Each op (s4tf or StableHLO) whose operand or result dtypes meet a limitation of the
target in :data:`s4tf.passes.iree.availability.LIMITATIONS` gets an error at its location,
the user's ``file:line`` for staged code, naming the target and the reason; then the
pass fails. ``@s4tf.function(target=...)`` runs it before IREE.

```mlir
// s4tf-opt model.mlir -p 's4tf-check-availability{target=vulkan}'
// expected-error @+1 {{s4tf.exp on f64 is not available on target 'vulkan'}}
%0 = "s4tf.exp"(%x) : (tensor<4xf64>) -> tensor<4xf64>
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from s4tf.core.mlir import ir
from s4tf.passes.iree.availability import TARGET_NAMES, find_limitation
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, register


def element_dtype(mlir_type: ir.Type) -> str:
    """``tensor<4x3xf64>`` -> ``"f64"``; a scalar type's own name."""
    try:
        return str(ir.ShapedType(mlir_type).element_type)
    except ValueError:
        return str(mlir_type)


def dtypes(values) -> set[str]:
    return {element_dtype(value.type) for value in values}


def is_computation(operation: ir.Operation) -> bool:
    """Ops that compute (not ``func.func``/``call``/``return``, which only pass tensors on)."""
    return not operation.name.startswith("func.") and operation.name != "builtin.module"


@register
@dataclass(frozen=True)
class CheckAvailability(ModulePass):
    name = "s4tf-check-availability"
    description = "Report every op whose dtypes the target cannot run"

    target: Literal[TARGET_NAMES]

    def apply(self, module: ir.Operation) -> None:
        check_availability(module, self.target)


def check_availability(module: ir.Operation, target: str) -> None:
    failed = False
    for operation in collect(module, is_computation, pre_order=True):
        limitation = find_limitation(target, operation.name, dtypes(operation.operands), dtypes(operation.results))
        if limitation is not None:
            emit_error(
                operation, f"{operation.name} on {limitation.dtype} is not available on target '{target}': {limitation.reason}"
            )
            failed = True
    if failed:
        raise PassFailed()
