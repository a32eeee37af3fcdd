"""Small pieces the derivative rules share: summing tangents, undoing broadcasts, masks,
and the JVPs of linear and bilinear ops (JAX's ``deflinear``/``defbilinear``), which
:class:`~s4tf.dialects.op_def.Op` derives from ``linear = True`` and ``bilinear = True``.

```python
unbroadcast(ops, ct, (3,))      # ct of shape (4, 3) summed over axis 0: the adjoint of a broadcast
sum_tangents(ops, [dx * y, None], result)
mask(ops, x > y, x.dtype)       # 1.0 where x > y, else 0.0; a constant to differentiation
linear_jvp(Reshape, ops, [x], [dx], result, shape=(12,))    # reshape(dx)
bilinear_jvp(Mul, ops, [x, y], [dx, dy], result)            # dx * y + x * dy
```
"""

from __future__ import annotations

import numpy as np


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
    of it, and strict mode (``s4tf-vjp{strict=true}``) has nothing to report. A select of
    two constants rather than a conversion of the booleans: ``vmvx`` cannot convert
    booleans to float64 (IREE 3.13: "'vm.cast.ui32.f32' op result #0 must be 32-bit float,
    but got 'f64'"; the gradient of a float64 ``scan`` whose first iterations run before
    its loop)."""
    return ops.stop_gradient(ops.where(predicate, np.ones((), dtype), np.zeros((), dtype)))


def linear_jvp(op, ops, primals, tangents, result, **attrs):
    """The JVP of an op linear in its differentiable operands: the op applied to their
    tangents (zeros where one is ``None``) and to the primals of the others (indices,
    keys); ``None`` where every tangent is."""
    positions = differentiable_positions(op, len(primals))
    if all(tangents[i] is None for i in positions):
        return None
    operands = [
        (ops.zeros_like(primal) if tangent is None else tangent) if i in positions else primal
        for i, (primal, tangent) in enumerate(zip(primals, tangents))
    ]
    return ops.emit(op.name, operands, attrs)[0]


def bilinear_jvp(op, ops, primals, tangents, result, **attrs):
    """The JVP of an op linear in each of its two operands: the sum of the op applied to
    each tangent and the other operand's primal (the tangent first where the op is
    ``commutative``)."""
    (lhs, rhs), (d_lhs, d_rhs) = primals, tangents
    rhs_term = [d_rhs, lhs] if op.commutative else [lhs, d_rhs]
    return sum_tangents(ops, [
        None if d_lhs is None else ops.emit(op.name, [d_lhs, rhs], attrs)[0],
        None if d_rhs is None else ops.emit(op.name, rhs_term, attrs)[0],
    ], result)


def differentiable_positions(op, count: int) -> list[int]:
    """The operand positions of ``op`` (of ``count`` operands) that carry a derivative."""
    return [i for i in range(count) if i not in op.nondifferentiable_operands]
