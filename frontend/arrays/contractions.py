"""``s4tf.<name>``: contractions beyond ``matmul``: ``einsum``, ``tensordot``, ``vecdot``,
``outer``, ``inner``, ``dot``, ``vdot``, ``kron``, ``cross``, ``convolve``.

```python
import numpy as np, s4tf

a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
np.asarray(s4tf.einsum("ij,jk->ik", a, b)), np.asarray(s4tf.tensordot(a, b, axes=1))
```

``einsum`` contracts its operands left to right with ``s4tf.dot_general`` (batch axes
are the labels later operands or the output still need), after summing each operand's
own labels that nothing else needs and taking diagonals of repeated labels.
"""

from __future__ import annotations

import numpy as np

from s4tf.arrays.creation import eye, moveaxis, unstack
from s4tf.arrays.indexing import take
from s4tf.core.locations import shape_error
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: sum)
    _as_operand, _normalize_axis, _result_dtype, _tensor, broadcast_to, dot_general, flip, multiply, pad, preferred,
    reshape, stack, sum, transpose,
)


def tensordot(x1, x2, axes=2):
    """Sum of products over the last ``axes`` axes of ``x1`` and the first of ``x2``, or
    over the axes of ``axes = (x1_axes, x2_axes)``."""
    dtype = _result_dtype(x1, x2)
    x1, x2 = _tensor(_as_operand(x1, dtype)), _tensor(_as_operand(x2, dtype))
    if isinstance(axes, (int, np.integer)):
        count = int(axes)
        if count < 0 or count > min(len(x1.shape), len(x2.shape)):
            raise shape_error(f"tensordot: cannot contract {count} axes of shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
        lhs, rhs = list(range(len(x1.shape) - count, len(x1.shape))), list(range(count))
    else:
        lhs, rhs = ([a] if isinstance(a, (int, np.integer)) else list(a) for a in axes)
        lhs = [_normalize_axis(a, len(x1.shape)) for a in lhs]
        rhs = [_normalize_axis(a, len(x2.shape)) for a in rhs]
    return dot_general(x1, x2, (lhs, rhs))


def vecdot(x1, x2, axis=-1):
    """Dot products of the vectors along ``axis`` (operands broadcast first)."""
    dtype = _result_dtype(x1, x2)
    x1, x2 = _tensor(_as_operand(x1, dtype)), _tensor(_as_operand(x2, dtype))
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    if not -len(shape) <= axis < 0 and not 0 <= axis < len(shape):
        raise shape_error(f"vecdot: axis {axis} is out of range for shape {shape}")
    if x1.shape[axis] != x2.shape[axis]:
        raise shape_error(f"vecdot: axis {axis} has sizes {x1.shape[axis]} and {x2.shape[axis]}")
    return sum(multiply(broadcast_to(x1, shape), broadcast_to(x2, shape)), axis=axis, dtype=dtype)


def outer(x1, x2):
    """The outer product of two vectors (flattened first, as NumPy's)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    return multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


def inner(x1, x2):
    """Sum of products over the last axes; with a 0-d operand, the product (as NumPy's)."""
    if np.ndim(x1) == 0 or np.ndim(x2) == 0:
        return multiply(x1, x2)
    return tensordot(x1, x2, axes=([-1], [-1]))


def _parse(subscripts: str, ranks):
    """Labels per operand and of the output; ``...`` becomes labels of its own."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise shape_error(f"einsum: '{subscripts}' names {len(terms)} operands, got {len(ranks)}")
    ellipsis_rank = max((rank - len(t.replace("...", "")) for t, rank in zip(terms, ranks) if "..." in t), default=0)
    spare = [chr(c) for c in range(0x100, 0x100 + ellipsis_rank)]  # labels no subscript uses

    def expand(term, rank):
        if "..." not in term:
            if len(term) != rank:
                raise shape_error(f"einsum: '{term}' has {len(term)} labels for an operand of rank {rank}")
            return list(term)
        head, tail = term.split("...")
        width = rank - len(head) - len(tail)
        if width < 0:
            raise shape_error(f"einsum: '{term}' has too many labels for an operand of rank {rank}")
        return list(head) + spare[ellipsis_rank - width:] + list(tail)

    labels = [expand(t, r) for t, r in zip(terms, ranks)]
    for term in labels:
        for label in term:
            if not (label.isalpha() or label in spare):
                raise shape_error(f"einsum: '{label}' in '{subscripts}' is not a letter")
    if arrow:
        out = list(output.replace("...", "".join(spare))) if "..." in output else list(output)
        unknown = set(out) - {label for term in labels for label in term}
        if unknown:
            raise shape_error(f"einsum: output label(s) {', '.join(sorted(unknown))} appear in no operand")
    else:
        counts = {}
        for term in labels:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        out = spare + sorted(label for label, count in counts.items() if count == 1 and label not in spare)
    return labels, out


def _diagonal(x, labels):
    """``x`` with each label repeated within ``labels`` reduced to its diagonal."""
    while len(set(labels)) < len(labels):
        label = next(l for l in labels if labels.count(l) > 1)
        first, second = [i for i, l in enumerate(labels) if l == label][:2]
        size = x.shape[first]
        mask_shape = [1] * len(labels)
        mask_shape[first] = mask_shape[second] = size
        mask = reshape(eye(size, dtype=x.dtype), mask_shape)
        x = sum(multiply(x, mask), axis=second)
        labels = labels[:second] + labels[second + 1:]
    return x, labels


def einsum(subscripts, *operands):
    """Einstein summation, as ``np.einsum`` (``"ij,jk->ik"``, ``"...ij->...ji"``, ``"ii"``)."""
    dtype = _result_dtype(*operands)
    tensors = [_tensor(_as_operand(x, dtype)) for x in operands]
    labels, out = _parse(subscripts, [len(t.shape) for t in tensors])
    sizes = {}
    for tensor, term in zip(tensors, labels):
        for label, size in zip(term, tensor.shape):
            if sizes.get(label, 1) not in (1, size) and size != 1:
                raise shape_error(f"einsum: label '{label}' has sizes {sizes[label]} and {size}")
            sizes[label] = size if sizes.get(label, 1) == 1 else sizes[label]
    pending = [_diagonal(t, list(term)) for t, term in zip(tensors, labels)]
    result, result_labels = None, None
    for index, (tensor, term) in enumerate(pending):
        later = set(out) | {label for _, t in pending[index + 1:] for label in t}
        if result is None:
            result, result_labels = _sum_unneeded(tensor, term, later)
            continue
        tensor, term = _sum_unneeded(tensor, term, later | set(result_labels))
        result, result_labels = _sum_unneeded(result, result_labels, later | set(term))
        result, result_labels = _contract(result, result_labels, tensor, term, later, sizes)
    result, result_labels = _sum_unneeded(result, result_labels, set(out))
    return transpose(result, [result_labels.index(label) for label in out])


def _sum_unneeded(x, labels, needed):
    axes = tuple(i for i, label in enumerate(labels) if label not in needed)
    if not axes:
        return x, labels
    return sum(x, axis=axes), [label for label in labels if label in needed]


def _contract(lhs, lhs_labels, rhs, rhs_labels, later, sizes):
    shared = [label for label in lhs_labels if label in rhs_labels]
    batch = [label for label in shared if label in later]
    contracted = [label for label in shared if label not in later]
    lhs = _broadcast_labels(lhs, lhs_labels, batch + contracted, sizes)
    rhs = _broadcast_labels(rhs, rhs_labels, batch + contracted, sizes)
    result = dot_general(
        lhs, rhs,
        ([lhs_labels.index(l) for l in contracted], [rhs_labels.index(l) for l in contracted]),
        ([lhs_labels.index(l) for l in batch], [rhs_labels.index(l) for l in batch]),
    )
    free_lhs = [l for l in lhs_labels if l not in shared]
    free_rhs = [l for l in rhs_labels if l not in shared]
    return result, batch + free_lhs + free_rhs


def _broadcast_labels(x, labels, shared, sizes):
    """``x`` broadcast along the ``shared`` labels where it has size 1 and the other has more."""
    shape = [sizes[label] if label in shared else size for label, size in zip(labels, x.shape)]
    return broadcast_to(x, shape) if tuple(shape) != tuple(x.shape) else x


# -- NumPy's products: dot, vdot, kron, cross, convolve -------------------------------------


def dot(x1, x2, *, precision=None, preferred_element_type=None):
    """``np.dot``: the product of scalars, the inner product of vectors, and otherwise the
    sum over the last axis of ``x1`` and the second-to-last of ``x2`` (its only one if 1-D).
    ``precision`` and ``preferred_element_type`` as :func:`s4tf.matmul`'s."""
    x1, x2 = (_tensor(x) for x in preferred(x1, x2, preferred_element_type))
    if not x1.shape or not x2.shape:
        return multiply(x1, x2)
    return tensordot(x1, x2, axes=([len(x1.shape) - 1], [max(len(x2.shape) - 2, 0)]))


def vdot(x1, x2):
    """The inner product of the flattened operands (no conjugate: s4tf has no complex dtypes)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    if x1.size != x2.size:
        raise shape_error(f"vdot needs operands of one size, got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    return tensordot(reshape(x1, -1), reshape(x2, -1), axes=1)


def kron(x1, x2):
    """The Kronecker product: blocks ``x1[i, j, ...] * x2`` (the lower rank padded with 1s in front)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    rank = max(len(x1.shape), len(x2.shape))
    a = (1,) * (rank - len(x1.shape)) + tuple(x1.shape)
    b = (1,) * (rank - len(x2.shape)) + tuple(x2.shape)
    product = multiply(
        reshape(x1, [d for size in a for d in (size, 1)]), reshape(x2, [d for size in b for d in (1, size)])
    )
    return reshape(product, [m * n for m, n in zip(a, b)])


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross products of 3-vectors along ``axisa`` of ``x1`` and ``axisb`` of ``x2`` (``axis``
    sets all three), the other axes broadcast; the result's vectors lie along ``axisc``."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x1, x2 = _tensor(x1), _tensor(x2)
    if not x1.shape or not x2.shape:
        raise shape_error("cross needs tensors of rank >= 1, got a 0-d one")
    a, b = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise shape_error(
            f"cross: s4tf takes 3-vectors, got vectors of {a.shape[-1]} and {b.shape[-1]} elements "
            "(for 2-vectors, NumPy 2 deprecates them: append a zero)"
        )
    a, b = unstack(a, axis=-1), unstack(b, axis=-1)
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    result = stack(parts, axis=-1)
    return moveaxis(result, -1, axisc)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D tensors (0-d ones count as 1 element):
    ``"full"`` (every overlap), ``"same"`` (the length of the longer, centred) or
    ``"valid"`` (where they overlap completely). A gather of the sliding windows of ``a``
    and one product with ``v`` reversed."""
    dtype = _result_dtype(a, v)
    a, v = (_tensor(_as_operand(t, dtype)) for t in (a, v))
    a, v = (reshape(t, (1,)) if not t.shape else t for t in (a, v))
    if len(a.shape) != 1 or len(v.shape) != 1:
        raise shape_error(f"convolve needs 1-D tensors, got shapes {tuple(a.shape)} and {tuple(v.shape)}")
    if not a.shape[0] or not v.shape[0]:
        raise shape_error("convolve needs non-empty tensors")
    if mode not in ("full", "same", "valid"):
        raise shape_error(f"convolve: mode must be 'full', 'same' or 'valid', got {mode!r}")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    first, last = {"full": (0, n + m - 1), "same": ((m - 1) // 2, (m - 1) // 2 + n), "valid": (m - 1, n)}[mode]
    padded = pad(a, m - 1)
    windows = take(padded, np.arange(first, last)[:, None] + np.arange(m)[None, :])
    return tensordot(windows, flip(v), axes=1)


__all__ = ["convolve", "cross", "dot", "einsum", "inner", "kron", "outer", "tensordot", "vdot", "vecdot"]
