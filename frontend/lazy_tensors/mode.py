"""Eager or lazy: what an op on tensors outside ``@s4tf.function`` does in this thread.

```python
with s4tf.lazy():          # ops are recorded into a trace (s4tf.lazy_tensors.trace) ...
    y = s4tf.tanh(x @ w)
float(y.sum())             # ... that runs, compiled once, when a value is observed
s4tf.set_mode("lazy")      # the same for the rest of the thread ("eager" turns it off)
```

This module only holds the mode, so that :mod:`s4tf.staging.function` and :mod:`s4tf.transforms.autodiff`,
which :mod:`s4tf.lazy_tensors.trace` builds on, can ask it without importing the recorder.
"""

from __future__ import annotations

import contextlib
import threading

from s4tf.core.errors import S4tfError
from s4tf.staging.tracing import current_scope

MODES = ("eager", "lazy")

class _Mode(threading.local):
    """This thread's mode; a class default, so a thread that never set one reads "eager"
    without the cost of a failed lookup (every call of a staged function asks)."""

    mode = "eager"


_state = _Mode()


def get_mode() -> str:
    """``"eager"`` or ``"lazy"``: this thread's mode."""
    return _state.mode


def set_mode(mode: str) -> str:
    """Set this thread's mode (``"eager"`` or ``"lazy"``); returns the previous one.
    Tensors recorded before stay lazy: they run when observed or at ``s4tf.barrier()``."""
    if mode not in MODES:
        raise S4tfError(f"unknown mode {mode!r}: s4tf.set_mode takes one of {', '.join(map(repr, MODES))}")
    previous = get_mode()
    _state.mode = mode
    return previous


@contextlib.contextmanager
def lazy():
    """Record ops into lazy traces inside the block (``with s4tf.lazy(): ...``)."""
    previous = set_mode("lazy")
    try:
        yield
    finally:
        set_mode(previous)


def is_lazy() -> bool:
    """Whether ops outside staged functions are recorded now."""
    return _state.mode == "lazy" and current_scope() is None


def mode_is_lazy() -> bool:
    """Whether this thread's mode is lazy (for callers that know they are not staging)."""
    return _state.mode == "lazy"


def records_call(staged) -> bool:
    """Whether a call of ``staged`` (a :class:`~s4tf.staging.function.StagedFunction`) is recorded as
    one node of the lazy trace. Functions that donate their arguments or run host code
    (``extract=True``) need real buffers: they run at once, which cuts the trace."""
    from s4tf.staging.function import StagedFunction  # staging asks this module

    return is_lazy() and type(staged) is StagedFunction and not staged.donate_argnums


def record_call(staged, args, kwargs):
    from s4tf.lazy_tensors.trace import record_call  # it builds on the staging that calls this

    return record_call(staged, args, kwargs)


def record_transform(transform, args):
    from s4tf.lazy_tensors.trace import record_transform  # it builds on the autodiff that calls this

    return record_transform(transform, args)
