"""``s4tf.scan``: JAX's ``lax.scan``, a loop that carries a value and stacks per-step outputs.

```python
def step(carry, x):
    carry = carry * 0.9 + x
    return carry, s4tf.sum(carry)

final, sums = s4tf.scan(step, h0, xs)        # sums[i] is step i's output
```

Inside a staged function one step is first traced into a region that is dropped (JAX's
abstract evaluation: it gives the types of the outputs, whose stacks are allocated as
zeros), then all ``n`` steps become one ``s4tf.fori_loop`` that reads ``x[i]`` and writes
``ys.at[i].set(y)``; reverse mode differentiates it as any loop. Where a step changes the
type of a carried tensor (a float32 ``init`` the step makes float64), holds a loop, or
the scan is inside a loop or a branch (IREE 3.13, below), the first step runs on its own
before a loop of the other ``n - 1``, as does a single step. Outside a staged function,
the steps run one by one.
"""

from __future__ import annotations

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.staging.autograph.convert import convert_once
from s4tf.dialects.control_flow import mark_scan_output
from s4tf.dialects.ir_builder import Regions
from s4tf.passes.autodiff.functions import holds_any
from s4tf.dialects.types import shape_str
from s4tf.core.errors import S4tfError, ShapeError
from s4tf.core.locations import user_location
from s4tf.staging.structured_control import stage_fori
from s4tf.staging.tensor import is_python_scalar
from s4tf.staging.tracing import Static, current_scope, leaf_spec


class ScanError(S4tfError):
    """A call of ``s4tf.scan`` that cannot be run (bad ``xs``, ``length`` or step function)."""


def scan(f, init, xs, length=None, reverse=False, unroll=1):
    """``(carry, ys)`` with ``carry, y = f(carry, x)`` for each ``x`` of ``xs`` along its
    leading axis (last first if ``reverse``) and ``ys`` the ``y``s stacked in ``xs``'s order.
    ``init`` and ``xs`` are pytrees (``xs`` may be ``None`` given ``length``). ``unroll``
    (JAX's): an int ``k`` traces ``k`` steps per iteration of the loop (the steps left over
    after it, one by one), ``True`` every step."""
    f = convert_once(f)  # Python `if`/`while` on tensors in the step are staged, as in @s4tf.function
    xs_leaves, xs_tree = pytree.flatten(xs)
    n = _length(xs_leaves, length)
    _, carry_tree = pytree.flatten(init)

    def step(carry, i):
        output = f(carry, pytree.unflatten(xs_tree, [leaf[i] for leaf in xs_leaves]))
        if not (isinstance(output, (tuple, list)) and len(output) == 2):
            raise ScanError(f"s4tf.scan: the step function must return a pair (carry, y), got {type(output).__name__}", _where())
        carry, y = output
        if pytree.flatten(carry)[1] != carry_tree:
            raise ScanError(f"s4tf.scan: the step function returns a carry of structure {pytree.flatten(carry)[1]}, "
                            f"but init has {carry_tree}", _where())
        return carry, y

    order = [n - 1 - i for i in range(n)] if reverse else list(range(n))
    if current_scope() is None:  # eager: the steps one by one
        carry, ys = init, [None] * n
        for i in order:
            carry, ys[i] = step(carry, i)
        y_leaves, y_tree = pytree.flatten(ys[0])
        columns = zip(*(pytree.flatten(y)[0] for y in ys))
        return carry, pytree.unflatten(y_tree, [numpy_api.stack([numpy_api.asarray(v) for v in c]) for c in columns])
    xs_leaves[:] = [numpy_api.asarray(leaf) for leaf in xs_leaves]  # NumPy leaves, indexed by the loop's traced i
    # IREE-3.13-WORKAROUND: a scan inside a loop or a branch, or whose step holds a loop, runs
    # its first step on its own too. With all steps in the loop, vmap of grad of a scan over a
    # scan or a lax.map failed to compile ("streamable op expected to be in an execution
    # region"), and that of a lax.map inside a scan came back wrong on vulkan
    # (tests/control_flow/test_loop_sweep.py)
    traced = _abstract_step(step, init, carry_tree, order[0]) if n > 1 and not _in_a_region() else None
    if traced is not None and _keeps_types(init, traced[0]) and not traced[3]:
        _, y_tree, y_types, _ = traced
        carry, stacks, first = init, [_stack_for(t, n) for t in y_types], 0
    else:  # the first step on its own (it fixes the carry's types)
        carry, y = _first_step(step, init, carry_tree, order[0])
        y_leaves, y_tree = pytree.flatten(y)
        y_leaves = [numpy_api.asarray(v) for v in y_leaves]
        stacks, first = [_stack_for(v.tensor_type, n).at[order[0]].set(v) for v in y_leaves], 1
        if n == 1:
            return carry, pytree.unflatten(y_tree, stacks)

    def body(i, state):
        carry, stacks = state
        index = n - 1 - i if reverse else i
        carry, y = step(carry, index)
        leaves, tree = pytree.flatten(y)
        if tree != y_tree:
            raise ScanError(f"s4tf.scan: the step function's output y has structure {tree} in one step and {y_tree} in the first", _where())
        return carry, [_set_row(s, index, v) for s, v in zip(stacks, leaves)]

    carry, stacks = stage_fori(first, n, body, (carry, stacks), construct="s4tf.scan", unroll=unroll)
    return carry, pytree.unflatten(y_tree, list(stacks))


def _abstract_step(step, init, carry_tree, index):
    """What one step makes, traced into a region that is then dropped (JAX's abstract
    evaluation of the step): the types of its carry's leaves, the tree and leaf types of
    its output ``y``, and whether it holds a loop."""
    regions = Regions(current_scope(), 1)
    try:
        builder = regions.open(0, [])
        with builder.building():
            carry, y = _first_step(step, init, carry_tree, index)
            y_leaves, y_tree = pytree.flatten(y)
            y_types = [numpy_api.asarray(v).tensor_type for v in y_leaves]
            carry_types = [numpy_api.asarray(v).tensor_type for v in pytree.flatten(carry)[0]]
        module = builder.block.owner
        while module.parent is not None:
            module = module.parent
        return carry_types, y_tree, y_types, holds_any(module, [op.operation for op in builder.block.operations], ("s4tf.while",))
    finally:
        regions.discard()


def _in_a_region() -> bool:
    """Whether the scan is being staged inside a loop or a branch (or in a function called
    from one): a builder on the way up from here fills a region's block, not a function's."""
    builder = current_scope()
    while builder is not None:
        if builder.block.owner.operation.name != "func.func":
            return True
        builder = builder.parent
    return False


def _keeps_types(init, carry_types) -> bool:
    """Whether a step leaves the type of each leaf of ``init`` as it was (a Python number
    takes the type the step makes of it, as in any loop)."""
    return all(is_python_scalar(leaf) or leaf_spec(leaf) == made for leaf, made in zip(pytree.flatten(init)[0], carry_types))


def _first_step(step, init, carry_tree, index):
    """The first step's ``(carry, y)``. A Python number in ``init`` is a weak tensor there, as
    JAX's is, of the dtype the step makes of it: a carry ``0.1`` that becomes float64
    (``c + x`` of a float64 ``x``) starts as the float64 0.1, and its outputs are float64."""
    leaves, _ = pytree.flatten(init)
    numbers = {i for i, v in enumerate(leaves) if is_python_scalar(v)}
    dtypes = {}
    for _ in range(2):
        start = [numpy_api.asarray(v, dtypes.get(i)).as_weak() if i in numbers else v for i, v in enumerate(leaves)]
        carry, y = step(pytree.unflatten(carry_tree, start), index)
        made = {i: numpy_api.asarray(v).dtype for i, v in enumerate(pytree.flatten(carry)[0]) if i in numbers}
        changed = {i: d for i, d in made.items() if d != start[i].dtype}
        if not changed:
            break
        dtypes.update(changed)
    return carry, y


def _length(xs_leaves, length) -> int:
    lengths = set()
    for leaf in xs_leaves:
        spec = leaf_spec(leaf, "xs")
        if isinstance(spec, Static) or spec.shape == ():
            raise ScanError("s4tf.scan: every leaf of xs must be an array with a leading axis to scan over, "
                            f"got {leaf!r}" if isinstance(spec, Static) else "s4tf.scan: xs has a 0-d array, which has no axis to scan over", _where())
        lengths.add(spec.shape[0])
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ShapeError(
            "s4tf.scan: xs' leading axes and length must agree, got "
            + (", ".join(str(n) for n in sorted(lengths)) if lengths else "no xs and no length"),
            _where(),
        )
    (n,) = lengths
    if n == 0:
        raise ScanError("s4tf.scan over 0 steps is not supported (the outputs' types come from tracing one step)", _where())
    return n


def _set_row(stack, index, y):
    """``stack.at[index].set(y)``, its scatter marked a scan output (``s4tf.scan_output``:
    every iteration of the loop sets a row of its own)."""
    result = stack.at[index].set(numpy_api.asarray(y))
    scatter = result.value.owner.operation
    if scatter.name == "s4tf.scatter":
        mark_scan_output(scatter)
    return result


def _stack_for(y_type, n: int):
    """Zeros for the ``n`` outputs of type ``y_type`` (a :class:`TensorType`)."""
    return numpy_api.zeros((n, *y_type.shape), y_type.dtype)


def _where():
    where = user_location()
    return str(where) if where else None
