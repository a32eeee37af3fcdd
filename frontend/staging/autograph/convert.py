"""AutoGraph: Python ``if``, ``while`` and ``for ... in range(...)`` on tensors, staged as
region ops inside ``@s4tf.function``.

The function's source is rewritten (:mod:`s4tf.staging.autograph.rewrite`) so that each statement
calls a helper below with its test and its bodies as nested functions. The helper decides
when the traced code runs: a tensor test stages ``s4tf.if`` / ``s4tf.while``
(:mod:`s4tf.staging.structured_control`), a Python value runs the statement as Python would.

```python
@s4tf.function
def piecewise(x, t):
    if t > 0:                  # a tensor: both branches are traced into one s4tf.if
        y = s4tf.sin(x)
    else:
        y = x * x
    for i in range(3):         # Python numbers, 3 steps: unrolled while tracing
        y = y + i              # (a range of more than 4 steps is one s4tf.while)
    return y
```

Functions without source (lambdas typed at a prompt, builtins) are traced as they are;
one with Python control flow whose source cannot be read (typed at ``python``'s prompt,
made by ``exec``) gets an :class:`AutoGraphWarning` at its line, since its loops then
unroll and its tensor tests fail. ``@s4tf.function(autograph=False)`` opts out.
"""

from __future__ import annotations

import ast
import dis
import inspect
import sys
import textwrap
import types
import warnings
import weakref

import numpy as np

from s4tf import pytree

from s4tf.arrays import numpy_api
from s4tf.staging.autograph.rewrite import HELPERS, Rewriter
from s4tf.staging.structured_control import stage_cond, stage_fori, stage_while
from s4tf.core.errors import StagingError
from s4tf.arrays.indexing import augmented_setitem, setitem  # noqa: F401  (called by converted code)
from s4tf.core.locations import user_location
from s4tf.staging.tensor import Tensor, Tracer
from s4tf.staging.tracing import current_scope

# -- conversion ------------------------------------------------------------------------

#: The name of the rewritten function inside the factory that compiles it.
CONVERTED = "s4tf_converted__"


def convert(fn):
    """A new function: ``fn`` with its control flow rewritten; or ``fn`` itself when its
    source cannot be had (or it is a generator, a coroutine or a wrapper)."""
    if inspect.ismethod(fn):
        return types.MethodType(convert(fn.__func__), fn.__self__)
    if not inspect.isfunction(fn) or fn.__name__ == "<lambda>" or hasattr(fn, "__wrapped__"):
        return fn
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
        return fn
    return _convert(fn)


#: Where :func:`convert_once` keeps a function's conversion: ``fn.__dict__[_CACHE] = (fn, converted)``
#: (``fn`` itself where nothing is rewritten). On the function, not in a global table, so
#: it lives and dies with it; the pair's ``fn`` tells it from a copy made by ``functools.wraps``.
_CACHE = "__s4tf_autograph__"

#: The code objects :func:`_convert` made, nested functions' included (functions defined
#: inside converted code are converted already), by ``id``: code objects that compare
#: equal may still be different functions' code.
_CONVERTED_CODE: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def convert_once(fn):
    """:func:`convert` of a plain Python function, computed once per function and kept on
    it; a method's function is converted once and bound again. Anything else (an
    ``@s4tf.function``, a transform, a callable object, a builtin) and functions defined
    in converted code are returned as they are. The function transforms (``s4tf.grad``,
    ``vmap``, ``jacrev``, ``remat``, ``scan``, ...) trace what this returns."""
    if inspect.ismethod(fn):
        function = convert_once(fn.__func__)
        return fn if function is fn.__func__ else types.MethodType(function, fn.__self__)
    if not inspect.isfunction(fn) or _CONVERTED_CODE.get(id(fn.__code__)) is fn.__code__:
        return fn
    cached = fn.__dict__.get(_CACHE)
    if cached is not None and cached[0] is fn:
        return cached[1]
    converted = convert(fn)
    fn.__dict__[_CACHE] = (fn, converted)
    return converted


def _nested_code(code: types.CodeType):
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _nested_code(constant)


class AutoGraphWarning(UserWarning):
    """A staged function's Python control flow runs while it is traced, as written,
    because AutoGraph cannot read its source."""


def _convert(fn):
    definition = _parse(fn)
    if definition is None:
        _warn_unconverted(fn)
        return fn
    if _uses_mangled_names(fn, definition):
        return fn
    definition.decorator_list = []
    definition.name = CONVERTED  # not fn's name: in the factory it would shadow the global fn calls (recursion)
    Rewriter().function(definition)
    free = fn.__code__.co_freevars
    factory = ast.FunctionDef(
        name="s4tf_factory__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in (HELPERS, *free)], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[definition],
        decorator_list=[],
        returns=None,
        **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}),
    )
    module = ast.Module([ast.fix_missing_locations(ast.copy_location(factory, definition))], [])
    try:
        code = compile(module, fn.__code__.co_filename, "exec", dont_inherit=True)
    except SyntaxError as error:  # a construct the rewrite does not handle
        raise StagingError(
            f"AutoGraph could not rewrite '{fn.__name__}' ({error.msg}); stage it with @s4tf.function(autograph=False) "
            "and write tensor control flow with s4tf.cond / s4tf.while_loop",
            f"{fn.__code__.co_filename}:{error.lineno or fn.__code__.co_firstlineno}",
        ) from None
    (factory_code,) = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    (function_code,) = [c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == CONVERTED]
    function_code = function_code.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)
    _CONVERTED_CODE.update((id(code), code) for code in _nested_code(function_code))
    cells = dict(zip(free, fn.__closure__ or ()))
    cells[HELPERS] = types.CellType(sys.modules[__name__])
    converted = types.FunctionType(
        function_code, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells[n] for n in function_code.co_freevars)
    )
    converted.__kwdefaults__ = fn.__kwdefaults__
    for attribute in ("__module__", "__qualname__", "__doc__", "__annotations__"):
        setattr(converted, attribute, getattr(fn, attribute))
    converted.__dict__.update((k, v) for k, v in fn.__dict__.items() if k != _CACHE)
    converted.__wrapped__ = fn  # inspect.signature reads the original; convert() leaves it alone
    return converted


def _warn_unconverted(fn) -> None:
    """An :class:`AutoGraphWarning` at ``fn``'s line when its own code branches or loops."""
    if not any(instruction.opname == "FOR_ITER" or "JUMP" in instruction.opname
               for instruction in dis.get_instructions(fn.__code__)):
        return
    code = fn.__code__
    warnings.warn_explicit(
        f"AutoGraph cannot read the source of '{fn.__name__}', so its Python if, for and while run while it is "
        "traced: a loop over range() unrolls, and a test of a tensor fails. Define it in a file to stage them "
        "as s4tf.if and s4tf.while, or stage it with autograph=False to say that this is meant",
        AutoGraphWarning, code.co_filename, code.co_firstlineno,
    )


def _uses_mangled_names(fn, definition: ast.FunctionDef) -> bool:
    """Whether ``fn`` is defined in a class and uses a ``__private`` name, which Python
    mangles there (``self.__n`` is ``self._Model__n``) but not in the factory that
    compiles the rewrite: such a function is traced as it is."""
    parts = fn.__qualname__.split(".")
    in_class = any(part != "<locals>" and following != "<locals>" for part, following in zip(parts[:-1], parts[1:]))
    if not in_class:
        return False
    for node in ast.walk(definition):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is not None and name.startswith("__") and not name.endswith("__"):
            return True
    return False


def _parse(fn) -> ast.FunctionDef | None:
    """``fn``'s definition, at its lines and columns in its file."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or tree.body[0].name != fn.__code__.co_name:
        return None
    indent = len(lines[0]) - len(source.splitlines(keepends=True)[0])
    ast.increment_lineno(tree, first_line - 1)
    for node in ast.walk(tree):
        if "col_offset" in node._attributes and hasattr(node, "col_offset"):
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    return tree.body[0]


# -- what converted code calls ---------------------------------------------------------


class Undefined:
    """The value of a variable that has none yet where a statement starts (a leaf of
    pytrees; equal to another for the same name, so both branches may leave it unset)."""

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Undefined) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"<'{self.name}' not assigned yet>"


#: ``slice`` for converted subscripts (``x[1:] = v``), whatever the user's code calls ``slice``.
slice_ = slice


def state(namespace: dict, names) -> tuple:
    """The values of ``names`` in ``namespace`` (``locals()``), :class:`Undefined` if unset."""
    return tuple(namespace.get(name, Undefined(name)) for name in names)


def _staged(test) -> bool:
    return isinstance(test, Tracer)


def _where() -> str:
    return str(user_location() or "")


def _check_mutations(mutated, kind: str) -> None:
    if mutated:
        raise StagingError(
            f"`{mutated[0]} = ...` inside {kind} is not supported: the code is traced once for every "
            f"outcome, so the assignment would always happen; assign a local variable inside and "
            f"`{mutated[0]} = ` it after the statement",
            _where(),
        )


def _leaf_names(values, names) -> list[str]:
    """One name per pytree leaf of ``values`` (a variable holding a tuple has several)."""
    return [name for value, name in zip(values, names) for _ in pytree.flatten(value)[0]]


def if_stmt(test, body, orelse, values, names, mutated):
    """``if test: body else: orelse``, each a function of the carried variables ``values``
    returning their new values; staged as ``s4tf.if`` when ``test`` is a tensor."""
    if not _staged(test):
        return body(*values) if test else orelse(*values)
    _check_mutations(mutated, "an `if` on a tensor")
    outcomes: dict[bool, tuple] = {}
    leaf_names: list[str] = []  # filled from the first branch traced; stage_cond reads it after both

    def branch(function, taken: bool):
        def traced():
            outcomes[taken] = result = function(*values)
            if not leaf_names:
                leaf_names.extend(_leaf_names(result, names))
            if len(outcomes) == 2:
                _check_both_assign(outcomes, names)
            return result
        return traced

    return stage_cond(test, branch(body, True), branch(orelse, False), (), names=leaf_names, construct="if")


def _check_both_assign(outcomes, names) -> None:
    for name, then, other in zip(names, outcomes[True], outcomes[False]):
        if isinstance(then, Undefined) != isinstance(other, Undefined):
            raise StagingError(
                f"'{name}' is assigned in only one branch of an `if` on a tensor and used after it; give it a value "
                f"before the `if` or in the other branch too ({name} = ...)",
                _where(),
            )
        if pytree.flatten(then)[1] != pytree.flatten(other)[1]:
            raise StagingError(
                f"'{name}' is {_structure(then)} in one branch of an `if` on a tensor and {_structure(other)} in the "
                "other; give it the same structure in both",
                _where(),
            )


def _structure(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, Tensor) or hasattr(value, "__array__"):
        return "a tensor"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, dict):
        return f"a dict with keys {sorted(value, key=repr)}"
    return f"a {type(value).__name__}"


def _check_loop_start(values, names, mutated) -> None:
    _check_mutations(mutated, "a loop on a tensor")
    for name, value in zip(names, values):
        if isinstance(value, Undefined):
            raise StagingError(
                f"'{name}' is first assigned inside a loop on a tensor and read after it or in the next iteration; "
                f"give it a value before the loop ({name} = ...) so that its type is known",
                _where(),
            )


def while_stmt(test, body, values, names, mutated):
    """``while test(*values): values = body(*values)``; from the first test that is a
    tensor on, the rest of the loop is staged as one ``s4tf.while``."""
    while True:
        scope = current_scope()
        staged_before = len(scope.block.operations) if scope is not None else 0
        condition = test(*values)
        if _staged(condition):
            _discard_unused(scope.block, staged_before)  # the test is traced again inside the loop
            _check_loop_start(values, names, mutated)
            return stage_while(
                lambda carried: test(*carried), lambda carried: body(*carried), values,
                names=_leaf_names(values, names), construct="while loop",
            )
        if not condition:
            return values
        values = body(*values)


def _discard_unused(block, start: int) -> None:
    """Erase the ops staged into ``block`` from position ``start`` on whose results no op uses."""
    for operation in reversed(list(block.operations)[start:]):
        if all(not list(result.uses) for result in operation.results):
            operation.erase()


#: A loop over a Python range of at most this many steps is unrolled: its copies cost less
#: than a staged loop, which IREE may step on the host (one dispatch per iteration).
UNROLLED_STEPS = 4


def for_stmt(range_fn, bounds, body, values, names, mutated, effects_free=False):
    """``for i in range_fn(*bounds): values = body(i, *values)``; with tensor bounds (and
    the builtin ``range``) one ``s4tf.while`` counting from the lower to the upper bound,
    and with Python int bounds in a staged function too where the body allows
    (:func:`_python_range_loop`)."""
    if range_fn is range and any(_staged(b) for b in bounds):
        _check_loop_start(values, names, mutated)
        lower, upper, step = (0, *bounds, 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        return stage_fori(
            lower, upper, lambda index, carried: body(index, *carried), values,
            names=_leaf_names(values, names), construct="for loop", step=step,
        )
    steps = range_fn(*bounds)
    if range_fn is range and current_scope() is not None and effects_free and not mutated:
        return _python_range_loop(steps, body, values, names)
    for index in steps:
        values = body(index, *values)
    return values


def _python_range_loop(steps: range, body, values, names):
    """A loop over a Python range in a staged function: Python iterations while a carried
    value is not a tensor (a Python number may be a count or a shape after the loop), then,
    for more than :data:`UNROLLED_STEPS` steps left, one ``s4tf.while`` whose index is a
    traced ``int32``; unrolled where the body cannot be traced so (the index used as a
    Python int: a list index, a shape, a slice bound; types that change per iteration)."""
    position = 0
    while position < len(steps) and not (len(steps) - position > UNROLLED_STEPS and _all_tensors(values)):
        values = body(steps[position], *values)
        position += 1
    rest = steps[position:]
    if rest:
        scope = current_scope()
        staged_before = len(scope.block.operations)
        try:
            return stage_fori(
                rest.start, rest.stop, lambda index, carried: body(index, *carried), values,
                names=_leaf_names(values, names), construct="for loop", step=rest.step,
            )
        except Exception:  # noqa: BLE001  (any failure: the unrolled loop below raises a real error again)
            _discard_unused(scope.block, staged_before)
    for index in rest:
        values = body(index, *values)
    return values


def _all_tensors(values) -> bool:
    return all(isinstance(leaf, (Tensor, np.ndarray, np.generic)) for leaf in pytree.flatten(values)[0])


def python_test(test, unsupported: str):
    """The test of a statement that stays Python code; a tensor test is an error."""
    if _staged(test):
        raise StagingError(unsupported, _where())
    return test


def python_range(range_fn, bounds, unsupported: str):
    """``range_fn(*bounds)`` for a loop that stays Python code; tensor bounds are an error."""
    if range_fn is range and any(_staged(b) for b in bounds):
        raise StagingError(unsupported, _where())
    return range_fn(*bounds)


def if_exp(test, body, orelse):
    """``body() if test else orelse()``; a tensor ``test`` stages an ``s4tf.if``."""
    if not _staged(test):
        return body() if test else orelse()
    return stage_cond(test, body, orelse, (), construct="conditional expression")


def _truth(value):
    return value if value.tensor_type.dtype == "i1" else value != 0


def and_(left, right):
    """``left and right()``: the logical and of tensors, Python's ``and`` otherwise."""
    if not _staged(left):
        return left and right()
    other = right()
    if not _staged(other):
        return _truth(left) if other else False
    return numpy_api.logical_and(_truth(left), _truth(other))


def or_(left, right):
    """``left or right()``: the logical or of tensors, Python's ``or`` otherwise."""
    if not _staged(left):
        return left or right()
    other = right()
    if not _staged(other):
        return True if other else _truth(left)
    return numpy_api.logical_or(_truth(left), _truth(other))


def not_(value):
    """``not value``: the logical not of a tensor, Python's ``not`` otherwise."""
    return numpy_api.logical_not(_truth(value)) if _staged(value) else not value
