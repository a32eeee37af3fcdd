"""The AST rewrite of :mod:`s4tf.staging.autograph.convert`: ``if``, ``while`` and ``for ... in range(...)``
statements become calls of its helpers, their bodies nested functions over the carried
variables (:mod:`s4tf.staging.autograph.analysis`); ``and``/``or``/``not`` in conditions and
conditional expressions become helper calls too. Every new node gets the line and column
of the statement it replaces, so staged ops keep the user's ``file:line``.

```python
if t > 0:                        def s4tf_if_true_1__(y):
    y = s4tf.sin(x)                  y = s4tf.sin(x)
else:                                return (y,)
    y = x * x          ──▶       def s4tf_if_false_1__(y):
                                     y = x * x
                                     return (y,)
                                 (y,) = ag__.if_stmt(t > 0, s4tf_if_true_1__, s4tf_if_false_1__,
                                                     ag__.state(locals(), ('y',)), ('y',), ())
```
"""

from __future__ import annotations

import ast

from s4tf.staging.autograph.analysis import Liveness, Plan
from s4tf.staging.autograph.jumps import merge_jumps
from s4tf.staging.autograph.returns import RETURN, merge_returns
from s4tf.staging.autograph.subscripts import rewrite_subscript_assignments

#: The name under which converted code reaches :mod:`s4tf.staging.autograph.convert` (a closure variable).
HELPERS = "ag__"
INDEX = "s4tf_index__"


def _helper(name: str, *arguments: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(HELPERS, ast.Load()), name, ast.Load()), list(arguments), [])


def _names(names, context) -> ast.Tuple:
    return ast.Tuple([ast.Name(n, context()) for n in names], context())


def _strings(values) -> ast.Tuple:
    return ast.Tuple([ast.Constant(v) for v in values], ast.Load())


def _thunk(expression: ast.expr) -> ast.Lambda:
    arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.Lambda(arguments, expression)


def _function(name: str, parameters, body) -> ast.FunctionDef:
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in parameters], kwonlyargs=[], kw_defaults=[], defaults=[])
    fields = {"name": name, "args": arguments, "body": body or [ast.Pass()], "decorator_list": [], "returns": None}
    if "type_params" in ast.FunctionDef._fields:  # Python 3.12+
        fields["type_params"] = []
    return ast.FunctionDef(**fields)


def _located(nodes: list, at: ast.AST) -> list:
    """Give the new nodes among ``nodes`` (those without a position) the position where
    ``at`` starts (one line: a call spanning lines is placed by CPython at its end)."""
    for node in nodes:
        for child in ast.walk(node):
            if "lineno" in child._attributes and not hasattr(child, "lineno"):
                child.lineno = child.end_lineno = at.lineno
                child.col_offset = child.end_col_offset = at.col_offset
    return nodes


def _condition(test: ast.expr) -> ast.expr:
    """``a and b`` → ``ag__.and_(a, lambda: b)``, ``not a`` → ``ag__.not_(a)`` (tensors
    become logical ops; Python values keep Python's meaning and short-circuiting)."""
    if isinstance(test, ast.BoolOp):
        helper = "and_" if isinstance(test.op, ast.And) else "or_"
        result = _condition(test.values[-1])
        for value in reversed(test.values[:-1]):
            result = _helper(helper, _condition(value), _thunk(result))
        return _located([result], test)[0]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _located([_helper("not_", _condition(test.operand))], test)[0]
    return test


def _is_range(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
        and not node.keywords and 1 <= len(node.args) <= 3 and not any(isinstance(a, ast.Starred) for a in node.args)
    )


def _effects_free(statements: list[ast.stmt]) -> bool:
    """Whether a loop body has no statement run only for what it does to Python state (a
    call whose value is dropped: ``print``, ``list.append``; ``global``, ``nonlocal``,
    ``del``, ``yield``): tracing a staged loop's body once would do that once."""
    for node in (n for statement in statements for n in ast.walk(statement)):
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Delete, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
    return True


def _has_walrus(node: ast.expr) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in ast.walk(node))


class Rewriter(ast.NodeTransformer):
    """Rewrites one function definition (and the functions nested in it) in place."""

    def __init__(self):
        self.count = 0
        self.plans: dict[ast.stmt, Plan] = {}

    def function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        """Rebind tensors assigned by element, merge its early returns, breaks and continues,
        analyze its body, then rewrite it."""
        rewrite_subscript_assignments(node, HELPERS)
        node.body = merge_jumps(merge_returns(node.body))
        outer, self.plans = self.plans, Liveness(node).plans
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        node.body = [result for statement in node.body for result in self._statements(statement)]
        self.plans = outer
        return node

    def _statements(self, statement):
        result = self.visit(statement)
        return result if isinstance(result, list) else [result]

    def visit_FunctionDef(self, node):
        return self.function(node)

    def visit_AsyncFunctionDef(self, node):
        return node  # coroutines stay as written

    def visit_ClassDef(self, node):
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        call = _helper("if_exp", _condition(node.test), _thunk(node.body), _thunk(node.orelse))
        return _located([call], node)[0]

    def _next(self) -> int:
        self.count += 1
        return self.count

    def _state(self, plan: Plan) -> list[ast.expr]:
        """The arguments every statement helper takes after its functions."""
        state = _helper("state", ast.Call(ast.Name("locals", ast.Load()), [], []), _strings(plan.carried))
        shown = ["the returned value" if name == RETURN else name for name in plan.carried]  # in messages
        return [state, _strings(shown), _strings(plan.mutated)]

    def _assign(self, plan: Plan, call: ast.Call) -> ast.stmt:
        if not plan.carried:
            return ast.Expr(call)
        return ast.Assign([_names(plan.carried, ast.Store)], call)

    def _returning(self, body, plan: Plan) -> list[ast.stmt]:
        return body + [ast.Return(_names(plan.carried, ast.Load))]

    def visit_If(self, node):
        plan = self.plans.get(node)
        self.generic_visit(node)
        if plan is None:
            return node
        node.test = _condition(node.test)
        if plan.unsupported:
            node.test = _located([_helper("python_test", node.test, ast.Constant(plan.unsupported))], node)[0]
            return node
        count = self._next()
        true_name, false_name = f"s4tf_if_true_{count}__", f"s4tf_if_false_{count}__"
        call = _helper("if_stmt", node.test, ast.Name(true_name, ast.Load()), ast.Name(false_name, ast.Load()), *self._state(plan))
        return _located([
            _function(true_name, plan.carried, self._returning(node.body, plan)),
            _function(false_name, plan.carried, self._returning(node.orelse, plan)),
            self._assign(plan, call),
        ], node)

    def visit_While(self, node):
        plan = self.plans.get(node)
        self.generic_visit(node)
        if plan is None:
            return node
        node.test = _condition(node.test)
        unsupported = plan.unsupported or (
            "an assignment expression (:=) in the condition of a loop on a tensor is not supported; "
            "assign the variable before the loop and at the end of its body" if _has_walrus(node.test) else None)
        if unsupported:
            node.test = _located([_helper("python_test", node.test, ast.Constant(unsupported))], node)[0]
            return node
        count = self._next()
        test_name, body_name = f"s4tf_while_test_{count}__", f"s4tf_while_body_{count}__"
        call = _helper("while_stmt", ast.Name(test_name, ast.Load()), ast.Name(body_name, ast.Load()), *self._state(plan))
        return _located([
            _function(test_name, plan.carried, [ast.Return(node.test)]),
            _function(body_name, plan.carried, self._returning(node.body, plan)),
            self._assign(plan, call),
        ], node) + node.orelse  # no `break`: the else clause always runs

    def visit_For(self, node):
        plan = self.plans.get(node)
        effects_free = _effects_free(node.body)  # before the rewrite adds its calls
        self.generic_visit(node)
        if plan is None or not _is_range(node.iter):
            return node
        bounds = ast.Tuple(node.iter.args, ast.Load())
        if plan.unsupported:
            node.iter = _located([_helper("python_range", node.iter.func, bounds, ast.Constant(plan.unsupported))], node.iter)[0]
            return node
        body_name = f"s4tf_for_body_{self._next()}__"
        index = ast.Assign([node.target], ast.Name(INDEX, ast.Load()))
        call = _helper(
            "for_stmt", node.iter.func, bounds, ast.Name(body_name, ast.Load()), *self._state(plan), ast.Constant(effects_free)
        )
        return _located([
            _function(body_name, (INDEX, *plan.carried), self._returning([index] + node.body, plan)),
            self._assign(plan, call),
        ], node) + node.orelse
