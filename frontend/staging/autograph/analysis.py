"""What the AutoGraph rewrite (:mod:`s4tf.staging.autograph.convert`) needs to know about each ``if``,
``while`` and ``for`` of a function: the variables it carries, and why it cannot be staged.

The carried variables of a statement are those it assigns that are read afterwards or
before being assigned inside it (liveness, computed backwards over the statement tree):

```python
def f(x, t):
    if t > 0:
        tmp = s4tf.sin(x)     # tmp: assigned, but not read after the if: not carried
        y = tmp * 2
    else:
        y = x                 # y: carried (read by the return)
    return y
```
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


@dataclass(frozen=True)
class Plan:
    """How to rewrite one statement: ``carried`` variables (in order), ``mutated``: the
    attribute and subscript targets it assigns (``self.n``), and ``unsupported``: why it
    cannot become a region op (``None``: it can), told to the user if its test is a tensor."""

    carried: tuple[str, ...]
    mutated: tuple[str, ...]
    unsupported: str | None


def loads(node: ast.AST) -> set[str]:
    """Names read anywhere in ``node`` (nested functions and comprehensions included)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}


def stores(nodes) -> set[str]:
    """Names that ``nodes`` bind in the enclosing function (not inside nested scopes)."""
    found: set[str] = set()
    for node in own_nodes(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, ast.NamedExpr):
            found.add(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
    return found


def own_nodes(nodes, skip_loops: bool = False):
    """The nodes of ``nodes`` outside nested scopes (and, with ``skip_loops``, nested loops);
    a nested definition itself is included, its body is not."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            stack.extend(getattr(node, "decorator_list", []))
            continue
        if isinstance(node, _COMPREHENSIONS):  # only walrus targets bind outside
            stack.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        if skip_loops and isinstance(node, _LOOPS):  # a `break` in its else clause leaves the outer loop
            stack.extend([node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.test, *node.orelse])
            continue
        stack.extend(ast.iter_child_nodes(node))


def _mutated(body) -> tuple[str, ...]:
    targets = []
    for node in own_nodes(body):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            targets.append(ast.unparse(node))
    return tuple(sorted(set(targets)))


def _unsupported(statement, body, declared: set[str]) -> str | None:
    """Why ``statement`` stays a Python statement (its test must then be a Python value)."""
    kind = "an `if` on a tensor" if isinstance(statement, ast.If) else "a loop on a tensor"
    for node in own_nodes(body):
        if isinstance(node, ast.Return):
            if isinstance(statement, ast.If):
                return (f"a `return` inside {kind} must be the last statement of a branch (not inside a loop, `with` "
                        "or `try`); assign the result to a variable and return it after the `if`")
            return f"`return` inside {kind} is not supported; assign the result to a variable and return it after the loop"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return f"`yield` and `await` inside {kind} are not supported"
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Delete)):
            return f"`{type(node).__name__.lower()}` inside {kind} is not supported"
    for node in own_nodes(body, skip_loops=True):
        if isinstance(node, ast.Break):
            return (f"a `break` inside {kind} must be the last statement of an `if` branch (not inside `with` or "
                    "`try`); fold the exit test into the loop condition instead (while cond and not done: ...)")
        if isinstance(node, ast.Continue):
            return (f"a `continue` inside {kind} must be the last statement of an `if` branch (not inside `with` "
                    "or `try`); put the rest of the loop body under an `if` instead")
    assigned = sorted(stores(body) & declared)
    if assigned:
        return f"assigning the global or nonlocal variable '{assigned[0]}' inside {kind} is not supported; assign a local variable instead"
    return None


class Liveness:
    """Backward liveness over one function body; fills :attr:`plans` for each ``if``,
    ``while`` and ``for`` statement (nested function bodies are analyzed on their own)."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef):
        self.plans: dict[ast.stmt, Plan] = {}
        self.declared = {name for node in own_nodes(function.body)
                         if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
        self.block(function.body, set(), None)

    def block(self, statements, live_out: set[str], loop) -> set[str]:
        """Names live before ``statements``; ``loop``: (live at the loop head, live after it)."""
        live = set(live_out)
        for statement in reversed(statements):
            live = self.statement(statement, live, loop)
        return live

    def statement(self, node: ast.stmt, out: set[str], loop) -> set[str]:
        if isinstance(node, ast.If):
            inside = self.block(node.body, out, loop) | self.block(node.orelse, out, loop)
            self._plan(node, node.body + node.orelse, out | inside)
            return loads(node.test) | inside
        if isinstance(node, ast.While):
            exit_live = self.block(node.orelse, out, loop)
            head = loads(node.test) | exit_live
            while True:
                new = head | self.block(node.body, head, (head, out))
                if new == head:
                    break
                head = new
            self._plan(node, node.body, head)
            return head
        if isinstance(node, ast.For):
            exit_live = self.block(node.orelse, out, loop)
            head = set(exit_live)
            target = stores([node.target])
            while True:
                new = head | (self.block(node.body, head, (head, out)) - target)
                if new == head:
                    break
                head = new
            self._plan(node, [node.target] + node.body, head | out)
            return loads(node.iter) | head
        if isinstance(node, ast.Return):
            return loads(node.value) if node.value else set()
        if isinstance(node, ast.Break):
            return set(loop[1]) if loop else set(out)
        if isinstance(node, ast.Continue):
            return set(loop[0]) if loop else set(out)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return loads(ast.Tuple([i.context_expr for i in node.items], ast.Load())) | self.block(node.body, out, loop)
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            final = self.block(node.finalbody, out, loop)
            handlers = set().union(*(self.block(h.body, final, loop) for h in node.handlers)) if node.handlers else set()
            body_out = self.block(node.orelse, final, loop) | handlers | final
            return self.block(node.body, body_out, loop) | handlers | final | loads(node)
        if isinstance(node, (ast.AsyncFor, ast.Match)):
            return loads(node) | out
        if isinstance(node, ast.AugAssign):
            target = {node.target.id} if isinstance(node.target, ast.Name) else set()  # x += 1 reads x
            return loads(node) | target | (out - stores([node]))
        return loads(node) | (out - stores([node]))

    def _plan(self, node, body, live: set[str]) -> None:
        carried = tuple(sorted(stores(body) & live))
        self.plans[node] = Plan(carried, _mutated(body), _unsupported(node, body, self.declared))
