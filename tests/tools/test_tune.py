"""``s4tf-tune`` runs end to end on one product with two candidates, keeping what it finds in
a cache folder of its own (speed itself is never asserted: see docs/benchmarks.md); bad
options are one line of usage error."""

import re

import pytest

from s4tf.tools import tune


def test_tune_times_candidates_keeps_winners_and_compares(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    code = tune.run(["--quick", "--max-products", "1", "--repetitions", "1", "--calls", "2", "--rounds", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.search(r"\d+ product shapes of the mlp step to tune: 128x512x784", out)
    assert re.search(r"128x512x784: IREE's choice \d+ us CPU", out)
    assert len(re.findall(r"^    \(64, 64\) \(\d+, 16\) \d: \d+ us", out, re.M)) == 2
    assert re.search(r"kept [01] winner\(s\) in .*tuning", out)
    assert re.search(r"^  mlp step JAX jit\s+[\d.]+ ms wall\s+[\d.]+ ms CPU", out, re.M)  # JAX: a test dependency


@pytest.mark.parametrize("argv, message", [
    (["--models", "resnet"], "unknown model 'resnet': choose from mlp, lenet, transformer"),
    (["--max-products", "0"], "0 is not a positive number"),
    (["--compare-only", "--verify-kept"], "not allowed with argument"),
])
def test_bad_options_are_a_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_status:
        tune.run(argv)
    assert exit_status.value.code == 2
    err = capsys.readouterr().err
    assert "s4tf-tune: error:" in err and message in err and "Traceback" not in err
