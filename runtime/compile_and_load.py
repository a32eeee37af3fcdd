"""From lowered module text to a loaded, callable module, with a cache that heals itself."""

from __future__ import annotations

from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.cache import DiskCache
from s4tf.runtime.compiler import cached_vmfb, compile_stablehlo, compiled_module_key
from s4tf.runtime.device import LoadedModule, ModuleLoadError, WrongTargetError
from s4tf.runtime.loop_driver import driver_for
from s4tf.runtime.targets import get_target, host_architecture


def compile_and_load(module_text: str, target: str = "cpu", cache: DiskCache | None = None,
                     vmfb: bytes | None = None, traits: ModuleTraits | None = None) -> LoadedModule:
    """Compile (or fetch from the cache) and load on the target's device (a loop-bound,
    dispatch-bound CPU module on IREE's ``local-sync`` driver:
    :mod:`s4tf.runtime.loop_driver`); ``vmfb``: the module compiled already (in the
    background: :mod:`s4tf.runtime.background_compile`); ``traits``: the module's, from its
    IR (parsed from the text when ``None``). A module that fails to load is discarded from
    the cache and recompiled."""
    description = get_target(target)
    if not description.runs_on(description.device):
        raise WrongTargetError(
            f"target '{target}' does not run on this {host_architecture()} machine; build a module with "
            f"s4tf.compile(..., target='{target}') or s4tf-compile and run it on {description.where_it_runs()}"
        )
    cache = cache or DiskCache()
    traits = traits or ModuleTraits.parse(module_text)
    driver = driver_for(traits, description.driver)
    try:
        return LoadedModule(vmfb or compile_stablehlo(module_text, target, cache=cache, traits=traits), description.device,
                            driver=driver)
    except ModuleLoadError:
        cache.discard(compiled_module_key(module_text, target, traits))
        return LoadedModule(compile_stablehlo(module_text, target, cache=cache, traits=traits), description.device, driver=driver)


def load_cached(module_text: str, target: str = "cpu", cache: DiskCache | None = None,
                traits: ModuleTraits | None = None) -> LoadedModule | None:
    """The module of ``module_text`` loaded from the cache, or ``None`` if the cache lacks it."""
    cache = cache or DiskCache()
    traits = traits or ModuleTraits.parse(module_text)
    vmfb = cached_vmfb(module_text, target, cache, traits)
    return None if vmfb is None else compile_and_load(module_text, target, cache, vmfb, traits)
