"""``@s4tf.batching_rule(of=f)`` (JAX's ``custom_vmap`` convention): the rule replaces
the batching of ``f`` wherever ``s4tf-batch`` meets a call of it, and its interaction with
``grad`` and ``@s4tf.derivative``: ``grad(f)`` never sees the rule, ``grad(vmap(f))``
differentiates the rule's body or, where ``f`` has a custom derivative, uses that
derivative batched, as ``vmap(grad(f))`` does."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import s4tf
from s4tf.arrays import numpy_api as snp
from s4tf.core.errors import S4tfError
from s4tf.dialects.symbols import functions
from s4tf.passes.batching import CUSTOM_RULES
from s4tf.tools.opt import run as opt_run
from tests.autodiff.gradient_checks import numeric_jacobian

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(5)
XS = RNG.standard_normal((4, 3))
W = RNG.standard_normal(3)
CALLS = []


@s4tf.function
def weighted(x, w):
    return snp.sum(x * w) * x


@s4tf.batching_rule(of=weighted)
def weighted_batched(size, in_batched, x, w):
    CALLS.append((size, in_batched))
    if not in_batched[0]:  # only w batched: the result is (size, 3) all the same
        return snp.sum(x * w, axis=-1, keepdims=True) * x, True
    w = w if in_batched[1] else w[None, :]
    return snp.sum(x * w, axis=-1, keepdims=True) * x, True


def weighted_np(x, w):
    return np.sum(x * w) * x


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_the_rule_replaces_the_batching_of_f(in_axes):
    CALLS.clear()
    args = (XS if in_axes[0] == 0 else XS[0], XS[:, ::-1] if in_axes[1] == 0 else W)
    result = s4tf.vmap(weighted, in_axes=in_axes)(*args)
    expected = [weighted_np(args[0][b] if in_axes[0] == 0 else args[0], args[1][b] if in_axes[1] == 0 else args[1]) for b in range(4)]
    np.testing.assert_allclose(np.asarray(result), np.stack(expected), rtol=1e-12)
    assert CALLS == [(4, tuple(axis == 0 for axis in in_axes))]


def test_an_unbatched_result_is_broadcast_and_calls_of_f_inside_other_code_use_the_rule():
    @s4tf.function
    def norm(x):
        return snp.sum(x * x)

    @s4tf.batching_rule(of=norm)
    def norm_batched(size, in_batched, x):
        return snp.sum(x * x, axis=1), True

    @s4tf.function
    def scaled(x, c):
        return x * c, c * 2.0

    @s4tf.batching_rule(of=scaled)
    def scaled_batched(size, in_batched, x, c):
        return (x * c, c * 2.0), (True, in_batched[1])  # the second result is batched where c is

    result = s4tf.vmap(lambda x: norm(x) + 1.0)(XS)
    np.testing.assert_allclose(np.asarray(result), (XS * XS).sum(1) + 1.0, rtol=1e-12)
    scaled_xs, doubled = s4tf.vmap(scaled, in_axes=(0, None))(XS, np.float64(3.0))
    np.testing.assert_allclose(np.asarray(scaled_xs), XS * 3.0, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(doubled), np.full(4, 6.0))


def test_grad_of_f_ignores_the_rule_and_grad_of_vmap_differentiates_its_body():
    CALLS.clear()
    single = s4tf.grad(lambda x: snp.sum(weighted(x, W) ** 2))(XS[0])
    assert CALLS == []
    np.testing.assert_allclose(np.asarray(single), numeric_jacobian(lambda x: np.sum(weighted_np(x, W) ** 2), XS[0]), rtol=1e-6)
    batched = s4tf.grad(lambda xs: snp.sum(s4tf.vmap(weighted, in_axes=(0, None))(xs, W) ** 2))(XS)
    assert CALLS == [(4, (True, False))]
    numeric = numeric_jacobian(lambda xs: sum(np.sum(weighted_np(x, W) ** 2) for x in xs), XS)
    np.testing.assert_allclose(np.asarray(batched), numeric, rtol=1e-6)


# A function with both a batching rule and a custom derivative. The custom VJP is ten
# times the true one, so which derivative was used shows in the result.


@s4tf.function
def wave(x, w):
    return snp.sum(snp.sin(x) * w)


@s4tf.derivative(of=wave)
def wave_vjp(x, w):
    return wave(x, w), lambda ct: (10.0 * ct * snp.cos(x) * w, 10.0 * ct * snp.sin(x))


@s4tf.derivative(of=wave, mode="jvp")
def wave_jvp(primals, tangents):
    (x, w), (dx, dw) = primals, tangents
    return wave(x, w), 10.0 * (snp.sum(snp.cos(x) * w * dx) + snp.sum(snp.sin(x) * dw))


@s4tf.batching_rule(of=wave)
def wave_batched(size, in_batched, x, w):
    CALLS.append((size, in_batched))
    return snp.sum(snp.sin(x) * w, axis=-1), True


def test_vmap_of_grad_uses_the_custom_derivative_and_batches_its_calls_of_f_by_the_rule():
    CALLS.clear()
    gx, gw = s4tf.vmap(s4tf.grad(wave, argnums=(0, 1)), in_axes=(0, None))(XS, W)
    singles = [s4tf.grad(wave, argnums=(0, 1))(x, W) for x in XS]
    np.testing.assert_allclose(np.asarray(gx), np.stack([np.asarray(s[0]) for s in singles]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(gx), 10 * np.cos(XS) * W, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(gw), 10 * np.sin(XS), rtol=1e-12)
    assert (4, (True, False)) in CALLS  # the VJP rule's call of wave, batched


def test_grad_of_vmap_uses_the_custom_derivative_batched():
    gx, gw = s4tf.grad(lambda xs, w: snp.sum(s4tf.vmap(wave, in_axes=(0, None))(xs, w)), argnums=(0, 1))(XS, W)
    np.testing.assert_allclose(np.asarray(gx), 10 * np.cos(XS) * W, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(gw), 10 * np.sin(XS).sum(0), rtol=1e-12)  # summed over the batch


def test_jvp_of_vmap_uses_the_custom_jvp_batched():
    dxs, dw = RNG.standard_normal(XS.shape), RNG.standard_normal(W.shape)
    _, tangent = s4tf.jvp(lambda xs, w: s4tf.vmap(wave, in_axes=(0, None))(xs, w), (XS, W), (dxs, dw))
    expected = 10.0 * ((np.cos(XS) * W * dxs).sum(1) + (np.sin(XS) * dw).sum(1))
    np.testing.assert_allclose(np.asarray(tangent), expected, rtol=1e-12)


def test_nested_vmap_batches_the_rules_body():
    result = s4tf.vmap(s4tf.vmap(weighted, in_axes=(0, None)), in_axes=(0, None))(np.stack([XS, 2 * XS]), W)
    expected = np.stack([[weighted_np(x, W) for x in xs] for xs in (XS, 2 * XS)])
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-12)


def test_a_rule_returning_the_wrong_shape_is_an_error_at_the_rule():
    @s4tf.function
    def double(x):
        return x * 2.0

    @s4tf.batching_rule(of=double)
    def double_batched(size, in_batched, x):
        return x[0] * 2.0, True

    line = double_batched.__code__.co_firstlineno
    with pytest.raises(S4tfError, match=rf"test_custom_batching.py:{line}: the batching rule 'double_batched' returns .*expected tensor<4x3xf64>"):
        s4tf.vmap(double)(XS)


def test_the_rule_of_a_python_function_is_refused():
    with pytest.raises(S4tfError, match="batching_rule\\(of=...\\) needs an @s4tf.function"):
        s4tf.batching_rule(of=lambda x: x)


def test_the_rules_builder_lives_as_long_as_the_staged_function():
    @s4tf.function
    def square(x):
        return x * x

    @s4tf.batching_rule(of=square)
    def square_batched(size, in_batched, x):
        return x * x, True

    before = set(CUSTOM_RULES)
    mapped = s4tf.function(lambda xs: s4tf.vmap(square)(xs))
    lowered = mapped.lower(XS)
    (key,) = set(CUSTOM_RULES) - before
    assert f's4tf.needs = {{custom_rules = ["{key}"]}}' in lowered.as_text()
    np.testing.assert_allclose(np.asarray(mapped(XS)), XS * XS)  # another trace, another key
    assert len(set(CUSTOM_RULES) - before) == 2
    del mapped, lowered
    gc.collect()
    assert not set(CUSTOM_RULES) - before


def test_the_rule_is_traced_once_into_the_module_being_batched():
    """The rule's function is traced as ``f_batched`` into the trace's module, which the
    batching pass runs on: no copy of it is left behind."""

    @s4tf.function
    def cube(x):
        return x * x * x

    @s4tf.batching_rule(of=cube)
    def cube_batched(size, in_batched, x):
        return x * x * x, True

    lowered = s4tf.function(lambda xs: s4tf.vmap(cube)(xs)).lower(XS)
    assert sorted(functions(lowered.module)) == ["_lambda_", "cube", "cube_batched", "vmap_cube"]


def test_batching_a_staged_module_again_after_staging_is_an_error_not_a_crash(tmp_path, capsys):
    """The rule is traced while ``f`` is staged; ``s4tf-opt`` batching the printed module
    later, in this process, gets one clean error."""

    @s4tf.function
    def halve(x):
        return x * 0.5

    @s4tf.batching_rule(of=halve)
    def halve_batched(size, in_batched, x):
        return x * 0.5, True

    lowered = s4tf.function(lambda x: halve(x) + 1.0).lower(W)
    path = tmp_path / "staged.mlir"
    path.write_text(lowered.as_text())
    assert opt_run([str(path), "-p", f"s4tf-batch{{function={lowered.entry} size=4}}"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"{path}:1:1: error: the batching rule 'halve_batched' of 'halve' is traced into the module 'halve' is being "
        "staged into, while it is; this module is not that one (vmap 'halve' inside the staged function instead)"
    )
