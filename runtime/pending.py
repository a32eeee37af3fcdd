"""Calls of partitioned functions in flight, and their results before they are computed.

A call of an extracted function launches its device functions and returns at once; its
host program (receives, host calls, sends) runs on a host thread. Each result is a device
buffer that is *pending* until the device signals its fence and the call's host program
has finished. Reading it waits for both and raises what went wrong: a host function's
error (naming the function and the user's line) before a device failure.

```python
results = program.run(arguments)     # PendingResult per result, at once
results[0].ready()                   # False while the device computes it
results[0].wait()                    # blocks; raises HostFunctionError or ExtractionError
```
"""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

import iree.runtime as iree_runtime

from s4tf.core.errors import S4tfError
from s4tf.runtime.batch_waits import batch_while_waiting
from s4tf.runtime.device import iree_message


class ExtractionError(S4tfError, RuntimeError):
    """A partitioned function that failed on the device or did not finish in time."""


class Run:
    """One call of a partitioned function: its host program running on the host thread."""

    def __init__(self, name: str, future: Future, timeout_s: float):
        self.name = name
        self.future = future
        self.timeout_s = timeout_s
        self.reported = False  #: its error was raised to the user already

    def wait(self) -> None:
        """Wait for the host program; raise its error (once per reader)."""
        try:
            error = self.future.exception(timeout=self.timeout_s)
        except FutureTimeout:
            raise ExtractionError(f"'{self.name}': its host program did not finish in {self.timeout_s} s") from None
        if error is not None:
            self.reported = True
            raise error.with_traceback(None)

    def unreported_error(self) -> BaseException | None:
        """The error of a finished host program that nobody has read yet."""
        if self.future.done() and not self.reported and self.future.exception() is not None:
            self.reported = True
            return self.future.exception()
        return None


@dataclass
class PendingResult:
    """A result buffer of ``run``; computed once ``fence`` (if any) is signalled."""

    buffer_view: iree_runtime.HalBufferView
    fence: iree_runtime.HalFence | None
    run: Run

    def ready(self) -> bool:
        """Whether the device has computed the buffer (or failed to). Reading it may still
        wait for the call's host program, whose errors it raises."""
        try:
            return self.fence is None or self.fence.wait(timeout=0)
        except RuntimeError:  # failed: reading raises
            return True

    def wait(self) -> None:
        """Block until computed; raises the call's host-function or device error."""
        failure = None
        if self.fence is not None:
            try:
                if not batch_while_waiting(self.fence.wait)(timeout=int(self.run.timeout_s * 1e9)):
                    failure = f"waited {self.run.timeout_s} s for a result; giving up"
            except RuntimeError as error:
                failure = f"failed on the device: {iree_message(error)}"
        self.run.wait()
        if failure is not None:
            raise ExtractionError(f"'{self.run.name}' {failure}")
