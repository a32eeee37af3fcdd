"""What each target cannot do. IREE-3.13-WORKAROUND: measured with IREE 3.13 (``tools/bench/probe_targets.py``).

Each :class:`Limitation` names a target, a dtype, the ops it concerns (s4tf and StableHLO
names; empty: every op) and, for conversions, the operand dtypes it comes from. The
reason says what was seen: IREE refusing to compile, or wrong results at run time
(Mesa's lavapipe for Vulkan). ``s4tf-check-availability`` reports ops that meet one.

```python
find_limitation("vulkan", "s4tf.exp", operand_dtypes=["f64"], result_dtypes=["f64"]).reason
```
"""

from __future__ import annotations

from dataclasses import dataclass

#: The targets s4tf compiles for (their IREE flags and devices: :mod:`s4tf.runtime.targets`).
TARGET_NAMES = ("cpu", "vmvx", "vulkan", "cuda", "android-arm64", "linux-arm64")

INTEGERS = ("i1", "i8", "i32", "i64")
CONVERSIONS = ("s4tf.cast", "stablehlo.convert")


@dataclass(frozen=True)
class Limitation:
    target: str
    dtype: str
    reason: str
    ops: tuple[str, ...] = ()
    from_dtypes: tuple[str, ...] = ()

    def applies(self, op_name: str, operand_dtypes, result_dtypes) -> bool:
        if self.ops and op_name not in self.ops:
            return False
        if self.from_dtypes:
            return self.dtype in result_dtypes and any(d in self.from_dtypes for d in operand_dtypes)
        return self.dtype in operand_dtypes or self.dtype in result_dtypes


_LIBM = (
    "IREE's CPU code generation calls libm's {name}, which its self-contained executables "
    "cannot link (compile error: undefined symbol; the host target 'cpu' links the system's libm instead)"
)
_CPU_F64_MATH = [
    ("tanh", ("s4tf.tanh", "stablehlo.tanh")),
    ("sin", ("s4tf.sin", "stablehlo.sine")),
    ("cos", ("s4tf.cos", "stablehlo.cosine")),
    ("tan", ("s4tf.tan", "stablehlo.tan")),
    ("atan2 (asin, acos and atan expand to it)", ("s4tf.asin", "s4tf.acos", "s4tf.atan", "s4tf.atan2", "stablehlo.atan2")),
]
#: The cross-compiled CPU targets, for aarch64: no libm to link here (``cpu`` links the
#: system's: s4tf.runtime.system_libm).
AARCH64_TARGETS = ("android-arm64", "linux-arm64")
#: The targets whose code runs on a GPU.
GPU_TARGETS = ("vulkan", "cuda")

LIMITATIONS: tuple[Limitation, ...] = (
    *(
        Limitation(target, "f64", _LIBM.format(name=name) + "; compute in f32", ops)
        for target in AARCH64_TARGETS
        for name, ops in _CPU_F64_MATH
    ),
    Limitation(
        "cpu", "bf16", "integer to bf16 conversion needs __truncsfbf2, which IREE's x86 executables cannot link; "
        "convert to f32 first (s4tf.cast does this itself)", ("stablehlo.convert",), INTEGERS,
    ),
    Limitation("vmvx", "f16", "VMVX has no 16-bit float arithmetic or conversions (compile error)"),
    Limitation("vmvx", "bf16", "VMVX has no 16-bit float arithmetic or conversions (compile error)"),
    *(
        Limitation("vmvx", dtype, "VMVX cannot convert f64 to narrower types (compile error)", CONVERSIONS, ("f64",))
        for dtype in ("f32", "i8", "i32", "i64")
    ),
    Limitation("vmvx", "f64", "VMVX cannot convert 8- and 32-bit integers to f64 (compile error); convert to f32, "
               "or compute in f32", CONVERSIONS, ("i8", "i32")),
    *(
        Limitation("vmvx", dtype, "VMVX rounds f32-to-integer conversions instead of truncating (wrong results)",
                   CONVERSIONS, ("f32",))
        for dtype in ("i8", "i32", "i64")
    ),
    Limitation("vulkan", "f64", "the Vulkan Android baseline profile has no 64-bit floats (SPIR-V: compile error)"),
    Limitation(
        "vulkan", "f16", "the Vulkan Android baseline profile stores 16-bit floats in 32-bit words, "
        "and IREE's emulation computed wrong results on lavapipe; use f32 or bf16",
    ),
    Limitation(
        "vulkan", "i64", "64-bit integer division is not lowered to SPIR-V (compile error)",
        ("s4tf.div", "stablehlo.divide", "stablehlo.remainder"),
    ),
    Limitation(
        "vulkan", "bf16", "conversion from i1, i8 or i32 to bf16 gave zeros on lavapipe; convert to f32 first",
        CONVERSIONS, ("i1", "i8", "i32"),
    ),
)


def find_limitation(target: str, op_name: str, operand_dtypes, result_dtypes) -> Limitation | None:
    """The first limitation of ``target`` that an op with these dtypes meets, if any."""
    for limitation in LIMITATIONS:
        if limitation.target == target and limitation.applies(op_name, operand_dtypes, result_dtypes):
            return limitation
    return None
