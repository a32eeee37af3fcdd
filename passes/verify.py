"""``s4tf-verify``: check every s4tf op against its definition.

Reports each malformed op at its location (operand count, attributes, and result types
re-inferred from the operands), then fails.

```mlir
// expected-error @+1 {{result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>}}
%0 = "s4tf.neg"(%x) : (tensor<2xf32>) -> tensor<3xf32>
```
"""

from __future__ import annotations

from s4tf.dialects.op_def import verify as verify_op
from s4tf.mlir import ir
from s4tf.passes.ir_walk import s4tf_ops
from s4tf.passes.registry import PassFailed, emit_error, register


def verify_module(module: ir.Operation) -> None:
    """Emit an error for every malformed s4tf op; raise :class:`PassFailed` if any."""
    failed = False
    for operation in s4tf_ops(module):
        problem = verify_op(operation)
        if problem:
            emit_error(operation, problem)
            failed = True
    if failed:
        raise PassFailed()


register("s4tf-verify", "Check every s4tf op against its definition (operands, attributes, result types)")(verify_module)
