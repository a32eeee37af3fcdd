"""What one rank of the tests in test_distributed.py runs under ``mpiexec``.

``python worker.py MODE OUT_DIR``; each rank writes ``OUT_DIR/rank<r>.json``:

- ``check``: the all-reduced gradients of this rank's shard against the gradients of the
  whole batch computed in this process; then 20 data-parallel Adam steps (loss, digest).
- ``raise`` / ``kill`` / ``hang``: rank 1 raises, is killed (SIGKILL), or stops (SIGSTOP)
  at step 3 of a training loop; the others go on into the next all-reduce (rank 2 after
  ``$WORKER_RANK_2_LAG_S`` seconds, 0 by default).
"""

import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

import s4tf
from s4tf import distributed, pytree
from s4tf.transforms.autodiff import value_and_grad
from s4tf.nn import MLP
from s4tf.nn.training import classification_loss
from s4tf.optim import SGD, Adam

GLOBAL_BATCH = 24  # divisible by 2, 3 and 4 ranks
SIZES = (12, 16, 8, 3)


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((96, SIZES[0])).astype(np.float32)
    y = (np.abs(x[:, :3]).argmax(axis=1)).astype(np.int32)  # a learnable rule
    return x, y


def check(out: dict) -> None:
    model = distributed.broadcast(MLP(SIZES, seed=distributed.rank()))  # a different seed each: rank 0's wins
    x, y = data()
    batch = next(iter(s4tf.data.batches((x, y), GLOBAL_BATCH, seed=1)))

    @distributed.DistributedStep
    def reduced_gradients(model, x, y):
        loss, grads = value_and_grad(classification_loss)(model, x, y)
        leaves, _ = pytree.flatten(grads)
        return distributed.all_reduce_mean([loss, *leaves], bucket_bytes=600)  # several buckets

    @s4tf.function
    def whole_batch_gradients(model, x, y):
        loss, grads = value_and_grad(classification_loss)(model, x, y)
        return [loss, *pytree.flatten(grads)[0]]

    reduced = [np.asarray(v) for v in reduced_gradients(model, *distributed.shard(batch))]
    expected = [np.asarray(v) for v in whole_batch_gradients(model, *batch)]
    out["buckets"] = len(distributed.buckets(reduced, 600))
    out["device_functions"] = sum("func.func private" in line and "device_function" in line
                                  for line in str(reduced_gradients.partitioned(model, *distributed.shard(batch))).splitlines())
    out["gradient_error"] = max(float(np.max(np.abs(r - e)) / (np.max(np.abs(e)) + 1e-30)) for r, e in zip(reduced, expected))

    opt = Adam(5e-2)
    state = opt.init(model)
    step = distributed.train_step(opt, bucket_bytes=600)
    losses, step_count = [], 0
    while step_count < 20:
        for xs, ys in distributed.batches((x, y), GLOBAL_BATCH, seed=0, epoch=step_count):
            model, state, loss, _ = step(model, state, xs, ys)
            losses.append(float(np.asarray(loss)))
            step_count += 1
            if step_count == 20:
                break
    out["losses"] = losses
    out["digest"] = distributed.digest(model)


def fault(mode: str, out: dict, folder: Path) -> None:
    model = distributed.broadcast(MLP(SIZES, seed=0))
    opt = SGD(0.1)
    state = opt.init(model)
    step = distributed.train_step(opt)
    x, y = data()
    for number in range(1000):
        if number == 3 and distributed.rank() == 2:
            time.sleep(float(os.environ.get("WORKER_RANK_2_LAG_S", "0")))  # a survivor a step behind
        if number == 3 and distributed.rank() == 1:
            (folder / "fault-time").write_text(repr(time.time()))  # the tests time the stop from here
            if mode == "raise":
                raise RuntimeError("injected fault")
            os.kill(os.getpid(), signal.SIGKILL if mode == "kill" else signal.SIGSTOP)
        for xs, ys in distributed.batches((x, y), GLOBAL_BATCH, seed=0, epoch=number):
            model, state, loss, _ = step(model, state, xs, ys)
        float(np.asarray(loss))  # wait for the step, so rank 0 cannot run far ahead
        out["steps"] = number + 1


def main() -> None:
    mode, folder = sys.argv[1], Path(sys.argv[2])
    distributed.init()
    out = {"rank": distributed.rank(), "size": distributed.size()}
    (check if mode == "check" else lambda out: fault(mode, out, folder))(out)
    (folder / f"rank{distributed.rank()}.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
