"""Data-parallel training under ``mpiexec`` (the extra 'distributed': mpi4py and mpich).

Each test launches worker.py on 2 to 4 ranks (oversubscribed on a small machine) as a
subprocess with a timeout, and reads what each rank wrote.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("worker.py")


def mpiexec() -> str:
    """``mpiexec`` of this Python's environment (the mpich wheel's), or of the PATH."""
    try:
        import mpi4py.MPI  # noqa: F401  (mpi4py finds an MPI library)
    except (ImportError, RuntimeError) as error:
        pytest.skip(f"needs mpi4py and an MPI library (pip install -e '.[distributed]'): {error}")
    found = shutil.which("mpiexec", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if found is None:
        pytest.skip("needs mpiexec (pip install -e '.[distributed]' brings MPICH's)")
    return found


def launch(ranks: int, mode: str, folder: Path, timeout_s: float, **environment):
    """Run the worker on ``ranks`` ranks; ``(completed process, seconds, results by rank)``;
    ``seconds`` from the injected fault, if there is one, to the end of the run."""
    env = {**os.environ, **environment}
    began = time.monotonic()
    result = subprocess.run([mpiexec(), "-n", str(ranks), sys.executable, str(WORKER), mode, str(folder)],
                            capture_output=True, text=True, timeout=timeout_s, env=env)
    results = {int(p.stem.removeprefix("rank")): json.loads(p.read_text()) for p in folder.glob("rank*.json")}
    fault = folder / "fault-time"  # where the worker injected its fault: time the stop from there
    seconds = time.time() - float(fault.read_text()) if fault.exists() else time.monotonic() - began
    return result, seconds, results


@pytest.mark.parametrize("ranks", [2, 4])
def test_gradients_match_the_whole_batch_and_ranks_stay_in_sync(ranks, tmp_path):
    result, _, results = launch(ranks, "check", tmp_path, timeout_s=240)
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(results) == list(range(ranks)), result.stderr[-3000:]
    for rank, out in results.items():
        assert out["size"] == ranks
        # the mean of the shards' gradients, all-reduced in buckets, is the whole batch's gradient
        assert out["gradient_error"] < 1e-5, (rank, out["gradient_error"])
        assert out["buckets"] >= 3
        assert out["device_functions"] >= 3  # split at the buckets' all-reduces, not one device function
        assert sum(out["losses"][-5:]) < 0.8 * sum(out["losses"][:5]), out["losses"]  # it learns
    # after 20 steps every rank holds the same parameters, bit for bit, and saw the same (global) losses
    assert len({out["digest"] for out in results.values()}) == 1
    assert len({tuple(out["losses"]) for out in results.values()}) == 1


@pytest.mark.parametrize("lag_s", [0, 3])
def test_a_rank_that_raises_stops_every_rank_naming_it(lag_s, tmp_path):
    # with a lag, rank 2 learns of the fault seconds after rank 0 has: rank 0 must not exit
    # (and so have mpiexec end rank 2) before rank 2 has reported it
    result, seconds, _ = launch(3, "raise", tmp_path, timeout_s=180, WORKER_RANK_2_LAG_S=str(lag_s))
    assert result.returncode != 0
    assert seconds < 60  # from the fault: the notice is read while waiting, no timeout is needed
    assert "RuntimeError: injected fault" in result.stderr
    for survivor in (0, 2):
        assert f"rank {survivor}: stopping because rank 1 failed: RuntimeError: injected fault" in result.stderr, result.stderr[-3000:]


def test_a_rank_that_hangs_is_named_after_the_timeout(tmp_path):
    result, seconds, results = launch(2, "hang", tmp_path, timeout_s=180, S4TF_DISTRIBUTED_TIMEOUT="5")
    assert result.returncode != 0
    assert "rank 0: stopping: all-reduce of gradient bucket" in result.stderr, result.stderr[-3000:]
    assert "rank 1 did not answer (dead or hung)" in result.stderr
    assert seconds < 60  # from the fault: the timeout (5 s) and the grace for answers (5 s)


def test_a_killed_rank_ends_the_run_in_bounded_time(tmp_path):
    result, seconds, results = launch(2, "kill", tmp_path, timeout_s=180, S4TF_DISTRIBUTED_TIMEOUT="5")
    assert result.returncode != 0
    assert seconds < 60
    assert results == {}  # nobody finished the loop
    assert "signal 9" in result.stdout + result.stderr  # mpiexec reports the killed process and ends the others


def s4tf_train(ranks: int, folder: Path, *flags: str, timeout_s: float = 300):
    command = [mpiexec(), "-n", str(ranks), str(Path(sys.executable).with_name("s4tf-train")), "mlp", "--data", "digits",
               "--targets", "none", "--no-progress", "--distributed", "--out", str(folder / "mlp.vmfb"), *flags]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, cwd=folder)


def test_s4tf_train_distributed_logs_and_writes_on_rank_0_only(tmp_path):
    result = s4tf_train(2, tmp_path, "--epochs", "1")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("epoch 1/1: train loss") == 1, result.stdout  # one rank logs
    assert result.stdout.count("test accuracy: ") == 1
    accuracy = float(result.stdout.split("test accuracy: ")[1].split()[0])
    assert accuracy > 0.9
    assert (tmp_path / "mlp.npz").exists()


def test_s4tf_train_distributed_rejects_a_batch_that_does_not_split(tmp_path):
    result = s4tf_train(3, tmp_path, "--epochs", "1", "--batch-size", "16", timeout_s=120)
    assert result.returncode != 0
    # every rank finds it (each says so, or that another rank found it first)
    assert result.stderr.count("s4tf-train: error: rank ") == 3, result.stderr[-3000:]
    assert "--batch-size 16 cannot be split evenly over 3 ranks" in result.stderr
    assert "Traceback" not in result.stderr
