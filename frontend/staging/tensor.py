"""``s4tf.Tensor``: a tensor on the device, and ``Tracer``, its stand-in while staging.

A ``Tensor`` holds an IREE device buffer; it is copied to the host only when asked
(``np.asarray(t)``, ``t.numpy()``, ``float(t)``). Results of extracted functions are
returned while the device still computes them (``t.is_ready()``); reading one, or
handing it to anything but another extracted function, waits for it. A ``Tracer`` holds the MLIR value a
staged function computes (an IR builder's value that is a ``Tensor``); it has the same operators (attached by
:mod:`s4tf.staging.tensor_methods`) but no contents.
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects.composition import ArrayValue, is_python_scalar
from s4tf.dialects.ir_builder import Value
from s4tf.dialects.types import TensorType, canonical_dtype
from s4tf.core.errors import StagingError
from s4tf.core.locations import user_location
from s4tf.runtime.transfer import to_host


class DonatedTensorError(StagingError):
    """A tensor whose buffer was given to a staged function (``donate_argnums``) was used."""


class Tensor(ArrayValue):
    """A tensor whose elements live on an IREE device; ``target`` names what made it
    (``"cpu"``, ``"vulkan"``, ...), and so the device it lives on."""

    #: While being computed: the call computing it (``wait()``, ``ready()``, ``fence``).
    pending = None
    #: The staged function this tensor's buffer was donated to, if it was.
    donated_to = None

    def __init__(self, device_array, target: str = "cpu", pending=None, tensor_type: TensorType | None = None):
        self._device_array = device_array
        self.target = target
        self.pending = pending
        self._type = tensor_type  # the buffer's shape and dtype never change: computed once

    @property
    def tensor_type(self) -> TensorType:
        if self._type is None:
            self._type = TensorType(tuple(self._device_array.shape), canonical_dtype(self._device_array.dtype))
        return self._type

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tensor_type.shape  # IREE's DeviceArray.shape goes through NumPy's dispatch: ~4 us a read

    @property
    def device_array(self):
        """The IREE ``DeviceArray`` (no copy), once computed."""
        if self.donated_to is not None:
            raise DonatedTensorError(
                f"this {self.tensor_type} tensor was donated to '{self.donated_to}' (donate_argnums), which "
                "wrote a result into its buffer; use what that call returned instead"
            )
        self.block_until_ready()
        return self._device_array

    def donate(self, function: str) -> None:
        """Give the buffer away to ``function`` (see :mod:`s4tf.staging.donation`): reading this
        tensor afterwards raises an error naming ``function``."""
        self.donated_to = function

    def block_until_ready(self) -> "Tensor":
        """Wait until the elements are computed; raises the error of the call computing them."""
        if self.pending is not None:
            self.pending.wait()
            self.pending = None
        return self

    def is_ready(self) -> bool:
        """Whether the device has computed the elements (or failed to); reading them also
        waits for the host calls of the call that made them, and raises their errors."""
        return self.pending is None or self.pending.ready()

    def numpy(self) -> np.ndarray:
        """A host copy of the elements: a new array, which later calls never change."""
        return to_host(self.device_array)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("a Tensor's elements live on the device: reading them on the host makes a copy")
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def item(self):
        return self.numpy().item()

    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __bool__(self):
        return bool(self.numpy())

    def __format__(self, spec: str) -> str:
        """``f"{x:.3f}"``: the elements formatted as NumPy formats them (a 0-d tensor as its
        Python number); an empty ``spec`` is ``str(x)``."""
        return str(self) if not spec else format(self.numpy(), spec)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self):
        if self.donated_to is not None:
            return f"<Tensor {self.tensor_type}, donated to '{self.donated_to}'>"
        text = np.array2string(self.numpy(), separator=", ", prefix="Tensor(")
        return f"Tensor({text}, dtype={self.dtype})"


class Tracer(Tensor, Value):
    """A tensor being staged: an MLIR value (an IR builder's :class:`~s4tf.dialects.ir_builder.Value`)
    of the function or region that ``builder`` (a :class:`~s4tf.staging.tracing.FunctionScope`) traces."""

    __init__ = Value.__init__  # not Tensor's: a tracer has no device buffer

    @property
    def tensor_type(self) -> TensorType:
        return self._tensor_type

    @property
    def shape(self):
        return self._tensor_type.shape

    @property
    def device_array(self):
        raise self._no_value("read its device buffer")

    def _no_value(self, action: str) -> StagingError:
        advice = ("Use s4tf.where for tensor-dependent choices, or return the tensor and inspect it outside.")
        if self.weak and not self._tensor_type.shape:
            advice = ("Python int and float arguments of a staged function are traced, as in JAX: to use one as "
                      "a shape, a loop bound or an index, make it static with "
                      "@functools.partial(s4tf.function, static_argnums=...) or static_argnames=...")
        return StagingError(
            f"cannot {action} of a traced tensor {self._tensor_type} inside a staged function: "
            f"its value is only known when the compiled function runs. {advice}",
            str(user_location() or ""),
        )

    def numpy(self):
        raise self._no_value("take the NumPy value")

    def __array__(self, dtype=None, copy=None):
        raise self._no_value("take the NumPy value")

    def __float__(self):
        raise self._no_value("take float()")

    def __int__(self):
        raise self._no_value("take int()")

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        raise self._no_value(f"format the value (with {spec!r})")

    def __index__(self):
        raise self._no_value("use as an index")

    def __bool__(self):
        raise StagingError(
            f"cannot take the truth value (in `if`, `while`, `and`, `or` or `not`) of a traced tensor "
            f"{self._tensor_type} here: Python control flow on tensors is staged only in the function given to "
            "@s4tf.function, s4tf.grad, s4tf.vmap or another transform, not in functions it calls, lambdas, "
            "functions without source or with autograph=False. Decorate the function holding this line with "
            "@s4tf.function, or write the condition with s4tf.where, s4tf.cond or s4tf.while_loop.",
            str(user_location() or ""),
        )

    def __repr__(self):
        return f"Tracer({self._tensor_type})"
