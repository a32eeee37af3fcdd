"""How a CPU module whose work is float32 matrix products is compiled and driven.

A *product module* is straight-line code whose time is its ``stablehlo.dot_general`` ops:
no convolution, no loop, static shapes, every product on float32, and a tensor over
:data:`s4tf.runtime.loop_driver.SMALL_TENSOR_BYTES` (smaller modules are dispatch-bound and
handled there). On an x86-64 host it is compiled with IREE's data tiling from global
optimization and its ``mmt4d`` ukernels (:data:`DATA_TILING_FLAGS`), which pack the
products' operands into AVX2-sized tiles. A product module with no tensor over
:data:`MAX_TENSOR_BYTES` is *product-bound* and loads on ``local-sync``, which runs its
dispatches on the calling thread. Measured on the 2-core znver3 machine under load
(docs/benchmarks.md, "The MLP step: data tiling and local-sync"), in ``iree-benchmark-module``:

- the MLP 784-512-512-10 Adam step at batch 128 (product-bound): 12.2 ms CPU on
  ``local-sync`` without data tiling, 9.0 with it, against 15.5 on ``local-task`` before;
- the transformer block's step at batch 8 (4 MiB activations): 174 ms CPU on
  ``local-task`` without data tiling, 143 with it; ``local-sync`` is slower for it.

The dispatch-creation path (``--iree-opt-data-tiling``) fails to compile the MLP step in
IREE 3.13 (vectors over its 16 KiB limit).

```python
data_tiling_flags(text, "x86_64")  # ['--iree-global-opt-data-tiling=true', '--iree-llvmcpu-enable-ukernels=mmt4d']
product_driver(text, "local-task")  # "local-sync" for the MLP step, "local-task" for the transformer's
```

``S4TF_DATA_TILING=0`` turns both off.
"""

from __future__ import annotations

import os
import re

from s4tf.runtime.loop_driver import SMALL_TENSOR_BYTES, largest_tensor_bytes

#: A product-bound module has no tensor larger than this (the MLP's 784x512 weight is
#: 1.6 MB; a transformer block's 1024-wide activations, 4 MiB, stay on ``local-task``).
MAX_TENSOR_BYTES = 2 * 1024 * 1024
#: What IREE 3.13 is told for a product module on an x86-64 CPU.
DATA_TILING_FLAGS = ("--iree-global-opt-data-tiling=true", "--iree-llvmcpu-enable-ukernels=mmt4d")

_PRODUCT = re.compile(r"\bstablehlo\.dot(?:_general)?\b[^\n]*->\s*(tensor<[^>]*>)")
_EXCLUDED = re.compile(r"\bstablehlo\.(?:convolution|while)\b|\bscf\.while\b|tensor<[^>]*\?")


def _product_tensor_bytes(module_text: str) -> int | None:
    """The bytes of the largest tensor of a product module, ``None`` for any other module."""
    results = _PRODUCT.findall(module_text)
    if not results or not all(result.endswith("xf32>") for result in results) or _EXCLUDED.search(module_text):
        return None
    largest = largest_tensor_bytes(module_text)
    return largest if largest > SMALL_TENSOR_BYTES else None


def product_module(module_text: str) -> bool:
    """Whether ``module_text`` (lowered StableHLO) is a product module (see the module docstring)."""
    return _product_tensor_bytes(module_text) is not None


def product_bound(module_text: str) -> bool:
    """Whether ``module_text`` is a product module with no tensor over :data:`MAX_TENSOR_BYTES`."""
    largest = _product_tensor_bytes(module_text)
    return largest is not None and largest <= MAX_TENSOR_BYTES


def data_tiling_enabled() -> bool:
    return os.environ.get("S4TF_DATA_TILING") != "0"


def product_driver(module_text: str, driver: str) -> str:
    """``local-sync`` for a product-bound module on ``local-task`` (unless
    ``S4TF_DATA_TILING=0``), else ``driver``."""
    if driver == "local-task" and data_tiling_enabled() and product_bound(module_text):
        return "local-sync"
    return driver


def data_tiling_flags(module_text: str, architecture: str | None) -> list[str]:
    """:data:`DATA_TILING_FLAGS` for a product module compiled for this x86-64 machine
    (``architecture``: the target's CPU architecture, ``None`` when it is not this host's);
    none otherwise, or with ``S4TF_DATA_TILING=0``."""
    if architecture != "x86_64" or not data_tiling_enabled() or not product_module(module_text):
        return []
    return list(DATA_TILING_FLAGS)
