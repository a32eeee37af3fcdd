"""``s4tf.make_jaxpr``: JAX's name for printing what a function stages, so that ported
code which prints it runs; it prints s4tf's MLIR (``.lower(...).as_text()``), not a jaxpr.

```python
import numpy as np, s4tf

text = s4tf.make_jaxpr(lambda x: s4tf.sin(x) * 2)(np.ones(3, np.float32))
assert '"s4tf.sin"' in text
```
"""

from __future__ import annotations

import functools

from s4tf.staging.function import function


def make_jaxpr(fun, static_argnums=()):
    """A function taking ``fun``'s arguments and returning the text of the module that
    ``s4tf.function(fun, static_argnums=...)`` stages for them."""
    staged = function(fun, static_argnums=static_argnums)

    @functools.wraps(fun)
    def printed(*args, **kwargs) -> str:
        return staged.lower(*args, **kwargs).as_text()

    return printed


__all__ = ["make_jaxpr"]
