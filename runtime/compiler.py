"""Compile lowered (StableHLO) modules with IREE, through the on-disk cache.

```python
vmfb = compile_stablehlo(module_text, "cpu")   # bytes of an IREE VM flatbuffer
```
"""

from __future__ import annotations

import iree.compiler as iree_compiler
from iree.compiler.version import VERSION as IREE_VERSION

from s4tf.errors import CompilationError
from s4tf.runtime.cache import DiskCache, cache_key
from s4tf.runtime.system_libm import LINK_FLAG, needs_system_libm
from s4tf.runtime.cpu import host_cpu
from s4tf.runtime.product_modules import data_tiling_flags
from s4tf.runtime.targets import compile_flags, get_target, host_architecture
from s4tf.runtime.tuning import tuning_flags
from s4tf.version import __version__


def module_cache_key(module_text: str, target: str, flags) -> str:
    return cache_key(module_text, target, " ".join(flags), __version__, IREE_VERSION)


def module_flags(module_text: str, target: str = "cpu", extra_flags=()) -> list[str]:
    """What IREE is told for ``module_text`` on ``target`` (and what its cache key names).
    Code for this machine's CPU takes the tile sizes the autotuner kept (:mod:`s4tf.runtime.tuning`;
    the spec's file is named by its content, so the key names the tiles), and a product
    module IREE's data tiling (:mod:`s4tf.runtime.product_modules`)."""
    host = get_target(target).architecture == "host" and not extra_flags
    return [*compile_flags(target, extra_flags), *tuning_flags(host_cpu().name if host else None),
            *data_tiling_flags(module_text, host_architecture() if host else None)]


def compiled_module_key(module_text: str, target: str = "cpu") -> str:
    """The cache key under which :func:`compile_stablehlo` keeps ``module_text``'s module."""
    return module_cache_key(module_text, target, module_flags(module_text, target))


def cached_vmfb(module_text: str, target: str = "cpu", cache: DiskCache | None = None) -> bytes | None:
    """The cached ``.vmfb`` for ``module_text`` on ``target``, or ``None`` (IREE does not run)."""
    return (cache or DiskCache()).get(compiled_module_key(module_text, target))


def compile_stablehlo(module_text: str, target: str = "cpu", extra_flags=(), cache: DiskCache | None = None) -> bytes:
    """The ``.vmfb`` for ``module_text`` on ``target`` (flags: :func:`module_flags`); served
    from the cache when present."""
    flags = module_flags(module_text, target, extra_flags)
    key = module_cache_key(module_text, target, flags)
    cache = cache or DiskCache()
    cached = cache.get(key)
    if cached is not None:
        return cached
    if needs_system_libm(module_text, target):  # decided by the text: the key need not name it
        flags = [*flags, LINK_FLAG]
    try:
        vmfb = iree_compiler.compile_str(module_text, input_type="stablehlo", extra_args=flags)
    except iree_compiler.CompilerToolError as error:
        raise CompilationError(f"IREE could not compile the module for target '{target}':\n{error}") from None
    cache.put(key, vmfb)
    return vmfb
