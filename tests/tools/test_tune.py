"""tools/bench/tune_matmuls.py runs end to end on one product with two candidates, keeping
what it finds in a cache folder of its own (speed itself is never asserted: see docs/benchmarks.md)."""

import re

from bench_runner import run_bench


def test_tune_matmuls_times_candidates_keeps_winners_and_compares(tmp_path):
    completed = run_bench("tune_matmuls.py", "--quick", "--max-products", "1", "--repetitions", "1", "--calls", "2", "--rounds", "1",
                          timeout=900, env={"S4TF_CACHE_DIR": str(tmp_path)})
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert re.search(r"\d+ product shapes of the mlp step to tune: 128x512x784", out)
    assert re.search(r"128x512x784: IREE's choice \d+ us CPU", out)
    assert len(re.findall(r"^    \(64, 64\) \(\d+, 16\) \d: \d+ us", out, re.M)) == 2
    assert re.search(r"kept [01] winner\(s\) in .*tuning", out)
    assert re.search(r"^  mlp step JAX jit\s+[\d.]+ ms wall\s+[\d.]+ ms CPU", out, re.M)  # JAX: a test dependency
