"""IREE compilations that run while Python goes on: one worker thread, a ``Future`` each.

IREE's ``compile_str`` runs ``iree-compile`` as a child process and waits for it, so the
thread holds no GIL while IREE works (measured: docs/benchmarks.md, "The cold first
call"). Compilations run one at a time, in the order asked for, so a 2-core machine is not
shared between several compilers and the Python that goes on. Python waits for the
compilations still running when it exits, so their modules reach the cache.

```python
future = compile_in_background(module_text, "cpu")   # returns at once
vmfb = future.result()                                # bytes, or raises CompilationError
```
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from s4tf.runtime.cache import DiskCache
from s4tf.runtime.compiler import compile_stablehlo

_COMPILER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="s4tf-compile")


def compile_in_background(module_text: str, target: str = "cpu") -> Future:
    """A ``Future`` of :func:`~s4tf.runtime.compiler.compile_stablehlo`'s ``.vmfb``, through
    the cache that ``$S4TF_CACHE_DIR`` names now (not when the compilation starts)."""
    return _COMPILER.submit(compile_stablehlo, module_text, target, cache=DiskCache())
