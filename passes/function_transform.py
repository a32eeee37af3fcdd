"""The walk that function transforms share (forward mode, transposition, batching): a
new function filled op by op from another's ops, each op handled by its kind.

```python
class Doubling(FunctionTransform):
    def op(self, index, operation): ...        # an s4tf op without regions
walker.walk(body_operations(function))          # copied ops are cloned into walker.values
```
"""

from __future__ import annotations

from s4tf.core.mlir import ir
from s4tf.dialects.op_def import OPS, lookup


class FunctionTransform:
    """Handles ops in order: an op :meth:`copied` is cloned as it is (its results recorded in
    ``values``); a ``func.call`` goes to :meth:`call`, an s4tf op with regions to
    :meth:`region`, another s4tf op to :meth:`op`; any other op raises :meth:`unsupported`.
    Subclasses set ``builder`` (a :class:`~s4tf.passes.autodiff.functions.FunctionBuilder`)
    and ``values`` (old MLIR value -> new value)."""

    builder = None
    values: dict

    def walk(self, operations: list[ir.Operation]) -> None:
        for index, operation in enumerate(operations):
            if self.copied(operation):
                self.builder.clone(operation, self.values)
            elif operation.name == "func.call":
                self.call(index, operation)
            elif operation.name in OPS and lookup(operation.name).regions:
                self.region(index, operation)
            elif operation.name in OPS:
                self.op(index, operation)
            else:
                raise self.unsupported(operation)

    def copied(self, operation: ir.Operation) -> bool:
        """Whether ``operation`` is cloned unchanged."""
        return False

    def call(self, index: int, operation: ir.Operation) -> None:
        raise self.unsupported(operation)

    def region(self, index: int, operation: ir.Operation) -> None:
        self.op(index, operation)

    def op(self, index: int, operation: ir.Operation) -> None:
        raise self.unsupported(operation)

    def unsupported(self, operation: ir.Operation) -> Exception:
        """The error for an op this transform cannot handle."""
        raise NotImplementedError
