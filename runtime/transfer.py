"""Copies between the host and a device, for every driver.

Reading a device array always makes a host copy. ``DeviceArray.to_host()`` hands back a
mapping of a host-visible buffer, not a copy, and IREE reuses that memory for another
call's results once the array is dropped (or writes into it when the array is donated), so
a mapping given to a user would silently show other data. What the copy costs against a
mapping: docs/trust.md, "Host arrays are copies".

For buffers the host cannot map, ``DeviceArray.to_host()`` imports a NumPy
allocation into the device, which Mesa's lavapipe (Vulkan) refuses ("host allocation
import pointer does not satisfy Vulkan minImportedHostPointerAlignment 4096"). Here a
buffer the host cannot map is copied by the device into a staging buffer it allocates
itself (host-local, device-visible), which is then mapped.

```python
array = to_host(device_array)   # a NumPy array, on any device
```
"""

from __future__ import annotations

import iree.runtime as iree_runtime
import numpy as np

_MAPPABLE = int(iree_runtime.MemoryType.HOST_VISIBLE)
_MAPPING_USAGE = int(iree_runtime.BufferUsage.MAPPING_SCOPED)
_STAGING_MEMORY = int(iree_runtime.MemoryType.HOST_LOCAL | iree_runtime.MemoryType.DEVICE_VISIBLE)
_STAGING_USAGE = int(iree_runtime.BufferUsage.TRANSFER_TARGET | iree_runtime.BufferUsage.MAPPING)


def _host_can_map(buffer: iree_runtime.HalBuffer) -> bool:
    return (buffer.memory_type() & _MAPPABLE) == _MAPPABLE and (buffer.allowed_usage() & _MAPPING_USAGE) == _MAPPING_USAGE


#: IREE's element type (an int) -> the NumPy dtype of its stored elements.
_STORED: dict[int, np.dtype] = {}


def _stored_dtype(element_type: int) -> np.dtype:
    dtype = _STORED.get(element_type)
    if dtype is None:
        dtype = _STORED[element_type] = np.dtype(iree_runtime.HalElementType.map_to_dtype(element_type))
    return dtype


def to_host(array: iree_runtime.DeviceArray) -> np.ndarray:
    """A host copy of ``array``'s elements, in its NumPy dtype, that no later call changes.
    A buffer the host can map is read through Python's buffer protocol (an ``ndarray`` over
    the mapping) and copied, cheaper than ``DeviceArray.to_host()``'s generic path."""
    buffer_view = array._buffer_view
    buffer = buffer_view.get_buffer()
    if _host_can_map(buffer):
        mapped = np.ndarray(buffer_view.shape, _stored_dtype(buffer_view.element_type), buffer=buffer_view.map())
        wanted = array._override_dtype
        return mapped.astype(wanted) if wanted is not None and wanted != mapped.dtype else mapped.copy()
    device = array._device
    staging = device.allocator.allocate_buffer(
        memory_type=_STAGING_MEMORY, allowed_usage=_STAGING_USAGE, allocation_size=buffer.byte_length()
    )
    semaphore = device.create_semaphore(0)
    device.queue_copy(
        buffer,
        staging,
        wait_semaphores=iree_runtime.HalFence.create_at(semaphore, 0),
        signal_semaphores=iree_runtime.HalFence.create_at(semaphore, 1),
    )
    iree_runtime.HalFence.create_at(semaphore, 1).wait()
    raw = np.array(staging.map().asarray([buffer.byte_length()], np.dtype(np.uint8)))
    return raw.view(_stored_dtype(buffer_view.element_type)).reshape(tuple(array.shape)).astype(array.dtype, copy=False)
