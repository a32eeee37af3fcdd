"""MLIR's textual pipeline syntax, cut into elements: ``builtin.module(a,b{k=v},func.func(c))``
or the short ``a,b{k=v}``.

```python
pipeline_elements("builtin.module(cse,s4tf-donate{entry=step args=0,1})")
# ["cse", "s4tf-donate{entry=step args=0,1}"]
split_options("s4tf-donate{entry=step args=0,1}")   # ("s4tf-donate", {"entry": "step", "args": "0,1"})
```
"""

from __future__ import annotations

import re

from s4tf.passes.pass_options import PipelineError

_WITH_OPTIONS = re.compile(r"^([\w.-]+)\{(.*)\}$", re.DOTALL)
_OPTION = re.compile(r"^([A-Za-z_][\w-]*)=(\S+)$")


def split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses and braces."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced ')' in pipeline {text!r}")
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if depth:
        raise PipelineError(f"unbalanced '(' in pipeline {text!r}")
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def pipeline_elements(text: str) -> list[str]:
    """The pass elements of a pipeline, with an outer ``builtin.module(...)`` removed."""
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module(") : -1]
    return split_top_level(text)


def element_name(element: str) -> str:
    """The pass an element names: ``"cse"``, ``"s4tf-donate"`` of ``"s4tf-donate{...}"``."""
    match = _WITH_OPTIONS.match(element)
    return match.group(1) if match else element


def split_options(element: str) -> tuple[str, dict[str, str]]:
    """``"name{a=1 b=2}"`` -> ``("name", {"a": "1", "b": "2"})``; without braces, ``(element, {})``."""
    match = _WITH_OPTIONS.match(element)
    if not match:
        return element, {}
    name, body = match.groups()
    options = {}
    for item in body.split():
        option = _OPTION.match(item)
        if not option:
            raise PipelineError(f"bad option '{item}' of pass '{name}': write {name}{{key=value key=value}}")
        key, value = option.groups()
        if key in options:
            raise PipelineError(f"option '{key}' of pass '{name}' is given twice")
        options[key] = value
    return name, options
