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
data_tiling_flags(ModuleTraits.of(module), "x86_64")  # ['--iree-global-opt-data-tiling=true', ...]
```

``S4TF_DATA_TILING=0`` turns it off.
"""

from __future__ import annotations

import os

from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.loop_driver import SMALL_TENSOR_BYTES

#: What IREE is told for a product module on an x86-64 CPU (IREE-3.13-WORKAROUND: global-optimization
#: data tiling, as IREE 3.13's dispatch-creation path fails on the MLP step).
DATA_TILING_FLAGS = ("--iree-global-opt-data-tiling=true", "--iree-llvmcpu-enable-ukernels=mmt4d")

def product_module(traits: ModuleTraits) -> bool:
    """Whether a module of ``traits`` is a product module (see the module docstring)."""
    if not traits.product_types or any(t != "f32" for t in traits.product_types):
        return False
    if traits.convolutions or traits.loops or traits.dynamic_shapes:
        return False
    return traits.largest_tensor_bytes > SMALL_TENSOR_BYTES


def data_tiling_enabled() -> bool:
    return os.environ.get("S4TF_DATA_TILING") != "0"


def data_tiling_flags(traits: ModuleTraits, architecture: str | None) -> list[str]:
    """:data:`DATA_TILING_FLAGS` for a product module compiled for this x86-64 machine
    (``architecture``: the target's CPU architecture, ``None`` when it is not this host's);
    none otherwise, or with ``S4TF_DATA_TILING=0``."""
    if architecture != "x86_64" or not data_tiling_enabled() or not product_module(traits):
        return []
    return list(DATA_TILING_FLAGS)
