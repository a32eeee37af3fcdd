"""A word to the user while IREE takes long on a module: after :func:`slow_compile_seconds`
(120 s unless ``$S4TF_SLOW_COMPILE_SECONDS`` says otherwise) a :class:`~s4tf.core.errors.SlowCompileWarning`
names the function and the target and saves the module where a report needs it, and the
compile goes on. A module of s4tf's takes IREE seconds; minutes usually mean an IREE bug
that never finishes (tests/lit/iree_reproducers/scatter_set_i8_tiling_hangs.mlir is one).

```python
with watching(module_text, "cpu", flags, key):
    vmfb = iree_compiler.compile_str(module_text, input_type="stablehlo", extra_args=flags)
```

```text
SlowCompileWarning: IREE has been compiling 'train_step' for target 'cpu' for 120 s (a module
takes it seconds: this may be an IREE hang); the module is in ~/.cache/s4tf/slow/3f2a....mlir
(its first line is the command that reproduces it)
```
"""

from __future__ import annotations

import os
import threading
import warnings
from contextlib import contextmanager

from s4tf.core.errors import S4tfError, SlowCompileWarning
from s4tf.runtime.compile_failures import function_name, save_module

VARIABLE = "S4TF_SLOW_COMPILE_SECONDS"
DEFAULT_SECONDS = 120.0


def slow_compile_seconds() -> float:
    """Seconds of compiling one module before the warning: ``$S4TF_SLOW_COMPILE_SECONDS``, or 120."""
    text = os.environ.get(VARIABLE)
    if text is None:
        return DEFAULT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise S4tfError(f"${VARIABLE} must be a number of seconds above 0, got {text!r}")
    return seconds


@contextmanager
def watching(module_text: str, target: str, flags: list[str], key: str):
    """Warn (once) if the block is still running after :func:`slow_compile_seconds`."""
    seconds = slow_compile_seconds()

    def warn():
        saved = save_module(module_text, flags, f"still compiling after {seconds:g} s", key, folder="slow")
        where = f"the module is in {saved} (its first line is the command that reproduces it)" \
            if saved else "the module could not be saved"
        warnings.warn(SlowCompileWarning(
            f"IREE has been compiling {function_name(module_text)} for target '{target}' for {seconds:g} s "
            f"(a module takes it seconds: this may be an IREE hang); {where}"), stacklevel=2)

    timer = threading.Timer(seconds, warn)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
