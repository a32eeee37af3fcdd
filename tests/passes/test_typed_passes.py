"""Typed passes: option text converted to the pass class's field types (each bad option a
clear error), pass objects checked as Python builds them, and pipelines built from objects
running as the textual pipeline does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from s4tf.core.mlir import ir, new_context
from s4tf.passes.autodiff.derivatives import Jvp
from s4tf.passes.batching import Batch
from s4tf.passes.canonicalize import Canonicalize
from s4tf.passes.extraction.partition import Partition
from s4tf.passes.iree.check_availability import CheckAvailability
from s4tf.passes.iree.donate import Donate
from s4tf.passes.iree.export import Export, ExportedWeight
from s4tf.passes.iree.loop_dispatch import LoopsToDispatch
from s4tf.passes.pipeline import (LOWERING_PIPELINE, PassPipelineError, Pipeline, PipelineError, build_pass_manager,
                                  lowering_pipeline, run_pipeline)
from s4tf.passes.registry import PASSES, ModulePass, register

STEP = """
func.func @step(%w: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.subtract %w, %g : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def parsed(text: str) -> ir.Module:
    with new_context():
        return ir.Module.parse(text)


# -- option text to typed fields -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("s4tf-donate{entry=step args=0,1}", Donate(entry="step", args=(0, 1))),
        ("s4tf-donate{entry=step args=0 remarks=1}", Donate(entry="step", args=(0,), remarks=True)),
        ("s4tf-batch{function=f size=8}", Batch(function="f", size=8, batched=(0,))),
        ("s4tf-partition{warn_transfers=TRUE}", Partition(warn_transfers=True)),
        ("s4tf-loops-to-dispatch{remarks=false}", LoopsToDispatch(target="cpu", remarks=False)),
        ("s4tf-check-availability{target=vulkan}", CheckAvailability(target="vulkan")),
        ("s4tf-export{entry_points=predict,helper weights=0:w:tensor<3x2xf32> reflection={s4tf.note=\"a\\20b\"}}",
         Export(entry_points=("predict", "helper"), weights=(ExportedWeight(0, "w", "tensor<3x2xf32>"),),
                reflection={"s4tf.note": "a b"})),
    ],
)
def test_option_text_becomes_typed_fields(text, expected):
    assert Pipeline.parse(text).passes == (expected,)


@pytest.mark.parametrize(
    "text, message",
    [
        ("s4tf-check-availability{target=tpu}",
         "option target=tpu of pass 's4tf-check-availability' must be one of: cpu, vmvx, vulkan, cuda, android-arm64, linux-arm64"),
        ("s4tf-batch{function=f size=eight}", "option size=eight of pass 's4tf-batch' must be an integer"),
        ("s4tf-donate{entry=step args=0,x}", "option args=0,x of pass 's4tf-donate' must be integers separated by commas, as 0,1"),
        ("s4tf-jvp{strict=maybe}", "option strict=maybe of pass 's4tf-jvp' must be one of: true, false"),
        ("s4tf-donate{entry=step args=0 color=red}", "pass 's4tf-donate' has no option 'color'; its options: entry, args, remarks"),
        ("s4tf-canonicalize{rounds=3}", "pass 's4tf-canonicalize' has no option 'rounds'; its options: none"),
        ("s4tf-donate{args=0}", "pass 's4tf-donate' needs option(s) entry: write s4tf-donate{entry=...}"),
        ("s4tf-batch", "pass 's4tf-batch' needs option(s) function, size: write s4tf-batch{function=... size=...}"),
        ("s4tf-export{entry_points=predict weights=0:w}", "weights item '0:w' must be position:key:type, as 0:w:tensor<3x2xf32>"),
        ("s4tf-export{entry_points=predict reflection={a=1}}",
         "reflection={a=1} is not an MLIR dictionary attribute of strings, as {s4tf.target=\"cpu\"}"),
    ],
)
def test_bad_option_text_is_a_clear_error(text, message):
    with pytest.raises(PipelineError) as caught:
        Pipeline.parse(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: CheckAvailability(target="tpu"),
         "CheckAvailability(target='tpu'): target must be one of: cpu, vmvx, vulkan, cuda, android-arm64, linux-arm64"),
        (lambda: Donate(entry="step", args=[0]), "Donate(args=[0]): args must be a tuple of ints"),
        (lambda: Batch(function="f", size="8"), "Batch(size='8'): size must be an int"),
        (lambda: Jvp(strict=1), "Jvp(strict=1): strict must be a bool"),
    ],
)
def test_a_pass_object_with_a_value_of_the_wrong_type_is_a_clear_error(build, message):
    with pytest.raises(PipelineError) as caught:
        build()
    assert str(caught.value) == message


def test_options_describe_their_syntax_and_defaults():
    described = [option.describe() for option in Donate.options().values()]
    assert described == ["entry=TEXT (required)", "args=INT,... (required)", "remarks=true|false (default: false)"]
    assert LoopsToDispatch.options()["target"].describe().endswith("(default: cpu)")


# -- registration --------------------------------------------------------------------------


def test_register_takes_frozen_dataclass_passes_only():
    class Plain(ModulePass):
        name, description = "test-plain", "not a dataclass"

    @dataclass
    class Thawed(ModulePass):
        name, description = "test-thawed", "not frozen"

    @dataclass(frozen=True)
    class Nameless(ModulePass):
        description = "no name"

    with pytest.raises(TypeError, match="must be a frozen dataclass"):
        register(Plain)
    with pytest.raises(TypeError, match="must be a frozen dataclass"):
        register(Thawed)
    with pytest.raises(TypeError, match="needs the class attributes name and description"):
        register(Nameless)
    with pytest.raises(RuntimeError, match="registered twice"):
        register(type("Again", (Canonicalize,), {"name": "s4tf-canonicalize", "description": "again"}))
    assert "test-plain" not in PASSES and "test-thawed" not in PASSES


# -- pipelines built from objects ----------------------------------------------------------


def test_a_python_pipeline_equals_the_parsed_text():
    text = "builtin.module(s4tf-check-availability{target=cpu},s4tf-canonicalize,cse,func.func(canonicalize))"
    built = Pipeline([CheckAvailability(target="cpu"), Canonicalize(), "cse", "func.func(canonicalize)"])
    assert Pipeline.parse(text) == built
    assert built + [Donate(entry="f", args=(0,))] == Pipeline([*built, Donate(entry="f", args=(0,))])


def test_the_lowering_pipeline_checks_availability_first_and_dispatches_loops_after_the_lowering():
    pipeline = lowering_pipeline("vulkan")
    assert isinstance(pipeline, Pipeline)
    assert pipeline.passes[0] == CheckAvailability(target="vulkan")
    assert pipeline.passes[1 : 1 + len(LOWERING_PIPELINE)] == LOWERING_PIPELINE.passes
    assert LoopsToDispatch(target="vulkan") in pipeline.passes[1 + len(LOWERING_PIPELINE) :]


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Pipeline(["s4tf-canonicalize"]), "'s4tf-canonicalize' is the s4tf pass Canonicalize: add Canonicalize(...)"),
        (lambda: Pipeline([Canonicalize]), "write Canonicalize(...), not the class Canonicalize"),
        (lambda: Pipeline([3]), "a pipeline holds s4tf pass objects and upstream pass names, not 3"),
        (lambda: Pipeline(["func.func(s4tf-canonicalize)"]), "write 's4tf-canonicalize' at the top level of the pipeline"),
        (lambda: LOWERING_PIPELINE + "cse", "add a list of passes to a pipeline, not the text 'cse'"),
    ],
)
def test_a_malformed_python_pipeline_is_a_clear_error(build, message):
    with pytest.raises(PipelineError) as caught:
        build()
    assert message in str(caught.value)


def test_a_python_pipeline_runs_its_passes():
    module = parsed(STEP)
    with module.context:
        run_pipeline(module.operation, Pipeline([Donate(entry="step", args=(0,)), "cse"]))
    assert "iree.abi.output = 0 : index" in str(module)


@dataclass(frozen=True)
class _Breaks(ModulePass):
    """Returns the function's second argument, whose type is not the result's."""

    name = "test-breaks"
    description = "leaves invalid IR"

    def apply(self, module):
        function = module.regions[0].blocks[0].operations[0]
        body = function.regions[0].blocks[0]
        body.operations[len(body.operations) - 1].operands[0] = body.arguments[1]


_RAN: list[str] = []


@dataclass(frozen=True)
class _Records(ModulePass):
    name = "test-records"
    description = "records that it ran"

    def apply(self, module):
        _RAN.append(self.name)


def test_a_pipeline_leaving_invalid_ir_fails_after_its_last_pass_and_opt_stops_at_the_pass(monkeypatch):
    """run_pipeline verifies once, after the last pass; a pass manager as s4tf-opt builds it
    verifies after each."""
    monkeypatch.setitem(PASSES, "test-breaks", _Breaks)
    monkeypatch.setitem(PASSES, "test-records", _Records)
    source = "func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }"
    invalid = r"type of return operand 0 \('tensor<3xf32>'\) doesn't match function result type"
    _RAN.clear()
    module = parsed(source)
    with module.context, pytest.raises(PassPipelineError, match=rf"lowering 'f' failed:\n.*{invalid}"):
        run_pipeline(module.operation, Pipeline([_Breaks(), _Records()]), failure="lowering 'f' failed:")
    assert _RAN == ["test-records"]
    _RAN.clear()
    module = parsed(source)
    with module.context, pytest.raises(ir.MLIRError, match=invalid):
        build_pass_manager(Pipeline([_Breaks(), _Records()]), module.context).run(module.operation)
    assert _RAN == []


def test_export_embeds_the_values_it_is_given():
    module = parsed(STEP)
    weight = ExportedWeight(1, "g", "tensor<4xf32>", np.arange(4, dtype=np.float32))
    with module.context:
        run_pipeline(module.operation, Pipeline([Export(entry_points=("step",), weights=(weight,), reflection={"s4tf.target": "cpu"})]))
    text = str(module)
    assert "util.global private @weight_g = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>" in text
    assert 'func.func public @step(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {s4tf.target = "cpu"}}' in text


def test_export_reads_weights_without_values_from_the_archive():
    module = parsed(STEP)
    with module.context:
        run_pipeline(module.operation, Pipeline([Export(entry_points=("step",), weights=(ExportedWeight(0, "w", "tensor<4xf32>"),))]))
    assert 'util.global private @weight_w = #stream.parameter.named<"model"::"w"> : tensor<4xf32>' in str(module)
