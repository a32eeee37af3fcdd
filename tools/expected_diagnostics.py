"""``--verify-diagnostics``: check diagnostics against ``expected-*`` comments, as mlir-opt does.

```mlir
// expected-error @below {{'s4tf.add' result type(s) tensor<3xf32> do not match}}
%0 = "s4tf.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
%1 = "s4tf.exp"(%0) : (tensor<3xi32>) -> tensor<3xi32>  // expected-error {{must be a float}}
```

The line is the comment's own, or ``@below``/``@above``/``@+N``/``@-N`` relative to it;
the text between ``{{`` and ``}}`` must occur in the diagnostic's message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from s4tf.passes.diagnostics import Message

_EXPECTATION = re.compile(
    r"expected-(?P<severity>error|warning|note|remark)\s*(?:@(?P<where>below|above|[+-]\d+))?\s*\{\{(?P<text>.*?)\}\}"
)


@dataclass
class Expectation:
    line: int
    severity: str
    text: str
    comment_line: int
    met: bool = False

    def matches(self, message: Message) -> bool:
        return message.line == self.line and message.severity == self.severity and self.text in message.text


def _target_line(comment_line: int, where: str | None, next_code_line: dict[int, int], lines: list[str]) -> int:
    if where is None:
        return comment_line
    if where == "below":
        return next_code_line[comment_line]
    if where == "above":
        line = comment_line - 1
        while line > 1 and _is_comment_only(lines[line - 1]):
            line -= 1
        return line
    return comment_line + int(where)


def _is_comment_only(line: str) -> bool:
    return line.strip().startswith("//") or not line.strip()


def parse_expectations(text: str, first_line: int = 1) -> list[Expectation]:
    """The ``expected-*`` comments of ``text``, whose first line is ``first_line`` of its file."""
    lines = text.splitlines()
    next_code_line, following = {}, len(lines) + first_line
    for index in range(len(lines) - 1, -1, -1):
        next_code_line[index + first_line] = following
        if not _is_comment_only(lines[index]):
            following = index + first_line
    all_lines = [""] * (first_line - 1) + lines
    expectations = []
    for index, line in enumerate(lines):
        number = index + first_line
        for match in _EXPECTATION.finditer(line):
            target = _target_line(number, match.group("where"), next_code_line, all_lines)
            expectations.append(Expectation(target, match.group("severity"), match.group("text"), number))
    return expectations


def check(expectations: list[Expectation], produced: list[Message], buffer_name: str) -> list[str]:
    """Problems: expected diagnostics not produced, and errors nobody expected."""
    problems = []
    for message in produced:
        expectation = next((e for e in expectations if not e.met and e.matches(message)), None)
        if expectation is not None:
            expectation.met = True
        elif message.severity in ("error", "warning"):
            problems.append(f"{message.file or buffer_name}:{message.line}:{message.column}: unexpected {message.severity}: {message.text}")
    for expectation in expectations:
        if not expectation.met:
            problems.append(
                f"{buffer_name}:{expectation.comment_line}: expected {expectation.severity} "
                f"\"{expectation.text}\" on line {expectation.line} was not produced"
            )
    return problems
