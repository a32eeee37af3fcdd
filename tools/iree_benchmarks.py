"""A compiled training step as ``iree-benchmark-module`` runs it, without Python: the
StableHLO s4tf compiles for it, zero inputs, and the benchmark's records (issue 17).

```python
stablehlo = step_stablehlo(step, args)          # as s4tf compiles it, donation marks included
subprocess.run([IREE_COMPILE, *compile_flags("cpu"), "--iree-input-type=stablehlo", source, "-o", vmfb])
records = benchmark_module(vmfb, "local-sync", "train_step", zero_inputs(args))   # microseconds
```

Used by ``s4tf-tune`` and by ``tools/bench/profile_step.py``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
from iree.compiler.tools.binaries import find_tool

from s4tf import pytree
from s4tf.passes.iree.donate import Donate
from s4tf.passes.pipeline import lowering_pipeline
from s4tf.staging.donation import donated_positions
from s4tf.staging.tensor import Tensor

TOOLS = Path(__import__("iree._runtime_libs", fromlist=["_"]).__file__).parent
IREE_COMPILE = find_tool("iree-compile")


def step_stablehlo(step, args) -> str:
    """The StableHLO ``step`` compiles for ``args`` (with its donation marks)."""
    lowered = step._lower(args, {})
    donated = tuple(donated_positions(args, step.donate_argnums))
    pipeline = lowering_pipeline(step.target) + ([Donate(entry=lowered.entry, args=donated)] if donated else [])
    return str(lowered.lowered_module(pipeline))


def benchmark_command(vmfb: Path, device: str, function: str | None, inputs, flags) -> list[str]:
    """The ``iree-benchmark-module`` command line for ``function`` of ``vmfb`` on ``device``."""
    command = [str(TOOLS / "iree-benchmark-module"), f"--module={vmfb}", f"--device={device}", *flags]
    command += [f"--function={function}"] if function else []
    return command + [f"--input={spec}" for spec in inputs]


def benchmark_module(vmfb: Path, device: str, function: str | None = None, inputs=(), repetitions: int = 5,
                     flags=()) -> list[dict]:
    """``iree-benchmark-module``'s JSON records (aggregates dropped), one per benchmark and
    repetition, times in microseconds; ``flags``: more of its flags."""
    command = benchmark_command(vmfb, device, function, inputs,
                                ["--benchmark_format=json", f"--benchmark_repetitions={repetitions}", *flags])
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    records = [b for b in json.loads(output)["benchmarks"] if b.get("run_type") == "iteration"]
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    return [{**r, "real_time": r["real_time"] * scale[r["time_unit"]], "cpu_time": r["cpu_time"] * scale[r["time_unit"]]} for r in records]


def zero_inputs(args) -> list[str]:
    """``iree-benchmark-module --input`` values for the step's array arguments, all zeros."""
    leaves = [leaf for leaf in pytree.flatten(args)[0] if hasattr(leaf, "shape") or isinstance(leaf, Tensor)]
    return [f"{'x'.join(map(str, np.shape(leaf)))}{'x' if np.ndim(leaf) else ''}{'i32' if np.asarray(leaf).dtype.kind == 'i' else 'f32'}=0"
            for leaf in leaves]
