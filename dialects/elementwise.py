"""Elementwise ops: unary math, binary arithmetic with NumPy broadcasting, comparisons,
select and cast.

Binary ops take operands of one dtype whose shapes broadcast as in NumPy; the lowering
makes the broadcasts explicit with ``stablehlo.broadcast_in_dim``.

```mlir
%0 = "s4tf.mul"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
%1 = "s4tf.lt"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import hlo, trigonometry
from s4tf.dialects.attributes import DTYPE
from s4tf.dialects.batching_helpers import elementwise_batch
from s4tf.dialects.derivative_helpers import mask, scale, sum_tangents, unbroadcast
from s4tf.dialects.op_def import MissingDerivativeRule, Op
from s4tf.dialects.types import BOOL_DTYPE, TensorType, is_float, is_integer, shape_str, to_numpy_dtype
from s4tf.core.errors import DTypeError, ShapeError


def broadcast_shapes(*shapes) -> tuple:
    """NumPy's broadcasting rule; ``None`` (dynamic) dimensions are kept where possible."""
    rank = max(len(s) for s in shapes)
    result = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        dims.discard(1)
        static = {d for d in dims if d is not None}
        if len(static) > 1:
            raise ShapeError(
                "shapes " + " and ".join(shape_str(s) for s in shapes) + " do not broadcast"
            )
        result.append(static.pop() if static else (None if None in dims else 1))
    return tuple(result)


def _same_dtype(types: list[TensorType]) -> str:
    dtypes = {t.dtype for t in types}
    if len(dtypes) > 1:
        raise DTypeError(f"operands must have one dtype, got {', '.join(t.dtype for t in types)}")
    return types[0].dtype


def _check_kind(dtype: str, kinds: str) -> None:
    allowed = {
        "float": is_float(dtype),
        "number": is_float(dtype) or is_integer(dtype),
        "int": is_integer(dtype),
        "int_or_bool": is_integer(dtype) or dtype == BOOL_DTYPE,
        "any": True,
    }[kinds]
    if not allowed:
        wanted = {"float": "a float", "number": "a float or integer", "int": "an integer", "int_or_bool": "an integer or bool"}[kinds]
        raise DTypeError(f"operand dtype {dtype} is not {wanted} type")


# -- unary ------------------------------------------------------------------------------


class UnaryOp(Op):
    """Elementwise unary op; result type equals the operand type.

    ```mlir
    %0 = "s4tf.{name}"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    ```
    """

    operands = ("x",)
    kinds = "float"
    numpy = None
    hlo_name = ""
    #: ``derivative(ops, x, y)``: dy/dx as staged code, or ``None`` (piecewise constant).
    derivative = None
    batch = classmethod(elementwise_batch)

    @classmethod
    def infer(cls, x):
        _check_kind(x.dtype, cls.kinds)
        return x

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        return scale(tangents[0], cls.derivative(ops, primals[0], result))

    @classmethod
    def reference(cls, x):
        return cls.numpy(x)

    @classmethod
    def lower(cls, lowering, x):
        result = hlo.value(cls.hlo_name, [x], lowering.result_type)
        result_type = lowering.result_type
        if cls.at_zero is None or not is_float(result_type.dtype):
            return result
        zero = hlo.splat(0, result_type)
        at_zero = hlo.compare(x, zero, "EQ", result_type.dtype, result_type.with_dtype(BOOL_DTYPE))
        return hlo.value("select", [at_zero, x if cls.at_zero == "x" else zero, result], result_type)

    #: What ``f(+-0)`` is where IREE's lowering gets it wrong: ``"x"`` (``+-0``, where IREE
    #: gives ``+0`` for ``-0``), ``"+0"`` (where IREE gives ``-0`` for ``-0``), or ``None``.
    at_zero = None


def _unary(name, numpy, hlo_name, kinds="float", doc="", derivative=None, at_zero=None, lower_f64=None, lower_f32=None):
    """A unary op; without ``derivative`` it is piecewise constant (zero derivative);
    ``lower_f64(x, result_type)``: its own float64 lowering; ``lower_f32``: its own for
    float32, float16 and bfloat16."""
    body = {
        "name": name, "numpy": staticmethod(numpy), "hlo_name": hlo_name, "kinds": kinds, "__doc__": doc,
        "derivative": None if derivative is None else staticmethod(derivative),
        "piecewise_constant": derivative is None, "at_zero": at_zero,
    }
    if lower_f64 is not None or lower_f32 is not None:
        def lower(cls, lowering, x):
            dtype = lowering.result_type.dtype
            if dtype == "f64" and lower_f64 is not None:
                return lower_f64(x, lowering.result_type)
            if dtype in trigonometry.DTYPES and lower_f32 is not None:
                return lower_f32(x, lowering.result_type)
            return UnaryOp.lower.__func__(cls, lowering, x)

        body["lower"] = classmethod(lower)
    return type(name.capitalize(), (UnaryOp,), body)


def _rsqrt(x):
    return 1 / np.sqrt(x)


def _logistic(x):
    return 1 / (1 + np.exp(-x))


class Neg(UnaryOp):
    """Elementwise negation, ``-x``."""

    name = "neg"
    numpy = staticmethod(np.negative)
    hlo_name = "negate"
    kinds = "number"
    linear = True
    involution = True

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        return [-cotangent]


def _log1p_f64(x, result_type: TensorType):
    """``log(u) * x / (u - 1)`` with ``u = 1 + x`` (Goldberg's correction of ``u``'s
    rounding), ``x`` where ``u`` is 1 and ``log(u)`` where it is infinite.
    IREE-3.13-WORKAROUND: IREE 3.13 computes a float64 ``log_plus_one`` as ``log(1 + x)`` on
    the CPU (``log1p(1e-8)`` 6e-9 off, ``log1p(1e-300)`` 0)."""
    one, inf = hlo.splat(1, result_type), hlo.splat(np.inf, result_type)
    u = hlo.value("add", [x, one], result_type)
    log_u = hlo.value("log", [u], result_type)
    corrected = hlo.value("divide", [hlo.value("multiply", [log_u, x], result_type),
                                     hlo.value("subtract", [u, one], result_type)], result_type)
    near_zero = hlo.value("select", [_equal(u, one, result_type), x, corrected], result_type)
    return hlo.value("select", [_equal(u, inf, result_type), log_u, near_zero], result_type)


def _expm1_f64(x, result_type: TensorType):
    """``(u - 1) * x / log(u)`` with ``u = e**x`` (Kahan's correction), ``x`` where ``u``
    is 1, -1 where ``u - 1`` is, ``u`` where it is infinite. IREE-3.13-WORKAROUND: IREE
    3.13 computes a float64 ``exponential_minus_one`` as ``exp(x) - 1`` on the CPU
    (``expm1(1e-8)`` 1e-8 off, ``expm1(1e-300)`` 0)."""
    one, inf = hlo.splat(1, result_type), hlo.splat(np.inf, result_type)
    u = hlo.value("exponential", [x], result_type)
    u_minus_one = hlo.value("subtract", [u, one], result_type)
    corrected = hlo.value("divide", [hlo.value("multiply", [u_minus_one, x], result_type),
                                     hlo.value("log", [u], result_type)], result_type)
    result = hlo.value("select", [_equal(u_minus_one, hlo.splat(-1, result_type), result_type), u_minus_one, corrected],
                       result_type)
    result = hlo.value("select", [_equal(u, one, result_type), x, result], result_type)
    return hlo.value("select", [_equal(u, inf, result_type), u, result], result_type)


def _equal(lhs, rhs, result_type: TensorType):
    return hlo.compare(lhs, rhs, "EQ", result_type.dtype, result_type.with_dtype(BOOL_DTYPE))


Exp = _unary("exp", np.exp, "exponential", doc="Elementwise ``e**x``.", derivative=lambda ops, x, y: y)
Log = _unary("log", np.log, "log", doc="Elementwise natural logarithm.", derivative=lambda ops, x, y: 1 / x)
Log1p = _unary(
    "log1p", np.log1p, "log_plus_one", doc="Elementwise ``log(1 + x)``, accurate near 0.",
    derivative=lambda ops, x, y: 1 / (1 + x), at_zero="x", lower_f64=_log1p_f64,
)
Sin = _unary("sin", np.sin, "sine", doc="Elementwise sine.", derivative=lambda ops, x, y: ops.cos(x),
             lower_f32=trigonometry.lowering("sin"))
Cos = _unary("cos", np.cos, "cosine", doc="Elementwise cosine.", derivative=lambda ops, x, y: -ops.sin(x),
             lower_f32=trigonometry.lowering("cos"))
Tanh = _unary("tanh", np.tanh, "tanh", doc="Elementwise hyperbolic tangent.", derivative=lambda ops, x, y: 1 - y * y)
Sqrt = _unary("sqrt", np.sqrt, "sqrt", doc="Elementwise square root.", derivative=lambda ops, x, y: 0.5 / y)
Rsqrt = _unary(
    "rsqrt", _rsqrt, "rsqrt", doc="Elementwise ``1 / sqrt(x)``.", derivative=lambda ops, x, y: -0.5 * y / x
)
Abs = _unary(
    "abs", np.abs, "abs", "number", "Elementwise absolute value.",
    derivative=lambda ops, x, y: ops.stop_gradient(ops.sign(x)),
)


def _sign_float(x, result_type: TensorType):
    """``1`` above zero, ``-1`` below, and ``x + 0`` otherwise (``+0`` for either zero, NaN
    for NaN), by comparisons: IREE-3.13-WORKAROUND: IREE lowers ``stablehlo.sign`` to
    ``math.copysign``, which its ``vmvx`` backend cannot compile (so neither did ``abs``'s
    derivative there)."""
    flags = result_type.with_dtype(BOOL_DTYPE)
    zero = hlo.splat(0, result_type)
    above, below = (hlo.compare(x, zero, direction, result_type.dtype, flags) for direction in ("GT", "LT"))
    rest = hlo.value("add", [x, zero], result_type)
    rest = hlo.value("select", [below, hlo.splat(-1, result_type), rest], result_type)
    return hlo.value("select", [above, hlo.splat(1, result_type), rest], result_type)


Sign = _unary("sign", np.sign, "sign", "number", "Elementwise sign: -1, 0 or 1 (zero derivative).", at_zero="+0",
              lower_f64=_sign_float, lower_f32=_sign_float)
Logistic = _unary(
    "logistic", _logistic, "logistic", doc="Elementwise sigmoid ``1 / (1 + e**-x)``.",
    derivative=lambda ops, x, y: y * (1 - y),
)
Floor = _unary("floor", np.floor, "floor", doc="Elementwise floor (zero derivative).")
Ceil = _unary("ceil", np.ceil, "ceil", doc="Elementwise ceiling (zero derivative).")
Round = _unary("round", np.round, "round_nearest_even", doc="Elementwise rounding, halves to even (zero derivative).")
Expm1 = _unary(
    "expm1", np.expm1, "exponential_minus_one", doc="Elementwise ``e**x - 1``, accurate near 0.",
    derivative=lambda ops, x, y: y + 1, at_zero="x", lower_f64=_expm1_f64,
)
Tan = _unary("tan", np.tan, "tan", doc="Elementwise tangent.", derivative=lambda ops, x, y: 1 + y * y,
             lower_f32=trigonometry.lowering("tan"))
Asin = _unary(
    "asin", np.arcsin, "chlo.asin", doc="Elementwise inverse sine.",
    derivative=lambda ops, x, y: ops.rsqrt(1 - x * x), lower_f32=trigonometry.lowering("asin"),
)
Acos = _unary(
    "acos", np.arccos, "chlo.acos", doc="Elementwise inverse cosine.",
    derivative=lambda ops, x, y: -ops.rsqrt(1 - x * x), lower_f32=trigonometry.lowering("acos"),
)
Atan = _unary("atan", np.arctan, "chlo.atan", doc="Elementwise inverse tangent.", derivative=lambda ops, x, y: 1 / (1 + x * x),
              lower_f32=trigonometry.lowering("atan"))
Sinh = _unary(
    "sinh", np.sinh, "chlo.sinh", doc="Elementwise hyperbolic sine.", derivative=lambda ops, x, y: ops.op("cosh", x),
    at_zero="x",
)
Cosh = _unary("cosh", np.cosh, "chlo.cosh", doc="Elementwise hyperbolic cosine.", derivative=lambda ops, x, y: ops.op("sinh", x))
Asinh = _unary(
    "asinh", np.arcsinh, "chlo.asinh", doc="Elementwise inverse hyperbolic sine.",
    derivative=lambda ops, x, y: ops.rsqrt(x * x + 1),
)
Acosh = _unary(
    "acosh", np.arccosh, "chlo.acosh", doc="Elementwise inverse hyperbolic cosine.",
    derivative=lambda ops, x, y: ops.rsqrt(x * x - 1),
)
Atanh = _unary(
    "atanh", np.arctanh, "chlo.atanh", doc="Elementwise inverse hyperbolic tangent.",
    derivative=lambda ops, x, y: 1 / (1 - x * x), at_zero="x",
)


def _erf(x):
    from scipy.special import erf  # only the reference needs SciPy

    return erf(x)


Erf = _unary(
    "erf", _erf, "chlo.erf", doc="Elementwise error function ``2/sqrt(pi) * integral(exp(-t**2), 0, x)``.",
    derivative=lambda ops, x, y: (2 / np.sqrt(np.pi)) * ops.exp(-(x * x)),
)


def _erf_inv(x):
    from scipy.special import erfinv  # only the reference needs SciPy

    return erfinv(x)


ErfInv = _unary(
    "erf_inv", _erf_inv, "chlo.erf_inv", doc="Elementwise inverse error function (``erf(erf_inv(x)) == x`` on (-1, 1)).",
    derivative=lambda ops, x, y: (np.sqrt(np.pi) / 2) * ops.exp(y * y), at_zero="x",
)
Not = _unary(
    "not", np.invert, "not", "int_or_bool",
    """Elementwise logical (bool) or bitwise (int) not.

    ```mlir
    %0 = "s4tf.not"(%x) : (tensor<4xi1>) -> tensor<4xi1>
    ```
    """,
)


class IdentityOp(Op):
    """An op whose result is its operand; its lowering and derivative say what more it is."""

    operands = ("x",)
    kinds = "any"  # operand dtypes, as the other elementwise ops declare them
    batch = classmethod(elementwise_batch)

    @staticmethod
    def infer(x):
        return x

    @staticmethod
    def reference(x):
        return x


class StopGradient(IdentityOp):
    """The identity whose derivative is zero: differentiation treats the result as a
    constant (S4TF's ``withoutDerivative(at:)``).

    ```mlir
    %0 = "s4tf.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "stop_gradient"
    zero_derivative = True

    @staticmethod
    def lower(lowering, x):
        return x


class OptimizationBarrier(IdentityOp):
    """The identity that the compilers do not see through once lowered
    (``stablehlo.optimization_barrier``): ops reading its result are not merged (CSE)
    with the same ops reading ``x``. Reverse mode hands a loop's cotangents through it
    (an IREE allocation workaround, ``region_derivatives.py``). IREE waits for it on the
    host (the submission ends there); ``s4tf.after`` orders without that wait. Of a
    constant it folds, like any op. Its derivative is the identity's.

    ```mlir
    %0 = "s4tf.optimization_barrier"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name = "optimization_barrier"

    @staticmethod
    def lower(lowering, x):
        return hlo.value("optimization_barrier", [x], lowering.result_type)

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        return tangents[0]

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        return [cotangent]


class After(Op):
    """``x``, computed only once ``token`` exists: the compilers cannot merge it (CSE) with
    the same ops reading ``x``, or run what reads it before ``token`` is computed.
    ``s4tf.remat``'s recomputation reads its inputs through it, with a cotangent as the
    token, so the backward pass's copy of the forward pass is neither merged back into the
    forward pass nor run before the backward pass needs it. Lowered through a wait token
    (:func:`s4tf.dialects.hlo.after`), not a barrier that IREE waits for on the host.
    Its derivative is the identity's in ``x``; ``token`` has none.

    ```mlir
    %0 = "s4tf.after"(%x, %ct) : (tensor<4xf32>, tensor<2x3xf32>) -> tensor<4xf32>
    ```
    """

    name = "after"
    operands = ("x", "token")
    nondifferentiable_operands = (1,)

    @staticmethod
    def infer(x, token):
        return x

    @staticmethod
    def reference(x, token):
        return x

    @staticmethod
    def lower(lowering, x, token):
        return hlo.after(x, lowering.result_type, [token])

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        return tangents[0]

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        return [cotangent, None]

    @classmethod
    def batch(cls, ops, operands, batch_dims):
        """``x`` keeps its batch axis; any ``token`` orders it."""
        return ops.emit("after", list(operands), {}), [batch_dims[0]]


# -- binary -----------------------------------------------------------------------------


class BinaryOp(Op):
    """Elementwise binary op with NumPy broadcasting; operands share one dtype.

    ```mlir
    %0 = "s4tf.{name}"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
    """

    operands = ("lhs", "rhs")
    kinds = "number"
    numpy = None
    hlo_name = ""
    batch = classmethod(elementwise_batch)

    @classmethod
    def result_dtype(cls, dtype: str) -> str:
        return dtype

    @classmethod
    def infer(cls, lhs, rhs):
        dtype = _same_dtype([lhs, rhs])
        _check_kind(dtype, cls.kinds)
        return TensorType(broadcast_shapes(lhs.shape, rhs.shape), cls.result_dtype(dtype))

    @classmethod
    def reference(cls, lhs, rhs):
        return cls.numpy(lhs, rhs)

    @classmethod
    def lower(cls, lowering, lhs, rhs):
        shape = lowering.result_type.shape
        lhs_type, rhs_type = lowering.operand_types
        operands = [hlo.broadcast(lhs, lhs_type, shape), hlo.broadcast(rhs, rhs_type, shape)]
        return cls.lower_broadcast(lowering, operands)

    @classmethod
    def lower_broadcast(cls, lowering, operands):
        return hlo.value(cls.hlo_name, operands, lowering.result_type)


def _divide(lhs, rhs):
    if np.issubdtype(np.asarray(lhs).dtype, np.integer):
        quotient = np.abs(lhs) // np.abs(rhs)
        return quotient * np.sign(lhs) * np.sign(rhs)
    return np.divide(lhs, rhs)


def _reduced(ops, value, operand, linear):
    """The cotangent ``value`` reduced to ``operand``'s shape, for linear operands only."""
    return unbroadcast(ops, value, operand.shape) if linear else None


class Add(BinaryOp):
    """Elementwise sum."""

    name, numpy, hlo_name = "add", staticmethod(np.add), "add"
    commutative = True
    neutral = 0
    linear = True

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        return [_reduced(ops, cotangent, operand, is_linear) for operand, is_linear in zip(operands, linear)]


class Sub(BinaryOp):
    """Elementwise difference."""

    name, numpy, hlo_name = "sub", staticmethod(np.subtract), "subtract"
    neutral = 0
    linear = True

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        lhs, rhs = operands
        return [_reduced(ops, cotangent, lhs, linear[0]), _reduced(ops, -cotangent, rhs, linear[1])]


class Mul(BinaryOp):
    """Elementwise product."""

    name, numpy, hlo_name = "mul", staticmethod(np.multiply), "multiply"
    commutative = True
    neutral = 1
    bilinear = True

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        lhs, rhs = operands
        return [
            _reduced(ops, cotangent * rhs, lhs, linear[0]) if linear[0] else None,
            _reduced(ops, cotangent * lhs, rhs, linear[1]) if linear[1] else None,
        ]


class Div(BinaryOp):
    """Elementwise quotient; integer division truncates toward zero."""

    name, numpy, hlo_name = "div", staticmethod(_divide), "divide"
    neutral = 1

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        lhs, rhs = primals
        d_rhs = None if tangents[1] is None else -tangents[1] * (result / rhs)
        return sum_tangents(ops, [None if tangents[0] is None else tangents[0] / rhs, d_rhs], result)

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear):
        lhs, rhs = operands
        if linear[1]:
            raise MissingDerivativeRule("'s4tf.div' is not linear in its divisor")
        return [unbroadcast(ops, cotangent / rhs, lhs.shape), None]


class Pow(BinaryOp):
    """Elementwise ``lhs ** rhs``.

    The derivative in ``lhs`` is ``rhs * lhs ** (rhs - 1)``, except that the power is
    ``lhs ** 1`` where ``lhs`` and ``rhs`` are both 0, so that ``x ** 0.0`` has derivative
    0 at 0 (not ``0 * inf``) and, the rule applying to itself, ``x ** 1.0`` has second
    derivative 0 there. Only there: where ``rhs`` is 0 and ``lhs`` is not, the power stays
    ``lhs ** (rhs - 1)``, whose derivative in ``rhs`` gives the mixed partial ``1 / lhs``
    (autograd's ``lhs ** 1`` wherever ``rhs`` is 0 gives ``lhs`` instead).
    """

    name, numpy, hlo_name = "pow", staticmethod(np.power), "power"
    neutral = 1

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        lhs, rhs = primals
        exponent = ops.where(ops.logical_and(rhs == 0, lhs == 0), 1, rhs - 1)
        d_lhs = None if tangents[0] is None else tangents[0] * (rhs * ops.power(lhs, exponent))
        d_rhs = None if tangents[1] is None else tangents[1] * (ops.log(ops.where(lhs > 0, lhs, 1)) * result)
        return sum_tangents(ops, [d_lhs, d_rhs], result)

    @classmethod
    def lower_broadcast(cls, lowering, operands):
        result_type = lowering.result_type
        if not is_float(result_type.dtype):
            return hlo.value("power", operands, result_type)
        return _float_power(*operands, result_type)


def _sign_bit(x, result_type: TensorType):
    """Where float ``x`` is negative, ``-0.0`` and ``-inf`` included (``1 / x`` is ``-inf``
    only for ``-0.0``); a NaN's sign is not read."""
    dtype, flags = result_type.dtype, result_type.with_dtype(BOOL_DTYPE)
    zero, one = hlo.splat(0, result_type), hlo.splat(1, result_type)
    inverse = hlo.value("divide", [one, x], result_type)
    return hlo.value("or", [hlo.compare(x, zero, "LT", dtype, flags), hlo.compare(inverse, zero, "LT", dtype, flags)], flags)


def _float_power(base, exponent, result_type: TensorType):
    """``base ** exponent`` as C's ``pow``: a negative base (``-0.0`` and ``-inf``
    included) to an odd integer power is ``-(|base| ** exponent)``, to another integer
    power ``|base| ** exponent``, a finite negative base to a power that is no integer is
    NaN; ``x ** 0``, ``1 ** y`` and ``(-1) ** +-inf`` are 1. (IREE's ``stablehlo.power`` is ``exp(y * log(x))``: NaN for
    every negative base, except for a few constant exponents that it turns into products,
    and for ``0 ** 0``.)"""
    dtype, flags = result_type.dtype, result_type.with_dtype(BOOL_DTYPE)

    def constant(number):
        return hlo.splat(number, result_type)

    def compare(lhs, rhs, direction):
        return hlo.compare(lhs, rhs, direction, dtype, flags)

    magnitude = hlo.value("power", [hlo.value("abs", [base], result_type), exponent], result_type)
    half = hlo.value("multiply", [exponent, constant(0.5)], result_type)
    integer = compare(hlo.value("floor", [exponent], result_type), exponent, "EQ")
    odd = hlo.value("and", [integer, compare(hlo.value("floor", [half], result_type), half, "NE")], flags)
    negated = hlo.value("and", [odd, _sign_bit(base, result_type)], flags)
    signed = hlo.value("select", [negated, hlo.value("negate", [magnitude], result_type), magnitude], result_type)
    finite_negative = hlo.value("and", [compare(base, constant(0), "LT"), compare(base, constant(-np.inf), "GT")], flags)
    no_power = hlo.value("and", [finite_negative, hlo.value("not", [integer], flags)], flags)
    power = hlo.value("select", [no_power, constant(np.nan), signed], result_type)
    minus_one_to_infinity = hlo.value(
        "and", [compare(base, constant(-1), "EQ"), compare(hlo.value("abs", [exponent], result_type), constant(np.inf), "EQ")], flags
    )
    one = hlo.value("or", [compare(exponent, constant(0), "EQ"), compare(base, constant(1), "EQ")], flags)
    one = hlo.value("or", [one, minus_one_to_infinity], flags)
    return hlo.value("select", [one, constant(1), power], result_type)


class _Extremum(BinaryOp):
    """Maximum/minimum: the derivative follows the chosen operand; ties split it evenly."""

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        lhs, rhs = primals
        weight = mask(ops, cls.lhs_wins(lhs, rhs), lhs.dtype) + 0.5 * mask(ops, lhs == rhs, lhs.dtype)
        return sum_tangents(ops, [scale(tangents[0], weight), scale(tangents[1], 1 - weight)], result)


class Maximum(_Extremum):
    """Elementwise maximum."""

    name, numpy, hlo_name = "maximum", staticmethod(np.maximum), "maximum"
    lhs_wins = staticmethod(lambda lhs, rhs: lhs > rhs)


class Minimum(_Extremum):
    """Elementwise minimum."""

    name, numpy, hlo_name = "minimum", staticmethod(np.minimum), "minimum"
    lhs_wins = staticmethod(lambda lhs, rhs: lhs < rhs)


class _LogicalOp(BinaryOp):
    """Elementwise logical op on bool or integer tensors, with broadcasting.

    ```mlir
    %0 = "s4tf.{name}"(%x, %y) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    ```
    """

    kinds = "int_or_bool"


class And(_LogicalOp):
    """Elementwise logical (bool) or bitwise (int) and."""

    name, numpy, hlo_name = "and", staticmethod(np.bitwise_and), "and"


class Or(_LogicalOp):
    """Elementwise logical (bool) or bitwise (int) or."""

    name, numpy, hlo_name = "or", staticmethod(np.bitwise_or), "or"


class Xor(_LogicalOp):
    """Elementwise logical (bool) or bitwise (int) exclusive or."""

    name, numpy, hlo_name = "xor", staticmethod(np.bitwise_xor), "xor"


class _ShiftOp(BinaryOp):
    """Elementwise bit shift of integers; a shift by the bit width or more leaves 0 (or,
    shifting a negative number right, -1), as NumPy's.

    ```mlir
    %0 = "s4tf.{name}"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
    """

    kinds = "int"


class ShiftLeft(_ShiftOp):
    """Elementwise ``lhs << rhs``."""

    name, numpy, hlo_name = "shift_left", staticmethod(np.left_shift), "shift_left"


class ShiftRight(_ShiftOp):
    """Elementwise arithmetic ``lhs >> rhs`` (the sign is kept)."""

    name, numpy, hlo_name = "shift_right", staticmethod(np.right_shift), "shift_right_arithmetic"


class Atan2(BinaryOp):
    """Elementwise angle of the point ``(rhs, lhs)``: ``atan(lhs / rhs)`` in the right quadrant."""

    name, numpy, hlo_name = "atan2", staticmethod(np.arctan2), "atan2"
    kinds = "float"

    @classmethod
    def lower_broadcast(cls, lowering, operands):
        """IREE's ``atan2`` loses the sign of a zero ``lhs`` (``atan2(-0.0, -1)`` is pi, not
        -pi); the result has ``lhs``'s sign, so it is given that sign (:func:`_sign_bit`).
        Its float32 ``atan2`` of two infinities or two zeros is NaN: those are pi/4 or 3pi/4,
        0 or pi here, as C's."""
        result_type = lowering.result_type
        lhs = operands[0]
        if result_type.dtype in trigonometry.DTYPES:  # IREE 3.13's float32 atan2 is 40 ulp off
            angle = trigonometry.in_float32(trigonometry.arctangent_magnitude, operands, result_type)
        else:
            angle = hlo.value("abs", [hlo.value("atan2", operands, result_type)], result_type)
        flags = result_type.with_dtype(BOOL_DTYPE)

        def constant(number):
            return hlo.splat(number, result_type)

        def infinite(x):
            return hlo.compare(hlo.value("abs", [x], result_type), constant(np.inf), "EQ", result_type.dtype, flags)

        def zero(x):
            return hlo.compare(x, constant(0), "EQ", result_type.dtype, flags)

        rhs, left = operands[1], _sign_bit(operands[1], result_type)
        for both, (right_angle, left_angle) in (  # where IREE's f32 atan2 gives NaN
            (hlo.value("and", [infinite(lhs), infinite(rhs)], flags), (np.pi / 4, 3 * np.pi / 4)),
            (hlo.value("and", [zero(lhs), zero(rhs)], flags), (0.0, np.pi)),
        ):
            corner = hlo.value("select", [left, constant(left_angle), constant(right_angle)], result_type)
            angle = hlo.value("select", [both, corner, angle], result_type)
        negative = _sign_bit(lhs, result_type)
        return hlo.value("select", [negative, hlo.value("negate", [angle], result_type), angle], result_type)

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        lhs, rhs = primals
        norm = lhs * lhs + rhs * rhs
        return sum_tangents(
            ops, [scale(tangents[0], rhs / norm), scale(tangents[1], -lhs / norm)], result
        )


class NextAfter(BinaryOp):
    """The next float after ``lhs`` toward ``rhs`` (``rhs`` where they are equal, NaN where
    either is). Lowered on the bits: a bitcast to the integer of the float's width, one
    step up or down, a bitcast back; from zero, the smallest subnormal of ``rhs``'s sign.
    Operands are compared as integers ordered as the floats, since IREE's CPU code compares
    subnormals as zero. float32 and float64 only (s4tf has no 16-bit integer to hold a half's bits).

    ```mlir
    %0 = "s4tf.nextafter"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    name, numpy = "nextafter", staticmethod(np.nextafter)
    kinds = "float"
    _BITS = {"f32": "i32", "f64": "i64"}

    @classmethod
    def infer(cls, lhs, rhs):
        result = super().infer(lhs, rhs)
        if result.dtype not in cls._BITS:
            raise DTypeError(f"nextafter needs float32 or float64 operands, got {result.dtype}")
        return result

    @classmethod
    def lower_broadcast(cls, lowering, operands):
        x, y = operands
        float_type = lowering.result_type
        int_type = float_type.with_dtype(cls._BITS[float_type.dtype])
        flags = float_type.with_dtype(BOOL_DTYPE)

        def compare(a, b, direction, tensor_type):
            return hlo.compare(a, b, direction, tensor_type.dtype, flags)

        def select(flag, a, b, tensor_type):
            return hlo.value("select", [flag, a, b], tensor_type)

        bits = hlo.value("bitcast_convert", [x], int_type)
        sign_mask = hlo.splat(np.iinfo(to_numpy_dtype(int_type.dtype)).min, int_type)

        def order(value_bits):  # an integer ordered as the floats: compares without flushing subnormals
            magnitude = hlo.value("and", [value_bits, hlo.value("not", [sign_mask], int_type)], int_type)
            negative = compare(value_bits, hlo.splat(0, int_type), "LT", int_type)
            return select(negative, hlo.value("negate", [magnitude], int_type), magnitude, int_type)

        x_order, y_bits = order(bits), hlo.value("bitcast_convert", [y], int_type)
        y_order = order(y_bits)
        toward_larger = compare(y_order, x_order, "GT", int_type)
        positive = compare(x_order, hlo.splat(0, int_type), "GT", int_type)
        away_from_zero = compare(toward_larger, positive, "EQ", flags)  # |x| grows: one step up the bits
        step = select(away_from_zero, hlo.splat(1, int_type), hlo.splat(-1, int_type), int_type)
        stepped = hlo.value("bitcast_convert", [hlo.value("add", [bits, step], int_type)], float_type)
        y_sign = hlo.value("and", [y_bits, sign_mask], int_type)
        smallest = hlo.value("bitcast_convert", [hlo.value("or", [y_sign, hlo.splat(1, int_type)], int_type)], float_type)
        at_zero = compare(x_order, hlo.splat(0, int_type), "EQ", int_type)
        result = select(at_zero, smallest, stepped, float_type)
        result = select(compare(x_order, y_order, "EQ", int_type), y, result, float_type)
        unordered = hlo.value("or", [compare(x, x, "NE", float_type), compare(y, y, "NE", float_type)], flags)
        return select(unordered, hlo.value("add", [x, y], float_type), result, float_type)

    @classmethod
    def jvp(cls, ops, primals, tangents, result):
        """One step from ``lhs``: its derivative is ``lhs``'s (``rhs`` only picks the direction)."""
        return tangents[0]


class SignBit(UnaryOp):
    """Whether the sign bit is set, elementwise: true for negative numbers, ``-0.0``,
    ``-inf`` and NaNs with the sign bit (NumPy's ``signbit``). Lowered on the bits: a
    bitcast to the integer of the float's width, compared with zero (16-bit floats are
    widened to float32 first, which keeps the sign).

    ```mlir
    %0 = "s4tf.signbit"(%x) : (tensor<4xf32>) -> tensor<4xi1>
    ```
    """

    name, numpy = "signbit", staticmethod(np.signbit)
    piecewise_constant = True
    _BITS = {"f32": "i32", "f64": "i64"}

    @classmethod
    def infer(cls, x):
        _check_kind(x.dtype, cls.kinds)
        return x.with_dtype(BOOL_DTYPE)

    @classmethod
    def lower(cls, lowering, x):
        flags = lowering.result_type
        float_type = lowering.operand_types[0]
        if float_type.dtype not in cls._BITS:
            float_type = float_type.with_dtype("f32")
            x = hlo.value("convert", [x], float_type)
        int_type = float_type.with_dtype(cls._BITS[float_type.dtype])
        bits = hlo.value("bitcast_convert", [x], int_type)
        zero = hlo.splat(0, int_type)
        return hlo.compare(bits, zero, "LT", int_type.dtype, flags)


class CompareOp(BinaryOp):
    """Elementwise comparison with broadcasting; the result is an ``i1`` tensor.

    ```mlir
    %0 = "s4tf.{name}"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
    ```
    """

    kinds = "any"
    direction = ""

    @classmethod
    def result_dtype(cls, dtype):
        return BOOL_DTYPE

    @classmethod
    def lower_broadcast(cls, lowering, operands):
        lhs, rhs = operands
        dtype = lowering.operand_types[0].dtype
        if cls.direction in ("EQ", "NE") and lhs == rhs and is_float(dtype):
            return _self_compare(lhs, lowering.operand_types[0], lowering.result_type, cls.direction == "NE")
        return hlo.compare(lhs, rhs, cls.direction, dtype, lowering.result_type)


def _self_compare(x, x_type: TensorType, flags: TensorType, not_equal: bool):
    """``x == x`` (``x != x``: NaN) as "``|x| < inf`` or ``|x| == inf``" (its negation).
    IREE-3.13-WORKAROUND: on ``vmvx`` a float comparison of a value with itself is false
    for NaN whatever the direction (``x != x``, so ``isnan`` written that way and the test
    for equal infinities in ``logaddexp``)."""
    magnitude = hlo.value("abs", [x], x_type)
    infinity = hlo.splat(np.inf, x_type)
    ordered = hlo.value("or", [hlo.compare(magnitude, infinity, "LT", x_type.dtype, flags),
                               hlo.compare(magnitude, infinity, "EQ", x_type.dtype, flags)], flags)
    return hlo.value("not", [ordered], flags) if not_equal else ordered


def _compare(name, numpy, direction, doc):
    return type(
        name.capitalize(),
        (CompareOp,),
        {"name": name, "numpy": staticmethod(numpy), "direction": direction, "__doc__": doc},
    )


Eq = _compare("eq", np.equal, "EQ", "Elementwise ``lhs == rhs``.")
Ne = _compare("ne", np.not_equal, "NE", "Elementwise ``lhs != rhs``.")
Lt = _compare("lt", np.less, "LT", "Elementwise ``lhs < rhs``.")
Le = _compare("le", np.less_equal, "LE", "Elementwise ``lhs <= rhs``.")
Gt = _compare("gt", np.greater, "GT", "Elementwise ``lhs > rhs``.")
Ge = _compare("ge", np.greater_equal, "GE", "Elementwise ``lhs >= rhs``.")


# -- select and cast --------------------------------------------------------------------


class Select(Op):
    """Elementwise choice: ``on_true`` where ``pred`` is true, else ``on_false`` (broadcasting).

    ```mlir
    %0 = "s4tf.select"(%p, %a, %b) : (tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
    ```
    """

    name = "select"
    operands = ("pred", "on_true", "on_false")
    nondifferentiable_operands = (0,)
    linear = True
    batch = classmethod(elementwise_batch)

    @staticmethod
    def infer(pred, on_true, on_false):
        if pred.dtype != BOOL_DTYPE:
            raise DTypeError(f"predicate must be i1, got {pred.dtype}")
        dtype = _same_dtype([on_true, on_false])
        return TensorType(broadcast_shapes(pred.shape, on_true.shape, on_false.shape), dtype)

    @staticmethod
    def reference(pred, on_true, on_false):
        return np.where(pred, on_true, on_false)

    @staticmethod
    def lower(lowering, pred, on_true, on_false):
        shape = lowering.result_type.shape
        operands = [
            hlo.broadcast(value, value_type, shape)
            for value, value_type in zip((pred, on_true, on_false), lowering.operand_types)
        ]
        return hlo.value("select", operands, lowering.result_type)

    @staticmethod
    def transpose(ops, cotangent, operands, linear):
        pred, on_true, on_false = operands
        return [
            None,
            unbroadcast(ops, ops.where(pred, cotangent, 0.0), on_true.shape) if linear[1] else None,
            unbroadcast(ops, ops.where(pred, 0.0, cotangent), on_false.shape) if linear[2] else None,
        ]


class Cast(Op):
    """Elementwise conversion to ``dtype`` (floats to integers truncate; nonzero is true).

    ```mlir
    %0 = "s4tf.cast"(%x) {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
    ```
    """

    name = "cast"
    operands = ("x",)
    attributes = {"dtype": DTYPE}
    linear = True
    noop_when_same_type = True
    batch = classmethod(elementwise_batch)

    @staticmethod
    def infer(x, *, dtype):
        return x.with_dtype(dtype)

    @staticmethod
    def reference(x, *, dtype):
        return np.asarray(x).astype(to_numpy_dtype(dtype))

    @staticmethod
    def lower(lowering, x, *, dtype):
        return hlo.convert(x, lowering.operand_types[0], lowering.result_type)

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, dtype):
        return [ops.astype(cotangent, operands[0].dtype)]
