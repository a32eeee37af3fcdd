"""Attribute names that mark functions for differentiation, and derived function names.

```mlir
func.func private @loss(...) attributes {s4tf.wrt = array<i64: 0>}   // differentiate wrt arg 0
func.func private @loss_jvp(...)        // (x..., dx...) -> (y..., dy...)
func.func private @loss_vjp_fwd(...)    // (x...) -> (y..., residuals...)
func.func private @loss_vjp_bwd(...)    // (residuals..., dy...) -> (dx...)
func.func private @loss_vjp(...)        // (x..., dy...) -> (y..., dx...)
```
"""

from __future__ import annotations

from s4tf.dialects.types import TensorType, is_float
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import function_type

WRT = "s4tf.wrt"
JVP_OF = "s4tf.jvp_of"
LINEAR_ARGS = "s4tf.linear_args"
TRANSPOSE = "s4tf.transpose"
CUSTOM_VJP = "s4tf.custom_vjp"
CUSTOM_JVP = "s4tf.custom_jvp"
#: The results ``grad`` differentiates (the others, such as ``has_aux``'s, only ride along):
#: a result outside them that depends on no differentiated argument is not worth a warning.
SEEDED = "s4tf.seeded_results"
#: Recompute the function's values in its pullback instead of keeping them (``remat.py``).
REMAT = "s4tf.remat"
#: With ``s4tf.remat``: the recomputation may be merged with the forward pass (no barrier).
REMAT_ALLOW_CSE = "s4tf.remat_allow_cse"


def is_marked(function: ir.Operation) -> bool:
    """Marked for differentiation by its user, not a derivative function made by the passes."""
    return WRT in function.attributes and JVP_OF not in function.attributes


def float_arguments(function: ir.Operation) -> list[int]:
    return [i for i, t in enumerate(function_type(function).inputs) if is_float(TensorType.from_mlir(t).dtype)]


def float_results(function: ir.Operation) -> list[int]:
    return [i for i, t in enumerate(function_type(function).results) if is_float(TensorType.from_mlir(t).dtype)]


def derivative_symbol(function: ir.Operation, base: str, kind: str, wrt: list[int]) -> str:
    """``f_jvp`` when differentiating wrt every float argument, else ``f_jvp_wrt_0_2``."""
    if list(wrt) == float_arguments(function):
        return f"{base}_{kind}"
    return f"{base}_{kind}_wrt_{'_'.join(str(i) for i in wrt)}"


def read_indices(function: ir.Operation, attribute: str) -> list[int] | None:
    if attribute not in function.attributes:
        return None
    return list(ir.DenseI64ArrayAttr(function.attributes[attribute]))


def indices_attribute(indices) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(i) for i in indices])
