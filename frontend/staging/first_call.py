"""What a staged function's first call does when IREE has not compiled its module yet.

``"compile"`` (the default): the call waits for IREE, as every later call does, so the
first call gives the same bits as every later one, with a cold module cache or a warm one
(docs/trust.md, "Determinism"). ``"interpret"`` (opt-in): IREE compiles in the background
while the first call runs through the ops' NumPy references (:mod:`s4tf.staging.tiered_call`):
the first result comes sooner, but its bits are NumPy's, not IREE's (the same values to
float rounding, not the same bits), so a training run started cold ends elsewhere than the
same run started with the module cached. ``"reference"``: every call runs through the
references and IREE compiles nothing it need not (a module they cannot evaluate): for
checking a program or a transformation against NumPy's arithmetic, and for tests of the
transformations, which then skip IREE's compile. Set it for the process with ``$S4TF_FIRST_CALL``
or from Python; the Python setting wins.

```python
s4tf.set_first_call("interpret")   # returns the previous setting
s4tf.get_first_call()              # "interpret"
```
"""

from __future__ import annotations

import os

from s4tf.core.errors import S4tfError

MODES = ("compile", "interpret", "reference")  # the first is the default
VARIABLE = "S4TF_FIRST_CALL"

_setting: str | None = None  # None: $S4TF_FIRST_CALL, or the default


def _checked(mode: str, source: str) -> str:
    if mode not in MODES:
        raise S4tfError(f"unknown first-call mode {mode!r} in {source}: it takes one of {', '.join(map(repr, MODES))}")
    return mode


def get_first_call() -> str:
    """``"compile"``, ``"interpret"`` or ``"reference"``: what first calls do in this process."""
    if _setting is not None:
        return _setting
    return _checked(os.environ.get(VARIABLE) or MODES[0], f"${VARIABLE}")


def set_first_call(mode: str) -> str:
    """Set what first calls do from now on, in this process; returns the previous setting."""
    global _setting
    previous = get_first_call()
    _setting = _checked(mode, "s4tf.set_first_call")
    return previous
