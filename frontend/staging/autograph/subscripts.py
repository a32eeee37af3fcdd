"""The AutoGraph rewrite of assignments to an element of a local variable: tensors are
values (S4TF's mutable value semantics), so ``x[i] = v`` rebinds ``x`` to an updated copy
and the caller's arrays never change. Other values (lists, dicts, NumPy arrays) are still
assigned in place: the helpers (:func:`s4tf.arrays.indexing.setitem`) decide by the value.

```python
x[i] = v               ──▶    x = ag__.setitem(x, i, v)
x[1:, j] += v          ──▶    x = ag__.augmented_setitem(x, (ag__.slice_(1, None, None), j), v, 'iadd')
```

Only names local to the function are rewritten (its parameters and the names it assigns,
not ``global``/``nonlocal`` ones): rebinding another scope's name would make it local.
The rewrite runs before the analysis of ``if``/``while``/``for`` statements, so such an
assignment inside a staged loop or branch carries ``x`` out of it.
"""

from __future__ import annotations

import ast

from s4tf.staging.autograph.analysis import own_nodes, stores

#: In-place operator names (the ``operator`` module's) of augmented assignments.
_OPERATORS = {
    ast.Add: "iadd", ast.Sub: "isub", ast.Mult: "imul", ast.Div: "itruediv", ast.FloorDiv: "ifloordiv",
    ast.Mod: "imod", ast.Pow: "ipow", ast.MatMult: "imatmul", ast.BitAnd: "iand", ast.BitOr: "ior",
    ast.BitXor: "ixor", ast.LShift: "ilshift", ast.RShift: "irshift",
}


def rewrite_subscript_assignments(function: ast.FunctionDef, helpers: str) -> None:
    """Rewrite ``name[index] = value`` and ``name[index] op= value`` in ``function``'s own
    body (not in nested functions: each is rewritten on its own) for local ``name``s."""
    arguments = function.args
    parameters = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    parameters += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    declared = {name for node in own_nodes(function.body) if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
    local_names = (set(parameters) | stores(function.body)) - declared
    function.body = [_Rewrite(local_names, helpers).visit(statement) for statement in function.body]


class _Rewrite(ast.NodeTransformer):
    def __init__(self, local_names: set[str], helpers: str):
        self.local_names = local_names
        self.helpers = helpers

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def _target(self, target) -> str | None:
        """The local name ``target`` (``name[index]``) assigns an element of, if any."""
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in self.local_names:
            return target.value.id
        return None

    def _call(self, name: str, *arguments: ast.expr) -> ast.Call:
        return ast.Call(ast.Attribute(ast.Name(self.helpers, ast.Load()), name, ast.Load()), list(arguments), [])

    def _index(self, index: ast.expr) -> ast.expr:
        """The subscript as an expression: ``a:b`` becomes ``slice(a, b, None)``."""
        if isinstance(index, ast.Slice):
            parts = [p if p is not None else ast.Constant(None) for p in (index.lower, index.upper, index.step)]
            return self._call("slice_", *parts)
        if isinstance(index, ast.Tuple):
            return ast.Tuple([self._index(element) for element in index.elts], ast.Load())
        return index

    def _assign(self, name: str, call: ast.Call, at: ast.stmt) -> ast.Assign:
        assign = ast.Assign([ast.Name(name, ast.Store())], call)
        for node in ast.walk(assign):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                ast.copy_location(node, at)
        return assign

    def visit_Assign(self, node):
        if len(node.targets) != 1 or (name := self._target(node.targets[0])) is None:
            return node
        target = node.targets[0]
        call = self._call("setitem", ast.Name(name, ast.Load()), self._index(target.slice), node.value)
        return self._assign(name, call, node)

    def visit_AugAssign(self, node):
        if (name := self._target(node.target)) is None or type(node.op) not in _OPERATORS:
            return node
        call = self._call(
            "augmented_setitem", ast.Name(name, ast.Load()), self._index(node.target.slice), node.value,
            ast.Constant(_OPERATORS[type(node.op)]),
        )
        return self._assign(name, call, node)
