"""Pass pipelines: s4tf pass objects and upstream MLIR passes, run as one ``PassManager``.

Python builds a :class:`Pipeline` from pass objects and upstream pass names
(``canonicalize``, ``cse``, ``inline``, ``symbol-dce``, ``func.func(canonicalize)``);
``s4tf-opt`` and tests write MLIR's textual syntax, which :meth:`Pipeline.parse` reads
into the same object (``builtin.module(s4tf-canonicalize,cse)`` or the short ``a,b,c``,
options as ``s4tf-check-availability{target=vulkan}``).

```python
pipeline = Pipeline([CheckAvailability(target="cpu"), *LOWERING_PIPELINE, LoopsToDispatch(target="cpu")])
run_pipeline(module, pipeline + [Donate(entry="step", args=(0,))], failure="lowering 'step' failed:")
```
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from dataclasses import dataclass
from typing import Iterable, Union

from s4tf.core.errors import CompilationError
from s4tf.core.mlir import ir, passmanager
from s4tf.passes.canonicalize import Canonicalize
from s4tf.passes.diagnostics import Message, error_messages
from s4tf.passes.iree.availability import AARCH64_TARGETS, GPU_TARGETS
from s4tf.passes.iree.bool_constants import BoolConstantsBehindBarriers
from s4tf.passes.iree.branch_selects import BranchesToSelects
from s4tf.passes.iree.negated_sums import NegationsOutOfSums
from s4tf.passes.iree.products_apart import ProductsApart
from s4tf.passes.iree.row_copies import RowCopiesThroughBarriers
from s4tf.passes.iree.scatter_updates import ScatterUpdatesThroughBarriers
from s4tf.passes.iree.transposed_products import TransposedProducts
from s4tf.passes.iree.check_availability import CheckAvailability
from s4tf.passes.iree.condition_carries import TieConditionCarries
from s4tf.passes.iree.constant_carries import ConstantCarries
from s4tf.passes.iree.conv_channels import PadConvChannels
from s4tf.passes.iree.conv_filters import MaterializeConvFilters
from s4tf.passes.iree.conv_taps import FullConvsToMatmul
from s4tf.passes.iree.loop_dispatch import LoopsToDispatch
from s4tf.passes.iree.reversed_slices import ReverseBeforeSlice
from s4tf.passes.iree.runtime_loop_inits import RuntimeLoopInits
from s4tf.passes.iree.stacked_pieces import SelectStackedPieces
from s4tf.passes.iree.unroll_host_loops import GPU_MAX_OPS, UnrollHostLoops
from s4tf.passes.lower_to_stablehlo import LowerToStablehlo
from s4tf.passes.pass_options import PipelineError
from s4tf.passes.single_row_scatters import SingleRowScatters
from s4tf.passes.pipeline_text import element_name, pipeline_elements, split_options
from s4tf.passes.registry import PASSES, ModulePass
from s4tf.passes.verify import Verify

UPSTREAM_EXAMPLES = ("canonicalize", "cse", "inline", "symbol-dce", "func.func(canonicalize)")

#: A pipeline's element: an s4tf pass object, or an upstream MLIR pass in MLIR's syntax.
Element = Union[ModulePass, str]


@dataclass(frozen=True, init=False)
class Pipeline:
    """The passes to run on a ``builtin.module``, in order (see the module docstring)."""

    passes: tuple[Element, ...]

    def __init__(self, passes: Iterable[Element] = ()):
        passes = tuple(passes)
        for element in passes:
            _check_element(element)
        object.__setattr__(self, "passes", passes)

    @classmethod
    def parse(cls, text: str) -> Pipeline:
        """The pipeline MLIR's textual syntax ``text`` writes; s4tf passes become objects
        (:meth:`ModulePass.from_options`), other elements stay upstream passes."""
        elements: list[Element] = []
        for element in pipeline_elements(text):
            pass_class = PASSES.get(element_name(element))
            if pass_class is None:
                elements.append(element)
            else:
                elements.append(pass_class.from_options(split_options(element)[1]))
        return cls(elements)

    def __add__(self, more: Iterable[Element]) -> Pipeline:
        """This pipeline followed by ``more`` (a pipeline, or a list of elements)."""
        if isinstance(more, str):
            raise PipelineError(f"add a list of passes to a pipeline, not the text {more!r}")
        return Pipeline([*self.passes, *more])

    def __iter__(self):
        return iter(self.passes)

    def __len__(self) -> int:
        return len(self.passes)


def _check_element(element) -> None:
    if isinstance(element, ModulePass):
        return
    if isinstance(element, type) and issubclass(element, ModulePass):
        raise PipelineError(f"a pipeline holds pass objects: write {element.__name__}(...), not the class {element.__name__}")
    if not isinstance(element, str):
        raise PipelineError(f"a pipeline holds s4tf pass objects and upstream pass names, not {element!r}")
    pass_class = PASSES.get(element_name(element))
    if pass_class is not None:
        raise PipelineError(f"'{element}' is the s4tf pass {pass_class.__name__}: add {pass_class.__name__}(...) to the pipeline, "
                            "or read text with Pipeline.parse")
    nested = next((name for name in sorted(PASSES) if name in element), None)
    if nested is not None:
        raise PipelineError(f"s4tf passes run on the module; write '{nested}' at the top level of the pipeline, not in '{element}'")


def known_passes_message() -> str:
    return (
        "known s4tf passes: " + ", ".join(sorted(PASSES))
        + "; upstream MLIR passes such as " + ", ".join(UPSTREAM_EXAMPLES) + " also work"
    )


#: Set to 1 to print the IR (to stderr) after every pass of every pipeline s4tf runs:
#: staging's lowering, ``s4tf.compile``, ``s4tf-compile``, the AD passes.
PRINT_IR_VARIABLE = "S4TF_PRINT_IR_AFTER_ALL"


def build_pass_manager(pipeline: Pipeline | str, context: ir.Context, verify_each: bool = True) -> passmanager.PassManager:
    """A module-level ``PassManager`` running ``pipeline`` (text: :meth:`Pipeline.parse`);
    unknown passes raise :class:`PipelineError`. It verifies the IR after each pass unless
    ``verify_each`` is false (mlir-opt's ``--verify-each``). With
    ``$S4TF_PRINT_IR_AFTER_ALL=1`` it prints the IR after each pass."""
    if isinstance(pipeline, str):
        pipeline = Pipeline.parse(pipeline)
    if not isinstance(pipeline, Pipeline):
        raise PipelineError(f"expected a Pipeline, got {pipeline!r}")
    manager = passmanager.PassManager("builtin.module", context=context)
    manager.enable_verifier(verify_each)
    if os.environ.get(PRINT_IR_VARIABLE, "0") not in ("", "0"):
        manager.enable_ir_printing(print_after_all=True)
    for element in pipeline:
        if isinstance(element, ModulePass):
            manager.add(element.as_mlir_callback(), name=element.name, argument=element.name, description=element.description)
        else:
            _add_upstream(manager, element)
    return manager


def _add_upstream(manager: passmanager.PassManager, element: str) -> None:
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


class PassPipelineError(CompilationError):
    """A pipeline failed; ``messages`` are its diagnostics, as ``file:line:col`` lines."""

    def __init__(self, message: str, messages: list[Message]):
        super().__init__(message)
        self.messages = messages

    def at(self, location):  # the diagnostics carry their own locations
        return self


def run_pipeline(operation: ir.Operation, pipeline, *, failure: str | None = None, buffer_name: str | None = None,
                 error: type[PassPipelineError] = PassPipelineError) -> None:
    """Run ``pipeline`` (a :class:`Pipeline`, its text, or a ``PassManager``) on ``operation``, a
    ``builtin.module``. If a pass fails, raise ``error`` (a :class:`PassPipelineError`):
    ``failure`` (e.g. ``"lowering 'f' failed:"``), then a line per diagnostic, files named
    ``buffer_name`` where MLIR had no name. The one way s4tf runs its pipelines.

    A pipeline given as passes verifies the IR once, after its last pass, not after each
    (after each took a quarter of the lowering of GradBench's saddle, whose loops are vector
    code inside a dispatch); a ``PassManager`` (``s4tf-opt``'s) keeps its own setting."""
    built = isinstance(pipeline, (Pipeline, str))
    manager = build_pass_manager(pipeline, operation.context, verify_each=False) if built else pipeline
    try:
        manager.run(operation)
        if built:
            operation.verify()
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
LOWERING_PIPELINE = Pipeline([
    Verify(), Canonicalize(), SingleRowScatters(), LowerToStablehlo(), "inline", "canonicalize", "cse", "symbol-dce",
    MaterializeConvFilters(), FullConvsToMatmul(), PadConvChannels(), ReverseBeforeSlice(),
])


def lowering_pipeline(target: str) -> Pipeline:
    """:data:`LOWERING_PIPELINE` with the availability check for ``target`` first, so ops
    ``target`` cannot run are reported at the user's lines before IREE sees them, loops
    read their constant pass-through carries as the constants, and
    small elementwise loops run inside one dispatch where ``target`` can; then small stacks
    are selects IREE fuses with their pieces, the loops
    left on the host run several iterations a trip where their trip count is known or
    they count to a run-time bound (none
    of them before the loop on the GPU targets, nor where their bodies wait on the device
    there), compute
    both sides of their straight-line branches and select, start from run-time tensors, and their bodies read the carries they replace, where
    IREE 3.13 needs it (after the dispatches: a loop inside one keeps its
    constant tapes; on ``vulkan`` only the carries read after the loop); on the aarch64
    targets, boolean masks are read through barriers; on ``vulkan``, transposed products are
    products of the swapped operands and products combined run apart; on the GPU targets, rows copied within a tensor are
    read through barriers; on ``cuda``, sums of negations are negated sums and scatters read
    their updates through barriers."""
    workarounds = [BoolConstantsBehindBarriers()] if target in AARCH64_TARGETS else []
    workarounds += [TransposedProducts(), ProductsApart()] if target == "vulkan" else []
    workarounds += [RowCopiesThroughBarriers()] if target in GPU_TARGETS else []
    workarounds += [NegationsOutOfSums(), ScatterUpdatesThroughBarriers()] if target == "cuda" else []
    return Pipeline([CheckAvailability(target=target), *LOWERING_PIPELINE, ConstantCarries(), LoopsToDispatch(target=target),
                     SelectStackedPieces(), UnrollHostLoops(peel=target not in GPU_TARGETS, waiting=target not in GPU_TARGETS,
                                     max_ops=GPU_MAX_OPS if target in GPU_TARGETS else UnrollHostLoops.max_ops), BranchesToSelects(), RuntimeLoopInits(), TieConditionCarries(read_after=target == "vulkan"),
                     *workarounds])
