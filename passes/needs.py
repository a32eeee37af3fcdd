"""``s4tf.needs``: the Python callables a module's IR names, stated on the module.

A host call names a Python function by its symbol in the host-function table
(:mod:`s4tf.dialects.host_ops`); ``s4tf.custom_batch`` names the builder of a custom
batching rule (:data:`s4tf.passes.batching.CUSTOM_RULES`). Both exist only in the process
that staged the module. A staged module lists them in a module attribute, so that a
process that would call them and has not registered them (``s4tf-opt`` running a pass that
calls them, :attr:`~s4tf.passes.registry.ModulePass.calls_python`; a host program) fails up
front, before any pass runs, with one error naming every missing callable:

```mlir
module attributes {s4tf.needs = {custom_rules = ["f#0"], host_functions = ["cpu_solver"]}} { ... }
```
"""

from __future__ import annotations

from s4tf.core.errors import S4tfError
from s4tf.core.mlir import ir
from s4tf.dialects.attributes import SYMBOL
from s4tf.dialects.host_ops import HOST_FUNCTIONS
from s4tf.passes.batching import CUSTOM_BATCH, CUSTOM_RULES
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass

NEEDS = "s4tf.needs"
#: Per kind of callable: the table of this process it must be registered in, and how errors name it.
TABLES = {
    "custom_rules": (CUSTOM_RULES, "custom batching rule"),
    "host_functions": (HOST_FUNCTIONS, "host function"),
}


class MissingCallablesError(S4tfError):
    """A module names Python callables that are not registered in this process."""


def named_callables(module: ir.Operation) -> dict[str, list[str]]:
    """What ``module``'s IR names, by kind (each list sorted, kinds with none left out)."""
    found = {kind: set() for kind in TABLES}
    for operation in collect(module, lambda op: op.name == "s4tf.host_call" or CUSTOM_BATCH in op.attributes):
        if operation.name == "s4tf.host_call":
            found["host_functions"].add(SYMBOL.from_mlir(operation.attributes["callee"]))
        else:
            found["custom_rules"].add(ir.StringAttr(operation.attributes[CUSTOM_BATCH]).value)
    return {kind: sorted(names) for kind, names in found.items() if names}


def state_needs(module: ir.Operation) -> None:
    """Set ``s4tf.needs`` on ``module`` to what its IR names (removed where it names none)."""
    needs = named_callables(module)
    with module.context:
        if needs:
            module.attributes[NEEDS] = ir.DictAttr.get(
                {kind: ir.ArrayAttr.get([ir.StringAttr.get(name) for name in names]) for kind, names in needs.items()}
            )
        elif NEEDS in module.attributes:
            del module.attributes[NEEDS]


def stated_needs(module: ir.Operation) -> dict[str, list[str]]:
    """The callables ``module``'s ``s4tf.needs`` lists, by kind (empty without one)."""
    if NEEDS not in module.attributes:
        return {}
    attribute = module.attributes[NEEDS]
    problem = f"the module attribute {NEEDS} must be a dictionary of lists of strings, keys among {sorted(TABLES)}"
    if not isinstance(attribute, ir.DictAttr):
        raise MissingCallablesError(f"{problem}, got {attribute}")
    needs = {}
    for named in attribute:
        if named.name not in TABLES or not isinstance(named.attr, ir.ArrayAttr):
            raise MissingCallablesError(f"{problem}, got {named.name} = {named.attr}")
        if not all(isinstance(item, ir.StringAttr) for item in named.attr):
            raise MissingCallablesError(f"{problem}, got {named.name} = {named.attr}")
        needs[named.name] = [ir.StringAttr(item).value for item in named.attr]
    return needs


def check_needs(needs: dict[str, list[str]]) -> None:
    """One :class:`MissingCallablesError` naming each callable of ``needs`` (by kind, as
    :func:`stated_needs` gives) that this process has not registered."""
    missing = []
    for kind, names in needs.items():
        table, what = TABLES[kind]
        absent = [repr(name) for name in names if name not in table]
        if absent:
            missing.append(f"{what}{'s' if len(absent) > 1 else ''} {', '.join(absent)}")
    if missing:
        raise MissingCallablesError(
            f"the module needs {' and '.join(missing)}, which this process has not registered: they are Python "
            "callables that must be registered in the running process (s4tf.host(fn), @s4tf.batching_rule); run "
            "the module in the process that staged it, or stage its Python code again in this one"
        )


def check_module_needs(module: ir.Operation, pipeline) -> None:
    """:func:`check_needs` of what ``module`` states it needs (``s4tf.needs``), of the kinds
    that the passes of ``pipeline`` call."""
    kinds = {kind for element in pipeline if isinstance(element, ModulePass) for kind in element.calls_python}
    check_needs({kind: names for kind, names in stated_needs(module).items() if kind in kinds})
