"""How a CPU module whose work is float32 matrix products is compiled.

A *product module* is straight-line code whose time is its ``stablehlo.dot_general`` ops:
no convolution, no loop, static shapes, every product on float32, and a tensor over
:data:`s4tf.runtime.loop_driver.SMALL_TENSOR_BYTES` (smaller modules are dispatch-bound and
run on ``local-sync``: see there). On an x86-64 host it is compiled with IREE's data tiling
from global optimization and its ``mmt4d`` ukernels (:data:`DATA_TILING_FLAGS`), which
pack the products' operands into AVX2-sized tiles, and it runs on the device's driver,
``local-task``: on the 2-core znver3 machine the MLP and transformer-block training steps
are faster this way than without data tiling, and faster on ``local-task`` than on
``local-sync`` (which uses one core); the figures are in docs/benchmarks.md ("The MLP
training step").

IREE-3.13-WORKAROUND: the dispatch-creation path (``--iree-opt-data-tiling``) fails to compile the
MLP step in IREE 3.13 (vectors over its 16 KiB limit), so data tiling is set in global
optimization.

```python
data_tiling_flags(text, "x86_64")  # ['--iree-global-opt-data-tiling=true', '--iree-llvmcpu-enable-ukernels=mmt4d']
```

``S4TF_DATA_TILING=0`` turns it off.
"""

from __future__ import annotations

import os
import re

from s4tf.runtime.loop_driver import SMALL_TENSOR_BYTES, has_dynamic_shape, has_loop, largest_tensor_bytes

#: What IREE is told for a product module on an x86-64 CPU (IREE-3.13-WORKAROUND: global-optimization
#: data tiling, as IREE 3.13's dispatch-creation path fails on the MLP step).
DATA_TILING_FLAGS = ("--iree-global-opt-data-tiling=true", "--iree-llvmcpu-enable-ukernels=mmt4d")

_PRODUCT = re.compile(r"\bstablehlo\.dot(?:_general)?\b[^\n]*->\s*(tensor<[^>]*>)")
_CONVOLUTION = re.compile(r"\bstablehlo\.convolution\b")


def product_module(module_text: str) -> bool:
    """Whether ``module_text`` (lowered StableHLO) is a product module (see the module docstring)."""
    results = _PRODUCT.findall(module_text)
    if not results or not all(result.endswith("xf32>") for result in results):
        return False
    if _CONVOLUTION.search(module_text) or has_loop(module_text) or has_dynamic_shape(module_text):
        return False
    return largest_tensor_bytes(module_text) > SMALL_TENSOR_BYTES


def data_tiling_enabled() -> bool:
    return os.environ.get("S4TF_DATA_TILING") != "0"


def data_tiling_flags(module_text: str, architecture: str | None) -> list[str]:
    """:data:`DATA_TILING_FLAGS` for a product module compiled for this x86-64 machine
    (``architecture``: the target's CPU architecture, ``None`` when it is not this host's);
    none otherwise, or with ``S4TF_DATA_TILING=0``."""
    if architecture != "x86_64" or not data_tiling_enabled() or not product_module(module_text):
        return []
    return list(DATA_TILING_FLAGS)
