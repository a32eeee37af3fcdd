"""Argument checks for layers: errors that name the user's line.

```python
check_positive("Dense", out_features=out_features)   # S4tfError at the caller's line if not
```
"""

from __future__ import annotations

import numpy as np

from s4tf.core.errors import S4tfError, ShapeError
from s4tf.core.locations import user_location


def where() -> str | None:
    """The user's ``file:line`` (the innermost frame outside s4tf), for an error."""
    location = user_location()
    return str(location) if location else None


def layer_error(message: str, kind: type[S4tfError] = S4tfError) -> S4tfError:
    """``kind(message)`` located at the user's line."""
    return kind(message, where())


def check_positive(layer: str, **sizes) -> None:
    """Each of ``sizes`` is a positive int (a layer's size argument)."""
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise layer_error(f"{layer}: {name} must be a positive int, got {value!r}")


def check_features(layer: str, x, expected: int) -> None:
    """``x`` (an input) has ``expected`` features on its last axis."""
    shape = tuple(getattr(x, "shape", ()))
    if not shape or shape[-1] != expected:
        raise layer_error(f"{layer}: expected an input with {expected} features on its last axis, got shape {shape}", ShapeError)
