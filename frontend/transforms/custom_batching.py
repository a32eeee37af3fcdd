"""Custom batching rules: ``@s4tf.batching_rule(of=f)``, in the style of
``@s4tf.derivative(of=f)``, with the convention of JAX's ``custom_vmap``.

```python
@s4tf.function
def solve(a, b):                       # one example: a (n, n), b (n,)
    ...

@s4tf.batching_rule(of=solve)
def solve_batched(size, in_batched, a, b):
    # size: the batch size; in_batched: like the arguments, True where a leaf has the
    # batch axis (in front); returns (out, out_batched), out_batched like out (or one bool)
    ...
    return x, True
```

Whenever ``s4tf-batch`` meets a call of ``f`` (``vmap`` of ``f`` or of a function that
calls it, ``vmap`` of ``grad``...), it calls the rule instead of batching ``f``'s body:
the rule is traced on the batched arguments into the module and called. Results the rule
says are unbatched are broadcast along the batch. Register the rule before staging code
that vmaps ``f``: functions compiled earlier keep what they saw.

Derivatives: ``grad(f)`` differentiates ``f`` (its body, or its ``@s4tf.derivative``),
never the rule. ``grad(vmap(f))`` differentiates what runs, the rule's function: if ``f``
has a custom derivative, that function gets ``f``'s derivative rules batched (the VJP
rule's cotangents of unbatched arguments summed over the batch), so ``grad(vmap(f))``
uses ``f``'s derivative exactly as ``vmap(grad(f))`` does; otherwise it differentiates the
rule's body (which must then be differentiable). ``vmap(grad(f))`` batches ``f``'s
derivative code, and where that calls ``f`` (as a custom VJP rule may), the rule is used.
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.transforms.custom_derivatives import located_at, placeholder
from s4tf.dialects.symbols import find_function, functions
from s4tf.dialects.types import TensorType
from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.passes.batching import CUSTOM_BATCH, CUSTOM_RULES, BatchingError, mark_batched
from s4tf.staging.function import StagedFunction
from s4tf.staging.tracing import Static, after_trace_hooks, leaf_spec

#: ``python_fn -> rule`` for every function with a registered batching rule, while it lives.
_RULES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_KEYS = itertools.count()


def batching_rule(of):
    """Decorator registering the decorated function as the batching rule of the
    ``@s4tf.function`` ``of``; returns the rule unchanged. The rule is called as
    ``rule(size, in_batched, *args)`` and returns ``(out, out_batched)``."""
    if not isinstance(of, StagedFunction):
        raise S4tfError(
            f"s4tf.batching_rule(of=...) needs an @s4tf.function, got {type(of).__name__}: a batching rule "
            "replaces the batching of a staged function wherever it is called"
        )

    def register(rule):
        if not callable(rule):
            raise S4tfError(f"s4tf.batching_rule(of={of.__name__}) decorates a function, got {type(rule).__name__}")
        _RULES[of.python_fn] = rule
        return rule

    return register


def _rule_body(rule, record, tree, specs, batched_leaves: set[int], size: int, name: str):
    """``(*tensor leaves) -> [results with the batch axis in front]`` for the rule."""

    @located_at(rule)
    def body(*tensors):
        tensor_iter = iter(tensors)
        leaves = [spec.value if isinstance(spec, Static) else next(tensor_iter) for spec in specs]
        args, _ = pytree.unflatten(tree, leaves)
        in_batched, _ = pytree.unflatten(tree, [i in batched_leaves for i in range(len(specs))])
        output = rule(size, in_batched, *args)
        if not (isinstance(output, tuple) and len(output) == 2):
            raise S4tfError(f"the batching rule '{_name(rule)}' must return (out, out_batched), got {type(output).__name__}")
        out, out_batched = output
        out_leaves, out_tree = pytree.flatten(out)
        if out_tree != record.output_tree:
            raise S4tfError(f"the batching rule '{_name(rule)}' returns a value of another structure than '{name}' does")
        flags = _flags(out_batched, out, rule)
        results = []
        for leaf, flag, index in zip(out_leaves, flags, record.outputs):
            if isinstance(index, Static):
                continue
            want = record.result_types[index]
            batched_type = TensorType((size, *want.shape), want.dtype)
            spec = leaf_spec(leaf, "value")
            if spec != (batched_type if flag else want):
                say = "batched" if flag else "unbatched"
                raise S4tfError(
                    f"the batching rule '{_name(rule)}' returns {spec} for result {index} it says is {say}; "
                    f"'{name}' returns {want}, so expected {batched_type if flag else want}"
                )
            results.append(leaf if flag else numpy_api.broadcast_to(leaf, batched_type.shape))
        return results

    return body


def _flags(out_batched, out, rule) -> list[bool]:
    """One bool per leaf of ``out``: ``out_batched`` is a bool or a prefix of ``out``'s tree."""
    if isinstance(out_batched, (bool, np.bool_)):
        return [bool(out_batched)] * len(pytree.flatten(out)[0])
    kind, data, children = pytree.children_of(out)
    flag_kind, flag_data, flag_children = pytree.children_of(out_batched)
    if kind == "leaf" or (kind, data) != (flag_kind, flag_data) or len(children) != len(flag_children):
        raise S4tfError(f"the batching rule '{_name(rule)}': out_batched {out_batched!r} does not match the structure of out")
    return [flag for child, flags in zip(children, flag_children) for flag in _flags(flags, child, rule)]


def _name(rule) -> str:
    return getattr(rule, "__name__", "rule")


def _builder(trace_ref, rule, record, tree, specs, name: str):
    """The ``CUSTOM_RULES`` builder of one traced ``f``: traces the rule for the batched
    arguments into ``f``'s trace, whose module the batching pass runs on, as ``f_batched``."""
    tensor_leaves = [i for i, spec in enumerate(specs) if not isinstance(spec, Static)]

    def build(module, batched, size):
        trace = trace_ref()
        if trace is None or module != trace.module.operation:
            raise BatchingError(
                f"the batching rule '{_name(rule)}' of '{name}' is traced into the module '{name}' is being staged "
                f"into, while it is; this module is not that one (vmap '{name}' inside the staged function instead)"
            )
        batched_leaves = {tensor_leaves[i] for i in batched}
        example = [
            placeholder(TensorType((size, *specs[i].shape), specs[i].dtype) if i in batched_leaves else specs[i])
            for i in tensor_leaves
        ]
        body = _rule_body(rule, record, tree, specs, batched_leaves, size, name)
        trace.reserve_symbols(functions(module))  # the pass's functions so far are not the trace's yet
        traced = trace.trace_function(body, f"{record.symbol}_batched", tuple(example), {}, public=False, closure=False)
        mark_batched(find_function(module, traced.symbol), record.symbol, batched, size)
        return traced.symbol

    return build


def _attach_rule(trace, python_fn, function, record, args, kwargs) -> None:
    """Name a builder of ``python_fn``'s batching rule on its traced ``function``."""
    rule = _RULES.get(python_fn)
    if rule is None:
        return
    name = getattr(python_fn, "__name__", "function")
    if any(not isinstance(leaf_spec(leaf), Static) for leaf in pytree.flatten(kwargs)[0]):
        raise S4tfError(f"'{name}' has a batching rule, so its tensors must be passed as positional arguments")
    if record.captured:
        raise S4tfError(f"'{name}' has a batching rule, so it cannot use tensors of the function it is called from")
    leaves, tree = pytree.flatten((tuple(args), {}))
    specs = [leaf_spec(leaf) for leaf in leaves]
    key = f"{record.symbol}#{next(_KEYS)}"
    builder = CUSTOM_RULES[key] = _builder(weakref.ref(trace), rule, record, tree, specs, name)
    trace.own(builder)  # the table holds it weakly: it lives as long as the module naming it
    with trace.context:
        function.attributes[CUSTOM_BATCH] = ir.StringAttr.get(key)


after_trace_hooks.append(_attach_rule)
