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

from s4tf.dialects import hlo
from s4tf.dialects.attributes import DTYPE
from s4tf.dialects.op_def import Op
from s4tf.dialects.types import BOOL_DTYPE, TensorType, is_float, is_integer, shape_str, to_numpy_dtype
from s4tf.errors import DTypeError, ShapeError


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
        "int_or_bool": is_integer(dtype) or dtype == BOOL_DTYPE,
        "any": True,
    }[kinds]
    if not allowed:
        wanted = {"float": "a float", "number": "a float or integer", "int_or_bool": "an integer or bool"}[kinds]
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

    @classmethod
    def infer(cls, x):
        _check_kind(x.dtype, cls.kinds)
        return x

    @classmethod
    def reference(cls, x):
        return cls.numpy(x)

    @classmethod
    def lower(cls, lowering, x):
        return hlo.value(cls.hlo_name, [x], lowering.result_type)


def _unary(name, numpy, hlo_name, kinds="float", doc=""):
    return type(
        name.capitalize(),
        (UnaryOp,),
        {"name": name, "numpy": staticmethod(numpy), "hlo_name": hlo_name, "kinds": kinds, "__doc__": doc},
    )


def _rsqrt(x):
    return 1 / np.sqrt(x)


def _logistic(x):
    return 1 / (1 + np.exp(-x))


Neg = _unary("neg", np.negative, "negate", "number", "Elementwise negation, ``-x``.")
Exp = _unary("exp", np.exp, "exponential", doc="Elementwise ``e**x``.")
Log = _unary("log", np.log, "log", doc="Elementwise natural logarithm.")
Log1p = _unary("log1p", np.log1p, "log_plus_one", doc="Elementwise ``log(1 + x)``, accurate near 0.")
Sin = _unary("sin", np.sin, "sine", doc="Elementwise sine.")
Cos = _unary("cos", np.cos, "cosine", doc="Elementwise cosine.")
Tanh = _unary("tanh", np.tanh, "tanh", doc="Elementwise hyperbolic tangent.")
Sqrt = _unary("sqrt", np.sqrt, "sqrt", doc="Elementwise square root.")
Rsqrt = _unary("rsqrt", _rsqrt, "rsqrt", doc="Elementwise ``1 / sqrt(x)``.")
Abs = _unary("abs", np.abs, "abs", "number", "Elementwise absolute value.")
Sign = _unary("sign", np.sign, "sign", "number", "Elementwise sign: -1, 0 or 1.")
Logistic = _unary("logistic", _logistic, "logistic", doc="Elementwise sigmoid ``1 / (1 + e**-x)``.")
Floor = _unary("floor", np.floor, "floor", doc="Elementwise floor.")
Ceil = _unary("ceil", np.ceil, "ceil", doc="Elementwise ceiling.")
Round = _unary("round", np.round, "round_nearest_even", doc="Elementwise rounding, halves to even (as NumPy).")
Not = _unary("not", np.invert, "not", "int_or_bool", "Elementwise logical (bool) or bitwise (int) not.")


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


def _binary(name, numpy, hlo_name, kinds="number", doc=""):
    return type(
        name.capitalize(),
        (BinaryOp,),
        {"name": name, "numpy": staticmethod(numpy), "hlo_name": hlo_name, "kinds": kinds, "__doc__": doc},
    )


def _divide(lhs, rhs):
    if np.issubdtype(np.asarray(lhs).dtype, np.integer):
        quotient = np.abs(lhs) // np.abs(rhs)
        return quotient * np.sign(lhs) * np.sign(rhs)
    return np.divide(lhs, rhs)


Add = _binary("add", np.add, "add", doc="Elementwise sum.")
Sub = _binary("sub", np.subtract, "subtract", doc="Elementwise difference.")
Mul = _binary("mul", np.multiply, "multiply", doc="Elementwise product.")
Div = _binary("div", _divide, "divide", doc="Elementwise quotient; integer division truncates toward zero.")
Pow = _binary("pow", np.power, "power", doc="Elementwise ``lhs ** rhs``.")
Maximum = _binary("maximum", np.maximum, "maximum", doc="Elementwise maximum.")
Minimum = _binary("minimum", np.minimum, "minimum", doc="Elementwise minimum.")
And = _binary("and", np.bitwise_and, "and", "int_or_bool", "Elementwise logical (bool) or bitwise (int) and.")
Or = _binary("or", np.bitwise_or, "or", "int_or_bool", "Elementwise logical (bool) or bitwise (int) or.")


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
        dtype = lowering.operand_types[0].dtype
        compare_type = "FLOAT" if is_float(dtype) else ("UNSIGNED" if dtype == BOOL_DTYPE else "SIGNED")
        return hlo.value(
            "compare",
            operands,
            lowering.result_type,
            comparison_direction=f"#stablehlo<comparison_direction {cls.direction}>",
            compare_type=f"#stablehlo<comparison_type {compare_type}>",
        )


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


class Cast(Op):
    """Elementwise conversion to ``dtype`` (floats to integers truncate; nonzero is true).

    ```mlir
    %0 = "s4tf.cast"(%x) {dtype = i32} : (tensor<4xf32>) -> tensor<4xi32>
    ```
    """

    name = "cast"
    operands = ("x",)
    attributes = {"dtype": DTYPE}

    @staticmethod
    def infer(x, *, dtype):
        return x.with_dtype(dtype)

    @staticmethod
    def reference(x, *, dtype):
        return np.asarray(x).astype(to_numpy_dtype(dtype))

    @staticmethod
    def lower(lowering, x, *, dtype):
        return hlo.value("convert", [x], lowering.result_type)
