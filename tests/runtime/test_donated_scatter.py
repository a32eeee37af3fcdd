"""A donated table updated by ``.at[ids].add`` is written in place: the lowered module
scatters into the argument itself (no copy of the table) and IREE writes the result into
the argument's buffer; results equal NumPy's, with readers of the old table before and
after the update, and repeated ids."""

from __future__ import annotations

import numpy as np
import pytest

import s4tf
from s4tf.dialects.symbols import functions
from s4tf.passes.iree.donate import Donate, aliased_arguments
from s4tf.passes.pipeline import lowering_pipeline

V, D, B = 1000, 8, 16


def sparse_update(table, ids, rows):
    return table.at[ids].add(rows)


def update_returning_old_rows(table, ids, rows):
    """A reader of the table the update does not wait for: a barrier orders them."""
    return table.at[ids].add(0.5 * rows), table[ids]


def update_by_own_rows(table, ids, rows):
    """Updates computed from the rows being written: the gather must not run inside the scatter."""
    return table.at[ids].add(table[ids] * rows)


def two_updates(table, ids, rows):
    """Two updates of the one table share the lowering's copy of it: the one written in
    place waits until the other's copy was made."""
    return table.at[ids].add(rows), table.at[ids[::-1]].add(2 * rows)


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, V, B).astype(np.int32)
    ids[:4] = 7  # repeated ids all add
    return rng.standard_normal((V, D)).astype(np.float32), ids, rng.standard_normal((B, D)).astype(np.float32)


def test_the_lowered_update_scatters_into_the_donated_argument_without_copying_it():
    table, ids, rows = inputs()
    lowered = s4tf.function(sparse_update).lower(table, ids, rows)
    module = lowered.lowered_module(lowering_pipeline("cpu") + [Donate(entry=lowered.entry, args=(0,))])
    assert aliased_arguments(module, lowered.entry) == [0]
    body = functions(module)[lowered.entry].regions[0].blocks[0]
    table_sized = [op.name for op in body.operations if any(str(r.type) == f"tensor<{V}x{D}xf32>" for r in op.results)]
    assert table_sized == ["stablehlo.scatter"]  # no copy (select, pad, broadcast) of the table
    assert '"stablehlo.scatter"(%arg0,' in str(module)


@pytest.mark.parametrize("step, expected", [
    (sparse_update, lambda t, i, r: (t, r)),
    (update_returning_old_rows, lambda t, i, r: (t, 0.5 * r)),
    (update_by_own_rows, lambda t, i, r: (t, t[i] * r)),
    (two_updates, lambda t, i, r: (t, r)),
], ids=["add", "old-rows-returned", "updates-from-own-rows", "two-updates"])
def test_donated_sparse_updates_equal_numpy_call_after_call(step, expected):
    table, ids, rows = inputs()
    staged = s4tf.function(step, donate_argnums=(0,))
    current, host = s4tf.asarray(table), table.copy()
    for call in range(3):
        out = staged(current, ids, rows)
        new = out[0] if isinstance(out, tuple) else out
        assert current.donated_to == step.__name__
        old, added = expected(host, ids, rows)
        if step is update_returning_old_rows:
            np.testing.assert_array_equal(np.asarray(out[1]), host[ids])
        if step is two_updates:
            other = host.copy()
            np.add.at(other, ids[::-1], 2 * rows)
            np.testing.assert_allclose(np.asarray(out[1]), other, rtol=1e-6, atol=1e-6)
        host = old.copy()
        np.add.at(host, ids, added)
        np.testing.assert_allclose(np.asarray(new), host, rtol=1e-6, atol=1e-6, err_msg=f"call {call}")
        current = new


def sparse_set(table, ids, rows):
    return table.at[ids].set(rows)


def test_a_donated_table_set_by_rows_is_written_in_place_and_equals_numpy():
    """``.at[ids].set`` scatters into the argument too (rows out of range repeat the last
    row in range, so no padded copy of the table); repeated ids: the last one wins, ids
    out of range (7000, -9000) are dropped, and calls whose every id is out of range leave
    the table as it was."""
    table, ids, rows = inputs()
    ids[5], ids[9] = 7000, -9000
    lowered = s4tf.function(sparse_set).lower(table, ids, rows)
    module = lowered.lowered_module(lowering_pipeline("cpu") + [Donate(entry=lowered.entry, args=(0,))])
    assert aliased_arguments(module, lowered.entry) == [0]
    body = functions(module)[lowered.entry].regions[0].blocks[0]
    assert [op.name for op in body.operations if any(str(r.type) == f"tensor<{V}x{D}xf32>" for r in op.results)] == ["stablehlo.scatter"]
    staged = s4tf.function(sparse_set, donate_argnums=(0,))
    current, host = s4tf.asarray(table), table.copy()
    for call_ids in (ids, ids[::-1].copy(), np.full(B, V + 3, np.int32)):
        current = staged(current, call_ids, rows)
        for i, row in zip(call_ids, rows):
            if -V <= i < V:
                host[i] = row
        np.testing.assert_array_equal(np.asarray(current), host)
