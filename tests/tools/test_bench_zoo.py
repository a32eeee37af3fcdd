"""tools/bench/bench_zoo.py's smoke run: each model's step and first step beside JAX's."""

import bench_zoo
import pytest

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_zoo_prints_a_row_per_model(capsys):
    bench_zoo.main(["--models", "vae,neumf", "--config", "test", "--steps", "1", "--rounds", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| vae") or line.startswith("| neumf")]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[1]) > 0 and float(cells[2]) > 0 and float(cells[3]) > 0
