"""A call of one function of a loaded IREE module, with what does not change prepared once.

IREE's Python wrapper (``module.function(*args)``, a ``FunctionInvoker``) is made anew for
each lookup and converts each result through a generic walk (with per-call bookkeeping for
its error messages). Here IREE's own argument packer (which copies NumPy arrays to the
device), the context and the function are looked up once per function; a call packs,
invokes and wraps each result in a ``DeviceArray``, as the wrapper does for modules without
ABI reflection (s4tf's: their functions declare tensors only). Functions whose declared
results are not all tensors keep IREE's wrapper. Element types and shapes of the inputs
are checked by the module itself (``hal.buffer_view.assert``) either way.

```python
call = prepared_call(context, device, vm_function, declaration) or wrapper   # once per function
results = call(arguments)                                                    # a list of DeviceArrays
```
"""

from __future__ import annotations

import re

import iree.runtime as iree_runtime
from iree.runtime.function import ArgumentPacker, InvokeContext, _invoke_statics

_OUTPUT = re.compile(r"%output\d+: ([^,)]*)")


class PreparedCall:
    """``call(arguments) -> [DeviceArray, ...]`` for a function of ``result_count`` tensors."""

    __slots__ = ("_context", "_device", "_function", "_packer", "_result_count")

    def __init__(self, context, device, vm_function, result_count: int):
        self._context = context
        self._device = device
        self._function = vm_function
        self._packer = ArgumentPacker(_invoke_statics, None)  # no ABI descriptions: IREE's dynamic packing
        self._result_count = result_count

    def __call__(self, arguments) -> list:
        device = self._device
        argument_list = self._packer.pack(InvokeContext(device), arguments, {})
        result_list = iree_runtime.VmVariantList(self._result_count)
        self._context.invoke(self._function, argument_list, result_list)
        buffer_view = iree_runtime.HalBufferView
        return [
            iree_runtime.DeviceArray(device, result_list.get_as_object(i, buffer_view), implicit_host_transfer=True)
            for i in range(len(result_list))
        ]


def tensor_result_count(declaration: str) -> int | None:
    """How many results ``declaration`` (IREE's ``iree.abi.declaration``) lists, if all are
    tensors; ``None`` otherwise. ``"sync func @f(%input0: tensor<2xf32>) -> (%output0:
    tensor<2xf32>)"`` -> 1."""
    if " -> " not in declaration:
        return 0 if declaration.startswith("sync func @") and declaration.endswith(")") else None
    outputs = _OUTPUT.findall(declaration.partition(" -> ")[2])
    return len(outputs) if all(o.startswith("tensor<") for o in outputs) else None


def prepared_call(context: iree_runtime.VmContext, device, vm_function, declaration: str) -> PreparedCall | None:
    """A :class:`PreparedCall` of ``vm_function``, or ``None`` when its ``declaration`` (empty:
    none) does not make every result a tensor (IREE's wrapper then converts them)."""
    count = tensor_result_count(declaration) if declaration else None
    return None if count is None else PreparedCall(context, device, vm_function, count)
