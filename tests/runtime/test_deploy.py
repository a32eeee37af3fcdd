"""s4tf.compile / save / s4tf.load: weights apart from code, derivative entry points, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.core.mlir import ir
from s4tf.runtime.device import InvocationError, ModuleLoadError
from s4tf.runtime.deployment import ExportError
from s4tf.runtime.parameters import ParameterArchiveError, save_parameters
from s4tf.runtime.targets import UnknownTargetError
from small_model import expected, predict


def weights(seed: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)


X = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """predict with w, b in ``predict.irpa`` beside ``predict.vmfb``, plus its jvp and vjp
    (derivative entry points come beside the function)."""
    path = tmp_path_factory.mktemp("deploy") / "predict.vmfb"
    module = s4tf.compile(predict, (*weights(1), X), weights=(0, 1), entry_points=("predict_jvp", "predict_vjp"))
    return module.save(path)


def test_a_module_is_compiled_for_deployment_without_parsing_any_text(monkeypatch, tmp_path):
    """Lowering and export run on one in-memory copy of the staged module; before, it was
    printed and parsed for the lowering and again for the export."""
    original, parsed = ir.Module.parse, []

    def parse(*args, **kwargs):
        parsed.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(ir.Module, "parse", staticmethod(parse))
    w, b = weights(4)
    module = s4tf.compile(predict, (w, b, X), weights=(0,), embed_weights=True)
    assert parsed == []
    loaded = s4tf.load(module.save(tmp_path / "embedded.vmfb"))
    np.testing.assert_allclose(np.asarray(loaded.predict(b, X)), expected(w, b, X), rtol=1e-5, atol=1e-6)


def test_derivative_entry_points_come_beside_the_function(saved):
    assert sorted(s4tf.load(saved).functions) == ["predict", "predict_jvp", "predict_vjp"]


def test_weights_go_to_an_archive_beside_the_module(saved):
    assert saved.with_suffix(".irpa").is_file()
    w, b = weights(1)
    np.testing.assert_allclose(np.asarray(s4tf.load(saved).predict(X)), expected(w, b, X), rtol=1e-5, atol=1e-6)


def test_a_new_archive_changes_the_results_of_the_same_module(saved, tmp_path):
    code = saved.read_bytes()
    w, b = weights(2)
    save_parameters(tmp_path / "new.irpa", {"w": w, "b": b})
    result = np.asarray(s4tf.load(saved, parameters=tmp_path / "new.irpa").predict(X))
    np.testing.assert_allclose(result, expected(w, b, X), rtol=1e-5, atol=1e-6)
    assert not np.allclose(result, expected(*weights(1), X))
    assert saved.read_bytes() == code


def test_vjp_entry_point_gives_the_gradients_of_weights_and_input(saved):
    w, b = weights(1)
    dy = np.random.default_rng(3).standard_normal((4, 2)).astype(np.float32)
    y, dw, db, dx = (np.asarray(r) for r in s4tf.load(saved).predict_vjp(X, dy))
    dz = (1 - expected(w, b, X) ** 2) * dy  # through tanh
    np.testing.assert_allclose(y, expected(w, b, X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dw, X.T @ dz, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(db, dz.sum(axis=0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dx, dz @ w.T, rtol=1e-4, atol=1e-5)


def test_jvp_entry_point_matches_finite_differences(saved):
    w, b = weights(1)
    rng = np.random.default_rng(4)
    dw, db, dx = (rng.standard_normal(a.shape).astype(np.float32) for a in (w, b, X))
    y, dy = (np.asarray(r) for r in s4tf.load(saved).predict_jvp(X, dw, db, dx))
    eps = 1e-4
    w64, b64, x64 = (a.astype(np.float64) for a in (w, b, X))
    central = (expected(w64 + eps * dw, b64 + eps * db, x64 + eps * dx) - expected(w64 - eps * dw, b64 - eps * db, x64 - eps * dx)) / (2 * eps)
    np.testing.assert_allclose(y, expected(w, b, X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dy, central, rtol=1e-3, atol=1e-4)


def test_embedded_weights_need_no_archive(tmp_path):
    w, b = weights(1)
    path = s4tf.compile(predict, (w, b, X), weights=(0, 1), embed_weights=True).save(tmp_path / "embedded.vmfb")
    assert not path.with_suffix(".irpa").exists()
    np.testing.assert_allclose(np.asarray(s4tf.load(path).predict(X)), expected(w, b, X), rtol=1e-5, atol=1e-6)


def test_staged_function_and_pytree_weights(tmp_path):
    @s4tf.function
    def affine(params, x):
        return x @ params["w"] + params["b"]

    w, b = weights(1)
    path = s4tf.compile(affine, ({"w": w, "b": b}, X), weights=(0,)).save(tmp_path / "affine.vmfb")
    np.testing.assert_allclose(np.asarray(s4tf.load(path).affine(X)), X @ w + b, rtol=1e-5, atol=1e-6)


# -- s4tf.save_parameters / s4tf.load_parameters ------------------------------------------------------


def test_save_parameters_writes_the_keys_a_module_reads(saved, tmp_path):
    """New weights by argument name, read by the module compiled with weights=(0, 1)."""
    w, b = weights(5)
    archive = s4tf.save_parameters(tmp_path / "new.irpa", {"w": w, "b": s4tf.asarray(b)})
    assert archive.with_name("new.irpa.sha256").is_file()
    result = np.asarray(s4tf.load(saved, parameters=archive).predict(X))
    np.testing.assert_allclose(result, expected(w, b, X), rtol=1e-5, atol=1e-6)
    loaded = s4tf.load_parameters(archive)
    assert list(loaded) == ["w", "b"]
    np.testing.assert_array_equal(loaded["w"], w)
    np.testing.assert_array_equal(loaded["b"], b)


def test_load_parameters_reads_what_compile_saved(saved):
    w, b = weights(1)
    loaded = s4tf.load_parameters(saved.with_suffix(".irpa"))
    assert {key: (a.dtype, a.shape) for key, a in loaded.items()} == {"w": (w.dtype, w.shape), "b": (b.dtype, b.shape)}
    np.testing.assert_array_equal(loaded["w"], w)


def test_bfloat16_pytree_weights_round_trip(tmp_path):
    """bfloat16 weights (IREE's dtype table lacks them) in a list argument: keys params.0
    and params.1, saved by compile and by save_parameters, and read by the module."""

    def scale(params, x):
        return x * params[0] + params[1]

    bf16 = s4tf.bfloat16
    x = np.arange(3).astype(bf16)
    path = s4tf.compile(scale, ([np.full(3, 2, bf16), np.full(3, 1, bf16)], x), weights=(0,)).save(tmp_path / "scale.vmfb")
    assert list(s4tf.load_parameters(path.with_suffix(".irpa"))) == ["params.0", "params.1"]
    np.testing.assert_array_equal(np.asarray(s4tf.load(path).scale(x)).astype(np.float32), [1, 3, 5])
    new = s4tf.save_parameters(tmp_path / "new.irpa", {"params": [np.full(3, 3, bf16), np.full(3, 0.5, bf16)]})
    loaded = s4tf.load_parameters(new)
    assert loaded["params.0"].dtype == bf16 and loaded["params.0"].shape == (3,)
    result = np.asarray(s4tf.load(path, parameters=new).scale(x)).astype(np.float32)
    np.testing.assert_array_equal(result, [0.5, 3.5, 6.5])


def test_save_parameters_refuses_what_no_module_reads(tmp_path):
    with pytest.raises(ParameterArchiveError, match=r"cannot write parameter 'z' to .*z.irpa: dtype complex64 is not supported"):
        s4tf.save_parameters(tmp_path / "z.irpa", {"z": np.ones(2, np.complex64)})
    assert not (tmp_path / "z.irpa").exists()


def test_load_parameters_of_a_damaged_archive(saved, tmp_path):
    damaged = tmp_path / "predict.irpa"
    damaged.write_bytes(saved.with_suffix(".irpa").read_bytes()[:-4] + b"oops")
    (tmp_path / "predict.irpa.sha256").write_text(saved.with_suffix(".irpa.sha256").read_text())
    with pytest.raises(s4tf.S4tfError, match="does not match its checksum"):
        s4tf.load_parameters(damaged)


# -- bad input ------------------------------------------------------------------------------------


def test_module_without_its_archive_is_refused(saved, tmp_path):
    lonely = tmp_path / "predict.vmfb"
    lonely.write_bytes(saved.read_bytes())
    with pytest.raises(ModuleLoadError, match=r"reads its weights from a parameter archive \(.irpa\), and none was given"):
        s4tf.load(lonely)


def test_unreadable_archive(saved, tmp_path):
    with pytest.raises(ParameterArchiveError, match="cannot read parameter archive .*missing.irpa"):
        s4tf.load(saved, parameters=tmp_path / "missing.irpa")


def test_wrong_input_shape_and_dtype(saved):
    module = s4tf.load(saved)
    with pytest.raises(InvocationError, match="calling 'predict': input0 shape dimension 0 mismatch; expected 4 but have 5"):
        module.predict(np.zeros((5, 3), np.float32))
    with pytest.raises(InvocationError, match="element type mismatch; expected f32"):
        module.predict(np.zeros((4, 3)))
    with pytest.raises(AttributeError, match="module has no function 'train'; its functions: predict, predict_jvp, predict_vjp"):
        module.train


@pytest.mark.parametrize("damage", ["truncated", "not a module"])
def test_corrupt_module(saved, tmp_path, damage):
    bad = tmp_path / "bad.vmfb"
    bad.write_bytes(saved.read_bytes()[:2000] if damage == "truncated" else b"not a module" * 20)
    with pytest.raises(ModuleLoadError, match=f"{bad} is not a valid IREE module: .+"):
        s4tf.load(bad)


def test_missing_file(tmp_path):
    with pytest.raises(s4tf.S4tfError, match="cannot read .*nothing.vmfb: No such file"):
        s4tf.load(tmp_path / "nothing.vmfb")


def test_unknown_target_and_entry_point():
    with pytest.raises(UnknownTargetError, match="unknown target 'tpu'"):
        s4tf.compile(predict, (*weights(1), X), target="tpu")
    with pytest.raises(ExportError, match="no function 'train' in the module; its functions: predict"):
        s4tf.compile(predict, (*weights(1), X), entry_points=("predict", "train"))


def test_weights_must_be_argument_positions():
    with pytest.raises(s4tf.S4tfError, match=r"weights \[3\] are not argument positions of 3 example arguments"):
        s4tf.compile(predict, (*weights(1), X), weights=(3,))
