"""What s4tf records in each exported function's ``iree.reflection``, and reading it back.

- ``s4tf.target``: the target the module was built for;
- ``s4tf.cpu``, ``s4tf.cpu_features``: the CPU its llvm-cpu code is built for (LLVM's
  name, and the features the code may use);
- ``s4tf.parameters``: the weights it reads from a parameter archive, as JSON
  ``{"w": [[3, 2], "f32"], ...}``;
- ``s4tf.driver``: the IREE driver that runs it best on a CPU (``local-sync`` or
  ``local-task``, by :func:`s4tf.runtime.loop_driver.driver_for`), used unless the user
  names another (on the host and under qemu alike).

```python
entries = reflection("cpu", host_cpu(), {"w": TensorType((3, 2), "f32")})
recorded([vm_module.lookup_function("predict").reflection]).parameters
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from s4tf.dialects.types import TensorType
from s4tf.core.errors import S4tfError
from s4tf.runtime.cpu import Cpu

TARGET_KEY = "s4tf.target"
CPU_KEY = "s4tf.cpu"
CPU_FEATURES_KEY = "s4tf.cpu_features"
PARAMETERS_KEY = "s4tf.parameters"
DRIVER_KEY = "s4tf.driver"


class ReflectionError(S4tfError, ValueError):
    """Reflection entries s4tf cannot read back."""


def reflection(target: str, cpu: Cpu | None, parameters: dict[str, TensorType], driver: str | None = None) -> dict[str, str]:
    """The entries for a module built for ``target`` (and ``cpu``) that reads ``parameters``
    and runs best on ``driver``."""
    entries = {TARGET_KEY: target}
    if driver is not None:
        entries[DRIVER_KEY] = driver
    if cpu is not None:
        entries[CPU_KEY] = cpu.name
        entries[CPU_FEATURES_KEY] = ",".join(f"+{feature}" for feature in sorted(cpu.enabled))
    if parameters:
        entries[PARAMETERS_KEY] = json.dumps({key: [list(kind.shape), kind.dtype] for key, kind in parameters.items()})
    return entries


@dataclass(frozen=True)
class Recorded:
    """What a module's functions record (``None``: nothing, or not one value for all)."""

    target: str | None
    cpu: Cpu | None
    parameters: dict[str, TensorType] | None
    #: The driver it runs best on (``None``: not recorded, as by s4tf before 31.7).
    driver: str | None = None

    @property
    def reads_parameters(self) -> bool:
        return self.parameters is not None


def recorded(reflections) -> Recorded:
    """Read back the entries of :func:`reflection` from the functions' reflection dicts."""
    reflections = list(reflections)

    def one(key: str) -> str | None:
        values = {r[key] for r in reflections if key in r}
        return values.pop() if len(values) == 1 else None

    cpu_name, features = one(CPU_KEY), one(CPU_FEATURES_KEY)
    cpu = Cpu(cpu_name, tuple(features.split(","))) if cpu_name and features else None
    parameters = _parameters(one(PARAMETERS_KEY), any(PARAMETERS_KEY in r for r in reflections))
    return Recorded(one(TARGET_KEY), cpu, parameters, one(DRIVER_KEY))


def _parameters(text: str | None, present: bool) -> dict[str, TensorType] | None:
    if not present:
        return None
    try:
        return {key: TensorType(tuple(shape), dtype) for key, (shape, dtype) in json.loads(text).items()}
    except (TypeError, ValueError, AttributeError, S4tfError):
        raise ReflectionError("its parameter declarations cannot be read (built by an older s4tf?); compile it again") from None
