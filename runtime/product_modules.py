"""How a CPU module whose work is mid-size float32 matrix products is compiled and driven.

A *product-bound* module (a training step of a multilayer perceptron, say) is straight-line
code whose time is its ``stablehlo.dot_general``\\ s: no convolution, no loop, every
product on float32, no tensor over :data:`MAX_TENSOR_BYTES`, and at least one over
:data:`s4tf.runtime.loop_driver.SMALL_TENSOR_BYTES` (smaller modules are dispatch-bound
and handled there). Measured on the 2-core znver3 machine (docs/benchmarks.md, "The MLP
step: data tiling and local-sync"), for the MLP 784-512-512-10 Adam step at batch 128:

- IREE's data tiling from global optimization, with its ``mmt4d`` ukernels
  (:data:`DATA_TILING_FLAGS`), packs the products' operands into AVX2-sized tiles: the
  step's CPU time in ``iree-benchmark-module`` fell from 12.2 to 9.0 ms on ``local-sync``
  (the dispatch-creation path, ``--iree-opt-data-tiling``, fails to compile the step in
  IREE 3.13: vectors over its 16 KiB limit);
- ``local-sync`` runs the step's 50-odd dispatches on the calling thread: about a quarter
  less CPU time than ``local-task``'s two workers and, on the loaded machine, less wall time.

```python
product_bound(text)               # True for the MLP step's lowered module
product_driver(text, "local-task")  # "local-sync"
data_tiling_flags(text, "x86_64")  # ['--iree-global-opt-data-tiling=true', '--iree-llvmcpu-enable-ukernels=mmt4d']
```

``S4TF_DATA_TILING=0`` compiles without data tiling (and keeps ``local-task``).
"""

from __future__ import annotations

import os
import re

from s4tf.runtime.loop_driver import SMALL_TENSOR_BYTES, largest_tensor_bytes

#: A product-bound module has no tensor larger than this (the MLP's 784x512 weight is
#: 1.6 MB; a transformer block's 1024-wide activations, 4 MiB, are left as they were).
MAX_TENSOR_BYTES = 2 * 1024 * 1024
#: What IREE 3.13 is told for a product-bound module on an x86-64 CPU.
DATA_TILING_FLAGS = ("--iree-global-opt-data-tiling=true", "--iree-llvmcpu-enable-ukernels=mmt4d")

_PRODUCT = re.compile(r"\bstablehlo\.dot(?:_general)?\b[^\n]*->\s*(tensor<[^>]*>)")
_EXCLUDED = re.compile(r"\bstablehlo\.(?:convolution|while)\b|\bscf\.while\b|tensor<[^>]*\?")


def product_bound(module_text: str) -> bool:
    """Whether ``module_text`` (lowered StableHLO) is product-bound (see the module docstring)."""
    results = _PRODUCT.findall(module_text)
    if not results or not all(result.endswith("xf32>") for result in results) or _EXCLUDED.search(module_text):
        return False
    return SMALL_TENSOR_BYTES < largest_tensor_bytes(module_text) <= MAX_TENSOR_BYTES


def data_tiling_enabled() -> bool:
    return os.environ.get("S4TF_DATA_TILING") != "0"


def product_driver(module_text: str, driver: str) -> str:
    """``local-sync`` for a product-bound module on ``local-task`` (unless
    ``S4TF_DATA_TILING=0``), else ``driver``."""
    if driver == "local-task" and data_tiling_enabled() and product_bound(module_text):
        return "local-sync"
    return driver


def data_tiling_flags(module_text: str, architecture: str | None) -> list[str]:
    """:data:`DATA_TILING_FLAGS` for a product-bound module compiled for this x86-64 machine
    (``architecture``: the target's CPU architecture, ``None`` when it is not this host's);
    none otherwise, or with ``S4TF_DATA_TILING=0``."""
    if architecture != "x86_64" or not data_tiling_enabled() or not product_bound(module_text):
        return []
    return list(DATA_TILING_FLAGS)
