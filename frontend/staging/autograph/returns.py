"""Early returns out of ``if`` statements, rewritten into one return after an ``if``/``else``
that assigns the returned value, so that an ``if`` on a tensor with a ``return`` inside can
be staged (:mod:`s4tf.staging.autograph.rewrite`). Python's meaning is unchanged:

```python
if t > 0:                             if t > 0:
    return s4tf.sin(x)                    s4tf_return__ = s4tf.sin(x)
y = x * x                 ──▶         else:
return y + 1                              y = x * x
                                          s4tf_return__ = y + 1
                                      return s4tf_return__
```

Only returns at the end of an ``if`` branch (or of what follows the ``if``) are rewritten;
a ``return`` inside a loop stays, and is an error if the loop is on a tensor.
"""

from __future__ import annotations

import ast

from s4tf.staging.autograph.analysis import own_nodes

#: The variable holding the returned value.
RETURN = "s4tf_return__"


def _has_return(statements) -> bool:
    return any(isinstance(node, ast.Return) for node in own_nodes(statements))


def merge_returns(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` (a function's) with early returns out of ``if`` statements merged, or
    ``body`` itself when it has none or one cannot be merged."""
    if not any(isinstance(s, ast.If) and _has_return([s]) for s in body):
        return body
    if not isinstance(body[-1], ast.Return):
        body = body + [ast.copy_location(ast.Return(None), body[-1])]  # falling off the end returns None
    merged = _merge(body)
    return merged if merged is not None else body


def _merge(statements: list[ast.stmt]) -> list[ast.stmt] | None:
    """``statements``, which end with a return, with the first ``if`` holding a return
    turned into an ``if``/``else`` assigning :data:`RETURN` and one return after it."""
    for index, statement in enumerate(statements):
        if isinstance(statement, ast.If) and _has_return([statement]):
            rest = statements[index + 1:]
            body, orelse = _branch(statement.body, rest), _branch(statement.orelse, rest)
            if body is None or orelse is None:
                return None
            merged = ast.copy_location(ast.If(statement.test, body, orelse), statement)
            result = ast.copy_location(ast.Return(ast.Name(RETURN, ast.Load())), statement)
            return statements[:index] + [merged, ast.fix_missing_locations(result)]
    return None if _has_return(statements[:-1]) else statements


def _branch(branch: list[ast.stmt], rest: list[ast.stmt]) -> list[ast.stmt] | None:
    """``branch`` (followed by ``rest`` if it may fall through) assigning :data:`RETURN`
    instead of returning; ``None`` if a return in it is not at the end of a branch."""
    ends = bool(branch) and isinstance(branch[-1], ast.Return)
    statements = _merge(branch if ends else branch + rest)
    if statements is None:
        return None
    last = statements[-1]
    value = last.value if last.value is not None else ast.Constant(None)
    if isinstance(value, ast.Name) and value.id == RETURN:  # a merged if already assigned it
        return statements[:-1]
    assign = ast.copy_location(ast.Assign([ast.Name(RETURN, ast.Store())], value), last)
    return statements[:-1] + [ast.fix_missing_locations(assign)]
