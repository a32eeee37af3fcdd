"""The s4tf dialect as an IRDL spec, derived from the op definitions.

MLIR tools load it with ``--irdl-file`` and then check operand counts, result counts,
attribute presence and kinds of every ``s4tf.*`` op, independently of our own verifier:

```
python -m s4tf.dialects.irdl > s4tf.irdl.mlir
iree-opt --irdl-file=s4tf.irdl.mlir model.mlir
```

```mlir
irdl.dialect @s4tf {
  irdl.operation @add {
    %operand_lhs = irdl.base "!builtin.tensor"
    %operand_rhs = irdl.base "!builtin.tensor"
    %result = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %operand_lhs, rhs: %operand_rhs)
    irdl.results(result: %result)
  }
}
```
"""

from __future__ import annotations

import sys

from s4tf.dialects.op_def import DIALECT, OPS, Op

TENSOR = "!builtin.tensor"


def _constraint(name: str, base: str) -> str:
    return f'    %{name} = irdl.base "{base}"' if base else f"    %{name} = irdl.any"


def operation_spec(op: type[Op]) -> list[str]:
    """One ``irdl.operation``; every operand and result gets its own constraint value
    (IRDL makes uses of one constraint value agree on one type). The elements of a
    variadic operand or result share one value, so IRDL accepts ``s4tf.host_call`` only
    when its operands have one type and its results one type; ``s4tf-verify`` checks any."""
    names = [name.rstrip("*") for name in op.operands]
    variadic = {name.rstrip("*"): "variadic " if name.endswith("*") else "" for name in op.operands}
    lines = [f"  irdl.operation @{op.name} {{"]
    lines += [_constraint(f"operand_{name}", TENSOR) for name in names]
    lines += [_constraint(f"result_{name}", TENSOR) for name in op.results]
    if names:
        lines.append(f"    irdl.operands({', '.join(f'{name}: {variadic[name]}%operand_{name}' for name in names)})")
    variadic_results = "variadic " if op.variadic_results or op.regions else ""
    lines.append(f"    irdl.results({', '.join(f'{name}: {variadic_results}%result_{name}' for name in op.results)})")
    if op.regions:
        lines += [f"    %region_{name} = irdl.region" for name in op.regions]
        lines.append(f"    irdl.regions({', '.join(f'{name}: %region_{name}' for name in op.regions)})")
    if op.attributes:
        lines += [_constraint(f"attr_{key}", kind.irdl_base) for key, kind in op.attributes.items()]
        pairs = ", ".join(f'"{key}" = %attr_{key}' for key in op.attributes)
        lines.append(f"    irdl.attributes {{{pairs}}}")
    lines.append("  }")
    return lines


def irdl_spec() -> str:
    """The IRDL module for every registered s4tf op."""
    lines = [f"irdl.dialect @{DIALECT} {{"]
    for full_name in sorted(OPS):
        lines += operation_spec(OPS[full_name])
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(irdl_spec())
