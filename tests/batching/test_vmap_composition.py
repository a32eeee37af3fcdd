"""``s4tf.vmap`` composed with everything else, end to end: derivatives both ways
(``vmap(grad(f))``, ``grad``/``jvp``/``vjp`` of ``vmap(f)``, ``vmap`` of ``jvp``/``vjp``),
eagerly and inside ``@s4tf.function``; donation; deployed modules (``s4tf.compile`` and
``s4tf-compile`` / ``s4tf-run``); lazy mode; nested ``vmap`` with other axes; host calls
under ``vmap`` in an extracted function. Each against a Python loop over the batch, JAX
in float64, or float64 central differences."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import s4tf
from s4tf.arrays import numpy_api as snp
from s4tf.staging.donation import donated_positions
from s4tf.lazy_tensors.trace import LazyTensor, lazy_stats
from s4tf.passes.iree.donate import Donate, aliased_arguments
from s4tf.passes.pipeline import lowering_pipeline
from tests.autodiff.gradient_checks import directional_check, numeric_jacobian

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(16)
XS = RNG.standard_normal((5, 3))
YS = RNG.standard_normal((5, 2))
W = RNG.standard_normal((3, 2))
TOL = {"rtol": 1e-9, "atol": 1e-11}  # float64 against JAX in float64
FD = {"rtol": 1e-5, "atol": 1e-7}  # float64 against central differences


# arithmetic only, so that it runs in float64 (IREE's CPU code has no f64 tanh: docs/trust.md)
def layer(x, w):
    z = x @ w
    return z / (1.0 + z * z)


def loss(w, x, y):
    return snp.sum((layer(x, w) - y) ** 2)


def jax_layer(x, w):
    z = x @ w
    return z / (1.0 + z * z)


def jax_loss(w, x, y):
    return jnp.sum((jax_layer(x, w) - y) ** 2)


def staged_or_not(fn, staged: bool):
    return s4tf.function(fn) if staged else fn


def assert_close(actual, expected, tolerance=TOL):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), **tolerance)


STAGED = pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])


@STAGED
def test_vmap_of_grad_is_the_loop_of_gradients(staged):
    per_example = staged_or_not(s4tf.vmap(s4tf.grad(loss), in_axes=(None, 0, 0)), staged)(W, XS, YS)
    loop = np.stack([np.asarray(s4tf.grad(loss)(W, x, y)) for x, y in zip(XS, YS)])
    assert_close(per_example, loop)
    with jax.enable_x64(True):
        assert_close(per_example, jax.vmap(jax.grad(jax_loss), in_axes=(None, 0, 0))(W, XS, YS))
    fd = numeric_jacobian(lambda w: np.sum((layer(XS[0], w) - YS[0]) ** 2), W)
    assert_close(np.asarray(per_example)[0], fd, FD)


@STAGED
def test_grad_of_a_vmapped_function(staged):
    def total(w, xs, ys):
        return snp.sum(s4tf.vmap(loss, in_axes=(None, 0, 0))(w, xs, ys))

    gradient = staged_or_not(s4tf.grad(total), staged)(W, XS, YS)
    with jax.enable_x64(True):
        expected = jax.grad(lambda w: jnp.sum(jax.vmap(jax_loss, in_axes=(None, 0, 0))(w, XS, YS)))(W)
    assert_close(gradient, expected)
    assert_close(gradient, numeric_jacobian(lambda w: sum(np.sum((layer(x, w) - y) ** 2) for x, y in zip(XS, YS)), W), FD)


def test_jvp_and_vjp_of_a_vmapped_function_match_finite_differences():
    directional_check(s4tf.vmap(layer, in_axes=(0, None)), (XS, W), rtol=1e-6, atol=1e-8)
    directional_check(s4tf.vmap(layer, in_axes=(1, None), out_axes=1), (XS.T, W), rtol=1e-6, atol=1e-8)


@STAGED
def test_jvp_and_vjp_of_a_vmapped_function_equal_jax(staged):
    dxs, dw, cts = RNG.standard_normal(XS.shape), RNG.standard_normal(W.shape), RNG.standard_normal((5, 2))
    batched = s4tf.vmap(layer, in_axes=(0, None))

    def both(xs, w, dxs, dw, cts):
        value, tangent = s4tf.jvp(batched, (xs, w), (dxs, dw))
        _, pullback = s4tf.vjp(batched, xs, w)
        return value, tangent, pullback(cts)

    value, tangent, (ct_xs, ct_w) = staged_or_not(both, staged)(XS, W, dxs, dw, cts)
    with jax.enable_x64(True):
        jax_batched = jax.vmap(jax_layer, in_axes=(0, None))
        jax_value, jax_tangent = jax.jvp(jax_batched, (XS, W), (dxs, dw))
        jax_ct_xs, jax_ct_w = jax.vjp(jax_batched, XS, W)[1](cts)
    for actual, expected in [(value, jax_value), (tangent, jax_tangent), (ct_xs, jax_ct_xs), (ct_w, jax_ct_w)]:
        assert_close(actual, expected)


@STAGED
def test_vmap_of_jvp_and_of_vjp_are_the_loops(staged):
    dxs, cts = RNG.standard_normal(XS.shape), RNG.standard_normal((5, 2))

    def tangent(x, dx, w):
        return s4tf.jvp(lambda x, w: layer(x, w), (x, w), (dx, np.zeros_like(W)))[1]

    def cotangents(x, ct, w):
        return s4tf.vjp(layer, x, w)[1](ct)

    tangents = staged_or_not(s4tf.vmap(tangent, in_axes=(0, 0, None)), staged)(XS, dxs, W)
    ct_xs, ct_ws = staged_or_not(s4tf.vmap(cotangents, in_axes=(0, 0, None)), staged)(XS, cts, W)
    assert_close(tangents, np.stack([np.asarray(tangent(x, dx, W)) for x, dx in zip(XS, dxs)]))
    loop = [cotangents(x, ct, W) for x, ct in zip(XS, cts)]
    assert_close(ct_xs, np.stack([np.asarray(c[0]) for c in loop]))
    assert_close(ct_ws, np.stack([np.asarray(c[1]) for c in loop]))  # one weight cotangent per example
    with jax.enable_x64(True):
        jax_ct_ws = jax.vmap(lambda x, ct: jax.vjp(jax_layer, x, W)[1](ct)[1])(XS, cts)
    assert_close(ct_ws, jax_ct_ws)


def test_a_donated_batched_argument_is_updated_in_place():
    def shrink(x, rate):
        return x - rate * x / (1.0 + x * x)

    step = s4tf.function(s4tf.vmap(shrink, in_axes=(0, None)), donate_argnums=(0,))
    xs = s4tf.asarray(XS)
    result = step(xs, 0.5)
    assert_close(result, np.stack([x - 0.5 * x / (1.0 + x * x) for x in XS]))
    assert xs.donated_to == "shrink"
    lowered = step.lower(XS, 0.5)
    module = lowered.lowered_module(lowering_pipeline("cpu") + [Donate(entry=lowered.entry, args=(0,))])
    assert aliased_arguments(module, lowered.entry) == [0]


def test_a_training_step_with_clipped_per_example_gradients_donates_its_weights():
    """Differentially private SGD's step: per-example gradients (vmap of grad), each clipped
    to norm 1, averaged; the weights are donated."""

    @s4tf.function(donate_argnums=(0,))
    def step(w, xs, ys):
        grads = s4tf.vmap(s4tf.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
        norms = snp.sqrt(snp.sum(grads * grads, axis=(1, 2), keepdims=True))
        return w - 0.1 * snp.mean(grads / snp.maximum(norms, 1.0), axis=0)

    w = s4tf.asarray(W)
    updated = step(w, XS, YS)
    loop = [np.asarray(s4tf.grad(loss)(W, x, y)) for x, y in zip(XS, YS)]
    assert_close(updated, W - 0.1 * np.mean([g / max(np.linalg.norm(g), 1.0) for g in loop], axis=0))
    assert w.donated_to == "step"
    lowered = step.lower(W, XS, YS)
    positions = donated_positions((W, XS, YS), (0,))
    module = lowered.lowered_module(lowering_pipeline("cpu") + [Donate(entry=lowered.entry, args=tuple(positions))])
    assert aliased_arguments(module, lowered.entry) == positions


def test_a_compiled_vmapped_function_and_its_vjp_run_from_the_saved_module(tmp_path):
    xs, w = XS.astype(np.float32), W.astype(np.float32)
    module = s4tf.compile(s4tf.vmap(layer, in_axes=(0, None)), (xs, w), entry_points=("layer_vjp",))
    loaded = s4tf.load(module.save(tmp_path / "layer.vmfb"))
    assert loaded.functions == ["layer", "layer_vjp"]  # named after the function, as vmap(layer).__name__ is
    loop = np.stack([np.asarray(layer(x, w)) for x in xs])
    assert_close(loaded.layer(xs, w), loop, {"rtol": 1e-6, "atol": 1e-7})
    cts = RNG.standard_normal((5, 2)).astype(np.float32)
    value, ct_xs, ct_w = loaded.layer_vjp(xs, w, cts)
    pullbacks = [s4tf.vjp(layer, x, w)[1](ct) for x, ct in zip(xs, cts)]
    assert_close(value, loop, {"rtol": 1e-6, "atol": 1e-7})
    assert_close(ct_xs, np.stack([np.asarray(p[0]) for p in pullbacks]), {"rtol": 1e-5, "atol": 1e-6})
    assert_close(ct_w, sum(np.asarray(p[1]) for p in pullbacks), {"rtol": 1e-5, "atol": 1e-6})


def test_s4tf_compile_and_s4tf_run_of_per_example_gradients(tmp_path):
    (tmp_path / "model.py").write_text(
        "import s4tf\n\n"
        "def loss(w, x, y):\n"
        "    z = x @ w\n"
        "    return s4tf.sum((z / (1.0 + z * z) - y) ** 2)\n\n"
        "per_example = s4tf.vmap(s4tf.grad(loss), in_axes=(None, 0, 0))\n"
    )
    for name, value in {"w": W, "xs": XS, "ys": YS}.items():
        np.save(tmp_path / f"{name}.npy", value.astype(np.float32))
    tools = [sys.executable, "-m", "s4tf.tools.compile"], [sys.executable, "-m", "s4tf.tools.run"]
    subprocess.run([*tools[0], "model.py:per_example", "--arg", "f32[3,2]", "--arg", "f32[5,3]", "--arg", "f32[5,2]",
                    "-o", "pex.vmfb"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run([*tools[1], "pex.vmfb", "--input", "@w.npy", "--input", "@xs.npy", "--input", "@ys.npy",
                    "--output", "@grads.npy"], cwd=tmp_path, check=True, capture_output=True)
    loop = np.stack([np.asarray(s4tf.grad(loss)(W, x, y)) for x, y in zip(XS, YS)])
    assert_close(np.load(tmp_path / "grads.npy"), loop, {"rtol": 1e-4, "atol": 1e-5})


def test_lazy_mode_records_vmapped_calls_and_runs_them_in_one_trace():
    lazy_stats(reset=True)
    with s4tf.lazy():
        outputs = s4tf.vmap(layer, in_axes=(0, None))(XS, W)
        per_example = s4tf.vmap(s4tf.grad(loss), in_axes=(None, 0, 0))(W, XS, YS)
        total = snp.sum(outputs) + snp.sum(per_example)
        assert isinstance(total, LazyTensor)
    loop = np.stack([np.asarray(s4tf.grad(loss)(W, x, y)) for x, y in zip(XS, YS)])
    assert_close(total, np.sum([np.asarray(layer(x, W)) for x in XS]) + loop.sum())
    assert lazy_stats().traces_run == 1
    assert_close(per_example, loop)


def nested_expected(a, b):
    """The loop the nested vmap of ``test_nested_vmap_with_other_axes`` stands for."""
    out = np.empty((3, 4, 2))
    for i in range(4):
        for j in range(2):
            out[:, i, j] = a[:, i, j] * b[j, 0] + np.sum(a[:, i, j] * b[j, 1:])
    return out


@STAGED
def test_nested_vmap_with_other_axes(staged):
    """Inner vmap over axis 1 of ``a`` with ``b`` shared, its result's batch axis at 1; outer
    vmap over axis 2 of ``a`` and axis 0 of ``b``, its result's batch axis at 2."""
    a, b = RNG.standard_normal((3, 4, 2)), RNG.standard_normal((2, 4))
    inner = s4tf.vmap(lambda column, row: column * row[0] + snp.sum(column * row[1:]), in_axes=(1, None), out_axes=1)
    outer = s4tf.vmap(inner, in_axes=(2, 0), out_axes=2)
    result = staged_or_not(outer, staged)(a, b)
    assert result.shape == (3, 4, 2)
    assert_close(result, nested_expected(a, b))
    with jax.enable_x64(True):
        jax_inner = jax.vmap(lambda c, r: c * r[0] + jnp.sum(c * r[1:]), in_axes=(1, None), out_axes=1)
        assert_close(result, jax.vmap(jax_inner, in_axes=(2, 0), out_axes=2)(a, b))
    gradient = s4tf.grad(lambda a, b: snp.sum(outer(a, b) ** 2))(a, b)
    fd = numeric_jacobian(lambda a: np.sum(nested_expected(a, b) ** 2), a)
    assert_close(gradient, fd, FD)


def normalize_rows(x):
    """A host function that takes a batch: each row scaled to norm 1."""
    normalize_rows.calls.append(x.shape)
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(x.dtype)


@s4tf.function
def project(x, w):
    return s4tf.host(normalize_rows, vectorized=True)(layer(x, w)) * 2.0  # the host call


def test_a_vectorized_host_call_under_vmap_runs_in_an_extracted_function():
    """The batched function is a call; s4tf-inline-host-calls puts its host call in the
    extracted function's host program, which calls the host function once on the batch."""
    xs, w = XS.astype(np.float32), W.astype(np.float32)

    @s4tf.function(extract=True)
    def step(xs, w):
        return s4tf.vmap(lambda x: project(x, w) + 1.0)(xs)

    normalize_rows.calls = []
    result = np.asarray(step(xs, w))  # waits for the host program
    loop = np.stack([2.0 * normalize_rows(np.asarray(layer(x, w))[None])[0] + 1.0 for x in xs])
    assert_close(result, loop, {"rtol": 1e-6, "atol": 1e-6})
    assert normalize_rows.calls == [(5, 2)] + [(1, 2)] * 5  # one call on the batch, then the loop's
    program = step.host_program(xs, w)
    assert [s.kind for s in program.steps] == ["launch", "recv", "host_call", "send", "launch", "return"]


def test_per_example_gradients_of_a_loss_that_logs_through_the_host():
    """A vectorized host call with no results in the loss: ``vmap(grad(loss))`` in an
    extracted function logs the batch's losses in one call."""
    xs, ys, w = XS.astype(np.float32), YS.astype(np.float32), W.astype(np.float32)
    logged = []

    def logging_loss(w, x, y):
        value = loss(w, x, y)
        s4tf.host(logged.append, result=(), vectorized=True)(value)
        return value

    step = s4tf.function(lambda w, xs, ys: s4tf.vmap(s4tf.grad(logging_loss), in_axes=(None, 0, 0))(w, xs, ys),
                         extract=True)
    per_example = np.asarray(step(w, xs, ys))
    loop = np.stack([np.asarray(s4tf.grad(loss)(w, x, y)) for x, y in zip(xs, ys)])
    assert_close(per_example, loop, {"rtol": 1e-5, "atol": 1e-6})
    (losses,) = logged
    assert_close(losses, [np.asarray(loss(w, x, y)) for x, y in zip(xs, ys)], {"rtol": 1e-6, "atol": 1e-6})
