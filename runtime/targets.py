"""Compilation targets by name: the IREE backend, the runtime driver and the flags each needs.

```python
TARGETS["cpu"].compile_flags  # ['--iree-hal-target-backends=llvm-cpu', '--iree-llvmcpu-target-cpu=host']
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.errors import S4tfError


#: Flags for every target: keep f64 as f64 (IREE demotes it to f32 by default).
COMMON_FLAGS = ("--iree-input-demote-f64-to-f32=false",)


@dataclass(frozen=True)
class Target:
    name: str
    backend: str
    driver: str
    flags: tuple[str, ...] = ()
    description: str = ""

    @property
    def compile_flags(self) -> list[str]:
        return [f"--iree-hal-target-backends={self.backend}", *COMMON_FLAGS, *self.flags]


TARGETS = {
    target.name: target
    for target in (
        Target("cpu", "llvm-cpu", "local-task", ("--iree-llvmcpu-target-cpu=host",), "this machine's CPU (LLVM)"),
        Target("vmvx", "vmvx", "local-task", (), "portable VMVX interpreter"),
    )
}


class UnknownTargetError(S4tfError, ValueError):
    """A target name that is not in :data:`TARGETS`."""


def get_target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise UnknownTargetError(f"unknown target '{name}'; known targets: {', '.join(TARGETS)}") from None
