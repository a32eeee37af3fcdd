"""Model state apart from parameters: BatchNorm's running statistics get no gradient and no
optimizer moments, ``nn.partition``/``nn.merge`` split and join a model, ``nn.apply``
collects updated state and hands ``training`` and keys to every layer, checkpoints keep it."""

import numpy as np
import pytest

import s4tf
from s4tf import nn, optim
from s4tf.checkpoint import load_checkpoint, save_checkpoint

pytestmark = pytest.mark.references  # outside the IREE sample: through the ops' references (tests/conftest.py)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 3)).astype(np.float32) * 2 + 1
LABELS = np.array([0, 1, 0, 1, 1, 0, 1, 0], np.int32)


def model():
    return nn.Sequential([nn.Dense(3, 4, seed=0), nn.BatchNorm(4, momentum=0.8), s4tf.relu, nn.Dropout(0.5),
                          nn.Dense(4, 2, seed=1)])


def loss_and_state(model, x, labels, step):
    logits, model = nn.apply(model, x, training=True, key=step)
    return nn.softmax_cross_entropy(logits, labels), model


def test_state_has_no_gradient_no_moments_and_is_no_parameter():
    m = model()
    grads = s4tf.grad(lambda m, x, y: loss_and_state(m, x, y, 0)[0])(m, X, LABELS)
    bn = grads.layers[1]
    assert bn.running_mean is None and bn.running_var is None and bn.scale.shape == (4,)
    assert nn.Dense(3, 4, use_bias=False).bias is None
    assert len(optim.Adam().init(m).m) == 6  # two Dense layers' weights and biases, BatchNorm's scale and offset
    mu = optim.adamw(1e-3).init(m)[0].mu
    assert mu.layers[1].running_mean is None and mu.layers[1].scale.shape == (4,)
    params, state = nn.partition(m)
    assert params.layers[1].running_mean is None and state.layers[1].scale is None
    assert state.layers[0].weight is None and state.layers[1].momentum == 0.8
    np.testing.assert_array_equal(state.layers[1].running_var, np.ones(4, np.float32))
    embedded_params, embedded_state = nn.partition(nn.Sequential([nn.Embedding(5, 3), nn.LayerNorm(3)]))
    assert embedded_state.layers[0].table is None and embedded_params.layers[1].scale.shape == (3,)
    merged = nn.merge(params, state)
    assert s4tf.pytree.flatten(merged)[1] == s4tf.pytree.flatten(m)[1]
    with pytest.raises(s4tf.S4tfError, match=r"test_model_state.py:\d+: nn.merge: .* Sequential .* Dense"):
        nn.merge(params, state.layers[0])


def test_a_training_step_updates_statistics_and_parameters_but_decays_no_state():
    opt, tx = optim.AdamW(lr=0.1, weight_decay=0.5), optim.adamw(0.1, weight_decay=0.5)

    @s4tf.function
    def step(m, opt_state, tx_state, x, labels, step):
        (loss, m_new), grads = s4tf.value_and_grad(loss_and_state, has_aux=True)(m, x, labels, step)
        updates, _ = tx.update(grads, tx_state, m_new)
        return opt.update(m_new, opt_state, grads)[0], optim.apply_updates(m_new, updates), loss

    m = model()
    new, new_tx, loss = step(m, opt.init(m), tx.init(m), X, LABELS, np.int32(3))
    h = X @ m.layers[0].weight
    for bn in (new.layers[1], new_tx.layers[1]):
        np.testing.assert_allclose(np.asarray(bn.running_mean), 0.2 * h.mean(0), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(np.asarray(bn.running_var), 0.8 + 0.2 * h.var(0), rtol=1e-4)  # not decayed
        assert bn.momentum == 0.8
    np.testing.assert_allclose(np.asarray(new_tx.layers[0].weight), np.asarray(new.layers[0].weight), rtol=1e-5, atol=1e-6)
    assert not np.allclose(np.asarray(new.layers[0].weight), m.layers[0].weight) and np.isfinite(float(loss))


def test_apply_passes_training_and_keys_and_inference_changes_nothing():
    m = model()
    infer = s4tf.function(lambda m, x: nn.apply(m, x))
    y, same = infer(m, X)
    h = np.maximum((X @ m.layers[0].weight) / np.sqrt(1 + 1e-5), 0)
    np.testing.assert_allclose(np.asarray(y), h @ m.layers[4].weight, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(same.layers[1].running_mean), np.zeros(4))
    drop = nn.Sequential([nn.Dropout(0.5), nn.Dropout(0.5)])
    ones = np.ones((200,), np.float32)
    a, _ = nn.apply(drop, ones, training=True, key=7)
    b, _ = nn.apply(drop, ones, training=True, key=7)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))  # the same key, the same masks
    first = np.asarray(nn.Dropout(0.5)(ones, key=s4tf.random.fold_in(s4tf.random.key(7), 0), training=True))
    np.testing.assert_array_equal(np.asarray(a) != 0, (first != 0) & (np.asarray(a) != 0))
    assert set(np.unique(np.asarray(a))) <= {0.0, 4.0}
    with pytest.raises(s4tf.S4tfError, match=r"test_model_state.py:\d+: Dropout in training needs an explicit key"):
        nn.apply(drop, ones, training=True)


def test_apply_refuses_a_layer_outside_the_model():
    bn = nn.BatchNorm(3)
    with pytest.raises(s4tf.S4tfError, match=r"test_model_state.py:\d+: nn.apply: a BatchNorm updated its state but is not"):
        nn.apply(lambda x: bn(x), X, training=True)
    with pytest.raises(s4tf.ShapeError, match="BatchNorm: expected an input with 3 features"):
        bn(np.ones((2, 4), np.float32))
    with pytest.raises(s4tf.S4tfError, match="BatchNorm: num_features must be a positive int"):
        nn.BatchNorm(0)


def test_checkpoints_keep_state_and_partitions(tmp_path):
    m = model()
    m.layers[1] = nn.BatchNorm(momentum=0.8, scale=m.layers[1].scale, offset=m.layers[1].offset,
                               running_mean=np.full(4, 0.5, np.float32), running_var=np.full(4, 2.0, np.float32))
    params, state = nn.partition(m)
    save_checkpoint(tmp_path / "m.npz", {"params": params, "state": state})
    fresh_params, fresh_state = nn.partition(model())
    loaded, _ = load_checkpoint(tmp_path / "m.npz", like={"params": fresh_params, "state": fresh_state})
    restored = nn.merge(loaded["params"], loaded["state"])
    np.testing.assert_array_equal(restored.layers[1].running_var, np.full(4, 2.0, np.float32))
    np.testing.assert_array_equal(restored.layers[0].weight, m.layers[0].weight)
