"""``s4tf.remat`` (JAX's ``jax.checkpoint`` / ``jax.remat``): in reverse mode, recompute a
function's values from its inputs instead of storing them for the backward pass.

```python
block = s4tf.remat(lambda w, x: s4tf.tanh(x @ w))

def loss(w, x):
    for _ in range(8):
        x = block(w, x)        # the backward pass keeps (w, x) of each call, nothing inside
    return s4tf.sum(x)

g = s4tf.grad(loss)(w, x)
```

``fn`` is staged as a function of its own, marked ``s4tf.remat``, and called; the AD
passes linearize a marked function as a recomputation
(:mod:`s4tf.passes.autodiff.rematerialize`). Forward mode, batching and plain calls see an
ordinary function. Not to be confused with :mod:`s4tf.checkpoint`, which saves models to
files.
"""

from __future__ import annotations

import functools
import weakref

from s4tf.transforms.autodiff import _python_function, _traced_function
from s4tf.core.errors import S4tfError
from s4tf.core.locations import user_location
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.naming import REMAT, REMAT_ALLOW_CSE
from s4tf.staging.function import StagedFunction
from s4tf.staging.tracing import after_trace_hooks, current_scope, is_array_like

#: The functions traced for remat calls, each with its ``prevent_cse``.
_MARKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class RematError(S4tfError, TypeError):
    """A bad use of ``s4tf.remat``: not a callable, bad ``static_argnums``, a ``policy``."""


def remat(fn=None, *, prevent_cse: bool = True, static_argnums=(), policy=None):
    """``fn``, whose values are recomputed in reverse mode instead of stored (JAX's
    ``jax.checkpoint``): its pullback keeps only its inputs. ``prevent_cse=False`` lets the
    compiler merge the recomputation with the forward pass (which then stores after all);
    ``static_argnums``: positions of arguments that are hashable Python values, folded into
    the code. ``policy`` must be ``None``: every value of ``fn`` is recomputed. Also a
    decorator, with or without these options."""
    where = str(user_location() or "") or None
    if fn is None:
        return functools.partial(remat, prevent_cse=prevent_cse, static_argnums=static_argnums, policy=policy)
    if not callable(fn):
        raise RematError(f"s4tf.remat needs a function to recompute, got {type(fn).__name__}", where)
    if policy is not None:
        raise RematError(
            f"s4tf.remat: policy={policy!r} is not supported; s4tf recomputes every value of the function "
            "(JAX's checkpoint_policies.nothing_saveable), so leave policy=None", where,
        )
    numbers = (static_argnums,) if isinstance(static_argnums, int) else static_argnums
    if not isinstance(numbers, (tuple, list)) or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise RematError(f"s4tf.remat: static_argnums must be an int or a tuple of ints, got {static_argnums!r}", where)
    return Remat(fn, bool(prevent_cse), tuple(numbers))


class Remat:
    """A function wrapped by :func:`remat`: called inside a trace, a call of its own
    marked function; called outside (where nothing differentiates it), ``fn`` compiled and
    run like an ``@s4tf.function``."""

    def __init__(self, fn, prevent_cse: bool, static_argnums: tuple):
        functools.update_wrapper(self, _python_function(fn), updated=())
        self.fn = _traced_function(fn)
        self.prevent_cse = prevent_cse
        self.static_argnums = static_argnums
        self._bodies: dict = {}  # static values -> the function traced for them
        self._compiled: dict = {}  # static values -> that function compiled, for calls outside a trace
        self.__name__ = getattr(self.fn, "__name__", "fn").replace("<lambda>", "lambda")

    def __call__(self, *args, **kwargs):
        static = self._static_arguments(args)
        dynamic = tuple(arg for i, arg in enumerate(args) if i not in static)
        body, key = self._body(static)
        scope = current_scope()
        if scope is None:  # nothing differentiates it: fn compiled and run
            if key not in self._compiled:
                self._compiled[key] = StagedFunction(body, autograph=False)
            return self._compiled[key](*dynamic, **kwargs)
        return scope.trace.call(body, self.__name__, dynamic, kwargs)

    def _static_arguments(self, args) -> dict:
        """``{position: value}`` of the static arguments of this call."""
        static, where = {}, str(user_location() or "") or None
        for number in self.static_argnums:
            position = number + len(args) if number < 0 else number
            if not 0 <= position < len(args):
                raise RematError(
                    f"s4tf.remat({self.__name__}): static_argnums names argument {number}, but it was called with "
                    f"{len(args)} positional argument(s)", where,
                )
            if is_array_like(args[position]):
                raise RematError(
                    f"s4tf.remat({self.__name__}): argument {number} is static (static_argnums) and must be a hashable "
                    f"Python value, not an array", where,
                )
            try:
                hash(args[position])
            except TypeError:
                raise RematError(
                    f"s4tf.remat({self.__name__}): argument {number} is static (static_argnums) and must be hashable, "
                    f"got {type(args[position]).__name__}", where,
                ) from None
            static[position] = args[position]
        return static

    def _body(self, static: dict):
        """``(function, key)``: the function traced for these static values, ``fn`` of the
        dynamic arguments, and the key it is kept under."""
        key = tuple(sorted((position, type(value), value) for position, value in static.items()))
        body = self._bodies.get(key)
        if body is None:
            fn = self.fn

            @functools.wraps(fn)
            def body(*dynamic, **kwargs):
                args = list(dynamic)
                for position in sorted(static):
                    args.insert(position, static[position])
                return fn(*args, **kwargs)

            self._bodies[key] = body
            _MARKED[body] = self.prevent_cse
        return body, key

    def __repr__(self):
        return f"<s4tf.remat {self.__name__}>"


def _mark(trace, python_fn, function: ir.Operation, record, args, kwargs) -> None:
    """Mark the functions traced for remat calls (an ``after_trace_hooks`` entry)."""
    prevent_cse = _MARKED.get(python_fn)
    if prevent_cse is None:
        return
    with trace.context:
        function.attributes[REMAT] = ir.UnitAttr.get()
        if not prevent_cse:
            function.attributes[REMAT_ALLOW_CSE] = ir.UnitAttr.get()


after_trace_hooks.append(_mark)
