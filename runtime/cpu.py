"""The CPU a module's code is built for, as IREE's LLVM backend resolves it.

``--iree-llvmcpu-target-cpu=host`` means LLVM's name and feature list for this machine's
processor (``llvm::sys::getHostCPUName``/``getHostCPUFeatures``). s4tf asks IREE what it
resolves, so the flags it compiles with (and the cache key made of them) name the real
CPU, and a module records the features its code may use:

```python
host_cpu().name         # 'rocketlake'
host_cpu().flags        # ['--iree-llvmcpu-target-cpu=rocketlake', '--iree-llvmcpu-target-cpu-features=+adx,...']
host_cpu().lacks(other) # features ``other``'s code may use that this CPU does not have
```

Asking IREE costs a compiler process (docs/benchmarks.md, "Compile and first calls"), so the
answer is kept in the module cache folder, keyed by the processor's identity in
``/proc/cpuinfo`` (vendor, family, model, stepping, microcode, feature flags) and the s4tf
and IREE versions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import iree.compiler as iree_compiler
from iree.compiler.version import VERSION as IREE_VERSION

from s4tf.core.errors import CompilationError
from s4tf.runtime.cache import DiskCache, cache_key
from s4tf.core.version import __version__

_LLVM_CPU_TARGET = re.compile(r'#hal\.executable\.target<"llvm-cpu", "[^"]*", \{cpu = "([^"]*)", cpu_features = "([^"]*)"')


@dataclass(frozen=True)
class Cpu:
    """A CPU by LLVM's name and features (``+avx2``, ``-sse4a``; each named once)."""

    name: str
    features: tuple[str, ...]

    @property
    def enabled(self) -> frozenset[str]:
        return frozenset(f[1:] for f in self.features if f.startswith("+"))

    @property
    def flags(self) -> list[str]:
        return [f"--iree-llvmcpu-target-cpu={self.name}", f"--iree-llvmcpu-target-cpu-features={','.join(self.features)}"]

    def lacks(self, built_for: Cpu) -> list[str]:
        """The features that code built for ``built_for`` may use and this CPU does not have."""
        return sorted(built_for.enabled - self.enabled)


def parse_features(text: str) -> tuple[str, ...]:
    """LLVM's feature list with each feature once, at its last (winning) setting."""
    last = {}
    for feature in filter(None, text.split(",")):
        last.pop(feature[1:], None)
        last[feature[1:]] = feature
    return tuple(last.values())


@lru_cache(maxsize=None)
def resolve_cpu(flags: tuple[str, ...]) -> Cpu | None:
    """The CPU that IREE builds llvm-cpu code for under ``flags``; ``None`` without llvm-cpu code."""
    try:
        text = iree_compiler.compile_str(
            "module {}", input_type="stablehlo", extra_args=[*flags, "--compile-to=preprocessing"]
        ).decode()
    except iree_compiler.CompilerToolError as error:
        raise CompilationError(f"IREE cannot resolve the CPU for flags {' '.join(flags)}:\n{error}") from None
    match = _LLVM_CPU_TARGET.search(text)
    if match is None:
        return None
    return Cpu(match.group(1) or "generic", parse_features(match.group(2)))


#: The ``/proc/cpuinfo`` fields that identify a processor (x86 and Arm names).
_IDENTITY = frozenset({
    "vendor_id", "cpu family", "model", "model name", "stepping", "microcode", "flags",
    "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision", "Features",
})


def cpu_identity() -> str | None:
    """The identifying lines of the first processor in ``/proc/cpuinfo`` (``None``: none)."""
    try:
        first = Path("/proc/cpuinfo").read_text().split("\n\n", 1)[0]
    except OSError:
        return None
    lines = [line for line in first.splitlines() if line.split(":", 1)[0].strip() in _IDENTITY]
    return "\n".join(lines) or None


@lru_cache(maxsize=None)
def host_cpu() -> Cpu:
    """This machine's CPU (what ``--iree-llvmcpu-target-cpu=host`` means here)."""
    identity = cpu_identity()
    cache = DiskCache(suffix=".cpu.json")
    key = cache_key("host cpu", identity, __version__, IREE_VERSION) if identity else None
    stored = cache.get(key) if key else None
    if stored is not None:
        name, features = json.loads(stored)
        return Cpu(name, tuple(features))
    cpu = resolve_cpu(("--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host"))
    if key:
        cache.put(key, json.dumps([cpu.name, cpu.features]).encode())
    return cpu
