"""``s4tf.cond``, ``s4tf.lax.switch``, ``s4tf.while_loop``, ``s4tf.fori_loop``: control flow on
tensor values.

Inside a staged function a tensor predicate or loop becomes an ``s4tf.if`` or
``s4tf.while`` op whose regions are traced from the Python callables; outside one (or with
a Python predicate) the callables simply run.

```python
@s4tf.function
def f(x, n):
    y = s4tf.cond(x.sum() > 0, s4tf.sin, s4tf.cos, x)
    y = s4tf.lax.switch(n % 3, [s4tf.sin, s4tf.cos, s4tf.tanh], y)  # a tree of two s4tf.if
    return s4tf.fori_loop(0, n, lambda i, y: y * 2, y)      # one s4tf.while, n a tensor or an int
```

Values the callables use from the enclosing function are passed into the regions as
extra operands (regions are isolated from above). Python scalars that meet tensors (a
branch returning ``0.0``, a loop starting at ``0``) take the tensor's type.
"""

from __future__ import annotations

import numpy as np

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.dialects.control_flow import mark_trip_count
from s4tf.dialects.ir_builder import Regions
from s4tf.dialects.types import TensorType, canonical_dtype, to_numpy_dtype
from s4tf.core.errors import StagingError
from s4tf.core.locations import mlir_location, user_location
from s4tf.passes.diagnostics import location_text
from s4tf.staging.tensor import Tensor, Tracer, is_python_scalar
from s4tf.staging.tracing import FunctionScope, current_scope

#: How many times a loop is re-traced when Python scalars in its start values change type.
MAX_RETRACES = 3


def _is_tensor(leaf) -> bool:
    return isinstance(leaf, (Tensor, np.ndarray, np.generic))


def _describe(names, index: int, what: str) -> str:
    return f"'{names[index]}'" if names and index < len(names) else f"{what} #{index}"


def predicate(value, construct: str):
    """``value`` as a ``tensor<i1>`` scalar (non-zero is true)."""
    if value.shape != ():
        raise StagingError(
            f"the condition of a staged {construct} must be a scalar tensor, got shape {tuple(value.shape)}; "
            "reduce it first, e.g. with .any() or .all()",
            str(user_location() or ""),
        )
    return value if value.tensor_type.dtype == "i1" else value != 0


def _trace_region(regions: Regions, index: int, fn, types: list[TensorType], tree, static_leaves):
    """Trace ``fn`` into region ``index`` on block arguments of ``types`` (leaves
    ``static_leaves`` stay Python values); returns its scope and the flattened outputs."""
    scope = regions.open(index, types)
    arguments = map(scope.wrap, scope.block.arguments)
    leaves = [leaf if leaf is not None else next(arguments) for leaf in static_leaves]
    with scope.building():
        output = fn(*(leaves if tree is None else pytree.unflatten(tree, leaves)))
    out_leaves, out_tree = pytree.flatten(output)
    return scope, out_leaves, out_tree


def _location(scope: FunctionScope):
    with scope.context:
        return scope.location or mlir_location(user_location())


# -- cond ------------------------------------------------------------------------------


def cond(pred, true_fn, false_fn, *operands):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; staged as ``s4tf.if``
    when ``pred`` is a traced tensor. Both must return the same structure and types."""
    return stage_cond(pred, true_fn, false_fn, operands)


def stage_cond(pred, true_fn, false_fn, operands, names=None, construct: str = "s4tf.cond"):
    scope = current_scope()
    if scope is None or not isinstance(pred, Tracer):
        return true_fn(*operands) if bool(pred) else false_fn(*operands)
    location = _location(scope)
    pred = predicate(pred, construct)
    leaves, tree = pytree.flatten(tuple(operands))
    static = [leaf if is_python_scalar(leaf) or isinstance(leaf, str) or leaf is None else None for leaf in leaves]
    tensors = [leaf for leaf, s in zip(leaves, static) if s is None]
    types = [_tensor_type(scope, leaf) for leaf in tensors]
    regions = Regions(scope, 2)
    try:
        outputs = [_trace_region(regions, i, fn, types, tree, static) for i, fn in enumerate((true_fn, false_fn))]
        (then_scope, then_leaves, then_tree), (else_scope, else_leaves, else_tree) = outputs
        if then_tree != else_tree:
            raise StagingError(
                f"the branches of a staged {construct} return different structures: {then_tree} and {else_tree}",
                location_text(location),
            )
        merged = [_merge_branch_leaves(a, b, i, names, construct, location) for i, (a, b) in enumerate(zip(then_leaves, else_leaves))]
        dynamic = [i for i, m in enumerate(merged) if m is _DYNAMIC]
        result_types = [_branch_type(then_leaves[i], else_leaves[i]) for i in dynamic]
        for region_scope, branch in ((then_scope, then_leaves), (else_scope, else_leaves)):
            region_scope.finish([_as_type(branch[i], t) for i, t in zip(dynamic, result_types)])
        results = iter(regions.build("if", [pred], tensors, result_types, location))
    finally:
        regions.discard()
    final = [next(results) if m is _DYNAMIC else m for m in merged]
    return pytree.unflatten(then_tree, final)


def switch(index, branches, *operands):
    """``branches[index](*operands)`` with ``index`` clamped into ``[0, len(branches) - 1]``
    (JAX's ``lax.switch``). A traced ``index`` (an integer scalar) is staged as a balanced
    tree of ``s4tf.if`` ops, ``ceil(log2(len(branches)))`` deep; the branches must return
    the same structure and types, as ``cond``'s do."""
    branches = tuple(branches)
    if not branches or not all(callable(branch) for branch in branches):
        raise StagingError(f"s4tf.lax.switch needs a non-empty sequence of callables, got {branches!r}",
                           str(user_location() or ""))
    if isinstance(index, (Tensor, np.ndarray, np.generic)) and not np.issubdtype(index.dtype, np.integer):
        raise StagingError(f"the index of s4tf.lax.switch must be an integer scalar, got {index.dtype}; "
                           "convert it with .astype(np.int32)", str(user_location() or ""))
    if not isinstance(index, Tracer):
        return branches[min(max(int(index), 0), len(branches) - 1)](*operands)
    return _switch(index, branches, 0, operands)


def _switch(index, branches, first: int, operands):
    """``branches`` (those of indices ``first`` on) as a tree of ``cond``s; an index below
    the first goes to the first branch, one above the last to the last."""
    if len(branches) == 1:
        return branches[0](*operands)
    half = len(branches) // 2
    return stage_cond(
        index < first + half,
        lambda *ops: _switch(index, branches[:half], first, ops),
        lambda *ops: _switch(index, branches[half:], first + half, ops),
        operands, construct="s4tf.lax.switch",
    )


_DYNAMIC = object()


def _tensor_type(scope, leaf) -> TensorType:
    if isinstance(leaf, Tensor):
        return leaf.tensor_type
    with scope.context:
        return TensorType.from_mlir(scope.ir_value(leaf).type)


def _merge_branch_leaves(a, b, index, names, construct, location):
    """A Python value both branches agree on, or ``_DYNAMIC`` for a result of the op."""
    if not _is_tensor(a) and not _is_tensor(b):
        if type(a) is type(b) and a == b:
            return a
        if not (is_python_scalar(a) and is_python_scalar(b)):
            raise StagingError(
                f"{_describe(names, index, 'result')} of a staged {construct} is {a!r} in one branch and {b!r} "
                "in the other; only tensors and Python numbers can differ between branches",
                location_text(location),
            )
        return _DYNAMIC
    if _is_tensor(a) and _is_tensor(b):
        ta, tb = _leaf_type(a), _leaf_type(b)
        if ta != tb:
            raise StagingError(
                f"{_describe(names, index, 'result')} of a staged {construct} has type {ta} in one branch and {tb} "
                "in the other; cast one of them (s4tf.astype, s4tf.broadcast_to) so that they agree",
                location_text(location),
            )
    elif not (is_python_scalar(a) or is_python_scalar(b)):
        raise StagingError(
            f"{_describe(names, index, 'result')} of a staged {construct} is a tensor in one branch and "
            f"{a if not _is_tensor(a) else b!r} in the other",
            location_text(location),
        )
    return _DYNAMIC


def _leaf_type(leaf) -> TensorType:
    if isinstance(leaf, Tensor):
        return leaf.tensor_type
    array = np.asarray(leaf)
    return TensorType(array.shape, canonical_dtype(array.dtype))


def _branch_type(a, b) -> TensorType:
    if _is_tensor(a):
        return _leaf_type(a)
    if _is_tensor(b):
        return _leaf_type(b)
    return _scalar_type(a, b)


def _scalar_type(*numbers) -> TensorType:
    if any(isinstance(n, float) for n in numbers):
        return TensorType((), "f32")
    if any(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        return TensorType((), "i32")
    return TensorType((), "i1")


def _as_type(leaf, tensor_type: TensorType):
    """``leaf`` as a tensor of ``tensor_type`` (Python numbers are filled in)."""
    if is_python_scalar(leaf):
        return np.full(tensor_type.shape, leaf, dtype=to_numpy_dtype(tensor_type.dtype))
    return leaf


# -- loops -----------------------------------------------------------------------------


def while_loop(cond_fn, body_fn, init):
    """``val = init; while cond_fn(val): val = body_fn(val)``; staged as ``s4tf.while``
    inside a staged function. ``body_fn`` returns the structure and types of ``init``."""
    return stage_while(cond_fn, body_fn, init)


def stage_while(cond_fn, body_fn, init, names=None, construct: str = "s4tf.while_loop"):
    scope = current_scope()
    if scope is None:
        value = init
        while bool(cond_fn(value)):
            value = body_fn(value)
        return value
    location = _location(scope)
    leaves, tree = pytree.flatten(init)
    _check_loop_variables(leaves, names, construct, location)
    with scope.building():
        start = [leaf if isinstance(leaf, Tracer) else numpy_api.asarray(leaf) for leaf in leaves]
    weak = [is_python_scalar(leaf) for leaf in leaves]
    for _ in range(MAX_RETRACES):
        results, changed = _try_while(scope, cond_fn, body_fn, tree, start, weak, names, construct, location)
        if not changed:
            return pytree.unflatten(tree, results)
        with scope.building():  # a Python number made again in its new dtype, never through float32
            start = [numpy_api.broadcast_to(numpy_api.asarray(leaves[i], to_numpy_dtype(changed[i].dtype)), changed[i].shape)
                     if i in changed else v for i, v in enumerate(start)]
    raise StagingError(f"the loop variables of a staged {construct} keep changing type", location_text(location))


def _check_loop_variables(leaves, names, construct, location) -> None:
    for index, leaf in enumerate(leaves):
        if not (_is_tensor(leaf) or is_python_scalar(leaf)):
            raise StagingError(
                f"{_describe(names, index, 'loop variable')} of a staged {construct} is {leaf!r}; loop variables "
                "must be tensors or Python numbers",
                location_text(location),
            )


def _try_while(scope, cond_fn, body_fn, tree, start, weak, names, construct, location):
    """``(results, {})``: the ``s4tf.while`` carrying ``start``; or ``(None, changed)``, no op,
    where start values that were Python numbers need new types (:func:`_changed_types`)."""
    types = [v.tensor_type for v in start]
    static = [None] * len(types)
    regions = Regions(scope, 2)
    try:
        cond_scope, (condition,), _ = _trace_region(regions, 0, lambda *v: cond_fn(pytree.unflatten(tree, list(v))), types, None, static)
        with cond_scope.building():
            cond_scope.finish([predicate(condition if isinstance(condition, Tracer) else numpy_api.asarray(condition), construct)])
        body_scope, body_leaves, body_tree = _trace_region(regions, 1, lambda *v: body_fn(pytree.unflatten(tree, list(v))), types, None, static)
        if body_tree != tree:
            raise StagingError(
                f"the body of a staged {construct} returns {body_tree}, but the loop variables are {tree}",
                location_text(location),
            )
        changed = _changed_types(body_leaves, types, weak, names, construct, location)
        if changed:
            return None, changed
        body_scope.finish([_as_type(leaf, t) for leaf, t in zip(body_leaves, types)])
        return regions.build("while", [], start, types, location, carried=True), {}
    finally:
        regions.discard()


def _changed_types(body_leaves, types, weak, names, construct, location) -> dict:
    """New types for start values that were Python numbers; errors for tensors that change."""
    changed = {}
    for index, (leaf, carried) in enumerate(zip(body_leaves, types)):
        if is_python_scalar(leaf):
            continue
        if not _is_tensor(leaf):
            raise StagingError(
                f"{_describe(names, index, 'loop variable')} of a staged {construct} becomes {leaf!r} in the loop "
                "body; loop variables must stay tensors or numbers",
                location_text(location),
            )
        new = _leaf_type(leaf)
        if new == carried:
            continue
        if weak[index]:
            changed[index] = new
            continue
        raise StagingError(
            f"{_describe(names, index, 'loop variable')} of a staged {construct} has type {carried} before the loop "
            f"and {new} after an iteration; loop-carried types must not change: cast it "
            "(s4tf.astype, s4tf.broadcast_to) before the loop or in the body",
            location_text(location),
        )
    return changed


def fori_loop(lower, upper, body_fn, init, *, unroll=None):
    """``val = init; for i in range(lower, upper): val = body_fn(i, val)``; inside a staged
    function one ``s4tf.while`` whether the bounds are Python ints or tensors (known only
    when the function runs). ``unroll`` (JAX's, Python int bounds only): an int ``k`` runs
    ``k`` copies of the body per iteration of the loop, the remaining ``n % k`` iterations
    after it; ``True`` unrolls every iteration."""
    return stage_fori(lower, upper, body_fn, init, unroll=unroll)


def stage_fori(lower, upper, body_fn, init, names=None, construct: str = "s4tf.fori_loop", step=1, unroll=None,
               trip_count: int | None = None):
    """``fori_loop`` for its callers; ``trip_count``: the iterations, where tensor bounds hide
    a length the caller knows (``scan``'s)."""
    scope = current_scope()
    static = not any(isinstance(b, Tracer) for b in (lower, upper, step))
    copies = _unroll_factor(unroll, static, construct)
    if scope is None or copies is None:
        value = init
        for i in range(int(lower), int(upper), int(step)):
            value = body_fn(i, value)
        return value
    if not static:
        return _counted_loop(scope, lower, upper, step, 1, body_fn, init, names, construct, trip_count)
    steps = range(int(lower), int(upper), int(step))
    looped = len(steps) - len(steps) % copies
    value = init
    if looped:
        end = steps[looped] if looped < len(steps) else steps.stop
        value = _counted_loop(scope, steps.start, end, steps.step, copies, body_fn, value, names, construct, looped // copies)
    for i in steps[looped:]:
        value = body_fn(i, value)
    return value


def _unroll_factor(unroll, static: bool, construct: str):
    """How many copies of the body one iteration runs; ``None``: every iteration unrolled."""
    if unroll is None or unroll is False:
        return 1
    if unroll is not True and (not isinstance(unroll, (int, np.integer)) or unroll < 1):
        raise StagingError(
            f"unroll= of {construct} must be True, False or an int >= 1, got {unroll!r}", str(user_location() or "")
        )
    if not static and unroll != 1:
        raise StagingError(
            f"unroll= of {construct} needs Python int bounds (a static trip count); its bounds here are tensors",
            str(user_location() or ""),
        )
    return None if unroll is True else int(unroll)


def _counted_loop(scope, lower, upper, step, copies: int, body_fn, init, names, construct, trip_count=None):
    """One ``s4tf.while`` counting ``i`` from ``lower`` while ``i < upper`` (``i > upper``
    for a negative step), ``copies`` bodies (at ``i``, ``i + step``, ...) per iteration;
    marked with its ``trip_count`` where that is known (:data:`~s4tf.dialects.control_flow.TRIP_COUNT`).
    A Python int ``step`` picks the comparison now; a traced one is carried, and the
    condition picks by its sign (``select(step > 0, i < upper, i > upper)``)."""
    traced_step = isinstance(step, Tracer)
    if not traced_step and int(step) == 0:
        raise StagingError(f"the step of a staged {construct} must not be zero", str(user_location() or ""))
    with scope.building():
        bounds = [b if isinstance(b, Tracer) else numpy_api.asarray(b) for b in (lower, upper, *([step] if traced_step else []))]
        dtype = "i64" if any(b.tensor_type.dtype == "i64" for b in bounds) else "i32"
        lower, upper, *carried = (numpy_api.astype(predicate_free_scalar(b, construct), dtype) for b in bounds)
    step = carried[0] if traced_step else int(step)

    def keep_going(carry):
        i, upper = carry[:2]
        if not traced_step:
            return i < upper if step > 0 else i > upper
        return numpy_api.where(carry[2] > 0, i < upper, i > upper)

    def body(carry):
        i, upper, *stepping, value = carry
        by = stepping[0] if traced_step else step
        for copy in range(copies):
            index = i if copy == 0 else i + (by if copy == 1 else copy * by)
            value = body_fn(index.as_weak(), value)  # the index stands for range()'s Python int
        return (i + (by if copies == 1 else copies * by), upper, *stepping, value)

    index, *_, value = stage_while(keep_going, body, (lower, upper, *carried, init),
                                   names=["index", "bound", *(["step"] if traced_step else []), *(names or [])],
                                   construct=construct)
    if trip_count is not None:
        mark_trip_count(index.value.owner, trip_count)
    return value


def predicate_free_scalar(bound, construct):
    if bound.shape != ():
        raise StagingError(
            f"the bounds of a staged {construct} must be scalars, got shape {tuple(bound.shape)}",
            str(user_location() or ""),
        )
    if bound.tensor_type.dtype not in ("i32", "i64", "i8"):
        raise StagingError(
            f"the bounds of a staged {construct} must be integers, got {bound.tensor_type.dtype}",
            str(user_location() or ""),
        )
    return bound
