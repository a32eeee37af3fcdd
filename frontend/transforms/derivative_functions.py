"""The derivative functions of a traced function, built by the AD passes in the trace's module.

``grad``, ``jvp`` and ``vjp`` (:mod:`s4tf.transforms.autodiff`) trace the function to differentiate
into the module of the function being traced around them, which is still under
construction: the caller has no terminator yet. The function to differentiate is finished,
and so are its callees. The code of the ``s4tf-jvp``/``s4tf-vjp`` passes (``jvp_function``,
``vjp_functions``) runs on the trace's module itself, under the passes' guard (an op built
outside the passes' IR builder is an internal error): it reads the function it is given,
its callees and the derivatives built before (which it reuses), never the caller, and
appends the functions it builds; only then does the caller call them. So nothing is
copied, and ``vjp``'s forward half is called with the residual types its linearization found.

```python
vjp, fwd, bwd = derivative_functions(trace, "loss", [0], vjp_functions, "s4tf-vjp")
```
"""

from __future__ import annotations

from s4tf.dialects.symbols import functions
from s4tf.passes.registry import running


def derivative_functions(trace, symbol: str, wrt: list[int], build, pass_name: str):
    """``build(module, symbol, wrt)`` (an AD pass's entry point) run on ``trace``'s module;
    returns what it returns, once the symbols of the functions it added are the trace's."""
    before = set(functions(trace.module))
    with running(pass_name):
        result = build(trace.module.operation, symbol, wrt)
    trace.reserve_symbols(set(functions(trace.module)) - before)
    return result
