"""s4tf-run runs arm64 modules on this machine under qemu-aarch64, with the aarch64
``iree-run-module`` that ``s4tf-run --install-arm64-runtime`` puts in s4tf's cache folder.

Needs qemu-aarch64 and the arm64 C libraries (the ``arm64_runner`` fixture of
tests/conftest.py skips without them); the runtime that fixture downloaded once is copied
into this session's cache folder, where ``s4tf-run --install-arm64-runtime`` puts it.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from loop_program import LOOP

import s4tf
from s4tf.deploy import describe
from s4tf.core.errors import S4tfError
from s4tf.runtime.cache import default_cache_dir
from s4tf.runtime.qemu import runtime_folder
from s4tf.tools.compile import run as compile_tool
from s4tf.tools.run import run

pytestmark = pytest.mark.arm64

MODEL = "import s4tf\n\n\ndef predict(w, b, x):\n    return s4tf.tanh(x @ w + b)\n"


def model_inputs(seed: int):
    """``(w, b, x)``: float32 ``3x2``, ``2`` and ``4x3``."""
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal(shape).astype(np.float32) for shape in ((3, 2), (2,), (4, 3)))


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    """phone.vmfb (android-arm64, with predict_vjp) and phone.irpa from w.npy and b.npy, and x.npy."""
    folder = tmp_path_factory.mktemp("phone")
    (folder / "model.py").write_text(MODEL)
    for name, array in zip(("w", "b", "x"), model_inputs(3)):
        np.save(folder / f"{name}.npy", array)
    assert compile_tool([
        str(folder / "model.py:predict"), "--arg", f"@{folder / 'w.npy'}", "--arg", f"@{folder / 'b.npy'}",
        "--arg", "f32[4,3]", "--weights", "0,1", "--entry", "predict_vjp", "--target", "android-arm64",
        "-o", str(folder / "phone.vmfb"),
    ]) == 0
    return folder


@pytest.fixture
def installed(arm64_runner, phone, monkeypatch):
    """The aarch64 runtime where ``s4tf-run --install-arm64-runtime`` puts it; runs in ``phone``."""
    tool = runtime_folder(default_cache_dir()) / "iree-run-module"
    if not tool.exists():
        tool.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(arm64_runner.tool, tool)
    monkeypatch.chdir(phone)
    return phone


def run_tool(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_phone_module_runs_under_qemu_and_matches_numpy(installed, capsys):
    w, b, x = model_inputs(3)
    code, _, err = run_tool(capsys, "phone.vmfb", "--function", "predict", "--input", "@x.npy", "--output", "@y.npy")
    assert code == 0, err
    np.testing.assert_allclose(np.load(installed / "y.npy"), np.tanh(x @ w + b), rtol=1e-5, atol=1e-6)


def test_all_results_of_the_vjp_with_a_literal_input(installed, capsys):
    w, b, x = model_inputs(3)
    dy = [[1.0, 0.0]] * 4
    code, out, err = run_tool(capsys, "phone.vmfb", "--function", "predict_vjp", "--input", "@x.npy", "--input", str(dy),
                              "--output", "@y.npy", "--output", "@dw.npy")
    assert code == 0, err
    dz = (1 - np.tanh(x @ w + b) ** 2) * np.array(dy, np.float32)
    np.testing.assert_allclose(np.load(installed / "dw.npy"), x.T @ dz, rtol=1e-4, atol=1e-5)
    assert [line for line in out.splitlines() if line.startswith("result")] == ["result 2: float32[2]", "result 3: float32[4, 3]"]


def test_new_weights_change_the_results(installed, capsys):
    _, _, x = model_inputs(3)
    w, b = np.full((3, 2), 0.5, np.float32), np.zeros(2, np.float32)
    s4tf.save_parameters(installed / "new.irpa", {"w": w, "b": b})
    code, _, err = run_tool(capsys, "phone.vmfb", "--function", "predict", "--input", "@x.npy",
                            "--parameters", "new.irpa", "--output", "@new.npy")
    assert code == 0, err
    np.testing.assert_allclose(np.load(installed / "new.npy"), np.tanh(x @ w + b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--function", "predict", "--input", "[1, 2]"], "input 0 of 'predict' is float32[2], but the function takes tensor<4x3xf32>"),
        (["--function", "train", "--input", "@x.npy"], "phone.vmfb has no function 'train'; its functions: predict, predict_vjp"),
        (["--input", "@x.npy"], "the module has several functions, choose one with --function: predict, predict_vjp"),
        (["--function", "predict", "--input", "@x.npy", "--parameters", "w.irpa"],
         "parameter 'w' in w.irpa is float32[2], but phone.vmfb reads tensor<3x2xf32>"),
    ],
)
def test_bad_input_is_refused_before_qemu_runs(installed, capsys, argv, message):
    s4tf.save_parameters(installed / "w.irpa", {"w": np.zeros(2, np.float32), "b": np.zeros(2, np.float32)})
    code, _, err = run_tool(capsys, "phone.vmfb", *argv)
    assert code == 1
    assert err == f"s4tf-run: error: {message}\n"


def test_install_reports_the_installed_runtime(installed, capsys):
    code, out, _ = run_tool(capsys, "--install-arm64-runtime")
    assert code == 0
    assert out == f"the aarch64 runtime is {runtime_folder(default_cache_dir()) / 'iree-run-module'}\n"


def test_without_the_runtime_the_error_says_how_to_get_it(phone, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("S4TF_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(phone)
    code, _, err = run_tool(capsys, "phone.vmfb", "--function", "predict", "--input", "@x.npy")
    assert code == 1
    assert err in (
        "s4tf-run: error: running arm64 code here needs the aarch64 IREE runtime: get it with s4tf-run --install-arm64-runtime\n",
        "s4tf-run: error: running arm64 code here needs qemu-aarch64 and the arm64 C libraries "
        "(apt install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)\n",
    )


def test_without_qemu_the_error_says_what_to_install(phone, monkeypatch, capsys):
    monkeypatch.setenv("PATH", "")
    monkeypatch.chdir(phone)
    code, _, err = run_tool(capsys, "phone.vmfb", "--function", "predict", "--input", "@x.npy")
    assert code == 1
    assert err == (
        "s4tf-run: error: running arm64 code here needs qemu-aarch64 and the arm64 C libraries "
        "(apt install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)\n"
    )


# -- IREE's CPU drivers under qemu, chosen as on the host -------------------------------


@pytest.fixture(scope="module")
def loop_modules(tmp_path_factory):
    """loop-phone.vmfb (android-arm64) and loop.vmfb (cpu) of a loop-bound function, and x.npy."""
    folder = tmp_path_factory.mktemp("loop")
    (folder / "loop.py").write_text(LOOP)
    np.save(folder / "x.npy", np.array([0.5, 1.0, 2.0, 7.0], np.float32))
    for target, name in (("android-arm64", "loop-phone.vmfb"), ("cpu", "loop.vmfb")):
        assert compile_tool([str(folder / "loop.py:relax"), "--arg", "f32[4]", "--target", target, "-o", str(folder / name)]) == 0
    return folder


def test_both_drivers_give_the_same_bits_under_qemu_and_the_rule_is_the_hosts(installed, loop_modules, monkeypatch, capsys):
    """``--device cpu`` runs a loop-bound arm64 module on ``local-sync``, the driver the
    module recorded (the host's rule); ``local-task`` and ``local-sync`` when named. The
    verbose line shows the ``--device=`` flag iree-run-module was given."""
    monkeypatch.chdir(loop_modules)
    assert describe("loop-phone.vmfb").driver == "local-sync"
    outputs = {}
    for device, driver in (("cpu", "local-sync"), ("local-sync", "local-sync"), ("local-task", "local-task")):
        code, _, err = run_tool(capsys, "loop-phone.vmfb", "--input", "@x.npy", "--output", f"@{device}.npy", "--device", device, "-v")
        assert code == 0, err
        assert err.startswith(f"s4tf-run: running 'relax' of loop-phone.vmfb on device 'cpu' with IREE driver '{driver}' under qemu-aarch64: ")
        assert f" --device={driver} " in err and err.count("--device=") == 1
        outputs[device] = np.load(loop_modules / f"{device}.npy")
    assert outputs["cpu"].tobytes() == outputs["local-sync"].tobytes() == outputs["local-task"].tobytes()
    code, _, err = run_tool(capsys, "loop.vmfb", "--input", "@x.npy", "--output", "@host.npy", "-v")
    assert code == 0 and "with IREE driver 'local-sync'" in err
    np.testing.assert_allclose(outputs["cpu"], np.load(loop_modules / "host.npy"), rtol=1e-6)


def test_a_small_module_records_local_sync_and_both_drivers_agree_under_qemu(installed, capsys):
    """phone.vmfb has no loop and small tensors, so it records local-sync; the vjp's
    results run the same on both drivers."""
    assert describe("phone.vmfb").driver == "local-sync"
    results = []
    for device in ("local-task", "local-sync"):
        code, _, err = run_tool(capsys, "phone.vmfb", "--function", "predict", "--input", "@x.npy", "--output", f"@{device}.npy",
                                "--device", device)
        assert code == 0, err
        results.append(np.load(installed / f"{device}.npy").tobytes())
    assert results[0] == results[1]


def test_an_unknown_driver_under_qemu_names_the_choices(installed, capsys):
    code, _, err = run_tool(capsys, "phone.vmfb", "--function", "predict", "--input", "@x.npy", "--device", "local")
    assert code == 1
    assert err == "s4tf-run: error: unknown device 'local'; known devices: cpu, vulkan, cuda, or a CPU driver: local-sync, local-task\n"


def test_the_runner_takes_only_cpu_drivers(arm64_runner):
    assert "--device=local-sync" in arm64_runner.command("--module=m.vmfb", driver="local-sync")
    with pytest.raises(S4tfError, match="unknown driver 'cuda' for device 'cpu'; its drivers: local-sync, local-task"):
        arm64_runner.command(driver="cuda")
