"""f64 ``sin``, ``cos``, ``tanh``, ``tan`` and ``atan2`` (``asin``, ``acos``, ``atan``) on this
machine's CPU: link against the system's libm.

IREE's CPU code generation turns f64 sine, cosine, tanh, tangent and atan2 into calls of
libm's ``sin``, ``cos``, ``tanh``, ``tan`` and ``atan2`` (f32 has polynomial approximations built in). Its default,
self-contained executables (``embedded-elf``) cannot link them ("undefined symbol: sin");
with ``--iree-llvmcpu-link-embedded=false`` the executable is a system shared library
(``system-elf``) linked against this machine's libm, and runs right here
(IREE-3.13-WORKAROUND: measured with IREE 3.13). Only the host target ``cpu`` does so, and only for modules that need it: such a
module depends on the libm of the system that compiled it. Cross-compiled targets (phones,
``linux-arm64``) have no libm to link here and keep the located availability error
(:mod:`s4tf.passes.iree.availability`).

```python
needs_system_libm(ModuleTraits.of(module), "cpu")  # True if an f64 op calling libm is in it
```
"""

from __future__ import annotations

from s4tf.passes.module_traits import ModuleTraits

LINK_FLAG = "--iree-llvmcpu-link-embedded=false"
#: The targets whose modules may link the system's libm (built and run on this machine).
TARGETS = ("cpu",)


def needs_system_libm(traits: ModuleTraits, target: str) -> bool:
    """Whether a module of ``traits`` on ``target`` links libm: an f64 op of :data:`s4tf.passes.module_traits.LIBM_OPS`."""
    return target in TARGETS and traits.f64_libm_ops
