"""s4tf.optim's gradient transformations and schedules against Optax's on the same
parameters and gradients, several steps, each update staged in ``@s4tf.function`` (the
step count traced as the state's)."""

import numpy as np
import pytest

import s4tf
from s4tf import nn, optim

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

jnp = pytest.importorskip("jax.numpy")
optax = pytest.importorskip("optax")

RNG = np.random.default_rng(0)
PARAMS = {"w": RNG.normal(size=(3, 2)).astype(np.float32), "b": RNG.normal(size=2).astype(np.float32)}
GRADS = [{k: (3.0 * RNG.normal(size=v.shape)).astype(np.float32) for k, v in PARAMS.items()} for _ in range(4)]
ONLY_W = {"w": True, "b": False}


def matrices(params):
    return s4tf.pytree.tree_map(lambda p: p.ndim > 1, params)


def staged_steps(tx, params, grads):
    """``params`` after each of ``grads``, updated by ``tx`` inside one compiled step."""

    @s4tf.function
    def step(params, state, g):
        updates, state = tx.update(g, state, params)
        return optim.apply_updates(params, updates), state

    state, out = tx.init(params), []
    for g in grads:
        params, state = step(params, state, g)
        out.append({k: np.asarray(v) for k, v in params.items()})
    return out


def optax_steps(tx, params, grads):
    params, out = {k: jnp.asarray(v) for k, v in params.items()}, []
    state = tx.init(params)
    for g in grads:
        updates, state = tx.update({k: jnp.asarray(v) for k, v in g.items()}, state, params)
        params = optax.apply_updates(params, updates)
        out.append({k: np.asarray(v) for k, v in params.items()})
    return out


def assert_same_steps(ours, theirs):
    for step, (mine, peer) in enumerate(zip(ours, theirs)):
        for key in mine:
            np.testing.assert_allclose(mine[key], peer[key], rtol=2e-6, atol=2e-6, err_msg=f"step {step}, {key}")


CASES = {
    "sgd": lambda o: o.sgd(0.1),
    "sgd momentum": lambda o: o.sgd(0.1, momentum=0.9),
    "sgd nesterov": lambda o: o.sgd(0.1, momentum=0.9, nesterov=True),
    "adam": lambda o: o.adam(0.05, b1=0.8, eps_root=1e-6),
    "adamw mask tree": lambda o: o.adamw(0.05, weight_decay=0.3, mask=ONLY_W),
    "adamw mask function, schedule": lambda o: o.adamw(o.linear_schedule(0.1, 0.01, 3), weight_decay=0.3, mask=matrices),
    "rmsprop momentum": lambda o: o.rmsprop(0.01, decay=0.8, initial_scale=0.1, momentum=0.9),
    "rmsprop centered": lambda o: o.rmsprop(0.01, centered=True, nesterov=True, momentum=0.5),
    "adagrad": lambda o: o.adagrad(0.1),
    "lion": lambda o: o.lion(0.01, weight_decay=0.5, mask=ONLY_W),
    "clip, scale_by_adam, scale_by_schedule": lambda o: o.chain(o.clip_by_global_norm(1.0), o.scale_by_adam(), o.scale_by_schedule(o.cosine_decay_schedule(-0.1, 3, alpha=0.1))),
    "masked, add_decayed_weights, scale": lambda o: o.chain(o.masked(o.scale(-0.5), ONLY_W), o.add_decayed_weights(0.2), o.scale_by_learning_rate(0.1)),
}


@pytest.mark.parametrize("name", CASES)
def test_transformation_matches_optax(name):
    make = CASES[name]
    assert_same_steps(staged_steps(make(optim), PARAMS, GRADS), optax_steps(make(optax), PARAMS, GRADS))


SCHEDULES = {
    "constant": lambda o: o.constant_schedule(0.3),
    "linear": lambda o: o.linear_schedule(1.0, 0.1, transition_steps=10, transition_begin=5),
    "cosine": lambda o: o.cosine_decay_schedule(2.0, decay_steps=20, alpha=0.1, exponent=2.0),
    "warmup cosine": lambda o: o.warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=5, decay_steps=25, end_value=0.05),
    "piecewise": lambda o: o.piecewise_constant_schedule(1.0, {4: 0.5, 12: 0.1}),
    "joined": lambda o: o.join_schedules([o.constant_schedule(0.5), o.linear_schedule(0.5, 0.0, 10)], [7]),
}
COUNTS = [0, 1, 4, 5, 6, 11, 12, 15, 20, 25, 40]


def test_in_lazy_mode_each_update_is_one_trace_compiled_once():
    make = CASES["clip, scale_by_adam, scale_by_schedule"]
    tx, params = make(optim), dict(PARAMS)
    state, ours = tx.init(params), []
    s4tf.lazy_stats(reset=True)
    for g in GRADS:
        with s4tf.lazy():
            updates, state = tx.update(g, state, params)
            params = optim.apply_updates(params, updates)  # ends the trace
        ours.append({k: np.asarray(v) for k, v in params.items()})
    stats = s4tf.lazy_stats()
    assert stats.traces_run == len(GRADS) and stats.traces_compiled <= 2  # the first step's inputs are NumPy arrays
    assert_same_steps(ours, optax_steps(make(optax), PARAMS, GRADS))


def test_schedules_match_optax_on_traced_counts_and_on_numbers():
    ours = {name: make(optim) for name, make in SCHEDULES.items()}
    every = s4tf.function(lambda count: {name: schedule(count) for name, schedule in ours.items()})
    for count in COUNTS:
        staged = every(np.int32(count))
        for name, make in SCHEDULES.items():
            expected = float(make(optax)(jnp.int32(count)))
            assert float(staged[name]) == pytest.approx(expected, rel=1e-6, abs=1e-7), (name, count)
            assert float(ours[name](count)) == pytest.approx(expected, rel=1e-6, abs=1e-7), (name, count)


def test_a_negative_step_count_is_an_error():
    with pytest.raises(s4tf.S4tfError, match="warmup|linear_schedule|join_schedules"):
        optim.warmup_cosine_decay_schedule(0.0, 1.0, 5, 25)(-1)
    with pytest.raises(s4tf.S4tfError, match=r"cosine_decay_schedule: the step count must be 0 or more, got -3"):
        optim.cosine_decay_schedule(1.0, 10)(-3)
    with pytest.raises(s4tf.S4tfError, match="positive whole number of steps"):
        optim.cosine_decay_schedule(1.0, 0)


def test_a_wrong_mask_is_an_error_naming_the_mismatch():
    with pytest.raises(s4tf.S4tfError, match=r"the structure of the mask \(a dict of keys \['w'\]\) differs from that of the parameters \(a dict of keys \['b', 'w'\]\)"):
        optim.adamw(0.1, mask={"w": True}).init(PARAMS)
    with pytest.raises(s4tf.S4tfError, match=r"the mask at \['layer'\] \(a list of 1\) differs from that of the parameters \(a list of 2\)"):
        optim.adamw(0.1, mask={"layer": [True]}).init({"layer": [PARAMS["w"], PARAMS["b"]]})
    with pytest.raises(s4tf.S4tfError, match="expected a mask of True and False leaves, got str 'yes'"):
        optim.adamw(0.1, mask={"w": "yes", "b": False}).init(PARAMS)


def test_updates_need_the_state_and_the_parameters():
    with pytest.raises(s4tf.S4tfError, match="update needs the parameters"):
        optim.add_decayed_weights(0.1).update(GRADS[0], optim.EmptyState())
    with pytest.raises(s4tf.S4tfError, match="chain: expected the state returned by this chain's init"):
        optim.adam(0.1).update(GRADS[0], optim.sgd(0.1).init(PARAMS)[0], PARAMS)


def test_a_model_with_static_fields_keeps_them_and_the_state_is_shaped_like_its_gradient():
    model = nn.Conv2D(1, 2, 3, stride=2, padding="same", activation=s4tf.relu)
    tx = optim.adamw(0.1, weight_decay=0.5, mask=lambda m: nn.Conv2D(filter=True, bias=False, stride=None, padding=None, activation=m.activation, groups=None))
    state = tx.init(model)
    assert state[0].mu.stride is None and state[0].mu.filter.shape == model.filter.shape
    grads = s4tf.grad(lambda m, x: s4tf.sum(m(x)))(model, np.ones((1, 4, 4, 1), np.float32))
    updates, _ = s4tf.function(tx.update)(grads, state, model)
    new = optim.apply_updates(model, updates)
    assert (new.stride, new.padding, new.activation) == (2, "same", s4tf.relu)
    # Adam's first step is the gradient's sign; the filter also decays, the bias does not.
    np.testing.assert_allclose(np.asarray(new.bias), model.bias - 0.1 * np.sign(np.asarray(grads.bias)), rtol=1e-5)
    expected = model.filter - 0.1 * (np.sign(np.asarray(grads.filter)) + 0.5 * model.filter)
    np.testing.assert_allclose(np.asarray(new.filter), expected, rtol=1e-5, atol=1e-6)


def loss(params, x, y):
    return s4tf.mean((s4tf.tanh(x @ params["w"] + params["b"]) - y) ** 2)


def jax_loss(params, x, y):
    return jnp.mean((jnp.tanh(x @ params["w"] + params["b"]) - y) ** 2)


def test_training_step_with_clipping_and_masked_adamw_under_a_schedule_and_donation():
    import jax

    def optimizer(o):
        schedule = o.warmup_cosine_decay_schedule(0.0, 0.1, warmup_steps=2, decay_steps=6)
        return o.chain(o.clip_by_global_norm(1.0), o.adamw(schedule, weight_decay=0.1, mask=matrices))

    tx = optimizer(optim)

    def step(params, state, x, y):
        value, grads = s4tf.value_and_grad(loss)(params, x, y)
        updates, state = tx.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    step = s4tf.function(step, donate_argnums=(0, 1))
    x = RNG.normal(size=(8, 3)).astype(np.float32)
    y = RNG.normal(size=(8, 2)).astype(np.float32)
    peer = optimizer(optax)
    params, state = dict(PARAMS), tx.init(PARAMS)
    with jax.enable_x64(False):  # float32 as s4tf, whatever another test module set for the process
        peer_params = {k: jnp.asarray(v) for k, v in PARAMS.items()}
        peer_state = peer.init(peer_params)
    for _ in range(6):
        params, state, value = step(params, state, x, y)
        with jax.enable_x64(False):
            peer_value, peer_grads = jax.value_and_grad(jax_loss)(peer_params, x, y)
            updates, peer_state = peer.update(peer_grads, peer_state, peer_params)
            peer_params = optax.apply_updates(peer_params, updates)
        assert float(value) == pytest.approx(float(peer_value), rel=1e-5)
    for key in PARAMS:
        np.testing.assert_allclose(np.asarray(params[key]), np.asarray(peer_params[key]), rtol=1e-5, atol=1e-6)
    assert int(state[1][0].count) == 6
