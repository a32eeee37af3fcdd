"""Float32 sine, cosine, tangent and the inverse ones within a few ulp, as StableHLO arithmetic.

IREE-3.13-WORKAROUND: IREE 3.13 lowers float32 ``stablehlo.sine``, ``cosine`` and ``tan``
to polynomials whose error is absolute, not relative: ``cos(float32(pi / 2))`` is 0 where it
is -4.37e-8, and against float64 NumPy over ``[-100, 100]`` the median error was 15 ulp (51
for ``tan``), up to 1e8 ulp near the zeros and 7e6 for ``sin`` of tiny ``x`` (XLA's at most
0.6 ulp, 1.3 for ``tan``); a gradient through ``cos`` near its zero came out 0. These
measure at most 1.5 ulp over ``[-100, 100]`` (3 for ``tan``), 6 near the zeros (7.4 for
``tan``), 0.5 for tiny ``x`` (tests/dialects/test_trigonometry.py), and 1.3x IREE's time
(1M floats: 1.9 against 1.5 ms; JAX's 5.7 ms).

Here ``x`` is reduced by the nearest multiple ``k`` of ``pi / 2`` (Cody and Waite:
``pi / 2`` split in three float32 parts, so that ``k`` times each of the first two is exact
for ``|k| < 2**12``, that is ``|x|`` below about 6,400; beyond it the reduction loses
accuracy gradually, as Cephes' ``sinf`` does), and the sine and cosine of the remainder
``r`` (``|r| <= pi / 4``) are Cephes' minimax polynomials; the quadrant ``k mod 4`` picks
and signs them. float16 and bfloat16 go through float32. float64 keeps IREE's lowering
(calls of the system's libm: ``runtime/system_libm.py``).

IREE 3.13's float32 ``atan`` and ``atan2`` (and so ``asin`` and ``acos``, which it computes
with ``atan2``) are up to 40 ulp off for ratios near 0.66 (XLA's: 0.7-2.2). Here
``|atan2(y, x)|`` is Cephes' ``atanf`` of ``min(|x|, |y|) / max(|x|, |y|)`` (by way of
``pi / 4 + atan((a - 1) / (a + 1))`` above ``tan(pi / 8)``), then ``pi / 2 - r`` where
``|y| > |x|`` and ``pi - r`` where ``x`` is negative; ``atan(x)``, ``asin(x)`` and
``acos(x)`` are ``atan2(x, 1)``, ``atan2(x, sqrt((1 - x) (1 + x)))`` and
``atan2(sqrt((1 - x) (1 + x)), x)``.

```mlir
%y = stablehlo.sine %x : tensor<8xf32>
// becomes, in outline:
// k = round_nearest_even(x * 2/pi); r = ((x - k*P1) - k*P2) - k*P3; z = r*r
// s = r + r*z*(S1 + z*(S2 + z*S3)); c = 1 - z/2 + z*z*(C1 + z*(C2 + z*C3))
// y = select(k & 1, c, s), negated where k & 2
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import hlo
from s4tf.dialects.types import BOOL_DTYPE, TensorType

TWO_OVER_PI = 0.6366197723675814
#: pi / 2 in three parts (Cephes' DP1..DP3 doubled): 8 and 12 significant bits, then the rest.
PI_OVER_2 = (1.5703125, 4.837512969970703125e-4, 7.54978995489188216e-8)
#: sin(r) = r + r z (S1 + z (S2 + z S3)), z = r^2, |r| <= pi/4 (Cephes' sinf).
SINE = (-1.6666654611e-1, 8.3321608736e-3, -1.9515295891e-4)
#: cos(r) = 1 - z/2 + z^2 (C1 + z (C2 + z C3)) (Cephes' cosf).
COSINE = (4.166664568298827e-2, -1.388731625493765e-3, 2.443315711809948e-5)

#: atan(t) = t + t z (A1 + z (A2 + z (A3 + z A4))), |t| <= tan(pi/8) (Cephes' atanf).
ARCTANGENT = (-3.33329491539e-1, 1.99777106478e-1, -1.38776856032e-1, 8.05374449538e-2)
TAN_PI_OVER_8 = 0.4142135623730950

#: The float dtypes computed in float32 here.
DTYPES = ("f32", "f16", "bf16")


def lowering(name: str):
    """The lowering of ``name`` (``sin``, ``cos``, ``tan``, ``atan``, ``asin`` or ``acos``) for
    the dtypes of :data:`DTYPES`: ``(x, result_type) -> value``."""
    build = _reduced if name in ("sin", "cos", "tan") else _inverse
    return lambda x, result_type: in_float32(lambda x, f32: build(name, x, f32), [x], result_type)


def in_float32(build, operands, result_type: TensorType):
    """``build(operands..., f32)`` on ``operands`` converted to float32, its result converted
    back to ``result_type``'s dtype."""
    f32 = result_type.with_dtype("f32")
    if result_type.dtype == "f32":
        return build(*operands, f32)
    return hlo.convert(build(*(hlo.convert(o, result_type, f32) for o in operands), f32), f32, result_type)


def arctangent_magnitude(y, x, f32: TensorType):
    """``|atan2(y, x)|`` of float32 ``y`` and ``x``: NaN where both are zero or both infinite
    (the caller's corner cases), and where either is NaN."""
    math = _Float32(f32)
    ay, ax = hlo.value("abs", [y], f32), hlo.value("abs", [x], f32)
    a = math.div(hlo.value("minimum", [ax, ay], f32), hlo.value("maximum", [ax, ay], f32))
    upper = hlo.compare(a, math.splat(TAN_PI_OVER_8), "GT", "f32", f32.with_dtype(BOOL_DTYPE))
    t = hlo.value("select", [upper, math.div(math.sub(a, math.splat(1.0)), math.add(a, math.splat(1.0))), a], f32)
    z = math.mul(t, t)
    r = math.add(t, math.mul(math.mul(t, z), math.polynomial(z, ARCTANGENT)))
    r = hlo.value("select", [upper, math.add(math.splat(np.pi / 4), r), r], f32)
    steep = hlo.compare(ay, ax, "GT", "f32", f32.with_dtype(BOOL_DTYPE))
    r = hlo.value("select", [steep, math.sub(math.splat(np.pi / 2), r), r], f32)
    return hlo.value("select", [math.sign_bit(x), math.sub(math.splat(np.pi), r), r], f32)


def _inverse(name: str, x, f32: TensorType):
    math = _Float32(f32)
    if name == "atan":
        other = math.splat(1.0)
    else:
        ax = hlo.value("abs", [x], f32)
        other = hlo.value("sqrt", [math.mul(math.sub(math.splat(1.0), ax), math.add(math.splat(1.0), ax))], f32)
    if name == "acos":
        return arctangent_magnitude(other, x, f32)
    return math.sign(math.sign_bit(x), arctangent_magnitude(x, other, f32))  # odd: a zero keeps its sign


def _reduced(name: str, x, f32: TensorType):
    math = _Float32(f32)
    k = hlo.value("round_nearest_even", [math.mul(x, math.splat(TWO_OVER_PI))], f32)
    r = x
    for part in PI_OVER_2:
        r = math.sub(r, math.mul(k, math.splat(part)))
    z = math.mul(r, r)
    sine = math.add(r, math.mul(math.mul(r, z), math.polynomial(z, SINE)))
    cosine = math.add(math.sub(math.splat(1.0), math.mul(math.splat(0.5), z)),
                      math.mul(math.mul(z, z), math.polynomial(z, COSINE)))
    quadrant = hlo.convert(k, f32, f32.with_dtype("i32"))
    odd, upper = math.bit(quadrant, 1), math.bit(quadrant, 2)
    if name == "sin":
        value = math.sign(upper, hlo.value("select", [odd, cosine, sine], f32))
    elif name == "cos":
        value = math.sign(math.bit(hlo.value("add", [quadrant, math.splat(1, "i32")], f32.with_dtype("i32")), 2),
                          hlo.value("select", [odd, sine, cosine], f32))
    else:
        value = hlo.value("select", [odd, hlo.value("negate", [math.div(cosine, sine)], f32), math.div(sine, cosine)], f32)
    if name != "cos":  # keep the sign of a zero: sin(-0) and tan(-0) are -0
        zero = hlo.compare(x, math.splat(0.0), "EQ", "f32", f32.with_dtype(BOOL_DTYPE))
        value = hlo.value("select", [zero, x, value], f32)
    return value


class _Float32:
    """StableHLO arithmetic on tensors of one float32 type."""

    def __init__(self, f32: TensorType):
        self.type = f32

    def splat(self, number, dtype: str = "f32"):
        return hlo.splat(number, self.type.with_dtype(dtype))

    def mul(self, a, b):
        return hlo.value("multiply", [a, b], self.type)

    def add(self, a, b):
        return hlo.value("add", [a, b], self.type)

    def sub(self, a, b):
        return hlo.value("subtract", [a, b], self.type)

    def div(self, a, b):
        return hlo.value("divide", [a, b], self.type)

    def polynomial(self, z, coefficients):
        """``c0 + z (c1 + z (c2 + ...))`` by Horner's rule."""
        value = self.splat(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            value = self.add(self.splat(c), self.mul(z, value))
        return value

    def bit(self, integers, mask: int):
        """Whether ``integers & mask`` is not 0 (a boolean tensor)."""
        i32 = self.type.with_dtype("i32")
        masked = hlo.value("and", [integers, self.splat(mask, "i32")], i32)
        return hlo.compare(masked, self.splat(0, "i32"), "NE", "i32", self.type.with_dtype(BOOL_DTYPE))

    def sign_bit(self, x):
        """Whether ``x``'s sign bit is set (-0 and NaNs with it too)."""
        return self.bit(hlo.value("bitcast_convert", [x], self.type.with_dtype("i32")), -2**31)

    def sign(self, negative, value):
        """``-value`` where ``negative``, else ``value``."""
        return hlo.value("select", [negative, hlo.value("negate", [value], self.type), value], self.type)
