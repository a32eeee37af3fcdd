"""What a staged function has compiled, and a warning when Python values make it recompile.

A Python ``int`` or ``float`` passed as an argument is traced (one version for every value);
Python scalars inside pytrees, bools and strings are part of a staged function's signature
(compile-time constants), so a step counter kept in a dict compiles a new version on every
call. ``f.compiled_signatures()`` lists the versions; the :data:`WARN_AT`-th version warns,
naming the arguments whose Python values differ:

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


class RecompileWarning(UserWarning):
    """A staged function compiled :data:`WARN_AT` versions that differ in Python values."""


def describe(signature_key) -> str:
    """``(tensor<3xf32>, 0)``: a signature's leaves, tensor types and Python values."""
    _, leaves = signature_key
    return "(" + ", ".join(map(_describe_leaf, leaves)) + ")"


def _describe_leaf(leaf) -> str:
    if isinstance(leaf, TensorType):
        return str(leaf)
    kind, value = leaf
    return f"{value} (a Python {'int' if value.dtype == 'i32' else 'float'})" if kind == "weak" else repr(value)


def warn_if_recompiling(name: str, signature_keys) -> None:
    """After a new version: at the :data:`WARN_AT`-th, a :class:`RecompileWarning` (at the
    caller's line) naming the leaves whose Python values differ between versions."""
    keys = list(signature_keys)
    if len(keys) != WARN_AT:
        return
    leaves = [leaves for _, leaves in keys]
    varying = sorted({position for these in leaves for position, leaf in enumerate(these)
                      if not isinstance(leaf, TensorType) and any(
                          position < len(other) and other[position] != leaf for other in leaves)})
    if varying:
        which = f"leaves {', '.join(str(p) for p in varying)} differ" if len(varying) > 1 else f"leaf {varying[0]} differs"
        cause = (f"the Python value of argument {which} between calls, and "
                 "Python scalars inside pytrees (and bools and strings) are compile-time constants: pass them as arrays "
                 "(np.int32(n), np.float32(x)) or as arguments of their own to trace them")
    else:
        cause = "the arguments' shapes or dtypes differ between calls"
    warnings.warn(RecompileWarning(f"s4tf.function '{name}' has compiled {WARN_AT} versions: {cause}; "
                                   f"'{name}.compiled_signatures()' lists them"), stacklevel=3)
