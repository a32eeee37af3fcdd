"""The Array API standard's own test suite against s4tf (``tools/bench/array_api_tests.sh``).

Long (about 15 minutes on two shared cores with --max-examples=3): marked ``array_api``, run only with ``-m array_api`` and a
checkout of data-apis/array-api-tests in ``S4TF_ARRAY_API_TESTS``; see docs/array-api.md."""

import os
import re
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "tools" / "bench" / "array_api_tests.sh"
#: The share of the main namespace's tests that pass (docs/array-api.md records the figure).
FLOOR = 0.95


def _counts(line: str) -> tuple[int, int]:
    numbers = {word: int(count) for count, word in re.findall(r"(\d+) (passed|failed|error)", line)}
    return numbers.get("passed", 0), numbers.get("failed", 0) + numbers.get("error", 0)


@pytest.mark.array_api
def test_the_array_api_suite_passes_at_the_recorded_rate():
    checkout = os.environ.get("S4TF_ARRAY_API_TESTS")
    if not checkout:
        pytest.skip("set S4TF_ARRAY_API_TESTS to a checkout of data-apis/array-api-tests")
    run = subprocess.run(["bash", str(SCRIPT), checkout, "3"], capture_output=True, text=True)
    lines = [line for line in run.stdout.splitlines() if ": " in line]
    assert lines, run.stdout + run.stderr
    passed = failed = 0
    for line in lines:
        p, f = _counts(line)
        passed, failed = passed + p, failed + f
    assert passed / max(passed + failed, 1) >= FLOOR, run.stdout


def test_the_script_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    run = subprocess.run(["bash", str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 2 and "not an array-api-tests checkout" in run.stderr
