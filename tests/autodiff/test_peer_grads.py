"""s4tf's first derivatives on the peers' gradient tests (JAX's and HIPS autograd's lists,
tests/autodiff/peer_grad_cases.py): every derivative that compiles is right, against JAX and float64
finite differences; what s4tf cannot do is refused with its own error.

The default run checks a fast subset (``FAST``); ``pytest -m peer`` runs every case. The
harness itself is tested on a deliberately wrong derivative and on an inconsistent case.
"""

import jax
import numpy as np
import peer_grads
import pytest
from peer_grad_cases import CASES, Case, const, normal

import s4tf

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

#: Cases of every kind (unary, broadcasting binary, shape ops, contractions, reductions,
#: ties, refusals, absent; float64 refused: the test of sin below) that run in about 20 s
#: of CPU time.
FAST = {
    "rsqrt", "logistic", "floor", "mul[3x1,1x4]", "div[scalar,3x4]", "pow[2x3x4,2x1x4]",
    "maximum[3x4,3x4]", "matmul[2x3,3x4]", "dot_general[batch]", "sum[axis=(1, 2)]",
    "max[axis=1,keepdims]", "x[3,0,1]", "x[::-1,2:4,:]", "x[[0,1,2],:,:]", "concatenate[axis=1]",
    "where[x > 0, x, 2y]", "logsumexp[3x4,axis=0,keepdims=True]", "maximum[x, x] (tie)", "tan",
    "pow[x**0 at 0]",
}


def _param(case: Case):
    return pytest.param(case, id=case.name, marks=[] if case.name in FAST else [pytest.mark.peer])


def test_the_fast_subset_names_existing_cases():
    names = {c.name for c in CASES}
    assert FAST <= names


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_derivative_is_right_or_refused(case):
    outcome = peer_grads.check(case, jax)
    assert outcome.status in ("right", "refused", "absent"), f"{outcome.status}: {outcome.detail}"


@s4tf.function
def _exp(x):
    return s4tf.exp(x)


@s4tf.derivative(of=_exp)
def _exp_vjp_doubled(x):
    y = _exp(x)
    return y, lambda dy: (2 * dy * y,)


def test_a_deliberately_wrong_derivative_is_reported_wrong():
    def exp(xp, x):
        return _exp(x) if getattr(xp, "function", None) is s4tf.function else xp.exp(x)

    wrong = Case("exp with a doubled VJP", "test", exp, (normal(3),))
    outcome = peer_grads.check(wrong, jax)
    assert outcome.status == "wrong"
    assert "gradient 0 vs JAX" in outcome.detail and "JVP" not in outcome.detail


def test_a_case_whose_references_disagree_is_a_table_error():
    relu_at_zero = Case("relu at 0", "test", lambda xp, x: xp.relu(x), (const(0.0),))  # JAX: 0, differences: 0.5
    with pytest.raises(peer_grads.TableError, match="relu at 0: JAX's JVP and finite differences disagree"):
        peer_grads.check(relu_at_zero, jax)


def test_float64_sin_is_checked_in_float64_now_that_the_cpu_links_libm():
    """It was refused in float64 (and checked in float32, noted) before ``cpu`` linked the
    system libm (s4tf.runtime.system_libm)."""
    outcome = peer_grads.check(next(c for c in CASES if c.name == "sin"), jax)
    assert (outcome.status, outcome.dtype) == ("right", "float64")
    assert "float64 refused" not in outcome.detail


def test_cli_prints_the_counts_and_writes_nothing_for_a_subset(tmp_path, capsys):
    target = tmp_path / "peer-grads.md"
    assert peer_grads.main(["neg", "i0e", "--write", str(target)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "1 right, 0 wrong, 0 refused, 0 crash, 1 absent"
    assert not target.exists()


def test_cli_rejects_an_unknown_case_in_one_line(capsys):
    assert peer_grads.main(["no such case"]) == 2
    assert capsys.readouterr().err == "peer_grads: no such case: no such case\n"


def test_markdown_counts_and_groups_the_outcomes():
    results = [(CASES[0], peer_grads.Outcome("right", "float64")),
               (CASES[1], peer_grads.Outcome("refused", "float64", "a | b"))]
    text = peer_grads.markdown(results)
    assert "| right | 1 |" in text.splitlines() and "| wrong | 0 |" in text.splitlines()
    assert f"| `{CASES[1].name}` | {CASES[1].source} | float64 | a \\| b |" in text.splitlines()
