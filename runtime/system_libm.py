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
needs_system_libm(module_text, "cpu")  # True if an f64 op calling libm is in it
```
"""

from __future__ import annotations

import re

LINK_FLAG = "--iree-llvmcpu-link-embedded=false"
#: The targets whose modules may link the system's libm (built and run on this machine).
TARGETS = ("cpu",)
#: Ops whose f64 code calls libm (StableHLO, and ``math`` inside loop dispatches).
LIBM_OPS = frozenset({
    "stablehlo.sine", "stablehlo.cosine", "stablehlo.tanh", "stablehlo.tan", "stablehlo.atan2",
    "chlo.asin", "chlo.acos", "chlo.atan",  # IREE expands these to atan2
    "math.sin", "math.cos", "math.tanh", "math.tan", "math.atan2",
})


#: An op of :data:`LIBM_OPS` with an f64 type on its line (printed MLIR puts an op's types on its line).
_F64_LIBM_OP = re.compile(r"(?:" + "|".join(re.escape(name) for name in sorted(LIBM_OPS)) + r")\b[^\n]*f64")


def needs_system_libm(module_text: str, target: str) -> bool:
    """Whether ``module_text`` (StableHLO) on ``target`` links libm: an f64 op of
    :data:`LIBM_OPS`. Read from the text, not parsed: a compile parses the module once, in IREE."""
    return target in TARGETS and _F64_LIBM_OP.search(module_text) is not None
