"""tools/bench/bench_zoo.py's smoke run: each model's step and first step beside JAX's."""

import os
import time

import bench_zoo
import pytest

pytestmark = pytest.mark.bench  # a benchmark's smoke run: pytest -m bench (CI runs them)


def test_bench_zoo_prints_a_row_per_model(capsys):
    bench_zoo.main(["--models", "vae,neumf", "--config", "test", "--steps", "1", "--rounds", "1"])
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith("| vae") or line.startswith("| neumf")]
    assert len(rows) == 2
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    for row in cells:
        assert float(row[1]) > 0 and float(row[2]) > 0 and float(row[3]) > 0
    ratios = [float(row[3]) for row in cells]
    mean = float(next(line for line in out if line.startswith("geometric mean")).split(":")[1])
    assert mean == pytest.approx((ratios[0] * ratios[1]) ** 0.5, rel=0.02)  # of the rows' rounded ratios


def test_busy_neighbour_takes_a_core_while_the_block_runs():
    from busy_neighbour import busy_neighbour

    with busy_neighbour() as process:
        time.sleep(1.5)
        fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
        user_seconds = int(fields[11]) / os.sysconf("SC_CLK_TCK")  # utime, the 14th field
        assert user_seconds > 0.3  # it spins
    assert not process.is_alive()
    with busy_neighbour(False) as nothing:
        assert nothing is None
