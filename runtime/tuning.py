"""Tile sizes per matrix product for this machine's CPU, given to IREE as a tuning spec.

IREE's llvm-cpu backend chooses a ``lowering_config`` (workgroup, register and reduction
tiles) for each dispatch's root op; a *tuning spec* (``--iree-codegen-tuning-spec-path``,
a transform-dialect library) can set it instead, per op. The autotuner (``s4tf-tune``,
:mod:`s4tf.tools.tune`) times candidates for each product shape and keeps the
winners in ``<cache>/tuning/<cpu>-iree<version>.json`` (beside the module cache); every
later compilation for the host CPU turns that file into a spec. One matcher per shape
(loop ranges ``m x n x k``, the reduction last, as IREE names the dispatch
``matmul_<m>x<n>x<k>``) annotates the op with its ``compilation_info``::

    transform.named_sequence @match_128x512x784(%op: !transform.any_op {transform.readonly})
        -> (!transform.any_op, !transform.any_param) {
      transform.match.structured %op : !transform.any_op { ... dims 128, 512, 784 ... }
      %config = transform.param.constant #iree_codegen.compilation_info<
        lowering_config = #iree_cpu.lowering_config<cache_parallel = [64, 64, 0], distribution = [64, 64, 0],
          vector_common_parallel = [8, 8, 0], vector_reduction = [0, 0, 8]>,
        translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>,
          {enable_loop_peeling}>>
      ...

``S4TF_TUNING=0`` compiles without it.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from iree.compiler.version import VERSION as IREE_VERSION

from s4tf.runtime.cache import default_cache_dir

Shape = tuple[int, int, int]


@dataclass(frozen=True)
class TileConfig:
    """Tiles of a ``m x n x k`` product: per workgroup ``(m, n)``, per register block ``(m, n)``, and of ``k``."""

    distribution: tuple[int, int]
    vector: tuple[int, int]
    reduction: int

    def attribute(self) -> str:
        (dm, dn), (vm, vn) = self.distribution, self.vector
        return ("#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<"
                f"cache_parallel = [{dm}, {dn}, 0], distribution = [{dm}, {dn}, 0], "
                f"vector_common_parallel = [{vm}, {vn}, 0], vector_reduction = [0, 0, {self.reduction}]>, "
                "translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>, "
                "{enable_loop_peeling}>>")

    def as_json(self) -> dict:
        return {"distribution": list(self.distribution), "vector": list(self.vector), "reduction": self.reduction}

    @staticmethod
    def from_json(data: dict) -> TileConfig:
        return TileConfig(tuple(data["distribution"]), tuple(data["vector"]), int(data["reduction"]))


def _matcher(shape: Shape, config: TileConfig) -> str:
    name = "x".join(map(str, shape))
    checks = "".join(
        f"    %d{i} = transform.match.structured.dim %s[{i}] : (!transform.any_op) -> !transform.param<i64>\n"
        f"    %w{i} = transform.param.constant {size} : i64 -> !transform.param<i64>\n"
        f"    transform.match.param.cmpi eq %d{i}, %w{i} : !transform.param<i64>\n"
        for i, size in enumerate(shape))
    return (f"transform.named_sequence @match_{name}(%op: !transform.any_op {{transform.readonly}})\n"
            f"    -> (!transform.any_op, !transform.any_param) {{\n"
            f"  transform.match.structured %op : !transform.any_op {{\n"
            f"  ^bb0(%s: !transform.any_op):\n"
            f"    %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>\n"
            f"    %three = transform.param.constant 3 : i64 -> !transform.param<i64>\n"
            f"    transform.match.param.cmpi eq %rank, %three : !transform.param<i64>\n"
            f"{checks}"
            f"    transform.match.structured.yield\n"
            f"  }}\n"
            f"  %config = transform.param.constant {config.attribute()} -> !transform.any_param\n"
            f"  transform.yield %op, %config : !transform.any_op, !transform.any_param\n"
            f"}}\n")


def spec_text(configs: dict[Shape, TileConfig]) -> str:
    """The tuning spec (a transform library) that gives each product shape its tiles."""
    matchers = "".join(_matcher(shape, config) for shape, config in sorted(configs.items()))
    pairs = ", ".join(f"@match_{'x'.join(map(str, shape))} -> @apply" for shape in sorted(configs))
    return ("module @s4tf_tuning attributes { transform.with_named_sequence } {\n"
            "transform.named_sequence @apply(%op: !transform.any_op {transform.readonly}, "
            "%config: !transform.any_param {transform.readonly}) {\n"
            "  transform.annotate %op \"compilation_info\" = %config : !transform.any_op, !transform.any_param\n"
            "  transform.yield\n}\n"
            f"{matchers}"
            "transform.named_sequence @main(%variant: !transform.any_op {transform.consumed}) -> !transform.any_op\n"
            "    attributes { iree_codegen.tuning_spec_entrypoint } {\n"
            f"  %result = transform.foreach_match in %variant {pairs} : (!transform.any_op) -> !transform.any_op\n"
            "  transform.yield %result : !transform.any_op\n}\n}\n")


def tuning_file(cpu: str) -> Path:
    return default_cache_dir() / "tuning" / f"{cpu}-iree{IREE_VERSION}.json"


def load_configs(cpu: str) -> dict[Shape, TileConfig]:
    """The winners kept for ``cpu`` (none when the file is missing or unreadable)."""
    try:
        data = json.loads(tuning_file(cpu).read_text())
        return {tuple(int(n) for n in shape.split("x")): TileConfig.from_json(c) for shape, c in data.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def save_configs(cpu: str, configs: dict[Shape, TileConfig], drop=()) -> Path:
    """Merge ``configs`` into ``cpu``'s file (a shape given again is replaced), less the
    shapes in ``drop``; its path."""
    path = tuning_file(cpu)
    merged = {shape: c for shape, c in {**load_configs(cpu), **configs}.items() if shape not in drop}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"x".join(map(str, s)): c.as_json() for s, c in sorted(merged.items())}, indent=1))
    return path


def write_spec(configs: dict[Shape, TileConfig], folder: Path | None = None) -> Path:
    """The spec for ``configs`` as a file named by its content (so a compile flag naming it names its content)."""
    text = spec_text(configs)
    folder = folder or default_cache_dir() / "tuning"
    path = folder / f"spec-{hashlib.sha256(text.encode()).hexdigest()[:16]}.mlir"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


#: Given with every tuning spec (see :func:`tuning_flags`).
NO_THREADING = "--mlir-disable-threading"


def tuning_flags(cpu: str | None) -> list[str]:
    """``--iree-codegen-tuning-spec-path=...`` for ``cpu``'s kept tiles; none without any, or
    with ``S4TF_TUNING=0``. With a spec, MLIR's threading is off. IREE-3.13-WORKAROUND: IREE 3.13's
    ``MaterializeTuningSpecsPass``, run for several executables at once, can deadlock in
    ``IREECodegenDialect::getOrLoadTransformLibraryModule`` (seen once in a full test run:
    ``iree-compile`` asleep on that mutex for an hour, gdb's stacks in docs/benchmarks.md)."""
    if cpu is None or os.environ.get("S4TF_TUNING") == "0":
        return []
    configs = load_configs(cpu)
    return [f"--iree-codegen-tuning-spec-path={write_spec(configs)}", NO_THREADING] if configs else []
