"""GradBench's evaluations other than its loops (tools/bench/gradbench_programs.py; the loops
are in tests/control_flow/test_loop_programs.py) against JAX with x64, in float64: each
value, gradient, Jacobian or Hessian within 1e-12."""

import jax
import numpy as np
import pytest

import s4tf
from gradbench_programs import CASES, S4TF, jax_namespace  # tools/bench: the programs it times

jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("name", CASES)
def test_equals_jax_in_float64(name):
    build, args = CASES[name]
    ours = jax.tree_util.tree_leaves(s4tf.function(build(S4TF))(*args))
    theirs = jax.tree_util.tree_leaves(jax.jit(build(jax_namespace()))(*args))
    assert len(ours) == len(theirs)
    for result, expected in zip(ours, theirs):
        assert np.asarray(result).dtype == np.float64
        np.testing.assert_allclose(np.asarray(result), np.asarray(expected), rtol=1e-12, atol=1e-12)
