"""Freed buffers of the CPU devices stay in the process for the next call.

IREE's CPU devices take their buffers from ``malloc``. glibc's malloc maps each block over
32 MiB on its own and unmaps it when it is freed, so a training step whose transient
buffers are one such block gets it from the kernel again at every call, every 4 KiB page
zero-filled on its first write: ResNet-20's step (a 107 MB block) took 26,000 page faults
a call, 64-74 ms of system time beside a 105-130 ms step. :func:`keep_freed_blocks` has
glibc serve blocks up to 1 GiB from its heap and keep up to 1 GiB of freed memory there
(``mallopt``'s ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD``): the next call reuses the
block, with no fault; the process's peak memory is unchanged (it holds, between calls,
what the last call freed, as the allocators of XLA and PyTorch do).

```python
from s4tf.runtime.host_memory import keep_freed_blocks
keep_freed_blocks()        # True once glibc has been told; called before IREE's CPU devices are made
```

IREE's heap allocator zero-fills every buffer it allocates (its host allocator's
``calloc`` is ``malloc`` and ``memset``), though IREE's programs never read a buffer they
did not write: a host-stepped loop allocating a 1 MiB state a trip spent a fifth of its
time in ``memset``. The CPU devices therefore allocate through IREE's caching allocator
(:func:`cpu_allocators`): a freed buffer is handed out again, as it is, for the next buffer
of its size, up to :data:`HEAP_BLOCK_BYTES` of buffers in all.

```python
from s4tf.runtime.host_memory import cpu_allocators
cpu_allocators()           # ['caching:*=*;1073741824;64']: the allocators IREE's CPU devices are made with
```

Both change how the whole process keeps memory, so they are left alone where the user
chose (``S4TF_KEEP_FREED_MEMORY=0``, or any of glibc's own ``MALLOC_MMAP_THRESHOLD_``,
``MALLOC_TRIM_THRESHOLD_`` and ``GLIBC_TUNABLES`` set); glibc's settings are also left
where the C library has no ``mallopt`` (musl).
"""

from __future__ import annotations

import ctypes
import os
from functools import lru_cache

#: ``mallopt``'s parameters (glibc's ``malloc.h``).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: Blocks up to this size come from the heap, and this much freed memory stays there.
HEAP_BLOCK_BYTES = 1 << 30

#: Freed buffers IREE's caching allocator keeps, at most, for the next of their size.
CACHED_BUFFERS = 64

#: Environment variables by which the user chose how malloc keeps memory.
USER_CHOICES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")


def user_chose() -> bool:
    """Whether the environment says how malloc keeps memory (then s4tf leaves it alone)."""
    return os.environ.get("S4TF_KEEP_FREED_MEMORY") == "0" or any(name in os.environ for name in USER_CHOICES)


@lru_cache(maxsize=None)
def keep_freed_blocks() -> bool:
    """Tell glibc's malloc, once, to keep freed blocks up to :data:`HEAP_BLOCK_BYTES` for
    reuse; whether it was told (not where the user chose, nor without glibc)."""
    if user_chose():
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, HEAP_BLOCK_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD, HEAP_BLOCK_BYTES))


def cpu_allocators() -> list[str]:
    """IREE's allocator specs for the CPU devices: its caching allocator over the first heap
    (``caching:<heap>=<largest buffer>;<bytes held>;<buffers held>``), holding up to
    :data:`HEAP_BLOCK_BYTES` of buffers, live and freed together, and
    :data:`CACHED_BUFFERS` freed ones; none where the user chose how memory is kept."""
    return [] if user_chose() else [f"caching:*=*;{HEAP_BLOCK_BYTES};{CACHED_BUFFERS}"]
