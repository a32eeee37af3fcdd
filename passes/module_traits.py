"""What the runtime needs to know of a lowered (StableHLO) module, read from its IR in one walk.

The runtime decides how to compile and run a module from a few facts: whether it has loops
(host-stepped ``stablehlo.while`` or ``scf.while`` inside a dispatch), dynamic shapes, its
largest tensor, its matrix products and their element types, convolutions, f64 ops whose
code calls libm, and dispatch regions. They are computed on the IR after lowering and handed to the
runtime with the module's text (:mod:`s4tf.runtime.compiler`); a module known only as text
(a file, ``s4tf-compile``'s input) is parsed once for them.

```python
traits = ModuleTraits.of(module)               # an ir.Module or its operation
traits.loops, traits.largest_tensor_bytes      # (True, 262144)
ModuleTraits.parse(stablehlo_text).convolutions
```
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from s4tf.core.mlir import ir, new_context
from s4tf.dialects import hlo

LOOP_OPS = frozenset({"stablehlo.while", "scf.while"})
#: Ops IREE turns into branches of its VM module when left outside a dispatch region (noted wherever they are).
BRANCH_OPS = frozenset({"stablehlo.while", "stablehlo.if", "stablehlo.case"})
PRODUCT_OPS = frozenset({"stablehlo.dot_general", "stablehlo.dot"})
#: Ops whose f64 code IREE turns into calls of libm (StableHLO, and ``math`` inside loop dispatches).
#: Ops that compute nothing of the values they make: loops' and branches' carried values,
#: constants, and the row reads, writes and joins of tapes and stacks (their largest
#: tensor is no dispatch worth several threads: :attr:`ModuleTraits.largest_computed_bytes`).
MOVING_OPS = frozenset({
    "stablehlo.while", "stablehlo.if", "stablehlo.case", "scf.while", "flow.dispatch.region", "func.call",
    "stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.optimization_barrier",
    "stablehlo.concatenate", "stablehlo.slice", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice",
})
LIBM_OPS = frozenset({
    "stablehlo.sine", "stablehlo.cosine", "stablehlo.tanh", "stablehlo.tan", "stablehlo.atan2",
    "chlo.asin", "chlo.acos", "chlo.atan",  # IREE expands these to atan2
    "math.sin", "math.cos", "math.tanh", "math.tan", "math.atan2",
})


def tensor_bytes(value_type: ir.Type) -> int | None:
    """The bytes of a statically shaped tensor type (1 per element below 8 bits), ``None``
    for a dynamic shape, 0 for a type that is no ranked tensor."""
    if not isinstance(value_type, ir.RankedTensorType):
        return 0
    if not value_type.has_static_shape:
        return None
    width = getattr(value_type.element_type, "width", 64)
    return math.prod(value_type.shape) * max(1, width // 8)


def _element_type(value_type: ir.Type) -> str:
    """The element type of a tensor or vector type, or the type itself (a scalar)."""
    return str(getattr(value_type, "element_type", value_type))


def _multiply_adds(product: ir.Operation) -> int:
    """A ``dot``/``dot_general``'s multiply-adds, 0 for dynamic shapes. With batch, free and
    contracted sizes ``B L R K``, its operands and result hold ``BLK``, ``BRK`` and ``BLR``
    elements: their product over ``B`` is the square of ``BLRK``. ``B`` is read from the
    dimension numbers' ``lhs_batching_dimensions`` (StableHLO has no Python bindings here)."""
    types = [value.type for value in (*product.operands[:2], product.results[0])]
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return 0
    batch = math.prod(types[0].shape[axis] for axis in hlo.dot_dimensions(product)["lhs_batching_dimensions"])
    return math.isqrt(math.prod(math.prod(t.shape) for t in types) // batch)


@dataclass(frozen=True)
class ModuleTraits:
    """Facts of one lowered module (see the module docstring)."""

    loops: bool = False
    dynamic_shapes: bool = False
    largest_tensor_bytes: int = 0
    #: The element types of the matrix products' results, one per product.
    product_types: tuple[str, ...] = ()
    convolutions: int = 0
    #: Whether an op of :data:`LIBM_OPS` works on f64.
    f64_libm_ops: bool = False
    #: The multiply-adds of the largest matrix product (its result's elements times its
    #: contracted size; 0 without products or with dynamic shapes).
    largest_product_macs: int = 0
    #: The ``flow.dispatch.region`` ops (loops and branches s4tf-loops-to-dispatch put in one dispatch).
    dispatch_regions: int = 0
    #: Whether a ``stablehlo.while``, ``if`` or ``case`` is left for IREE's host code.
    branches: bool = False
    #: The largest result of an op that computes (not of :data:`MOVING_OPS`): reverse
    #: mode's 17 MiB tapes of a 1 MiB loop state count 1 MiB.
    largest_computed_bytes: int = 0

    @staticmethod
    def of(module: ir.Module | ir.Operation) -> ModuleTraits:
        """The traits of ``module``, in one walk of its ops, block arguments and results."""
        found = {"loops": False, "dynamic_shapes": False, "largest": 0, "products": [], "convolutions": 0, "libm": False,
                 "macs": 0, "regions": 0, "branches": False, "computed": 0}

        def note(value_type: ir.Type, computed: bool = False) -> None:
            size = tensor_bytes(value_type)
            if size is None:
                found["dynamic_shapes"] = True
            else:
                found["largest"] = max(found["largest"], size)
                if computed:
                    found["computed"] = max(found["computed"], size)

        def visit(operation):
            operation = getattr(operation, "operation", operation)
            name = operation.name
            result_types = [result.type for result in operation.results]
            for value_type in result_types:
                note(value_type, name not in MOVING_OPS)
            for region in operation.regions:
                for block in region.blocks:
                    for argument in block.arguments:
                        note(argument.type)
            found["branches"] |= name in BRANCH_OPS
            if name in LOOP_OPS:
                found["loops"] = True
            elif name in PRODUCT_OPS:
                found["products"].append(_element_type(result_types[0]))
                found["macs"] = max(found["macs"], _multiply_adds(operation))
            elif name == "stablehlo.convolution":
                found["convolutions"] += 1
            elif name == "flow.dispatch.region":
                found["regions"] += 1
            elif name in LIBM_OPS and any(_element_type(t) == "f64" for t in result_types):
                found["libm"] = True
            return ir.WalkResult.ADVANCE

        getattr(module, "operation", module).walk(visit)
        return ModuleTraits(found["loops"], found["dynamic_shapes"], found["largest"], tuple(found["products"]),
                            found["convolutions"], found["libm"], found["macs"], found["regions"], found["branches"],
                            found["computed"])

    @staticmethod
    def parse(module_text: str) -> ModuleTraits:
        """The traits of a module given as text (parsed once, in a context of its own)."""
        with new_context():
            return ModuleTraits.of(ir.Module.parse(module_text))
