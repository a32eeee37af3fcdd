"""One other CPU-bound process on the machine while a benchmark times its peers, as on a
shared machine (issue 33 asks for each model's ratio beside one): ``with busy_neighbour():``.

The neighbour is a separate process (its own interpreter, no GIL shared with the peers)
spinning in pure Python, so it takes one core whenever the scheduler gives it one and
touches no memory the peers use."""

from __future__ import annotations

import contextlib
import multiprocessing


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def busy_neighbour(enabled: bool = True):
    """Run one spinning process for the duration of the block (nothing when not ``enabled``);
    the block gets the process (or None)."""
    if not enabled:
        yield None
        return
    process = multiprocessing.get_context("spawn").Process(target=_spin, daemon=True)
    process.start()
    try:
        yield process
    finally:
        process.terminate()
        process.join()
