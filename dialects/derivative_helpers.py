"""Small pieces the derivative rules share: summing tangents, undoing broadcasts, masks.

```python
unbroadcast(ops, ct, (3,))      # ct of shape (4, 3) summed over axis 0: the adjoint of a broadcast
sum_tangents(ops, [dx * y, None], result)
mask(ops, x > y, x.dtype)       # 1.0 where x > y, else 0.0; a constant to differentiation
```
"""

from __future__ import annotations


def unbroadcast(ops, cotangent, shape):
    """``cotangent`` summed over the axes along which ``shape`` was broadcast to its shape."""
    shape = tuple(shape)
    if tuple(cotangent.shape) == shape:
        return cotangent
    extra = len(cotangent.shape) - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + i for i, d in enumerate(shape) if d == 1 and cotangent.shape[extra + i] != 1
    )
    return ops.reshape(ops.sum(cotangent, axis=axes), shape)


def sum_tangents(ops, terms, result):
    """The sum of the non-``None`` ``terms``, broadcast to ``result``'s shape; ``None`` if none."""
    present = [t for t in terms if t is not None]
    if not present:
        return None
    total = present[0]
    for term in present[1:]:
        total = total + term
    return ops.broadcast_to(total, result.shape)


def scale(tangent, factor):
    """``tangent * factor``, or ``None`` when the tangent is zero."""
    return None if tangent is None else tangent * factor


def mask(ops, predicate, dtype):
    """``predicate`` as 1/0 of ``dtype``, with a zero derivative (``stop_gradient``): a
    rule's mask is piecewise constant, so differentiating the rule again needs no derivative
    of it, and strict mode (``s4tf-vjp{strict=true}``) has nothing to report."""
    return ops.stop_gradient(ops.astype(predicate, dtype))
