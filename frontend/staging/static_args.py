"""``static_argnums`` / ``static_argnames``: arguments passed to the Python function as they
are, part of the signature by value (JAX's meaning).

Any hashable value may be static (a config object, a callable, a tuple of sizes, a
string); arrays may not (they are not hashable: pass them as ordinary arguments). Each
combination of static values is a staged function of its own over the other arguments.

```python
@functools.partial(s4tf.function, static_argnums=(1,))
def apply(x, activation):
    return activation(x)

apply(np.ones(3, np.float32), s4tf.tanh)     # compiled for tanh
apply(np.ones(3, np.float32), s4tf.sigmoid)  # another version
```
"""

from __future__ import annotations

import inspect

from s4tf.core.errors import S4tfError


def normalized(python_fn, static_argnums, static_argnames) -> tuple[tuple[int, ...], tuple[str, ...], tuple[str, ...]]:
    """The static positions and names, each completed from the other through ``python_fn``'s
    signature where it has one (as JAX does), and the names of its positional parameters."""
    numbers = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise S4tfError(f"static_argnums must be ints, got {static_argnums!r}")
    try:
        parameters = list(inspect.signature(python_fn).parameters.values())
    except (TypeError, ValueError):
        return numbers, names, ()
    positional = tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    count = len(positional)
    numbers = tuple(sorted({n % count if count and n < 0 else n for n in numbers} |
                           {positional.index(name) for name in names if name in positional}))
    names = tuple(sorted(set(names) | {positional[n] for n in numbers if n < count}))
    return numbers, names, positional


def split(args, kwargs, numbers, names, positional, function_name: str):
    """``(key, statics, dynamic args, dynamic kwargs)``: ``statics`` are the static values
    by position or name as given, each checked to be hashable; ``key`` names each by its
    parameter where it has one, so a value passed by position or by name is one version."""
    statics = tuple((n, args[n]) for n in numbers if n < len(args)) + tuple(sorted(
        (name, value) for name, value in kwargs.items() if name in names))
    for where, value in statics:
        try:
            hash(value)
        except TypeError:
            what = f"argument {where}" if isinstance(where, int) else f"argument '{where}'"
            raise S4tfError(
                f"{function_name}: static {what} must be hashable, got {type(value).__name__} (arrays cannot be "
                "static: pass them as ordinary arguments)"
            ) from None
    named = (((positional[w] if isinstance(w, int) and w < len(positional) else w), v) for w, v in statics)
    key = tuple(sorted(named, key=lambda item: repr(item[0])))
    dynamic_args = tuple(a for i, a in enumerate(args) if i not in numbers)
    dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in names}
    return key, statics, dynamic_args, dynamic_kwargs


def bound(python_fn, statics):
    """``python_fn`` with ``statics`` put back in their places, over the dynamic arguments."""
    positional = dict(s for s in statics if isinstance(s[0], int))
    named = dict(s for s in statics if isinstance(s[0], str))

    def with_statics(*args, **kwargs):
        merged, rest = [], iter(args)
        for i in range(len(args) + len(positional)):
            merged.append(positional[i] if i in positional else next(rest))
        return python_fn(*merged, **named, **kwargs)

    return with_statics


def dynamic_positions(numbers, positions) -> tuple[int, ...]:
    """``positions`` of all arguments (such as ``donate_argnums``) as positions among the
    dynamic ones."""
    return tuple(p - sum(1 for n in numbers if n < p) for p in positions if p not in numbers)
