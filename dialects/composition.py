"""NumPy-style compositions of s4tf ops, and the current builder each op is handed to.

The derivative rules (``jvp``/``transpose`` methods, given this module as ``ops``) and
``s4tf.<name>`` (:mod:`s4tf.arrays.numpy_api`, which re-exports these functions) share one
definition of each composition: dtype promotion as in NumPy 2 (Python scalars are weak,
NEP 50), ``sum`` with axes, ``reshape`` with ``-1``, ``where``, ``broadcast_to``...

Every op goes through :func:`emit`, which hands it to the current builder, one context
variable: an IR builder (:mod:`s4tf.dialects.ir_builder`; the frontend's tracing scope is
one), or a guard that refuses ops while a pass runs. Outside all of them it goes to the
default builder that the frontend registers (eager execution); with none registered,
building an op is an error. So this module, like the compiler layers, never imports the
frontend.

```python
with building(builder):                     # what IRBuilder.building() does
    y = composition.sum(x * 2.0, axis=0)    # s4tf.mul, s4tf.reduce_sum at the builder
```
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import functools

import operator

import numpy as np

from s4tf.dialects.types import BOOL_DTYPE, TensorType, canonical_dtype, is_float, is_integer, promote_dtypes, to_numpy_dtype
from s4tf.core.errors import DeviceError, DTypeError, ShapeError
from s4tf.core.locations import user_location
from s4tf.dialects.op_def import lookup

#: s4tf's default dtypes: of Python scalars alone, and of tensors created with no dtype.
DEFAULT_FLOAT = "f32"
DEFAULT_INT = "i32"
#: NumPy's default dtypes: what a Python float makes of integers and bools, and a Python
#: int of bools, in an op with a tensor or array (NEP 50).
NUMPY_FLOAT = "f64"
NUMPY_INT = "i64"


# -- the current builder --------------------------------------------------------------------------


class OpOutsideBuilderError(RuntimeError):
    """An op was built where no builder may take it: a bug of the code building it (a pass
    that builds IR outside its IR builder), not a mistake of the user's."""


#: The current builder: the innermost ``building()`` block's (an IR builder, the frontend's
#: tracing scope, or a guard that refuses ops); ``None`` outside every one.
_builder: contextvars.ContextVar = contextvars.ContextVar("s4tf_builder", default=None)
_default = None


def emit(op_name: str, operands, attrs: dict) -> list:
    """The results of ``s4tf.<op_name>(*operands) {attrs}``, built by the current builder
    (outside every builder, by the default one: eager execution)."""
    builder = _builder.get() or _default
    if builder is None:
        raise OpOutsideBuilderError(f"'s4tf.{op_name}' was built outside an IR builder, a staged function and eager mode")
    return builder.emit(op_name, operands, attrs)


def current_builder():
    """The builder ops go to now (``None`` outside every ``building()`` block)."""
    return _builder.get()


def apply1(op_name: str, *operands, **attrs):
    """The single result of ``s4tf.<op_name>``."""
    return emit(op_name, operands, attrs)[0]


@contextlib.contextmanager
def building(builder):
    """Hand the ops built inside the block to ``builder.emit(op_name, operands, attrs) -> results``."""
    token = _builder.set(builder)
    try:
        yield builder
    finally:
        _builder.reset(token)


def set_default_builder(builder) -> None:
    """The builder used outside every ``building()`` block (the frontend's eager execution)."""
    global _default
    _default = builder


# -- values -------------------------------------------------------------------------------


def is_python_scalar(value) -> bool:
    """A Python ``bool``, ``int`` or ``float``, a weakly typed value; NumPy scalars such as
    ``np.float64(1.0)`` (a subclass of ``float``) are 0-d arrays with a dtype of their own."""
    return isinstance(value, (bool, int, float)) and not isinstance(value, np.generic)


class ArrayValue:
    """A tensor value that ops take: an IR builder's value, a tracer, a device tensor.
    Subclasses give ``tensor_type``; the operators the derivative rules use are here."""

    __array_priority__ = 100  # NumPy defers `ndarray op value` to the value
    #: Whether it stands for a Python number (the index of a staged ``range`` loop), and so
    #: is promoted as a weak Python scalar is (NEP 50).
    weak = False
    #: For a 0-d float value computed from Python numbers alone (``s4tf.log(2.0)``, a
    #: float32 by s4tf's default): the float64 number it stands for (:func:`exact_value`).
    exact = None

    @property
    def tensor_type(self) -> TensorType:
        raise NotImplementedError

    @property
    def shape(self) -> tuple:
        return self.tensor_type.shape

    @property
    def dtype(self) -> np.dtype:
        return to_numpy_dtype(self.tensor_type.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def as_weak(self) -> "ArrayValue":
        """The same value, standing for a Python number (values that cannot: themselves)."""
        return self

    __hash__ = object.__hash__  # values stay usable as dict keys despite __eq__

    def __iter__(self):
        """Its rows, as NumPy's; a 0-d value is not iterable (not an empty sequence)."""
        if not self.shape:
            raise TypeError(f"iteration over a 0-d tensor {self.tensor_type}")
        return (self[i] for i in range(self.shape[0]))

    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def __sub__(self, other):
        return subtract(self, other)

    def __rsub__(self, other):
        return subtract(other, self)

    def __mul__(self, other):
        return multiply(self, other)

    def __rmul__(self, other):
        return multiply(other, self)

    def __truediv__(self, other):
        return divide(self, other)

    def __rtruediv__(self, other):
        return divide(other, self)

    def __pow__(self, other):
        return power(self, other)

    def __rpow__(self, other):
        return power(other, self)

    def __neg__(self):
        return negative(self)

    def __eq__(self, other):
        return equal(self, other)

    def __ne__(self, other):
        return not_equal(self, other)

    def __lt__(self, other):
        return less(self, other)

    def __le__(self, other):
        return less_equal(self, other)

    def __gt__(self, other):
        return greater(self, other)

    def __ge__(self, other):
        return greater_equal(self, other)


# -- operands ---------------------------------------------------------------------------


def _scalar_dtype(value) -> str:
    if isinstance(value, bool):
        return "i1"
    return DEFAULT_INT if isinstance(value, int) else DEFAULT_FLOAT


def dtype_of(value) -> str:
    if isinstance(value, ArrayValue):
        return value.tensor_type.dtype
    if is_python_scalar(value):
        return _scalar_dtype(value)
    return canonical_dtype(np.asarray(value).dtype)


def shape_of(value) -> tuple:
    return value.shape if isinstance(value, ArrayValue) else np.shape(value)


def check_device(device, function: str) -> None:
    """The Array API's ``device=`` argument of a creation function: s4tf creates tensors on
    ``"cpu"`` (its one advertised device) and moves them with ``s4tf.function(target=...)``."""
    if device is not None and device != "cpu":
        raise DeviceError(
            f"{function}: s4tf creates tensors on 'cpu' and moves them with s4tf.function(target=...), not device={device!r}",
            str(user_location() or "") or None,
        )


def asarray(value, dtype=None, *, device=None, copy=None):
    """A tensor (or host array, converted where it is used) of ``dtype``; a list or tuple
    that holds tensors is their stack, so traced values stay traced (and differentiable).
    Tensors are immutable, so ``copy`` changes nothing a caller can see."""
    check_device(device, "asarray")
    if isinstance(value, ArrayValue):
        return value if dtype is None else astype(value, dtype)
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        stacked = stack([asarray(item) for item in value])
        return stacked if dtype is None else astype(stacked, dtype)
    exact = dtype is None and is_python_scalar(value) and isinstance(value, float)
    if dtype is None and is_python_scalar(value):
        dtype = _scalar_dtype(value)
    array = np.asarray(value, dtype=None if dtype is None else to_numpy_dtype(canonical_dtype(dtype)))
    canonical_dtype(array.dtype)
    return _keeping_exact(apply1("constant", value=array), value) if exact else apply1("constant", value=array)


def _holds_tensor(value) -> bool:
    if isinstance(value, (list, tuple)):
        return builtins.any(_holds_tensor(item) for item in value)
    return isinstance(value, ArrayValue)


def as_operand(value, dtype: str):
    """``value`` as an operand of ``dtype``: tensors are cast, host values converted; a
    value computed from Python numbers alone meets float64 as the number it stands for."""
    if isinstance(value, ArrayValue):
        if value.tensor_type.dtype == dtype:
            return value
        if dtype == NUMPY_FLOAT and value.exact is not None:
            return np.asarray(value.exact, np.float64)
        return apply1("cast", value, dtype=dtype)
    try:
        return np.asarray(value, dtype=to_numpy_dtype(dtype))
    except OverflowError:  # NumPy 2: a Python int that the dtype it meets cannot hold
        raise DTypeError(
            f"Python integer {value} is out of range for {to_numpy_dtype(dtype)}, the dtype it is "
            "combined with (as in NumPy); make it an array of a wider dtype", str(user_location() or "")
        ) from None


def is_weak(value) -> bool:
    """A Python scalar, or a value standing for one (:attr:`ArrayValue.weak`)."""
    return is_python_scalar(value) or (isinstance(value, ArrayValue) and value.weak)


def _kind(dtype: str) -> int:
    return 0 if dtype == BOOL_DTYPE else 1 if is_integer(dtype) else 2


def _with_weak(dtype: str, weak_dtype: str) -> str:
    """NEP 50: a weak value takes ``dtype`` unless it is of a higher kind (bool < int <
    float); then it brings NumPy's default dtype of its kind."""
    if _kind(weak_dtype) <= _kind(dtype):
        return dtype
    return NUMPY_FLOAT if is_float(weak_dtype) else NUMPY_INT


def result_dtype(*values) -> str:
    """The dtype NumPy 2 computes an op on ``values`` in: ``np.result_type`` of the tensors'
    and arrays' dtypes, Python scalars weak (:func:`_with_weak`). Weak values alone give
    the dtype of the highest kind among them: s4tf's defaults for Python scalars."""
    if all(isinstance(v, ArrayValue) and not v.weak for v in values):
        dtypes = {v.tensor_type.dtype for v in values}
        if len(dtypes) == 1:  # tensors of one dtype, none weak: the common case, quickly
            return dtypes.pop()
    strong = [dtype_of(v) for v in values if not is_weak(v)]
    weak = [dtype_of(v) for v in values if is_weak(v)]
    if not strong:
        top = builtins.max(map(_kind, weak))
        return functools.reduce(promote_dtypes, [d for d in weak if _kind(d) == top])
    dtype = functools.reduce(promote_dtypes, strong)
    for weak_dtype in weak:
        dtype = _with_weak(dtype, weak_dtype)
    return dtype


def weak_if_all_weak(result, *values):
    """``result``, weak when every value it was computed from is."""
    return result.as_weak() if isinstance(result, ArrayValue) and all(map(is_weak, values)) else result


def exact_value(value):
    """The float64 number that ``value`` stands for where it is one computed from Python
    numbers alone: a Python scalar itself, a value's :attr:`ArrayValue.exact`; else ``None``.

    s4tf's default float is float32, so ``s4tf.log(2.0)`` is a float32; kept with its
    float64 value, it meets a float64 tensor as NumPy's ``np.log(2.0)`` (and JAX's with
    x64) would, to float64's precision, not rounded to float32's."""
    if isinstance(value, ArrayValue):
        return value.exact
    return value if is_python_scalar(value) else None


def _keeping_exact(result, exact):
    result.exact = float(exact)
    return result


#: Ops whose float64 result, rounded, is not their result in a narrower float.
_NOT_FOLDED = frozenset({"nextafter"})


def _folded(op_name: str, values, dtype: str):
    """``s4tf.<op_name>`` of ``values`` computed on the host in float64 where every value
    stands for a Python number and the operands and result are floats narrower than
    float64: a constant of ``dtype`` keeping the float64 number (:func:`exact_value`);
    else ``None``."""
    if not is_float(dtype) or dtype == NUMPY_FLOAT or op_name in _NOT_FOLDED:
        return None
    exact = [exact_value(v) for v in values]
    if any(e is None for e in exact):
        return None
    with np.errstate(all="ignore"):
        number = lookup(op_name).reference(*[np.float64(e) for e in exact])
        if np.asarray(number).dtype != np.float64:  # a comparison's bool
            return None
        constant = np.asarray(number, to_numpy_dtype(dtype))
    return _keeping_exact(apply1("constant", value=constant), number)


def elementwise(op_name: str, *values, dtype: str | None = None):
    dtype = dtype or result_dtype(*values)
    folded = _folded(op_name, values, dtype)
    if folded is not None:
        return _keeping_exact(weak_if_all_weak(folded, *values), folded.exact)
    return weak_if_all_weak(apply1(op_name, *[as_operand(v, dtype) for v in values]), *values)


def float_operand(x):
    dtype = dtype_of(x)
    return as_operand(x, dtype if is_float(dtype) else DEFAULT_FLOAT)


def op(op_name: str, *operands, **attrs):
    """Any ``s4tf.<op_name>`` op as it is defined, with no promotion or conveniences:
    ``s4tf.op("pad", x, zero, low=(1,), high=(0,), interior=(0,))``."""
    return apply1(op_name, *operands, **attrs)


# -- elementwise ------------------------------------------------------------------------


def unary_float(op_name):
    def unary(x):
        folded = _folded(op_name, (x,), DEFAULT_FLOAT if is_python_scalar(x) else dtype_of(x))
        return folded if folded is not None else apply1(op_name, float_operand(x))

    unary.__name__ = op_name
    unary.__doc__ = f"Elementwise ``s4tf.{op_name}``; integer inputs are converted to float32."
    return unary


exp = unary_float("exp")
log = unary_float("log")
log1p = unary_float("log1p")
sin = unary_float("sin")
cos = unary_float("cos")
tanh = unary_float("tanh")
sqrt = unary_float("sqrt")
rsqrt = unary_float("rsqrt")


def negative(x):
    return elementwise("neg", x)


def sign(x):
    return elementwise("sign", x)


#: NumPy's loops for bools: add and maximum are logical or, multiply and minimum logical and.
_BOOL_LOOPS = {"add": "or", "mul": "and", "maximum": "or", "minimum": "and"}


def _arithmetic(op_name, x, y):
    dtype = result_dtype(x, y)
    return elementwise(_BOOL_LOOPS[op_name] if dtype == BOOL_DTYPE else op_name, x, y, dtype=dtype)


def no_bool_loop(dtype: str) -> str:
    """The dtype of an op that NumPy has no bool loop for (power, floor_divide, remainder):
    bools are computed as int8."""
    return "i8" if dtype == BOOL_DTYPE else dtype


def add(x, y):
    """``x + y``; logical or on bools (as in NumPy)."""
    return _arithmetic("add", x, y)


def subtract(x, y):
    """``x - y``; bools cannot be subtracted (as in NumPy)."""
    if result_dtype(x, y) == BOOL_DTYPE:
        raise DTypeError(
            "bools cannot be subtracted (as in NumPy); for the exclusive or of bools use x != y",
            str(user_location() or ""),
        )
    return elementwise("sub", x, y)


def multiply(x, y):
    """``x * y``; logical and on bools (as in NumPy)."""
    return _arithmetic("mul", x, y)


def divide(x, y):
    """True division. As if a Python float took part: integers and bools divide in float64
    (NumPy's default float; float32, s4tf's, for Python scalars alone)."""
    return elementwise("div", x, y, dtype=result_dtype(x, y, 1.0))


def power(x, y):
    return elementwise("pow", x, y, dtype=no_bool_loop(result_dtype(x, y)))


def maximum(x, y):
    """Elementwise maximum; logical or on bools (as in NumPy)."""
    return _arithmetic("maximum", x, y)


def minimum(x, y):
    """Elementwise minimum; logical and on bools (as in NumPy)."""
    return _arithmetic("minimum", x, y)


def _comparison(op_name):
    def compare(x, y):
        return elementwise(op_name, x, y)

    compare.__name__ = op_name
    return compare


equal = _comparison("eq")
not_equal = _comparison("ne")
less = _comparison("lt")
less_equal = _comparison("le")
greater = _comparison("gt")
greater_equal = _comparison("ge")


def logical_and(x, y):
    return elementwise("and", x, y, dtype="i1")


def where(condition, x, y):
    """``x`` where ``condition`` is true, else ``y`` (broadcasting, as ``np.where``)."""
    dtype = result_dtype(x, y)
    return apply1("select", as_operand(condition, "i1"), as_operand(x, dtype), as_operand(y, dtype))


def astype(x, dtype, *, copy=True, device=None):
    """``x`` as ``dtype`` (``x`` itself when it has it: tensors are immutable, so ``copy``
    changes nothing a caller can see)."""
    check_device(device, "astype")
    dtype = canonical_dtype(dtype)
    if isinstance(x, ArrayValue) and x.tensor_type.dtype == dtype:
        return x
    return apply1("cast", x if isinstance(x, ArrayValue) else np.asarray(x), dtype=dtype)


# -- creation ---------------------------------------------------------------------------


def shape_tuple(shape) -> tuple:
    """``shape`` as a tuple of ints; a traced size is an error (its ``__index__``), never a rank."""
    if isinstance(shape, ArrayValue):
        return (operator.index(shape),) if not shape.shape else tuple(operator.index(d) for d in shape)
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


def full(shape, fill_value, dtype=None, *, device=None):
    """``np.full``; with no dtype, the fill value's (a Python int is int32, a float float32).
    A tensor fill value (a traced one too) is broadcast to ``shape``."""
    check_device(device, "full")
    dtype = canonical_dtype(dtype) if dtype is not None else dtype_of(fill_value)
    if isinstance(fill_value, ArrayValue):
        return astype(broadcast_to(fill_value, shape_tuple(shape)), dtype)
    value = np.array(fill_value, dtype=to_numpy_dtype(dtype))
    return apply1("constant", value=np.broadcast_to(value, shape_tuple(shape)))  # a splat: one element in memory


def zeros(shape, dtype=None, *, device=None):
    """``np.zeros``; with no dtype, s4tf's default float, float32."""
    check_device(device, "zeros")
    return full(shape, 0, DEFAULT_FLOAT if dtype is None else dtype)


def ones(shape, dtype=None, *, device=None):
    """``np.ones``; with no dtype, s4tf's default float, float32."""
    check_device(device, "ones")
    return full(shape, 1, DEFAULT_FLOAT if dtype is None else dtype)


def iota(shape, dimension=0, dtype=np.int32):
    return apply1("iota", shape=shape_tuple(shape), dimension=dimension, dtype=canonical_dtype(dtype))


def zeros_unless(value, like):
    """``value``, or zeros of ``like``'s shape and dtype where it is ``None`` (a tangent or
    cotangent nothing contributed to)."""
    return zeros(like.shape, like.dtype) if value is None else value


def zeros_like(x, dtype=None, *, device=None):
    return full_like(x, 0, dtype, device=device)


def full_like(x, fill_value, dtype=None, *, device=None):
    return full(shape_of(x), fill_value, dtype_of(x) if dtype is None else dtype, device=device)


# -- shapes -----------------------------------------------------------------------------


def as_tensor(x):
    return x if isinstance(x, ArrayValue) else asarray(x)


def normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < builtins.max(rank, 1):
        raise ShapeError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def reshape(x, shape, *, copy=None):
    """``np.reshape``; ``shape`` is a tuple or an int, one dimension may be ``-1``. Tensors
    are immutable, so ``copy`` changes nothing a caller can see."""
    x = as_tensor(x)
    shape = [int(d) for d in shape_tuple(shape)]
    if shape.count(-1) > 1:
        raise ShapeError(f"reshape to {tuple(shape)}: only one dimension can be -1")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        if known == 0 or x.tensor_type.size % known:
            raise ShapeError(f"cannot reshape {x.shape} to {tuple(shape)}")
        shape[shape.index(-1)] = x.tensor_type.size // known
    if tuple(shape) == tuple(x.shape):
        return x
    return apply1("reshape", x, shape=tuple(shape))


def transpose(x, axes=None):
    x = as_tensor(x)
    rank = len(x.shape)
    axes = tuple(reversed(range(rank))) if axes is None else tuple(normalize_axis(a, rank) for a in axes)
    return x if axes == tuple(range(rank)) else apply1("transpose", x, permutation=axes)


def broadcast_to(x, shape):
    x = as_tensor(x)
    shape = shape_tuple(shape)
    if tuple(x.shape) == shape:
        return x
    offset = len(shape) - len(x.shape)
    if offset < 0:
        raise ShapeError(f"cannot broadcast {x.shape} to {shape}")
    return apply1("broadcast_in_dim", x, shape=shape, broadcast_dimensions=tuple(range(offset, len(shape))))


def broadcast_in_dim(x, shape, broadcast_dimensions):
    return apply1("broadcast_in_dim", as_tensor(x), shape=shape_tuple(shape), broadcast_dimensions=tuple(broadcast_dimensions))


def expand_dims(x, axis):
    x = as_tensor(x)
    rank = len(x.shape) + 1
    axis = normalize_axis(axis, rank)
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, shape)


def concatenate(arrays, axis=0):
    arrays = list(arrays)
    dtype = result_dtype(*arrays)
    rank = len(shape_of(arrays[0]))
    return apply1("concatenate", *[as_operand(a, dtype) for a in arrays], axis=normalize_axis(axis, rank))


def stack(arrays, axis=0):
    arrays = list(arrays)
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis)


def slice(x, start, limit, stride=None):  # noqa: A001  (the op's name)
    x = as_tensor(x)
    return apply1("slice", x, start=tuple(start), limit=tuple(limit), stride=tuple(stride or (1,) * len(start)))


def stop_gradient(x):
    """``x``, with a derivative of zero: differentiation treats it as a constant."""
    return apply1("stop_gradient", as_tensor(x))


# -- reductions -------------------------------------------------------------------------


def axes_of(axis, rank) -> tuple:
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(normalize_axis(int(a), rank) for a in axes))


def reduction(op_name, x, axis, keepdims):
    x = as_tensor(x)
    return apply1(op_name, x, axes=axes_of(axis, len(x.shape)), keepdims=bool(keepdims))


def accumulator_dtype(x, dtype) -> str:
    """The dtype a sum or product of ``x`` is computed and returned in (the Array API's):
    ``dtype`` if given, else bools and integers narrower than int32 as int32, others their own."""
    if dtype is not None:
        return canonical_dtype(dtype)
    source = dtype_of(x)
    if source == BOOL_DTYPE or (is_integer(source) and promote_dtypes(source, DEFAULT_INT) == DEFAULT_INT):
        return DEFAULT_INT
    return source


def sum(x, axis=None, keepdims=False, dtype=None):  # noqa: A001  (NumPy's name)
    """``np.sum``; booleans and integers narrower than int32 are summed as int32."""
    x = as_tensor(x)
    return reduction("reduce_sum", astype(x, accumulator_dtype(x, dtype)), axis, keepdims)


# -- contractions -----------------------------------------------------------------------


def min(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    return reduction("reduce_min", x, axis, keepdims)


def dot_general(x, y, contracting, batch=((), ())):
    """Raw ``s4tf.dot_general``: ``contracting`` and ``batch`` are ``(lhs_axes, rhs_axes)``."""
    return apply1(
        "dot_general", as_tensor(x), as_tensor(y),
        lhs_batch=tuple(batch[0]), rhs_batch=tuple(batch[1]),
        lhs_contract=tuple(contracting[0]), rhs_contract=tuple(contracting[1]),
    )
