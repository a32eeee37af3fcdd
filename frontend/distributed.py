"""Data-parallel training over MPI (``mpi4py``), as Horovod and PyTorch DDP do it.

Launch one process per rank with ``mpiexec -n 4 python train.py``; each process holds a
whole copy of the model, trains on its own shard of every batch, and the gradients are
averaged across ranks inside the compiled step, so every rank applies the same update:

```python
from s4tf import distributed

distributed.init()                                            # MPI; rank(), size()
model = distributed.broadcast(model)                          # rank 0's initial weights everywhere
step = distributed.train_step(optim.Adam(1e-3))               # shard -> grads -> all-reduce (mean) -> update
for x, y in distributed.batches((x_train, y_train), 64, seed=0, epoch=epoch):  # this rank's rows of each batch
    model, opt_state, loss, accuracy = step(model, opt_state, x, y)             # loss, accuracy: global means
distributed.save_checkpoint("model.npz", {"model": model, "opt": opt_state})    # rank 0 writes
```

The all-reduce is graph program extraction: the step is an extracted function
(:mod:`s4tf.staging.extracted`) whose gradients go, bucket by bucket (last layers first, as DDP
buckets them), through host functions that call ``MPI.Iallreduce``;
``s4tf-split-device-functions`` splits the device code so that a bucket is sent as soon as
its gradients exist, while the device computes the gradients of the layers before it.

Faults: a rank that raises tells the others (``RankFailed`` there names it and its error)
and waits for them to stop; a rank that does not reach a collective within the timeout
(``init(timeout_s=...)``, ``$S4TF_DISTRIBUTED_TIMEOUT``, 300 s by default) is named by the
others' ``RankTimeout``. Either way every process exits with code 1 and nothing hangs. A
rank killed outright is seen by ``mpiexec`` (or ``srun``), which ends the others at once.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
import traceback

import numpy as np

from s4tf import data, pytree
from s4tf.checkpoint import save_checkpoint as _save_checkpoint
from s4tf.core.errors import S4tfError
from s4tf.staging.extracted import ExtractedFunction
from s4tf.staging.host import host
from s4tf.nn.losses import softmax_cross_entropy
from s4tf.nn.training import loss_and_gradients
from s4tf.optim import leaves_like, trainable_positions
from s4tf.passes.extraction.split_device_functions import SplitDeviceFunctions
from s4tf.staging.tracing import Static, leaf_spec

#: Seconds a collective may wait for the other ranks before they are reported.
DEFAULT_TIMEOUT_S = 300.0
#: Gradient bytes per all-reduce (DDP's ``bucket_cap_mb``, scaled to small models).
DEFAULT_BUCKET_BYTES = 256 * 1024
#: Seconds a stopping rank waits for the others to learn of the failure before exiting.
ACKNOWLEDGE_S = 10.0
_NOTICE = 7  # the tag of fault notices
#: Variables by which IREE's runtime sees an MPI launch: with them it creates its devices
#: with an MPI channel provider that loads and initializes MPI a second time (and fails).
#: MPI has read them once initialized, so :class:`Group` removes them.
IREE_MPI_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPIEXEC_HOSTNAME")


class DistributedError(S4tfError, RuntimeError):
    """MPI is missing, or the ranks cannot work together (bad sizes, a failed or stuck rank)."""


class RankFailed(DistributedError):
    """Another rank raised; ``rank`` is its number."""

    def __init__(self, rank: int, message: str):
        self.rank = rank
        super().__init__(f"rank {rank} failed: {message}")

    def at(self, location):
        return self


class RankTimeout(DistributedError):
    """A collective did not complete in time; the message names the ranks that did not come."""


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError:
        raise DistributedError("s4tf.distributed needs mpi4py and an MPI library: pip install 's4tf[distributed]'") from None
    except RuntimeError as error:  # mpi4py found no MPI library it can load
        raise DistributedError(f"mpi4py cannot load an MPI library ({error}): pip install 's4tf[distributed]'") from None
    return MPI


class Group:
    """The ranks of ``MPI.COMM_WORLD``, with one communicator per thread that runs
    collectives (the steps' host thread, the caller's thread) and one for fault notices."""

    def __init__(self, timeout_s: float):
        self.MPI = _mpi()
        for name in IREE_MPI_VARIABLES:
            os.environ.pop(name, None)
        world = self.MPI.COMM_WORLD
        self.rank, self.size = world.Get_rank(), world.Get_size()
        self.timeout_s = timeout_s
        self.steps = world.Dup()  #: all-reduces of the training steps (their host thread)
        self.main = world.Dup()  #: broadcasts and barriers (the caller's thread)
        self.notices = world.Dup()  #: fault notices, read while waiting
        self.counts = {"steps": 0, "main": 0}  #: collectives started, by communicator
        self.received: dict[int, tuple[str, str]] = {}  #: the last notice of each rank
        self.lock = threading.Lock()
        self.timed_out_in: str | None = None  #: what timed out, with the ranks it waited for
        self.communication_s = 0.0  #: seconds spent in all-reduces so far (for benchmarks)

    # -- collectives ---------------------------------------------------------------------

    def all_reduce_sum(self, array: np.ndarray, what: str, channel: str = "steps") -> np.ndarray:
        began = time.perf_counter()
        result = np.empty_like(array)
        self.wait(getattr(self, channel).Iallreduce(array, result, op=self.MPI.SUM), what, channel)
        self.communication_s += time.perf_counter() - began
        return result

    def broadcast(self, array: np.ndarray, what: str, root: int = 0) -> np.ndarray:
        array = np.array(array, order="C")  # a copy (a 0-d array stays 0-d)
        self.wait(self.main.Ibcast(array, root=root), what, "main")
        return array

    def barrier(self, what: str) -> None:
        self.wait(self.main.Ibarrier(), what, "main")

    def wait(self, request, what: str, channel: str) -> None:
        """Complete ``request``; raise if a rank fails meanwhile or it takes over the timeout."""
        self.counts[channel] += 1
        what = f"{what} (collective {self.counts[channel]} of the {channel} channel)"
        deadline = time.monotonic() + self.timeout_s
        delay = 0.0
        while not request.Test():
            self.raise_failures()
            if time.monotonic() > deadline:
                self.timed_out(what)
            time.sleep(delay)
            delay = min(2 * delay or 1e-5, 1e-3)

    # -- fault notices -------------------------------------------------------------------

    def read_notices(self) -> None:
        status = self.MPI.Status()
        with self.lock:
            while self.notices.Iprobe(source=self.MPI.ANY_SOURCE, tag=_NOTICE, status=status):
                source = status.Get_source()
                self.received[source] = self.notices.recv(source=source, tag=_NOTICE)

    def raise_failures(self) -> None:
        self.read_notices()
        for source, (kind, message) in sorted(self.received.items()):
            if kind == "failed":
                raise RankFailed(source, message)

    def tell_others(self, kind: str, message: str) -> list:
        return [self.notices.isend((kind, message), dest=r, tag=_NOTICE) for r in range(self.size) if r != self.rank]

    def timed_out(self, what: str) -> None:
        """Ask every rank where it waits; name those that do not answer within a grace period."""
        self.tell_others("waiting", what)
        grace = time.monotonic() + min(10.0, self.timeout_s)
        while time.monotonic() < grace and len(self.received) < self.size - 1:
            self.raise_failures()
            time.sleep(0.01)
        silent = [r for r in range(self.size) if r != self.rank and r not in self.received]
        elsewhere = [f"rank {r} waits in {m}" for r, (k, m) in sorted(self.received.items()) if k == "waiting" and m != what]
        parts = [f"rank {', '.join(map(str, silent))} did not answer (dead or hung)"] if silent else []
        self.timed_out_in = (f"{what} did not complete within {self.timeout_s:g} s; "
                             + "; ".join(parts + elsewhere or ["every rank waits in it"]))
        raise RankTimeout(self.timed_out_in)

    def failed_ranks(self) -> dict[int, str]:
        """The ranks that reported a failure so far, with their errors."""
        self.read_notices()
        return {r: message for r, (kind, message) in sorted(self.received.items()) if kind == "failed"}

    def fail(self, error: BaseException, report) -> None:
        """This rank stops because of ``error``: ``report`` a line that says why, tell the
        others (that it failed, or that it knows of the ranks that failed first), and wait,
        boundedly, until every rank knows. (Reporting comes first, and no rank leaves before
        the others have reported: ``mpiexec`` ends every process as soon as one exits.)"""
        failed = self.failed_ranks()
        if failed:  # another rank failed first; ``error`` is how this rank learned it
            report(f"rank {self.rank}: stopping because " + "; ".join(f"rank {r} failed: {m}" for r, m in failed.items()))
            self._await_others(self.tell_others("ack", ""))
            return
        if self.timed_out_in is not None:  # ``error`` is this timeout, or came from it
            report(f"rank {self.rank}: stopping: {self.timed_out_in}")
            return
        message = str(error).splitlines()[0] if str(error) else ""
        report(f"rank {self.rank}: {message if isinstance(error, S4tfError) else f'{type(error).__name__}: {message}'}")
        self._await_others(self.tell_others("failed", f"{type(error).__name__}: {message}"))

    def _await_others(self, requests) -> None:
        """Wait, at most ``ACKNOWLEDGE_S``, until every other rank has failed or acknowledged
        (and so reported); then finish sending ``requests``."""
        deadline = time.monotonic() + ACKNOWLEDGE_S
        while time.monotonic() < deadline:
            self.read_notices()
            if sum(kind in ("ack", "failed") for kind, _ in self.received.values()) >= self.size - 1:
                break
            time.sleep(0.01)
        self._complete(requests, time.monotonic() + 1.0)

    def _complete(self, requests, deadline: float) -> None:
        while requests and time.monotonic() < deadline and not self.MPI.Request.Testall(requests):
            time.sleep(0.001)


_GROUP: Group | None = None


def init(timeout_s: float | None = None) -> Group:
    """Start MPI (once; later calls return the same group). A rank whose main thread ends
    with an uncaught exception tells the others before exiting (see the module docstring)."""
    global _GROUP
    if _GROUP is None:
        if timeout_s is None:
            timeout_s = float(os.environ.get("S4TF_DISTRIBUTED_TIMEOUT", DEFAULT_TIMEOUT_S))
        _GROUP = Group(timeout_s)
        previous = sys.excepthook

        def excepthook(kind, error, trace):
            previous(kind, error, trace)
            exit_after(error, os.path.basename(sys.argv[0]) or "python")

        sys.excepthook = excepthook
    elif timeout_s is not None:
        _GROUP.timeout_s = timeout_s
    return _GROUP


def rank() -> int:
    """This process's rank, 0 to ``size() - 1``."""
    return init().rank


def size() -> int:
    """The number of ranks."""
    return init().size


def is_root() -> bool:
    """Whether this is rank 0, the one that logs and writes files."""
    return rank() == 0


def exit_after(error: BaseException, tool: str = "s4tf.distributed", code: int = 1) -> None:
    """Leave after ``error``: print one line ``tool: error: rank N: ...``, tell the other
    ranks (that this one failed, or that it knows of the rank that failed first), wait
    until they know, and exit without ``MPI_Finalize``, which would wait for ranks that failed."""
    def report(line: str) -> None:
        print(f"{tool}: error: {line}", file=sys.stderr, flush=True)

    try:
        if _GROUP is None:
            report(str(error))
        else:
            _GROUP.fail(error, report)
    except Exception:  # the notice is best effort; leaving is not
        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _array_leaves(tree):
    leaves, treedef = pytree.flatten(tree)
    return leaves, treedef, [i for i, leaf in enumerate(leaves) if not isinstance(leaf_spec(leaf), Static)]


def broadcast(tree, root: int = 0):
    """``tree`` with every array leaf replaced by ``root``'s (NumPy arrays): the initial
    parameters and optimizer state of all ranks become rank 0's."""
    group = init()
    leaves, treedef, positions = _array_leaves(tree)
    leaves = list(leaves)
    for n, i in enumerate(positions):
        leaves[i] = group.broadcast(np.asarray(leaves[i]), f"broadcast of array {n}", root)
    return pytree.unflatten(treedef, leaves)


def barrier() -> None:
    """Wait until every rank gets here (with the faults' timeout)."""
    init().barrier("barrier")


def digest(tree) -> str:
    """SHA-256 of the array leaves of ``tree``: equal on every rank while they are in sync."""
    leaves, _, positions = _array_leaves(tree)
    hashed = hashlib.sha256()
    for i in positions:
        array = np.ascontiguousarray(np.asarray(leaves[i]))
        hashed.update(f"{array.dtype.str}{array.shape}".encode())
        hashed.update(array.tobytes())
    return hashed.hexdigest()


def shard(arrays, count: int | None = None, index: int | None = None) -> tuple:
    """This rank's rows of each array: the ``index``-th of ``count`` equal slices (by
    default this rank's of ``size()``); the length must divide evenly."""
    count = size() if count is None else count
    index = rank() if index is None else index
    arrays = tuple(np.asarray(a) for a in arrays)
    rows = len(arrays[0])
    if rows % count:
        raise DistributedError(f"a batch of {rows} rows cannot be split evenly over {count} ranks; "
                               f"use a global batch size divisible by {count}")
    part = rows // count
    return tuple(a[index * part:(index + 1) * part] for a in arrays)


def batches(arrays, global_batch_size: int, *, shuffle: bool = True, seed: int = 0, epoch: int = 0):
    """This rank's shard of each batch of :func:`s4tf.data.batches`: every rank draws the
    same permutation from ``(seed, epoch)`` and takes its slice of each global batch, so
    the ranks together see exactly the single-process batches."""
    count = size()
    if global_batch_size % count:
        raise DistributedError(f"the global batch size {global_batch_size} is not divisible by the {count} ranks")
    for batch in data.batches(arrays, global_batch_size, shuffle=shuffle, seed=seed, epoch=epoch):
        yield shard(batch, count)


def save_checkpoint(path, tree, **info):
    """:func:`s4tf.checkpoint.save_checkpoint` on rank 0 only; every rank waits until it is written."""
    written = _save_checkpoint(path, tree, **info) if is_root() else None
    barrier()
    return written


class AllReduce:
    """Host function: the mean over ranks of one bucket of arrays (one ``Iallreduce``)."""

    def __init__(self, group: Group, index: int):
        self.group = group
        self.index = index
        self.__name__ = f"all_reduce_bucket_{index}"

    def __call__(self, *arrays):
        flat = np.concatenate([np.ravel(a) for a in arrays])
        total = self.group.all_reduce_sum(flat, f"all-reduce of gradient bucket {self.index}")
        mean = total / np.asarray(self.group.size, total.dtype)
        results, start = [], 0
        for array in arrays:
            results.append(mean[start:start + array.size].reshape(array.shape))
            start += array.size
        return tuple(results) if len(results) > 1 else results[0]


def buckets(values, bucket_bytes: int) -> list[list[int]]:
    """Indices of ``values`` grouped into buckets of at most ``bucket_bytes`` (at least one
    value each), from the last value to the first (the backward pass's order), one dtype per bucket."""
    groups: list[list[int]] = []
    size_of_last = 0
    for i in reversed(range(len(values))):
        nbytes = int(np.prod(values[i].shape)) * np.dtype(values[i].dtype).itemsize
        same_dtype = groups and np.dtype(values[groups[-1][0]].dtype) == np.dtype(values[i].dtype)
        if same_dtype and size_of_last + nbytes <= bucket_bytes:
            groups[-1].append(i)
            size_of_last += nbytes
        else:
            groups.append([i])
            size_of_last = nbytes
    return groups


def all_reduce_mean(values: list, bucket_bytes: int = DEFAULT_BUCKET_BYTES) -> list:
    """The mean over ranks of each tensor of ``values``, in buckets (one host call each).
    Inside ``@s4tf.function(extract=True)`` the host calls become part of the host program."""
    group = init()
    reduced = list(values)
    for number, indices in enumerate(buckets(values, bucket_bytes)):
        bucket = [values[i] for i in indices]
        results = host(AllReduce(group, number), result=tuple(bucket))(*bucket)
        for i, result in zip(indices, results):
            reduced[i] = result
    return reduced


class DistributedStep(ExtractedFunction):
    """An extracted training step whose device functions are split at each bucket's
    all-reduce (``s4tf-split-device-functions``), so communication overlaps the backward pass."""

    partition_pipeline = ExtractedFunction.partition_pipeline + [SplitDeviceFunctions()]


def train_step(opt, loss=softmax_cross_entropy, *, bucket_bytes: int = DEFAULT_BUCKET_BYTES, overlap: bool = True):
    """``step(model, opt_state, x, labels, key=None) -> (model, opt_state, loss, accuracy)`` on
    this rank's shard ``(x, labels)`` (:func:`s4tf.nn.training.loss_and_gradients`; each rank
    keeps the running statistics of its own shards): the gradients (and the loss and accuracy, reported as
    global means) are averaged over all ranks before ``opt`` updates the model, so every
    rank makes the same update. ``overlap=False`` reduces every gradient in one bucket
    after the whole backward pass, without splitting the device code."""
    init()

    def step(model, opt_state, x, labels, key=None):
        value, batch_accuracy, model, grads = loss_and_gradients(model, x, labels, loss, key)
        leaves, tree = pytree.flatten(model)
        grad_leaves = leaves_like(tree, grads)
        positions = trainable_positions(model)
        # the loss and accuracy ride in the first layers' bucket, the last one reduced
        values = [value, batch_accuracy, *(grad_leaves[i] for i in positions)]
        reduced = all_reduce_mean(values, bucket_bytes if overlap else sys.maxsize)
        value, batch_accuracy = reduced[:2]
        for i, g in zip(positions, reduced[2:]):
            grad_leaves[i] = g
        model, opt_state = opt.update(model, opt_state, pytree.unflatten(tree, grad_leaves))
        return model, opt_state, value, batch_accuracy

    step.__name__ = "distributed_train_step"
    return (DistributedStep if overlap else ExtractedFunction)(step)
