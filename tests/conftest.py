"""Test-wide set-up: compiled modules go to a private cache, never the user's; first calls
wait for IREE (``S4TF_FIRST_CALL=compile``, the default, set here so that a developer's
``interpret`` does not make the suite test the NumPy references instead of IREE's lowering;
tests/frontend/test_tiered_first_call.py turns them on); the arm64
runner for tests of phone modules under qemu; the ``peer``, ``array_api``, ``real_loops``,
``bench``, ``loop_sweep`` and ``zoo_gpus`` tests only when asked for; the IREE sample, ``$S4TF_TEST_IREE_SAMPLE`` set to ``1``
while one of its tests runs. Tests marked ``references`` (of a transformation, or of the
frontend's compositions of ops) run their staged functions and eager ops through the ops'
NumPy references outside the sample, as the checks of ``tests/autodiff/gradient_checks.py`` do.

The sample, by ``$S4TF_TEST_IREE``:

- unset (the README's test command): the first test marked ``references`` of each file,
  and the first test of each test function among the tests not marked so;
- ``functions``: the tests marked ``references`` that are the first of their test function
  but not of their file, and only those, through IREE: what the README's command leaves to
  the references, which CI runs after it (.ci/run), so that CI compiles the first test of
  every test function;
- ``all``: every test compiles everything with IREE."""

import gc
import os
import subprocess
import sys
import tempfile
import warnings

import pytest
from arm64_runs import find_runner

from s4tf.core.errors import S4tfError
from s4tf.runtime.qemu import Arm64Runner
from s4tf.staging import first_call

os.environ.setdefault("S4TF_CACHE_DIR", tempfile.mkdtemp(prefix="s4tf-test-cache-"))
os.environ["S4TF_FIRST_CALL"] = "compile"


@pytest.fixture(scope="module", autouse=True)
def collect_cycles_after_each_file():
    """A full garbage collection after each test file: compiled modules, device buffers and
    MLIR contexts caught in reference cycles hold far more memory than the collector's object
    counts show. (The 16 GB worker once seen in a suite run was not such a cycle but
    StableHLO's parser on a fuzzed convolution layout, now refused first: docs/trust.md.)"""
    yield
    gc.collect()


@pytest.fixture(scope="session")
def arm64_runner(pytestconfig) -> Arm64Runner:
    """The aarch64 ``iree-run-module`` under qemu (skips without qemu-aarch64 and the arm64
    C libraries)."""
    try:
        runner = find_runner(pytestconfig.cache.mkdir("arm64"))
    except S4tfError as error:
        pytest.skip(str(error))
    if runner is None:
        pytest.skip("needs qemu-aarch64 and the arm64 C libraries (apt: qemu-user libc6-arm64-cross libstdc++6-arm64-cross)")
    return runner


@pytest.fixture(scope="session")
def run_arm64(arm64_runner):
    """Runs the aarch64 ``iree-run-module`` under qemu with the given flags."""
    return arm64_runner.run


SAMPLE = "S4TF_TEST_IREE_SAMPLE"


def pytest_runtest_setup(item):
    """``$S4TF_TEST_IREE_SAMPLE``: ``1`` while a test of the IREE sample runs, else ``0``;
    tests marked ``vulkan`` run in a process of their own (:func:`run_in_a_child`)."""
    os.environ[SAMPLE] = "1" if getattr(item, "iree_sample", False) else "0"
    if item.get_closest_marker("vulkan") and not os.environ.get(CHILD):
        item.runtest = lambda: run_in_a_child(item)


CHILD = "S4TF_TEST_CHILD"
DEVICE_LOST = "VK_ERROR_DEVICE_LOST"


def run_in_a_child(item) -> None:
    """Runs ``item`` in a pytest process of its own. IREE keeps a Vulkan device until its
    process ends, and on Mesa 22's lavapipe (Debian 12's) two of the device's threads
    busy-wait in ``vkWaitSemaphores`` whenever it is idle, taking most of a core from every
    test the worker runs after it. A test whose process ends with the device lost runs once
    more in a new process: Mesa 22's lavapipe loses its device now and then when two
    processes use it at once (a 300-step loop, about one run in 20 beside another vulkan
    process, none alone in 55), which a wrong number or a second loss still fails."""
    marks = ["-m", item.config.option.markexpr] if item.config.option.markexpr else []  # the opt-in markers
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-n", "0", *marks, item.nodeid]

    def run():
        return subprocess.run(command, env={**os.environ, CHILD: "1"}, cwd=item.config.rootpath,
                              capture_output=True, text=True, timeout=600)

    result = run()
    if result.returncode != 0 and DEVICE_LOST in result.stdout:
        warnings.warn(f"{item.nodeid}: lavapipe lost its device ({DEVICE_LOST}); run again in a new process")
        result = run()
    report = f"{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    if result.returncode != 0:
        raise AssertionError(f"the test failed in its own process:\n{report}")
    if " passed" not in result.stdout:
        reasons = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
        pytest.skip(f"in its own process: {reasons[0] if reasons else result.stdout.strip()[-200:]}")


@pytest.fixture(autouse=True)
def references_outside_the_iree_sample(request, monkeypatch):
    """Tests marked ``references`` check what the frontend or a transformation builds, not
    IREE's lowering (tests/dialects checks every op's lowering against its reference): outside
    the IREE sample they run through the references (``s4tf.set_first_call("reference")``)."""
    if request.node.get_closest_marker("references") and not getattr(request.node, "iree_sample", False) \
            and os.environ.get("S4TF_TEST_IREE") != "all":
        monkeypatch.setattr(first_call, "_setting", "reference")


def pytest_collection_modifyitems(config, items):
    """Leave out the peers' whole gradient tables (marker ``peer``, minutes), the Array
    API test suite (marker ``array_api``), the real loop programs' benchmark (marker
    ``real_loops``), the sweep of loop programs (marker ``loop_sweep``), the model zoo on the
    GPU targets (marker ``zoo_gpus``) and the smoke runs of tools/bench/'s benchmarks (marker ``bench``, which CI
    runs after the README's test command) unless ``-m`` names them (``pytest -m peer``);
    ``-m 'not slow'`` and a plain run leave them out. Marks the IREE sample (the module's
    docstring says which tests it holds) and, with ``S4TF_TEST_IREE=functions``, keeps only
    the part of it that the README's command leaves out."""
    for marker in ("peer", "array_api", "real_loops", "bench", "loop_sweep", "zoo_gpus"):
        if marker not in (config.option.markexpr or ""):
            _keep_only(config, items, lambda item: not item.get_closest_marker(marker))
    functions_tier = os.environ.get("S4TF_TEST_IREE") == "functions"
    functions, files = set(), set()  # seen, whichever tests -k or -m chose
    for item in items:
        function = (item.path, getattr(item, "originalname", item.name))
        item.iree_sample = function not in functions
        functions.add(function)
        if item.get_closest_marker("references"):  # the file's first test marked so
            first_of_file = item.path not in files
            files.add(item.path)
            item.iree_sample = item.iree_sample and not first_of_file if functions_tier else first_of_file
    if functions_tier:  # those samples alone
        _keep_only(config, items, lambda item: item.get_closest_marker("references") and item.iree_sample)


def _keep_only(config, items, keep) -> None:
    """Deselects the tests of ``items`` (in place) for which ``keep`` is false."""
    left_out = [item for item in items if not keep(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if keep(item)]
