"""Build a ``PassManager`` from MLIR's textual pipeline syntax with s4tf passes in it.

Accepted forms: ``builtin.module(s4tf-canonicalize,cse)`` and the short ``a,b,c``.
s4tf passes are added as Python passes; every other element goes to MLIR's own parser,
so upstream passes (``canonicalize``, ``cse``, ``inline``, ``symbol-dce``,
``func.func(canonicalize)``) mix freely with ours.
"""

from __future__ import annotations

from s4tf.errors import S4tfError
from s4tf.mlir import ir, passmanager
from s4tf.passes.registry import PASSES

UPSTREAM_EXAMPLES = ("canonicalize", "cse", "inline", "symbol-dce", "func.func(canonicalize)")


class PipelineError(S4tfError, ValueError):
    """A pipeline string that names an unknown pass or is malformed."""


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


def known_passes_message() -> str:
    return (
        "known s4tf passes: " + ", ".join(sorted(PASSES))
        + "; upstream MLIR passes such as " + ", ".join(UPSTREAM_EXAMPLES) + " also work"
    )


def build_pass_manager(pipeline: str, context: ir.Context) -> passmanager.PassManager:
    """A module-level ``PassManager`` running ``pipeline``; unknown passes raise :class:`PipelineError`."""
    manager = passmanager.PassManager("builtin.module", context=context)
    for element in pipeline_elements(pipeline):
        info = PASSES.get(element)
        if info is not None:
            manager.add(info.as_mlir_callback(), name=info.name, argument=info.name, description=info.description)
            continue
        nested = next((name for name in sorted(PASSES) if name in element), None)
        if nested is not None:
            raise PipelineError(
                f"s4tf passes run on the module; write '{nested}' at the top level of the pipeline, not in '{element}'"
            )
        try:
            manager.add(element)
        except (ValueError, RuntimeError) as error:
            detail = str(error).strip().splitlines()
            reason = next((line for line in detail if "pass" in line.lower()), detail[0] if detail else "")
            raise PipelineError(f"unknown pass or bad pipeline element '{element}' ({reason}); {known_passes_message()}") from None
    return manager
