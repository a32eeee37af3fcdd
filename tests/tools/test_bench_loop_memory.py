"""tools/bench/bench_loop_memory.py runs end to end on one small size: the loop reading a
matrix from memory becomes one dispatch region, the host-stepped lowering none, and their
results agree (speed itself is never asserted)."""

import re

import bench_loop_memory
import pytest

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_loop_memory_prints_both_lowerings_and_their_difference(capsys):
    bench_loop_memory.main(["--sizes", "600x16", "--steps", "3"])
    out = capsys.readouterr().out
    for how, regions in (("host-stepped", 0), ("one dispatch", 1)):
        assert re.search(rf"^600x16 \(9600 multiply-adds a product\), {how}: {regions} dispatch regions, "
                         rf"compile [\d.]+ s, -?[\d.]+ us an iteration$", out, flags=re.MULTILINE), out
    difference = float(re.search(r"^600x16: largest difference (\S+)$", out, flags=re.MULTILINE).group(1))
    assert difference <= 1e-6, out
