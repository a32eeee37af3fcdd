"""Custom derivatives: ``@s4tf.derivative(of=f)`` (S4TF's ``@derivative(of:)``).

```python
@s4tf.function
def softplus(x):
    return s4tf.log1p(s4tf.exp(x))

@s4tf.derivative(of=softplus)                   # reverse mode: the value and a pullback
def softplus_vjp(x):
    return softplus(x), lambda dy: (dy * s4tf.sigmoid(x),)

@s4tf.derivative(of=softplus, mode="jvp")       # forward mode: the value and its tangent
def softplus_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return softplus(x), dx * s4tf.sigmoid(x)
```

A VJP rule takes ``f``'s arguments and returns ``(value, pullback)``; ``pullback(ct)``
(``ct`` shaped like the value) returns one cotangent per argument, each ``None`` or shaped
like the argument (``None`` inside it for zero). A JVP rule takes ``(primals, tangents)``,
two tuples shaped like the arguments (tangents are ``None`` for non-float leaves), and
returns ``(value, tangent)``; the tangent must be linear in ``tangents``.

Whenever ``f`` is staged, each rule is traced next to it into the same module and named by
``f``'s ``s4tf.custom_vjp`` / ``s4tf.custom_jvp`` attribute. The AD passes then use the
rules instead of ``f``'s body (see ``passes/autodiff/custom.py``): forward mode the JVP
rule, reverse mode the VJP rule, else the JVP rule transposed. Register rules before
staging code that differentiates ``f``: functions compiled earlier keep what they saw.
"""

from __future__ import annotations

import functools
import weakref

import numpy as np

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.dialects.types import TensorType, is_float, to_numpy_dtype
from s4tf.transforms.differentiable import leaves_like
from s4tf.core.errors import S4tfError
from s4tf.core.locations import SourceLocation
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.naming import CUSTOM_JVP, CUSTOM_VJP
from s4tf.staging.function import StagedFunction
from s4tf.staging.tracing import FunctionRecord, Static, after_trace_hooks, leaf_spec, rebuild_outputs

MODES = {"vjp": CUSTOM_VJP, "jvp": CUSTOM_JVP}

#: ``python_fn -> {mode: rule}`` for every function with a registered rule, while it lives.
_RULES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def derivative(of, mode: str = "vjp"):
    """Decorator registering the decorated function as the ``mode`` (``"vjp"`` or ``"jvp"``)
    derivative rule of the ``@s4tf.function`` ``of``; returns the rule unchanged."""
    if not isinstance(of, StagedFunction):
        raise S4tfError(
            f"s4tf.derivative(of=...) needs an @s4tf.function, got {type(of).__name__}: a custom "
            "derivative replaces the derivative of a staged function wherever it is called"
        )
    if mode not in MODES:
        raise S4tfError(f"s4tf.derivative: mode must be 'vjp' or 'jvp', got {mode!r}")

    def register(rule):
        if not callable(rule):
            raise S4tfError(f"s4tf.derivative(of={of.__name__}) decorates a function, got {type(rule).__name__}")
        _RULES.setdefault(of.python_fn, {})[mode] = rule
        return rule

    return register


def _where(rule) -> str | None:
    code = getattr(rule, "__code__", None)
    return str(SourceLocation(code.co_filename, code.co_firstlineno)) if code else None


def _rule_name(rule, mode: str) -> str:
    return f"{mode.upper()} rule '{getattr(rule, '__name__', 'rule')}'"


def placeholder(tensor_type: TensorType) -> np.ndarray:
    """An array standing for an input of ``tensor_type`` in a signature (no memory)."""
    return np.broadcast_to(np.zeros((), to_numpy_dtype(tensor_type.dtype)), tensor_type.shape)


def _is_float_tensor(leaf) -> bool:
    spec = leaf_spec(leaf)
    return isinstance(spec, TensorType) and is_float(spec.dtype)


def _checked_tangent(tangent, primal, what: str):
    """``tangent`` for the float tensor ``primal``: zeros for ``None``, else checked and cast."""
    tensor_type = leaf_spec(primal)
    if tangent is None:
        return numpy_api.zeros(tensor_type.shape, tensor_type.dtype)
    shape = tuple(numpy_api.shape_of(tangent))
    if shape != tuple(tensor_type.shape):
        raise S4tfError(f"{what} has shape {shape}, expected {tuple(tensor_type.shape)}")
    return numpy_api.astype(tangent, tensor_type.dtype)


def _split_output(output, rule, mode: str):
    if not (isinstance(output, tuple) and len(output) == 2):
        second = "pullback" if mode == "vjp" else "tangent"
        raise S4tfError(f"the {_rule_name(rule, mode)} must return (value, {second}), got {type(output).__name__}")
    if mode == "vjp" and not callable(output[1]):
        raise S4tfError(f"the {_rule_name(rule, mode)} must return (value, pullback); its pullback is not callable")
    return output


def _value_leaves(value, record: FunctionRecord, rule, mode: str, primal_name: str) -> list:
    """The tensor leaves of the rule's value, checked against what the primal returns."""
    leaves, tree = pytree.flatten(value)
    expected = rebuild_outputs(record, [placeholder(t) for t in record.result_types])
    if tree != pytree.flatten(expected)[1]:
        raise S4tfError(
            f"the value of the {_rule_name(rule, mode)} has a different structure from what '{primal_name}' returns"
        )
    tensors = []
    for leaf, output in zip(leaves, record.outputs):
        if isinstance(output, Static):
            continue
        want = record.result_types[output]
        spec = leaf_spec(leaf, "value")
        if spec != want:
            raise S4tfError(
                f"the value of the {_rule_name(rule, mode)} is {spec}, but '{primal_name}' returns {want}"
            )
        tensors.append(leaf)
    return tensors


def located_at(rule):
    """Errors without a location of the decorated function are located at ``rule``'s definition."""

    def decorate(body):
        @functools.wraps(body)
        def located(*args, **kwargs):
            try:
                return body(*args, **kwargs)
            except S4tfError as error:
                raise error.at(_where(rule)) from None

        return located

    return decorate


def _vjp_body(rule, record: FunctionRecord, primal_name: str):
    """``(args, cotangents, **static) -> [value leaves..., argument cotangents...]`` for a VJP rule."""

    @located_at(rule)
    def vjp_rule(args, cotangents, **static):
        value, pullback = _split_output(rule(*args, **static), rule, "vjp")
        values = _value_leaves(value, record, rule, "vjp", primal_name)
        cotangent_iter = iter(cotangents)
        result_cotangents = [next(cotangent_iter) if is_float(t.dtype) else None for t in record.result_types]
        argument_cotangents = pullback(rebuild_outputs(record, result_cotangents))
        if not isinstance(argument_cotangents, tuple) or len(argument_cotangents) != len(args):
            raise S4tfError(
                f"the pullback of the {_rule_name(rule, 'vjp')} must return a tuple of {len(args)} cotangent(s), "
                f"one per argument of '{primal_name}'"
            )
        outputs = []
        for index, (arg, cotangent) in enumerate(zip(args, argument_cotangents)):
            what = f"the cotangent of argument {index} from the pullback of the {_rule_name(rule, 'vjp')}"
            for leaf, ct in zip(pytree.flatten(arg)[0], leaves_like(arg, cotangent, what)):
                if _is_float_tensor(leaf):
                    outputs.append(_checked_tangent(ct, leaf, what))
        return values + outputs

    return vjp_rule


def _jvp_body(rule, record: FunctionRecord, primal_name: str):
    """``(args, tangents, **static) -> [value leaves..., result tangents...]`` for a JVP rule."""

    @located_at(rule)
    def jvp_rule(args, tangents, **static):
        leaves, tree = pytree.flatten(args)
        tangent_iter = iter(tangents)
        tangent_args = pytree.unflatten(tree, [next(tangent_iter) if _is_float_tensor(leaf) else None for leaf in leaves])
        value, tangent = _split_output(rule(tuple(args), tuple(tangent_args), **static), rule, "jvp")
        values = _value_leaves(value, record, rule, "jvp", primal_name)
        what = f"the tangent from the {_rule_name(rule, 'jvp')}"
        outputs = [
            _checked_tangent(t, leaf, what)
            for leaf, t in zip(pytree.flatten(value)[0], leaves_like(value, tangent, what))
            if _is_float_tensor(leaf)
        ]
        return values + outputs

    return jvp_rule


def _attach_rules(trace, python_fn, function: ir.Operation, record: FunctionRecord, args, kwargs) -> None:
    """Trace ``python_fn``'s rules into ``trace`` and name them on ``function``."""
    rules = _RULES.get(python_fn)
    if not rules:
        return
    name = getattr(python_fn, "__name__", "function")
    tensor_leaves = [leaf for leaf in pytree.flatten((args, kwargs))[0] if not isinstance(leaf_spec(leaf), Static)]
    if any(not isinstance(leaf_spec(leaf), Static) for leaf in pytree.flatten(kwargs)[0]):
        raise S4tfError(f"'{name}' has a custom derivative, so its tensors must be passed as positional arguments")
    for mode, rule in rules.items():
        if mode == "vjp":
            body = _vjp_body(rule, record, name)
            extra = [placeholder(t) for t in record.result_types if is_float(t.dtype)]
        else:
            body = _jvp_body(rule, record, name)
            extra = [placeholder(leaf_spec(leaf)) for leaf in tensor_leaves if _is_float_tensor(leaf)]
        traced = trace.trace_function(
            body, f"{record.symbol}_{mode}_rule", (tuple(args), extra), dict(kwargs), public=False, closure=False
        )
        with trace.context:
            function.attributes[MODES[mode]] = ir.FlatSymbolRefAttr.get(traced.symbol)


after_trace_hooks.append(_attach_rules)
