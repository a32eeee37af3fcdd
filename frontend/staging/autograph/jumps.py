"""``break`` and ``continue`` that end an ``if`` branch inside a loop, rewritten so that a
loop on a tensor can be staged (:mod:`s4tf.staging.autograph.rewrite`); Python's meaning is
unchanged. The rest of the body moves under the ``if``'s other branch, and ``break`` sets
a flag the loop tests:

```python
while x.sum() < 10:                   s4tf_break_1__ = False
    x = x * 2                         while not s4tf_break_1__ and x.sum() < 10:
    if x.max() > 5:          ──▶          x = x * 2
        break                             if x.max() > 5:
    x = x + 1                                 s4tf_break_1__ = True
                                          else:
                                              x = x + 1
```

A ``for`` loop keeps counting after a ``break`` but runs no more of its body. A jump
elsewhere (inside ``with`` or ``try``) stays, and is an error if the loop is on a tensor.
"""

from __future__ import annotations

import ast
import itertools

from s4tf.staging.autograph.analysis import own_nodes

_JUMPS = (ast.Break, ast.Continue)


def _jumps(statements) -> list[ast.stmt]:
    """The ``break``/``continue`` statements of this loop level in ``statements``."""
    return [node for node in own_nodes(statements, skip_loops=True) if isinstance(node, _JUMPS)]


class _Loop:
    """Rewrites the body of one loop; ``flag`` is set when it has a ``break``."""

    def __init__(self, flag: str):
        self.flag = flag
        self.breaks = False

    def body(self, statements: list[ast.stmt]) -> list[ast.stmt] | None:
        """``statements`` without jumps, or ``None`` if a jump is not at a branch's end."""
        for index, statement in enumerate(statements):
            if isinstance(statement, _JUMPS):  # what follows never runs
                return statements[:index] + self._replace(statement)
            if isinstance(statement, ast.If) and _jumps([statement]):
                rest = statements[index + 1:]
                body, orelse = self._branch(statement.body, rest), self._branch(statement.orelse, rest)
                if body is None or orelse is None:
                    return None
                return statements[:index] + [ast.copy_location(ast.If(statement.test, body, orelse), statement)]
        return None if _jumps(statements) else statements

    def _branch(self, branch, rest):
        ends = bool(branch) and isinstance(branch[-1], _JUMPS)
        return self.body(branch if ends else branch + rest)

    def _replace(self, jump: ast.stmt) -> list[ast.stmt]:
        if isinstance(jump, ast.Continue):
            return [ast.copy_location(ast.Pass(), jump)]
        self.breaks = True
        assign = ast.Assign([ast.Name(self.flag, ast.Store())], ast.Constant(True))
        return [ast.fix_missing_locations(ast.copy_location(assign, jump))]


def _not_broken(flag: str, at: ast.AST) -> ast.expr:
    return ast.copy_location(ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load())), at)


def merge_jumps(statements: list[ast.stmt], counter=None) -> list[ast.stmt]:
    """``statements`` with the jumps of every loop in them (outside nested functions)
    rewritten where they end ``if`` branches."""
    counter = counter if counter is not None else itertools.count(1)
    result = []
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            result.append(statement)  # rewritten on its own
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(statement, field, None), list):
                setattr(statement, field, merge_jumps(getattr(statement, field), counter))
        for handler in getattr(statement, "handlers", []):
            handler.body = merge_jumps(handler.body, counter)
        if isinstance(statement, (ast.While, ast.For)) and _jumps(statement.body):
            result += _rewrite_loop(statement, f"s4tf_break_{next(counter)}__")
        else:
            result.append(statement)
    return result


def _rewrite_loop(loop, flag: str) -> list[ast.stmt]:
    rewriter = _Loop(flag)
    body = rewriter.body(loop.body)
    if body is None:
        return [loop]
    loop.body = body or [ast.copy_location(ast.Pass(), loop)]
    if not rewriter.breaks:
        return [loop]
    if isinstance(loop, ast.While):
        loop.test = ast.copy_location(ast.BoolOp(ast.And(), [_not_broken(flag, loop), loop.test]), loop.test)
    else:  # a for loop counts on, doing nothing
        loop.body = [ast.copy_location(ast.If(_not_broken(flag, loop), loop.body, []), loop)]
    if loop.orelse:  # an else clause runs only if the loop did not break
        loop.orelse = [ast.copy_location(ast.If(_not_broken(flag, loop), loop.orelse, []), loop)]
    start = ast.copy_location(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(False)), loop)
    return [ast.fix_missing_locations(start), loop]
