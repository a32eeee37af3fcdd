"""What a staged function's first call does when IREE has not compiled its module yet.

``"interpret"`` (the default): IREE compiles in the background while the call runs
through the ops' NumPy references (:mod:`s4tf.tiered_call`). ``"compile"``: the call
waits for IREE, as every later call's module is compiled. Set it for the process with
``$S4TF_FIRST_CALL`` or from Python; the Python setting wins.

```python
s4tf.set_first_call("compile")   # returns the previous setting
s4tf.get_first_call()            # "compile"
```
"""

from __future__ import annotations

import os

from s4tf.errors import S4tfError

MODES = ("interpret", "compile")
VARIABLE = "S4TF_FIRST_CALL"

_setting: str | None = None  # None: $S4TF_FIRST_CALL, or the default


def _checked(mode: str, source: str) -> str:
    if mode not in MODES:
        raise S4tfError(f"unknown first-call mode {mode!r} in {source}: it takes one of {', '.join(map(repr, MODES))}")
    return mode


def get_first_call() -> str:
    """``"interpret"`` or ``"compile"``: what first calls do in this process."""
    if _setting is not None:
        return _setting
    return _checked(os.environ.get(VARIABLE) or MODES[0], f"${VARIABLE}")


def set_first_call(mode: str) -> str:
    """Set what first calls do from now on, in this process; returns the previous setting."""
    global _setting
    previous = get_first_call()
    _setting = _checked(mode, "s4tf.set_first_call")
    return previous
