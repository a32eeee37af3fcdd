"""Freed buffers stay in the process once a CPU device exists (runtime/host_memory.py):
a block over glibc's 32 MiB mapping threshold, freed and allocated again, faults in no
fresh pages; a freed device buffer is handed out again by IREE's caching allocator; the
user's own choice is left alone. Each case runs in a fresh process, since malloc's
settings are the whole process's."""

import os
import subprocess
import sys

import pytest

from s4tf.runtime.host_memory import USER_CHOICES

#: Runs a staged call (making the CPU device), then frees and allocates a 64 MiB block
#: again through malloc, as IREE does (NumPy asks for huge pages), and prints the page
#: faults of the second block's first writes.
PROGRAM = """
import ctypes, resource
import numpy as np
import s4tf
s4tf.function(lambda x: x + 1)(np.ones(4, np.float32))
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes, libc.free.argtypes = ctypes.c_void_p, (ctypes.c_size_t,), (ctypes.c_void_p,)
size = 1 << 26
block = libc.malloc(size); ctypes.memset(block, 1, size); libc.free(block)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = libc.malloc(size); ctypes.memset(block, 1, size)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

PAGES = (1 << 26) // 4096  # pages of the 64 MiB block


def printed_by(program: str, **variables: str) -> int:
    """The number ``program`` prints last, run in a fresh process with ``variables`` set and
    no memory settings of the user's."""
    environment = {k: v for k, v in os.environ.items() if k not in (*USER_CHOICES, "S4TF_KEEP_FREED_MEMORY")}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env={**environment, **variables})
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split()[-1])


def faults_of_a_reused_block(**variables: str) -> int:
    return printed_by(PROGRAM, **variables)


def test_a_freed_block_is_reused_without_faults_once_a_cpu_device_exists():
    assert faults_of_a_reused_block() < PAGES // 10


@pytest.mark.parametrize("variables", [{"S4TF_KEEP_FREED_MEMORY": "0"}, {"MALLOC_TRIM_THRESHOLD_": "131072"}])
def test_the_users_choice_is_left_alone(variables):
    assert faults_of_a_reused_block(**variables) >= PAGES  # glibc's default: a fresh mapping, every page faulted in


#: Calls a staged function of a 16 MiB vector three times, dropping each result, and prints
#: the bytes IREE's heap allocator allocated (the caching allocator's own reuse is not one).
CALLS = """
import numpy as np
import s4tf
from s4tf.runtime.device import device_for
f = s4tf.function(lambda x: x * 2.0 + 1.0)
x = np.ones(1 << 22, np.float32)
for _ in range(3):
    assert np.array_equal(np.asarray(f(x)), np.full(1 << 22, 3.0, np.float32))
print(device_for("cpu").allocator.statistics["device_bytes_allocated"])
"""


def heap_bytes_of_three_calls(**variables: str) -> int:
    return printed_by(CALLS, **variables)


def test_a_freed_device_buffer_is_handed_out_again():
    assert heap_bytes_of_three_calls() == 1 << 24  # the first call's result, reused by the others


def test_without_caching_where_the_user_chose():
    assert heap_bytes_of_three_calls(S4TF_KEEP_FREED_MEMORY="0") == 3 << 24
