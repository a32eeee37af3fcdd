"""IREE devices and loaded modules.

One runtime configuration per driver is created on first use and shared. Arrays live
on the device as ``iree.runtime.DeviceArray`` until the host asks for them.

```python
module = load_module(vmfb, "cpu")
outputs = module.invoke("predict", [x, w])   # DeviceArrays stay on the device
```
"""

from __future__ import annotations

from functools import lru_cache

import iree.runtime as iree_runtime
import numpy as np

from s4tf.errors import S4tfError
from s4tf.runtime.targets import get_target


class ModuleLoadError(S4tfError, RuntimeError):
    """A ``.vmfb`` that IREE's runtime refuses to load."""


@lru_cache(maxsize=None)
def runtime_config(driver: str) -> iree_runtime.Config:
    return iree_runtime.Config(driver)


def device_for(target: str):
    return runtime_config(get_target(target).driver).device


def to_device(array: np.ndarray, target: str = "cpu") -> iree_runtime.DeviceArray:
    """Copy a host array onto the target's device."""
    return iree_runtime.asdevicearray(device_for(target), np.ascontiguousarray(array))


class LoadedModule:
    """A compiled module loaded into its own runtime context."""

    def __init__(self, vmfb: bytes, target: str = "cpu"):
        config = runtime_config(get_target(target).driver)
        try:
            vm_module = iree_runtime.VmModule.copy_buffer(config.vm_instance, vmfb)
            self._context = iree_runtime.SystemContext(vm_modules=[vm_module], config=config)
        except (RuntimeError, ValueError) as error:
            raise ModuleLoadError(f"cannot load module for target '{target}': {error}") from None
        self.name = vm_module.name
        self.function_names = [n for n in vm_module.function_names if not n.startswith("__")]
        self._functions = getattr(self._context.modules, self.name)

    def invoke(self, function: str, arguments: list) -> list:
        """Call ``function``; results are returned as a list of DeviceArrays."""
        results = self._functions[function](*arguments)
        if results is None:
            return []
        return list(results) if isinstance(results, tuple) else [results]
