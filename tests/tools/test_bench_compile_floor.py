"""tools/bench/bench_compile_floor.py's smoke run: JAX's and s4tf's StableHLO of a small
zoo step compiled by XLA and IREE."""

import bench_compile_floor
import pytest

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_compile_floor_prints_three_compiles_per_model(capsys):
    bench_compile_floor.main(["--models", "vae", "--config", "test", "--rounds", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| vae")]
    assert [row.split("|")[2].strip() for row in rows] == ["XLA, JAX's StableHLO", "IREE, JAX's StableHLO", "IREE, s4tf's StableHLO"]
    for row in rows:
        wall, cpu, ratio = (float(cell) for cell in row.strip("|").split("|")[2:])
        assert wall > 0 and cpu >= 0 and ratio > 0
