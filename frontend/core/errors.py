"""Errors s4tf raises for user mistakes, each naming where in the user's code it happened."""

from __future__ import annotations


class S4tfError(Exception):
    """Base class of s4tf's user-facing errors.

    ``location`` is the user's ``file:line`` (or ``None``); it is appended to the message.
    """

    def __init__(self, message: str, location: str | None = None):
        self.message = message
        self.location = location
        super().__init__(f"{location}: {message}" if location else message)

    def at(self, location: str | None) -> "S4tfError":
        """The same error, located at ``location`` unless it already has a location."""
        if self.location or not location:
            return self
        return type(self)(self.message, location)


class ShapeError(S4tfError, ValueError, TypeError):
    """Operand shapes that an op does not accept: a ``ValueError``, and a ``TypeError`` as
    JAX raises for incompatible shapes, so ported ``except TypeError`` catches it."""


class DTypeError(S4tfError, TypeError):
    """Operand or attribute dtypes that an op does not accept."""


class OpAttributeError(S4tfError, ValueError):
    """An op attribute that is missing or of the wrong kind."""


class DeviceError(S4tfError, ValueError):
    """A ``device=`` that s4tf does not create tensors on (it creates them on ``"cpu"``)."""


class StagingError(S4tfError, TypeError):
    """Python code or values that cannot be staged (e.g. ``bool()`` of a traced tensor)."""


class CompilationError(S4tfError, RuntimeError):
    """IREE could not compile a lowered module."""


class SlowCompileWarning(UserWarning):
    """IREE is still compiling a module after ``$S4TF_SLOW_COMPILE_SECONDS`` (120 s): the
    message names the function and where the module is saved to reproduce it
    (:mod:`s4tf.runtime.compile_watch`)."""


class ZeroDerivativeWarning(UserWarning):
    """Differentiation went through a piecewise-constant op (``floor``, ``round``, ``sign``,
    a comparison, ``argmax``, a cast to an integer) and took its derivative as zero.

    Ignored unless asked for, as JAX and PyTorch are silent there; to be told, or to make it
    an error: ``warnings.simplefilter("always", s4tf.ZeroDerivativeWarning)`` or ``"error"``.
    """
