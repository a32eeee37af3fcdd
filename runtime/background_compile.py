"""IREE compilations that run while Python goes on, on one worker thread.

IREE's ``compile_str`` runs ``iree-compile`` as a child process and waits for it, so the
worker holds no GIL while IREE works (docs/benchmarks.md, "Compile and first calls").
Compilations run one at a time, in the order asked for, so a 2-core machine is not
shared between several compilers and the Python that goes on; one whose result is needed
before the worker has started it (it waits behind others, say eager ops' modules) is
taken off the queue and compiled at once by the thread that needs it. Python waits for the
compilations still queued or running when it exits, so their modules reach the cache.

```python
compilation = BackgroundCompile(module_text, "cpu")   # returns at once
compilation.done()                                    # False while queued or compiling
vmfb = compilation.result()                           # bytes, or raises CompilationError
```
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from s4tf.runtime.cache import DiskCache
from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.compiler import compile_stablehlo

_COMPILER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="s4tf-compile")


class BackgroundCompile:
    """:func:`~s4tf.runtime.compiler.compile_stablehlo` of ``module_text`` on the worker,
    through the cache that ``$S4TF_CACHE_DIR`` names now (not when the compilation starts)."""

    def __init__(self, module_text: str, target: str = "cpu", traits: ModuleTraits | None = None):
        self.module_text = module_text
        self.target = target
        self.traits = traits
        self.cache = DiskCache()
        self.future = _COMPILER.submit(self._compile)

    def _compile(self) -> bytes:
        return compile_stablehlo(self.module_text, self.target, cache=self.cache, traits=self.traits)

    def done(self) -> bool:
        return self.future.done()

    def result(self) -> bytes:
        """The ``.vmfb``: waits for the worker if it has started, else compiles here."""
        if self.future.cancel():  # still queued behind other compilations
            return self._compile()
        return self.future.result()
