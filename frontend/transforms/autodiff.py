"""Differential operators: ``grad``, ``value_and_grad``, ``jvp``, ``vjp``.

They stage the function, mark it for differentiation (``s4tf.wrt``) and call the
derivative functions that the AD passes build from it once it is traced
(:mod:`s4tf.transforms.derivative_functions`); derivatives run as compiled code, never through a
Python-side tape.

```python
g = s4tf.grad(loss)(params, x, y)                  # same structure as params
value, (gp, gx) = s4tf.value_and_grad(loss, argnums=(0, 1))(params, x, y)
y, dy = s4tf.jvp(f, (x,), (dx,))
y, pullback = s4tf.vjp(f, x); (dx,) = pullback(dy)
```
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from s4tf import pytree

from s4tf.staging.autograph import convert as autograph

from s4tf.lazy_tensors import mode as lazy_mode

from s4tf.arrays import numpy_api
from s4tf.dialects.symbols import functions
from s4tf.dialects.types import TensorType, is_float, shape_str, to_numpy_dtype
from s4tf.transforms.derivative_functions import derivative_functions
from s4tf.transforms.differentiable import differentiable_mask, leaves_like
from s4tf.core.errors import DTypeError, S4tfError, ShapeError
from s4tf.core.locations import mlir_location, user_location
from s4tf.passes.autodiff.derivatives import vjp_functions
from s4tf.passes.autodiff.functions import find_function, function_type
from s4tf.passes.autodiff.jvp import jvp_function
from s4tf.passes.autodiff.naming import CUSTOM_VJP, SEEDED, WRT, indices_attribute, read_indices
from s4tf.staging.function import StagedFunction
from s4tf.staging.tensor import is_python_scalar
from s4tf.staging.tracing import FunctionRecord, Static, current_scope, leaf_spec, rebuild_outputs, signature


def _name(fn) -> str:
    return getattr(_python_function(fn), "__name__", "fn")


def _python_function(fn):
    return fn.python_fn if isinstance(fn, StagedFunction) else fn


def _traced_function(fn):
    """What a transform traces for ``fn``: an ``@s4tf.function``'s function; a plain Python
    function with its ``if``/``while``/``for`` on tensors rewritten as ``@s4tf.function``
    does (:func:`s4tf.staging.autograph.convert.convert_once`, once per function); anything else as it is."""
    return fn.python_fn if isinstance(fn, StagedFunction) else autograph.convert_once(fn)


@dataclass
class _Staged:
    """``fn`` traced into the current module, with its inputs split by argument."""

    record: FunctionRecord
    inputs: list  # the tensor leaves, in the order of the traced function's arguments
    owners: list[int]  # for each input, the index of the positional argument it came from
    differentiable: list[bool]  # for each input, whether it is outside no_derivative fields
    trace: object
    name: str  # the Python function's, for messages

    @property
    def module(self):
        return self.trace.module

    def derivatives(self, build, wrt: list[int], pass_name: str):
        """``build(module, symbol, wrt)`` of an AD pass, run once the function is traced."""
        return derivative_functions(self.trace, self.record.symbol, wrt, build, pass_name)

    def wrt(self, argnums) -> list[int]:
        return [
            i for i, (leaf, owner, differentiable) in enumerate(zip(self.inputs, self.owners, self.differentiable))
            if owner in argnums and differentiable and is_float(leaf_spec(leaf).dtype)
        ]


def _stage(fn, args) -> _Staged:
    scope = current_scope()
    python_fn = _traced_function(fn)
    name = _name(fn)
    record = scope.trace.trace_function(python_fn, name if name != "<lambda>" else "lambda", args, {}, public=False)
    inputs, owners, differentiable = [], [], []
    for index, arg in enumerate(args):
        for leaf, has_derivative in zip(pytree.flatten(arg)[0], differentiable_mask(arg)):
            if not isinstance(leaf_spec(leaf), Static):
                inputs.append(leaf)
                owners.append(index)
                differentiable.append(has_derivative)
    for leaf in record.captured:  # closed-over tensors: last arguments, constants for the derivative
        inputs.append(leaf)
        owners.append(-1)
        differentiable.append(False)
    return _Staged(record, inputs, owners, differentiable, scope.trace, name)


def _mark(staged: _Staged, wrt: list[int]) -> list[int]:
    """Mark the traced function for differentiation wrt ``wrt`` (joined with earlier marks)."""
    function = find_function(staged.module, staged.record.symbol)
    merged = sorted(set(wrt) | set(read_indices(function, WRT) or []))
    with function.context:
        function.attributes[WRT] = indices_attribute(merged)
    return merged


def _mark_seeded(staged: _Staged, index: int) -> None:
    """Note that ``grad`` seeds result ``index`` of the traced function (joined with earlier
    notes): the derivative passes warn of a constant result only among those."""
    function = find_function(staged.module, staged.record.symbol)
    seeded = sorted({index} | set(read_indices(function, SEEDED) or []))
    with function.context:
        function.attributes[SEEDED] = indices_attribute(seeded)


def _call(symbol: str, operands, result_types):
    scope = current_scope()
    with scope.context:
        location = mlir_location(user_location())
    return scope.call(symbol, operands, result_types, location)


def _at_user_line(compute, *args):
    """``compute(*args)``; its errors are located at the user's call (of ``s4tf.jvp``, a pullback)."""
    try:
        return compute(*args)
    except S4tfError as error:
        where = user_location()
        raise error.at(str(where) if where else None) from None


def _checked_derivative(given, expected: TensorType, what: str, of: str):
    """``given``, a tangent or cotangent (``what`` names it) of the value ``of`` names, as one
    of type ``expected``: a Python number fills the shape; an array must have the shape and
    a float dtype, and takes ``expected``'s."""
    if is_python_scalar(given):
        return numpy_api.full(expected.shape, given, expected.dtype)
    spec = leaf_spec(given)
    found = f"is a {type(given).__name__}" if isinstance(spec, Static) else f"has shape {shape_str(spec.shape)} and dtype {spec.dtype}"
    if isinstance(spec, Static) or spec.shape != expected.shape or not is_float(spec.dtype):
        error = ShapeError if isinstance(spec, TensorType) and spec.shape != expected.shape else DTypeError
        raise error(
            f"{what} {found}, but {of} has shape {shape_str(expected.shape)} and dtype {expected.dtype}; "
            "a derivative has the shape of its value and a float dtype"
        )
    return numpy_api.astype(given, expected.dtype)


def _argument_tangents(args, argnums, staged: _Staged, wrt, derivatives):
    """Per differentiated argument: its pytree with derivatives at the ``wrt`` leaves, ``None`` elsewhere."""
    by_input = dict(zip(wrt, derivatives))
    position, result = 0, []
    for index, arg in enumerate(args):
        leaves, tree = pytree.flatten(arg)
        rebuilt = []
        for leaf in leaves:
            if isinstance(leaf_spec(leaf), Static):
                rebuilt.append(None)
            else:
                rebuilt.append(by_input.get(position))
                position += 1
        if index in argnums:
            result.append(pytree.unflatten(tree, rebuilt))
    return result


def _floats_as_arrays(args, argnums) -> tuple:
    """Differentiated arguments that are Python floats as 0-d arrays of the default float
    dtype (as JAX does): a Python scalar is otherwise a static part of the signature."""
    float_dtype = to_numpy_dtype(numpy_api.DEFAULT_FLOAT)
    return tuple(
        np.asarray(arg, float_dtype) if i in argnums and is_python_scalar(arg) and isinstance(arg, float) else arg
        for i, arg in enumerate(args)
    )


class _Transform:
    """A differential operator applied to ``fn``: staged once per input signature."""

    def __init__(self, fn, argnums=0, has_aux=False):
        functools.update_wrapper(self, _python_function(fn), updated=())
        self.fn = _returning_pair(fn, self.kind) if has_aux else fn
        self.has_aux = has_aux
        self.single = isinstance(argnums, int)
        self.argnums = (argnums,) if self.single else tuple(argnums)
        self._staged = StagedFunction(self._body)
        _named(self._staged, self.kind, fn)

    def __call__(self, *args):
        args = _floats_as_arrays(args, self.argnums)
        if lazy_mode.is_lazy():
            return lazy_mode.record_transform(self, args)
        return self._staged(*args)

    def _derivatives(self, args):
        staged = _stage(self.fn, args)
        wrt = staged.wrt(self.argnums)
        if not wrt:
            raise S4tfError(f"{self.kind}: arguments {list(self.argnums)} hold no float arrays to differentiate")
        index = self._output_index(staged.record)
        _mark_seeded(staged, index)
        derive = _forward if _forward_suffices(staged, wrt) else _reverse
        outputs, chosen = derive(staged, wrt, index)
        grads = _argument_tangents(args, self.argnums, staged, wrt, chosen)
        value = rebuild_outputs(staged.record, outputs)
        return value, (grads[0] if self.single else tuple(grads))

    def _output_index(self, record: FunctionRecord) -> int:
        """The result that is differentiated: fn's value (with has_aux, the pair's first item)."""
        results = record.result_types
        markers = [object() for _ in results]  # leaves standing for the results
        output = rebuild_outputs(record, markers)[0] if self.has_aux else rebuild_outputs(record, markers)
        index = next((i for i, marker in enumerate(markers) if marker is output), None)
        alone = self.has_aux or len(results) == 1
        if index is None or not alone or not is_float(results[index].dtype) or results[index].shape != ():
            what = "whose first item is one float scalar" if self.has_aux else "returning one float scalar"
            got = ", ".join(str(t) for t in results) or "no tensors"
            raise S4tfError(f"{self.kind} needs a function {what}, got {got}; use s4tf.vjp for other outputs")
        return index


def _forward_suffices(staged: _Staged, wrt: list[int]) -> bool:
    """Whether one JVP gives the gradient: it is taken wrt one element (a scalar, or an
    array of one element), and no function in the module has a custom VJP rule (forward
    mode would not use it)."""
    if len(wrt) != 1 or math.prod(leaf_spec(staged.inputs[wrt[0]]).shape) != 1:
        return False
    return not any(CUSTOM_VJP in function.attributes for function in functions(staged.module).values())


def _forward(staged: _Staged, wrt: list[int], index: int):
    """The outputs and the gradient of result ``index`` wrt the one element ``wrt`` names,
    from one JVP along a unit tangent: cheaper than reverse mode (no tapes, one pass over
    the loops), the same derivative."""
    (position,) = wrt
    spec = leaf_spec(staged.inputs[position])
    name = staged.derivatives(jvp_function, wrt, "s4tf-jvp")
    outputs, tangents = _call_jvp(staged, name, [numpy_api.ones(spec.shape, spec.dtype)])
    return outputs, [numpy_api.astype(numpy_api.reshape(tangents[index], spec.shape), spec.dtype)]


def _reverse(staged: _Staged, wrt: list[int], index: int):
    """The outputs and the gradients of result ``index`` wrt the inputs ``wrt``, from one VJP
    seeded with 1 at that result."""
    all_wrt = _mark(staged, wrt)
    results = staged.record.result_types
    seed = numpy_api.ones((), results[index].dtype)
    cotangents = [
        seed if i == index else numpy_api.zeros(t.shape, t.dtype) for i, t in enumerate(results) if is_float(t.dtype)
    ]
    vjp_name, _, _ = staged.derivatives(vjp_functions, all_wrt, "s4tf-vjp")
    input_types = [leaf_spec(leaf) for leaf in staged.inputs]
    outputs = _call(vjp_name, staged.inputs + cotangents, results + [input_types[i] for i in all_wrt])
    derivatives = outputs[len(results):]
    return outputs[: len(results)], [derivatives[all_wrt.index(i)] for i in wrt]


def _returning_pair(fn, kind: str):
    """``fn``, checked to return a pair ``(output, aux)`` (``has_aux=True``)."""
    python_fn = _traced_function(fn)

    @functools.wraps(python_fn)
    def checked(*args):
        result = python_fn(*args)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise S4tfError(
                f"{kind}(..., has_aux=True): {_name(fn)} must return a pair (output, aux), "
                f"got {type(result).__name__}" + (f" of length {len(result)}" if isinstance(result, (tuple, list)) else "")
            )
        return tuple(result)

    return checked


class _Grad(_Transform):
    kind = "grad"

    def _body(self, *args):
        value, grads = self._derivatives(args)
        return (grads, value[1]) if self.has_aux else grads


class _ValueAndGrad(_Transform):
    kind = "value_and_grad"

    def _body(self, *args):
        return self._derivatives(args)


def grad(fn, argnums=0, has_aux=False):
    """The gradient of ``fn`` (which returns one float scalar) wrt ``argnums``. With
    ``has_aux``, ``fn`` returns ``(output, aux)`` and grad returns ``(gradient, aux)``."""
    return _Grad(fn, argnums, has_aux)


def value_and_grad(fn, argnums=0, has_aux=False):
    """``(fn(*args), grad(fn)(*args))`` from one compiled call; with ``has_aux``,
    ``((output, aux), gradient)``."""
    return _ValueAndGrad(fn, argnums, has_aux)


def _all_argnums(args) -> tuple:
    return tuple(range(len(args)))


#: The staged functions of ``jvp`` and ``vjp`` called outside a staged function, by the
#: body, ``fn`` and, for a pullback, the signature of the primals: each staged once per
#: input signature, as ``grad(fn)`` is (an eager ``vjp`` of a 1,000-step ``while`` traced
#: and lowered it again at every call, 0.3 s). The last :data:`STAGED_TRANSFORMS` are kept.
_STAGED: OrderedDict = OrderedDict()
STAGED_TRANSFORMS = 64


def _staged_transform(kind: str, body, fn, *primals) -> StagedFunction:
    """``StagedFunction(partial(body, fn, *primals))`` named ``<kind>_<fn's name>``, the one
    made for the same ``body``, ``fn`` and signature of ``primals`` where there is one
    (:data:`_STAGED`): ``primals`` are bound for their structure and types, which a staged
    pullback reads."""
    key = (body, fn, signature(*pytree.flatten(primals)))
    try:
        staged = _STAGED.get(key)
    except TypeError:  # an unhashable callable or static argument: staged for this call alone
        return _named(StagedFunction(functools.partial(body, fn, *primals)), kind, fn)
    if staged is None:
        staged = _STAGED[key] = _named(StagedFunction(functools.partial(body, fn, *primals)), kind, fn)
        while len(_STAGED) > STAGED_TRANSFORMS:
            _STAGED.popitem(last=False)
    _STAGED.move_to_end(key)
    return staged


def _named(staged: StagedFunction, kind: str, fn) -> StagedFunction:
    """``staged``, named for messages and modules as ``<kind>_<fn's name>`` (``vjp_loss``)."""
    staged.__name__ = f"{kind}_{_name(fn)}".replace("<lambda>", "lambda")
    return staged


def jvp(fn, primals, tangents):
    """Forward mode: ``(fn(*primals), the derivative of fn at primals along tangents)``."""
    primals = tuple(primals)
    return _staged_transform("jvp", _jvp_body, fn)(_floats_as_arrays(primals, _all_argnums(primals)), tuple(tangents))


def _jvp_body(fn, primals, tangents):
    staged = _stage(fn, primals)
    wrt = staged.wrt(_all_argnums(primals))
    name = staged.derivatives(jvp_function, wrt, "s4tf-jvp")
    tangent_leaves = _at_user_line(_jvp_tangents, staged, wrt, primals, tangents)
    outputs, tangent_outputs = _call_jvp(staged, name, tangent_leaves)
    # a Python value returned by fn is a constant: tangent 0.0 for a float, None otherwise
    tangent_leaves = [
        tangent_outputs[o] if isinstance(o, int) else (0.0 if isinstance(o.value, float) else None)
        for o in staged.record.outputs
    ]
    return rebuild_outputs(staged.record, outputs), pytree.unflatten(staged.record.output_tree, tangent_leaves)


def _call_jvp(staged: _Staged, name: str, tangents: list) -> tuple[list, list]:
    """A call of ``staged``'s JVP ``name`` on its inputs and ``tangents``: the function's
    outputs, and per output its tangent (``None`` for a non-float one)."""
    results = staged.record.result_types
    outputs = _call(name, staged.inputs + tangents, results + [t for t in results if is_float(t.dtype)])
    derivatives = iter(outputs[len(results):])
    return outputs[: len(results)], [next(derivatives) if is_float(t.dtype) else None for t in results]


def _jvp_tangents(staged: _Staged, wrt, primals, tangents) -> list:
    """One tangent per differentiated input, checked against its primal (zeros for ``None``)."""
    matched = leaves_like(primals, tangents, "the tangents given to s4tf.jvp")
    paths = pytree.leaf_paths(primals, "primals")
    by_input = [
        (tangent, path) for leaf, tangent, path in zip(pytree.flatten(primals)[0], matched, paths)
        if not isinstance(leaf_spec(leaf), Static)
    ]
    result = []
    for i in wrt:
        tangent, path = by_input[i]
        primal = leaf_spec(staged.inputs[i])
        if tangent is None:
            result.append(numpy_api.zeros_like(staged.inputs[i]))
        else:
            result.append(_checked_derivative(tangent, primal, f"s4tf.jvp of {staged.name}: the tangent for {path}", path))
    return result


def vjp(fn, *primals):
    """Reverse mode: ``(fn(*primals), pullback)``; ``pullback(ct)`` returns one cotangent
    per primal argument. The pullback is a value: call it as often as needed."""
    primals = _floats_as_arrays(primals, _all_argnums(primals))
    if current_scope() is not None:
        return _vjp_in_trace(fn, primals)
    value, residuals = _staged_transform("vjp", _vjp_forward_body, fn)(*primals)
    backward = _staged_transform("pullback", _vjp_backward_body, fn, primals)
    return value, functools.partial(_run_pullback, backward, residuals)


def _run_pullback(backward, residuals, cotangent):
    return backward(residuals, cotangent)


def _prepare_vjp(fn, primals):
    staged = _stage(fn, primals)
    wrt = _mark(staged, staged.wrt(_all_argnums(primals)))
    _, fwd, bwd = staged.derivatives(vjp_functions, wrt, "s4tf-vjp")
    return staged, wrt, fwd, bwd


def _vjp_forward_body(fn, *primals):
    staged, wrt, fwd, bwd = _prepare_vjp(fn, primals)
    fwd_types = [TensorType.from_mlir(t) for t in function_type(find_function(staged.module, fwd)).results]
    outputs = _call(fwd, staged.inputs, fwd_types)
    count = len(staged.record.result_types)
    return rebuild_outputs(staged.record, outputs[:count]), list(outputs[count:])


def _vjp_backward_body(fn, primals, residuals, cotangent):
    staged, wrt, fwd, bwd = _prepare_vjp(fn, primals)
    return _pullback(staged, primals, wrt, bwd, residuals, cotangent)


def _pullback(staged, primals, wrt, bwd, residuals, cotangent):
    cotangents = _at_user_line(_cotangents, staged.record, staged.name, cotangent)
    input_types = [leaf_spec(leaf) for leaf in staged.inputs]
    derivatives = _call(bwd, list(residuals) + cotangents, [input_types[i] for i in wrt])
    return tuple(_argument_tangents(primals, _all_argnums(primals), staged, wrt, derivatives))


def _cotangents(record: FunctionRecord, name: str, cotangent) -> list:
    """One cotangent per float result, from ``cotangent`` (the structure of the value;
    ``None`` for zero, anything at leaves without a derivative), checked against it."""
    markers = [object() for _ in record.result_types]  # leaves standing for the results
    value = rebuild_outputs(record, markers)
    matched = leaves_like(value, cotangent, "the cotangent given to the pullback")
    paths = pytree.leaf_paths(value, f"{name}(...)")
    given = {id(leaf): (ct, path) for leaf, ct, path in zip(pytree.flatten(value)[0], matched, paths)}
    result = []
    for marker, result_type in zip(markers, record.result_types):
        if not is_float(result_type.dtype):
            continue
        ct, path = given[id(marker)]
        if ct is None:
            result.append(numpy_api.zeros(result_type.shape, result_type.dtype))
        else:
            result.append(_checked_derivative(ct, result_type, f"the pullback's cotangent for {path}", path))
    return result


def saved_residuals(fn, *primals) -> list[TensorType]:
    """The types of the values that reverse mode keeps from ``fn``'s forward pass for its
    backward pass (the residuals ``s4tf.vjp(fn, *primals)``'s pullback holds; JAX's
    ``jax.ad_checkpoint.saved_residuals``). Staged only, nothing is compiled or run."""
    primals = _floats_as_arrays(primals, _all_argnums(primals))
    found = []

    def forward(*args):
        staged, _, fwd, _ = _prepare_vjp(fn, args)
        results = function_type(find_function(staged.module, fwd)).results
        found.extend(TensorType.from_mlir(t) for t in list(results)[len(staged.record.result_types):])

    StagedFunction(forward, autograph=False).lower(*primals)
    return found


def _vjp_in_trace(fn, primals):
    staged, wrt, fwd, bwd = _prepare_vjp(fn, primals)
    fwd_types = [TensorType.from_mlir(t) for t in function_type(find_function(staged.module, fwd)).results]
    outputs = _call(fwd, staged.inputs, fwd_types)
    count = len(staged.record.result_types)
    residuals = outputs[count:]
    value = rebuild_outputs(staged.record, outputs[:count])
    return value, functools.partial(_pullback, staged, primals, wrt, bwd, residuals)
