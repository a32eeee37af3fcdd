"""s4tf-distinct-branch-refs between IREE's two compile steps (runtime/compiler.py's
``iree_compile``): where no ref repeats, the ``.vmfb`` is the one IREE makes in one step;
where one does, the module runs right on every CPU target (the programs that IREE 3.13
failed so: tests/runtime/test_iree_reproducers.py, tests/control_flow/test_loop_programs.py)."""

from __future__ import annotations

from pathlib import Path

import iree.compiler as iree_compiler
import numpy as np
import pytest

from s4tf.passes.module_traits import ModuleTraits
from s4tf.runtime.compile_and_load import compile_and_load
from s4tf.runtime.compiler import iree_compile, module_flags

REPRODUCERS = Path(__file__).resolve().parents[1] / "lit" / "iree_reproducers"

COUNTDOWN = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %p = stablehlo.compare LT, %i, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %w = stablehlo.add %v, %v : tensor<4xf32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %w : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
"""


def test_a_loop_passing_no_ref_twice_compiles_to_the_same_bits_in_two_steps():
    traits = ModuleTraits.parse(COUNTDOWN)
    assert traits.branches
    flags = module_flags(COUNTDOWN, "cpu", traits=traits)
    one_step = iree_compiler.compile_str(COUNTDOWN, input_type="stablehlo", extra_args=flags)
    assert iree_compile(COUNTDOWN, flags, traits) == one_step


@pytest.mark.parametrize("target", ["cpu", "vmvx"])
def test_loops_passing_a_buffer_twice_run_right(target, tmp_path, monkeypatch):
    """The reproducer's loop carries two small tensors that IREE packs into one buffer."""
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    text = (REPRODUCERS / "while_carries_read_by_barriers_only.mlir").read_text()
    x = np.arange(1, 9, dtype=np.float32)
    v, total = x.copy(), 1.0
    while total > 1e-3:  # the reproducer's loop in NumPy: halve until the sum is under 1e-3
        v = v * np.float32(0.5)
        total = v.sum()
    got = np.asarray(compile_and_load(text, target).invoke("main", [x])[0])
    np.testing.assert_allclose(got, total + total * total, rtol=1e-6)
