"""From lowered module text to a loaded, callable module, with a cache that heals itself."""

from __future__ import annotations

from s4tf.runtime.cache import DiskCache
from s4tf.runtime.compiler import compile_stablehlo, module_cache_key
from s4tf.runtime.device import LoadedModule, ModuleLoadError
from s4tf.runtime.targets import get_target


def compile_and_load(module_text: str, target: str = "cpu", cache: DiskCache | None = None) -> LoadedModule:
    """Compile (or fetch from the cache) and load; a cached module that fails to load is
    discarded and recompiled."""
    cache = cache or DiskCache()
    vmfb = compile_stablehlo(module_text, target, cache=cache)
    try:
        return LoadedModule(vmfb, target)
    except ModuleLoadError:
        cache.discard(module_cache_key(module_text, target, get_target(target).compile_flags))
        return LoadedModule(compile_stablehlo(module_text, target, cache=cache), target)
