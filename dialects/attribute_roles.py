"""Attribute roles: what an integer attribute means to the axes of an op's operands, so
that batching (``vmap``) derives how it changes when every operand gets a leading batch
axis (:func:`~s4tf.dialects.batching_helpers.leading_axis_batch`).

```python
attributes = {"axes": Axes(INT_ARRAY), "keepdims": BOOL}        # reduce_sum: axes + 1
attributes = {"start": PerAxis(INT_ARRAY, 0), "limit": PerAxis(INT_ARRAY, BATCH), ...}
```

A role is an attribute kind: it stores, reads and checks values as its base kind does.
"""

from __future__ import annotations

from s4tf.dialects.attributes import AttrKind

#: :class:`PerAxis`'s entry for the batch axis that is the batch's size.
BATCH = "batch"


class Role(AttrKind):
    """``base``'s values with a meaning to batching; subclasses define :meth:`batched`."""

    def __init__(self, base: AttrKind):
        self.base = base
        self.description = base.description
        self.irdl_base = base.irdl_base

    def normalize(self, value):
        return self.base.normalize(value)

    def to_mlir(self, value):
        return self.base.to_mlir(value)

    def from_mlir(self, attribute):
        return self.base.from_mlir(attribute)

    def batched(self, value, size: int):
        raise NotImplementedError(f"{type(self).__name__} does not say how a batch changes it")


class Axes(Role):
    """Axes of the operand (``reduce_sum``'s ``axes``): each moves one up."""

    def batched(self, value, size):
        return tuple(axis + 1 for axis in value)


class Axis(Role):
    """One axis of the operands (``concatenate``'s ``axis``): it moves one up."""

    def batched(self, value, size):
        return value + 1


class Shape(Role):
    """The result's shape (``reshape``'s ``shape``): the batch's size comes first."""

    def batched(self, value, size):
        return (size, *value)


class Permutation(Role):
    """An axis of the result per operand axis (``broadcast_in_dim``'s
    ``broadcast_dimensions``): the batch axis maps to axis 0, the others one up."""

    def batched(self, value, size):
        return (0, *(axis + 1 for axis in value))


class PerAxis(Role):
    """A number per operand axis (``slice``'s ``start``): the batch axis gets ``lead``
    (:data:`BATCH`: the batch's size)."""

    def __init__(self, base: AttrKind, lead):
        super().__init__(base)
        self.lead = lead

    def batched(self, value, size):
        return (size if self.lead == BATCH else self.lead, *value)
