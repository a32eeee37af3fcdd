"""How IREE schedules a module: submissions and host waits in its stream IR.

```python
submissions_and_waits(stablehlo_text, "train_step")   # (1, 1): one submission, one wait
```
"""

from iree.compiler import compile_str


def submissions_and_waits(stablehlo: str, entry: str) -> tuple[int, int]:
    """``(stream.cmd.execute, stream.timepoint.await)`` counts in ``entry`` of IREE's stream
    IR for the StableHLO module ``stablehlo`` (CPU): a ``stablehlo.optimization_barrier`` on
    device values ends a submission and adds a host wait."""
    stream = compile_str(stablehlo, target_backends=["llvm-cpu"], input_type="stablehlo",
                         extra_args=["--compile-to=stream"]).decode()
    body = stream[stream.index(f"util.func public @{entry}("):].split("\n  }", 1)[0]
    return body.count("stream.cmd.execute"), body.count("stream.timepoint.await")
