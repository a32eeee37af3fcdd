"""Build a ``PassManager`` from MLIR's textual pipeline syntax with s4tf passes in it.

Accepted forms: ``builtin.module(s4tf-canonicalize,cse)`` and the short ``a,b,c``.
s4tf passes are added as Python passes, with options in MLIR's syntax
(``s4tf-check-availability{target=vulkan}``); every other element goes to MLIR's own
parser, so upstream passes (``canonicalize``, ``cse``, ``inline``, ``symbol-dce``,
``func.func(canonicalize)``) mix freely with ours.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile

from s4tf.core.errors import CompilationError, S4tfError
from s4tf.core.mlir import ir, passmanager
from s4tf.passes.diagnostics import Message, error_messages
from s4tf.passes.registry import PASSES, PassInfo

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


_WITH_OPTIONS = re.compile(r"^([\w.-]+)\{(.*)\}$", re.DOTALL)
_OPTION = re.compile(r"^([A-Za-z_][\w-]*)=(\S+)$")
#: The spellings of a bool option's values that MLIR (LLVM's option parser) accepts.
_BOOLS = {"true": True, "True": True, "TRUE": True, "1": True, "false": False, "False": False, "FALSE": False, "0": False}


def split_options(element: str) -> tuple[str, dict[str, str] | None]:
    """``"name{a=1 b=2}"`` -> ``("name", {"a": "1", "b": "2"})``; without braces, ``(element, None)``."""
    match = _WITH_OPTIONS.match(element)
    if not match:
        return element, None
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


def checked_options(info: PassInfo, options: dict[str, str]) -> dict:
    """``options`` if ``info``'s pass takes them all, with every required one present;
    bool options become bools."""
    known = info.options()
    checked: dict = {}
    for key, value in options.items():
        if key not in known:
            accepted = ", ".join(known) or "none"
            raise PipelineError(f"pass '{info.name}' has no option '{key}'; its options: {accepted}")
        allowed = info.choices.get(key) or (tuple(_BOOLS) if key in info.flags() else None)
        if allowed and value not in allowed:
            shown = "true, false" if key in info.flags() else ", ".join(allowed)
            raise PipelineError(f"option {key}={value} of pass '{info.name}' must be one of: {shown}")
        checked[key] = _BOOLS[value] if key in info.flags() else value
    missing = [key for key, required in known.items() if required and key not in options]
    if missing:
        example = " ".join(f"{key}=..." for key in missing)
        raise PipelineError(f"pass '{info.name}' needs option(s) {', '.join(missing)}: write {info.name}{{{example}}}")
    return checked


#: Set to 1 to print the IR (to stderr) after every pass of every pipeline s4tf runs:
#: staging's lowering, ``s4tf.compile``, ``s4tf-compile``, the AD passes.
PRINT_IR_VARIABLE = "S4TF_PRINT_IR_AFTER_ALL"


def build_pass_manager(pipeline: str, context: ir.Context) -> passmanager.PassManager:
    """A module-level ``PassManager`` running ``pipeline``; unknown passes raise :class:`PipelineError`.
    With ``$S4TF_PRINT_IR_AFTER_ALL=1`` it prints the IR after each pass."""
    manager = passmanager.PassManager("builtin.module", context=context)
    if os.environ.get(PRINT_IR_VARIABLE, "0") not in ("", "0"):
        manager.enable_ir_printing(print_after_all=True)
    for element in pipeline_elements(pipeline):
        name, options = split_options(element)
        info = PASSES.get(name)
        if info is not None:
            callback = info.as_mlir_callback(checked_options(info, options or {}))
            manager.add(callback, name=info.name, argument=info.name, description=info.description)
            continue
        nested = next((name for name in sorted(PASSES) if name in element), None)
        if nested is not None:
            raise PipelineError(
                f"s4tf passes run on the module; write '{nested}' at the top level of the pipeline, not in '{element}'"
            )
        printed: list[str] = []
        try:
            with _stderr_into(printed):
                manager.add(element)
        except (ValueError, RuntimeError) as error:
            detail = printed + str(error).strip().splitlines()
            reason = next((line for line in detail if "option" in line or "pass" in line.lower()), detail[0] if detail else "")
            raise PipelineError(
                f"unknown pass or bad pipeline element '{element}' ({reason.strip(': ')}); {known_passes_message()}"
            ) from None
        for line in printed:  # not an error: pass it on
            print(line, file=sys.stderr)
    return manager


class PassPipelineError(CompilationError):
    """A pipeline failed; ``messages`` are its diagnostics, as ``file:line:col`` lines."""

    def __init__(self, message: str, messages: list[Message]):
        super().__init__(message)
        self.messages = messages

    def at(self, location):  # the diagnostics carry their own locations
        return self


def run_pipeline(operation: ir.Operation, pipeline, *, failure: str | None = None, buffer_name: str | None = None,
                 error: type[PassPipelineError] = PassPipelineError) -> None:
    """Run ``pipeline`` (a pipeline string or a ``PassManager``) on ``operation``, a
    ``builtin.module``. If a pass fails, raise ``error`` (a :class:`PassPipelineError`):
    ``failure`` (e.g. ``"lowering 'f' failed:"``), then a line per diagnostic, files named
    ``buffer_name`` where MLIR had no name. The one way s4tf runs its pipelines."""
    manager = build_pass_manager(pipeline, operation.context) if isinstance(pipeline, str) else pipeline
    try:
        manager.run(operation)
    except ir.MLIRError as mlir_error:
        found = error_messages(mlir_error, buffer_name)
        lines = "\n".join(str(m) for m in found)
        raise error(f"{failure}\n{lines}" if failure else lines, found) from None


@contextlib.contextmanager
def _stderr_into(lines: list[str]):
    """What C++ writes to the process's stderr in the block (LLVM's option parser reports
    a bad value there, not in the exception), appended to ``lines`` instead."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            lines.extend(line for line in capture.read().decode(errors="replace").splitlines() if line.strip())


#: The frontend's lowering of a staged module to StableHLO for IREE.
LOWERING_PIPELINE = (
    "s4tf-verify,s4tf-canonicalize,s4tf-lower-to-stablehlo,inline,canonicalize,cse,symbol-dce,"
    "s4tf-materialize-conv-filters,s4tf-full-convs-to-matmul,s4tf-pad-conv-channels"
)


def lowering_pipeline(target: str) -> str:
    """:data:`LOWERING_PIPELINE` with the availability check for ``target`` first, so ops
    ``target`` cannot run are reported at the user's lines before IREE sees them, and
    small elementwise loops run inside one dispatch where ``target`` can (last)."""
    return f"s4tf-check-availability{{target={target}}},{LOWERING_PIPELINE},s4tf-loops-to-dispatch{{target={target}}}"
