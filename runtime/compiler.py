"""Compile lowered (StableHLO) modules with IREE, through the on-disk cache.

```python
vmfb = compile_stablehlo(module_text, "cpu", traits=ModuleTraits.of(module))   # bytes of an IREE VM flatbuffer
check_memory(module_text, traits, "cpu", module)  # a ShapeError for a tensor larger than this machine's memory
```

What decides the flags (data tiling, libm) and the checks are the module's
:class:`~s4tf.passes.module_traits.ModuleTraits`, computed from its IR by the caller that
lowered it; without them, the text is parsed once for them.

A module for this machine's CPU with a tensor that needs more bytes than the machine has
never reaches IREE (which would compile and run it for minutes, or run out of memory): a
:class:`~s4tf.core.errors.ShapeError` names the op, its type and the bytes, at the user's line
when the module has locations (:func:`check_memory`).
"""

from __future__ import annotations

import io
import os

import iree.compiler as iree_compiler
from iree.compiler.version import VERSION as IREE_VERSION

from s4tf.core.errors import ShapeError
from s4tf.core.mlir import ir, new_context
from s4tf.passes.diagnostics import location_text
from s4tf.passes.iree.branch_refs import DistinctBranchRefs
from s4tf.passes.iree.loop_dispatch_criterion import MAX_VALUE_BYTES
from s4tf.passes.ir_walk import collect
from s4tf.passes.module_traits import ModuleTraits, tensor_bytes
from s4tf.runtime.cache import DiskCache, cache_key
from s4tf.runtime.compile_failures import compilation_error
from s4tf.runtime.compile_threads import threading_flags
from s4tf.runtime.compile_watch import watching
from s4tf.runtime.system_libm import LINK_FLAG, needs_system_libm
from s4tf.runtime.cpu import host_cpu
from s4tf.runtime.product_modules import data_tiling_flags
from s4tf.runtime.targets import compile_flags, get_target, host_architecture
from s4tf.runtime.tuning import tuning_flags
from s4tf.core.version import __version__


def physical_memory_bytes() -> int | None:
    """This machine's physical memory (``None`` where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _size_text(count: int) -> str:
    unit = max((u for u in range(5) if count >= 1 << (10 * u)), default=0)
    return f"{count / (1 << (10 * unit)):.1f} {('bytes', 'KiB', 'MiB', 'GiB', 'TiB')[unit]}" if unit else f"{count} bytes"


def _result_bytes(operation: ir.Operation) -> int:
    return max((tensor_bytes(result.type) or 0 for result in operation.results), default=0)


def _too_large(root: ir.Operation, limit: int) -> list[ir.Operation]:
    return collect(root, lambda operation: _result_bytes(operation) > limit, pre_order=True)


def check_memory(module_text: str, traits: ModuleTraits, target: str = "cpu", module: ir.Operation | None = None,
                 staged: ir.Operation | None = None) -> None:
    """A :class:`~s4tf.core.errors.ShapeError` when ``target`` runs on this machine's CPU and a
    tensor of ``module_text`` (lowered StableHLO, of ``traits``) needs more bytes than the
    machine's physical memory. ``module``: the same module as IR, whose locations name the
    user's line; ``staged``: the s4tf module it was lowered from, whose op at that line is
    named (else the StableHLO op). Costs nothing more than ``traits`` when everything fits."""
    description = get_target(target)
    limit = physical_memory_bytes()
    if description.device != "cpu" or not description.runs_on("cpu") or limit is None:
        return
    largest = traits.largest_tensor_bytes
    if largest <= limit:
        return
    parsed = module is None  # then its locations are lines of the text, not the user's
    with (module.context if module is not None else new_context()):
        if parsed:
            module = ir.Module.parse(module_text).operation
        found = _too_large(module, limit)
        if not found:  # only in a type no op produces (an argument): name the bytes alone
            raise ShapeError(f"the module takes a tensor of {largest} bytes ({_size_text(largest)}), more than this "
                             f"machine's memory ({_size_text(limit)}); it was not compiled")
        # An op that computes the tensor, not a constant that only declares it.
        lowered = next((op for op in found if op.name not in ("stablehlo.constant", "s4tf.constant")), found[0])
        location = None if parsed else location_text(lowered.location)
        named = lowered
        if staged is not None:
            at_line = [op for op in _too_large(staged, limit) if location_text(op.location) == location]
            named = next((op for op in at_line if op.name != "s4tf.constant"), at_line[0] if at_line else lowered)
        size = _result_bytes(named)
        types = ", ".join(str(result.type) for result in named.results if tensor_bytes(result.type) == size)
        raise ShapeError(
            f"{named.name} makes a {types} of {size} bytes ({_size_text(size)}), more than this machine's memory "
            f"({_size_text(limit)}); it was not compiled: make the shape smaller",
            location,
        )


def module_cache_key(module_text: str, target: str, flags) -> str:
    return cache_key(module_text, target, " ".join(flags), __version__, IREE_VERSION, DistinctBranchRefs.name)


def iree_compile(module_text: str, flags, traits: ModuleTraits) -> bytes:
    """IREE's ``.vmfb`` for ``module_text`` (StableHLO, of ``traits``) with ``flags``. A module
    with host control flow is compiled in two steps, its VM module (``--compile-to=vm``)
    rewritten by ``s4tf-distinct-branch-refs`` in between (IREE-3.13-WORKAROUND: see
    :mod:`s4tf.passes.iree.branch_refs`); the ``.vmfb`` is the same bits as in one step
    where the pass changes nothing. ``iree_compiler.CompilerToolError`` as IREE raises it."""
    if not traits.branches:
        return iree_compiler.compile_str(module_text, input_type="stablehlo", extra_args=flags)
    vm_module = iree_compiler.compile_str(module_text, input_type="stablehlo",
                                          extra_args=[*flags, "--compile-to=vm", "--emit-mlir-bytecode"])
    with new_context():
        module = ir.Module.parse(vm_module)
        DistinctBranchRefs().apply(module.operation)
        rewritten = io.BytesIO()
        module.operation.write_bytecode(rewritten)
    return iree_compiler.compile_str(rewritten.getvalue(), extra_args=[*flags, "--compile-from=vm"])


def module_flags(module_text: str, target: str = "cpu", extra_flags=(), traits: ModuleTraits | None = None) -> list[str]:
    """What IREE is told for ``module_text`` (of ``traits``; parsed for them when ``None``)
    on ``target`` (and what its cache key names). Code for this machine's CPU takes the tile
    sizes the autotuner kept (:mod:`s4tf.runtime.tuning`; the spec's file is named by its
    content, so the key names the tiles), and a product module IREE's data tiling
    (:mod:`s4tf.runtime.product_modules`)."""
    host = get_target(target).architecture == "host" and not extra_flags
    traits = traits or ModuleTraits.parse(module_text)
    tiling = data_tiling_flags(traits, host_architecture()) if host else []
    return [*compile_flags(target, extra_flags), *tuning_flags(host_cpu().name if host else None), *tiling,
            *region_flags(traits)]


def region_flags(traits: ModuleTraits) -> list[str]:
    """IREE-3.13-WORKAROUND: IREE hoists a constant out of a dispatch region and clones it back
    only up to 256 bytes; a larger vector constant then becomes an operand of the dispatch,
    and iree-compile crashes (tests/lit/iree_reproducers/dispatch_region_vector_constant.mlir).
    The regions of s4tf-loops-to-dispatch hold vectors of up to ``MAX_VALUE_BYTES``: a module
    with regions lets IREE clone constants of that size back."""
    return [f"--iree-flow-inline-constants-max-byte-length={MAX_VALUE_BYTES}"] if traits.dispatch_regions else []


def compiled_module_key(module_text: str, target: str = "cpu", traits: ModuleTraits | None = None) -> str:
    """The cache key under which :func:`compile_stablehlo` keeps ``module_text``'s module."""
    return module_cache_key(module_text, target, module_flags(module_text, target, traits=traits))


def cached_vmfb(module_text: str, target: str = "cpu", cache: DiskCache | None = None,
                traits: ModuleTraits | None = None) -> bytes | None:
    """The cached ``.vmfb`` for ``module_text`` on ``target``, or ``None`` (IREE does not run)."""
    return (cache or DiskCache()).get(compiled_module_key(module_text, target, traits))


def compile_stablehlo(module_text: str, target: str = "cpu", extra_flags=(), cache: DiskCache | None = None,
                      traits: ModuleTraits | None = None) -> bytes:
    """The ``.vmfb`` for ``module_text`` (of ``traits``; parsed for them when ``None``) on
    ``target`` (flags: :func:`module_flags`); served from the cache when present."""
    traits = traits or ModuleTraits.parse(module_text)
    flags = module_flags(module_text, target, extra_flags, traits)
    key = module_cache_key(module_text, target, flags)
    cache = cache or DiskCache()
    cached = cache.get(key)
    if cached is not None:
        return cached
    check_memory(module_text, traits, target)
    if needs_system_libm(traits, target):  # decided by the module: the key need not name it
        flags = [*flags, LINK_FLAG]
    with cache.making(key):  # another process compiling the same module: wait and read it
        cached = cache.get(key)
        if cached is not None:
            return cached
        flags = [*flags, *threading_flags()]  # how IREE runs, not what it makes
        try:
            with watching(module_text, target, flags, key):  # a word to the user if IREE takes minutes
                vmfb = iree_compile(module_text, flags, traits)
        except iree_compiler.CompilerToolError as error:
            raise compilation_error(module_text, target, flags, str(error), key) from None
        cache.put(key, vmfb)
    return vmfb
