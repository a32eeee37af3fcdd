"""Skip marks for tests that need a device this machine may lack."""

import pytest

from s4tf.runtime.device import device_available


def needs_device(device: str):
    return pytest.mark.skipif(not device_available(device), reason=f"no '{device}' device here")
