"""Small pieces the batching rules share: moving a batch axis to the front, giving an
unbatched operand one, the generic rule of elementwise ops, and the rule
:class:`~s4tf.dialects.op_def.Op` derives for ops whose attributes all have roles
(:mod:`s4tf.dialects.attribute_roles`).

```python
x = to_front(ops, x, 2)                   # its batch axis (2) becomes axis 0
y = with_batch(ops, y, None, size)        # unbatched: broadcast to (size, *y.shape)
results, dims = elementwise_batch(Add, ops, [x, y], [0, None])
results, dims = leading_axis_batch(ReduceSum, ops, [x], [2], axes=(0,), keepdims=False)
```
"""

from __future__ import annotations


def to_front(ops, x, batch_dim: int):
    """``x`` with its batch axis ``batch_dim`` moved to axis 0."""
    if batch_dim == 0:
        return x
    rank = len(x.shape)
    return ops.transpose(x, [batch_dim] + [a for a in range(rank) if a != batch_dim])


def batch_size(operands, batch_dims) -> int:
    """The size of the batch axis of the batched operands."""
    return next(x.shape[d] for x, d in zip(operands, batch_dims) if d is not None)


def with_batch(ops, x, batch_dim, size: int):
    """``x`` with its batch axis at 0; an unbatched ``x`` is broadcast along a new one."""
    if batch_dim is None:
        return ops.broadcast_to(x, (size, *x.shape))
    return to_front(ops, x, batch_dim)


def shifted(axes) -> tuple:
    """Per-example axes as axes of the batched value (batch axis 0 in front)."""
    return tuple(int(a) + 1 for a in axes)


def elementwise_batch(op, ops, operands, batch_dims, **attrs):
    """The batching rule of an elementwise op with NumPy broadcasting: batched operands
    get their batch axis in front and size-1 axes up to the per-example result rank, so
    that unbatched operands broadcast against them unchanged."""
    rank = max(len(x.shape) - (d is not None) for x, d in zip(operands, batch_dims))
    moved = []
    for x, d in zip(operands, batch_dims):
        if d is not None:
            x = to_front(ops, x, d)
            x = ops.reshape(x, (x.shape[0],) + (1,) * (rank + 1 - len(x.shape)) + tuple(x.shape[1:]))
        moved.append(x)
    results = ops.emit(op.name, moved, attrs)
    return results, [0] * len(results)


def leading_axis_batch(op, ops, operands, batch_dims, **attrs):
    """The op on its operands with the batch axis in front (unbatched ones broadcast along
    a new one), each attribute changed as its role says; the results' batch axis is 0."""
    size = batch_size(operands, batch_dims)
    moved = [with_batch(ops, x, d, size) for x, d in zip(operands, batch_dims)]
    results = ops.emit(op.name, moved, {key: op.attributes[key].batched(value, size) for key, value in attrs.items()})
    return results, [0] * len(results)


def derives_leading_axis_batch(op) -> bool:
    """Whether ``op``'s batching rule is :func:`leading_axis_batch`: it has operands, no
    regions, and batching knows each attribute's value for a batch (by its role)."""
    return bool(op.operands) and not op.regions and all(kind.batchable for kind in op.attributes.values())
