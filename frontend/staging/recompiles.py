"""What a staged function has compiled, and a warning when Python values make it recompile.

A Python ``int`` or ``float`` passed as an argument is traced (one version for every value);
Python scalars inside pytrees, bools and strings are part of a staged function's signature
(compile-time constants), so a step counter kept in a dict compiles a new version on every
call. ``f.compiled_signatures()`` lists the versions; the :data:`WARN_AT`-th version warns,
naming the arguments whose Python values differ (versions that differ only in argument
shapes warn at the :data:`SHAPE_WARN_AT`-th, naming the arguments and their types):

```python
@s4tf.function
def scale(x, options):
    return x * options["k"]

for k in range(8):
    scale(np.ones(3, np.float32), {"k": k})    # RecompileWarning at the 8th: pass np.float32(k)
scale.compiled_signatures()[0]                  # '(tensor<3xf32>, 0)'
```
"""

from __future__ import annotations

import warnings

from s4tf.dialects.types import TensorType

#: The number of compiled versions of one function at which a new one warns (once).
WARN_AT = 8
#: The number of versions at which one differing only in argument shapes warns (after
#: the third recompile, as a growing context or a ragged last batch would show).
SHAPE_WARN_AT = 4


class RecompileWarning(UserWarning):
    """A staged function compiled :data:`SHAPE_WARN_AT` versions that differ in argument
    shapes, or :data:`WARN_AT` that differ otherwise (Python values)."""


def describe(signature_key) -> str:
    """``(tensor<3xf32>, 0)``: a signature's leaves, tensor types and Python values."""
    _, leaves = signature_key
    return "(" + ", ".join(map(_describe_leaf, leaves)) + ")"


def _describe_leaf(leaf) -> str:
    if isinstance(leaf, TensorType):
        return str(leaf)
    kind, value = leaf
    return f"{value} (a Python {'int' if value.dtype == 'i32' else 'float'})" if kind == "weak" else repr(value)


def warn_if_recompiling(name: str, signature_keys, positional: tuple[str, ...] = ()) -> None:
    """After a new version, a :class:`RecompileWarning` at the caller's line: at the
    :data:`SHAPE_WARN_AT`-th when only tensor shapes or dtypes differ, naming the arguments
    (by ``positional``, the function's parameter names) and the types they had; at the
    :data:`WARN_AT`-th otherwise, naming the leaves whose Python values differ."""
    keys = list(signature_keys)
    if len(keys) not in (SHAPE_WARN_AT, WARN_AT):
        return
    trees = {tree for tree, _ in keys}
    leaves = [leaves for _, leaves in keys]
    varying = sorted({position for these in leaves for position, leaf in enumerate(these)
                      if any(position < len(other) and other[position] != leaf for other in leaves)})
    python = [p for p in varying if not all(isinstance(these[p], TensorType) for these in leaves if p < len(these))]
    if len(keys) == SHAPE_WARN_AT:
        if len(trees) > 1 or python or not varying:
            return
        names = _leaf_names(next(iter(trees)), positional)
        changed = "; ".join(f"{names[p]} was {', '.join(dict.fromkeys(str(these[p]) for these in leaves))}"
                            for p in varying)
        cause = (f"the shapes or dtypes of its arguments differ between calls ({changed}), and each new one compiles "
                 "anew: pad inputs to a few sizes (as the last batch of an epoch) to reuse versions")
    elif python:
        which = f"leaves {', '.join(str(p) for p in python)} differ" if len(python) > 1 else f"leaf {python[0]} differs"
        cause = (f"the Python value of argument {which} between calls, and "
                 "Python scalars inside pytrees (and bools and strings) are compile-time constants: pass them as arrays "
                 "(np.int32(n), np.float32(x)) or as arguments of their own to trace them")
    elif len(trees) > 1:
        cause = "the structure of the arguments (their pytrees) differs between calls"
    else:
        return  # shapes alone: warned at SHAPE_WARN_AT
    warnings.warn(RecompileWarning(f"s4tf.function '{name}' has compiled {len(keys)} versions: {cause}; "
                                   f"'{name}.compiled_signatures()' lists them"), stacklevel=3)


def _leaf_names(tree, positional: tuple[str, ...]) -> list[str]:
    """Per leaf of a call's ``(args, kwargs)`` tree: ``argument 'x'``, or ``leaf 2 of argument
    'model'`` inside a pytree (positions where the parameter has no name)."""
    args, kwargs = tree.children
    named = [(positional[i] if i < len(positional) else str(i), child) for i, child in enumerate(args.children)]
    named += list(zip(map(str, kwargs.data or ()), kwargs.children))
    names = []
    for name, child in named:
        count = child.num_leaves
        names += [f"argument '{name}'"] if count == 1 else [f"leaf {j} of argument '{name}'" for j in range(count)]
    return names
