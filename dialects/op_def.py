"""How an s4tf op is defined, built, read back and verified.

An op is a subclass of :class:`Op` that sets ``name`` and defines, in one place, its
operands, attributes, result-type rule (``infer``), NumPy reference semantics
(``reference``) and lowering to StableHLO (``lower``). Defining the subclass registers
it; the Python builder, the verifier, the IRDL spec and the docs are derived from it.

```mlir
%0 = "s4tf.add"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
```
"""

from __future__ import annotations

import difflib
from typing import ClassVar

import numpy as np

from s4tf.dialects.attributes import AttrKind
from s4tf.dialects.batching_helpers import derives_leading_axis_batch, leading_axis_batch
from s4tf.dialects.derivative_helpers import bilinear_jvp, linear_jvp
from s4tf.dialects.types import TensorType
from s4tf.core.errors import OpAttributeError, S4tfError, ShapeError
from s4tf.core.mlir import ir

DIALECT = "s4tf"

#: Every defined op, by full name (``"s4tf.add"``).
OPS: dict[str, type["Op"]] = {}


class Op:
    """Base of op definitions; subclasses that set ``name`` are registered.

    ``operands`` names the operands; a single name ending in ``*`` makes the op variadic.
    Rules receive attributes as keyword arguments:

    - ``infer(*operand_types, **attrs)`` returns the result :class:`TensorType` (or a tuple
      of them) and raises :class:`ShapeError`/:class:`DTypeError` with a clear message;
    - ``reference(*arrays, **attrs)`` computes the result with NumPy;
    - ``lower(lowering, *values, **attrs)`` emits StableHLO at the current insertion point
      and returns the replacement value(s).
    """

    name: ClassVar[str]
    operands: ClassVar[tuple[str, ...]] = ()
    attributes: ClassVar[dict[str, AttrKind]] = {}
    pure: ClassVar[bool] = True
    #: Names of the op's regions (``control_flow.py``); such ops verify and lower as a whole.
    regions: ClassVar[tuple[str, ...]] = ()
    #: Names of the op's results, one tensor each (``infer`` returns as many types).
    results: ClassVar[tuple[str, ...]] = ("result",)
    #: Results are zero or more tensors (their types come from attributes), not exactly one.
    variadic_results: ClassVar[bool] = False
    #: The op runs in a host program (``s4tf-partition``), never on the device: no lowering.
    host: ClassVar[bool] = False
    #: The shape rule computes with sizes: operands of dynamic shape (``tensor<?x3xf32>``) are an error.
    static_shapes: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            full_name = f"{DIALECT}.{cls.name}"
            if full_name in OPS:
                raise RuntimeError(f"op {full_name} is defined twice")
            OPS[full_name] = cls
        if (cls.linear or cls.bilinear) and "jvp" not in cls.__dict__:
            cls.jvp = classmethod(linear_jvp if cls.linear else bilinear_jvp)
        if cls._rule_of("batch") is Op and derives_leading_axis_batch(cls):
            cls.batch = classmethod(leading_axis_batch)

    @classmethod
    def _rule_of(cls, rule: str) -> type:
        """The class that defines ``rule`` for this op (``Op``: none does)."""
        return next(base for base in cls.__mro__ if rule in base.__dict__)

    @classmethod
    def full_name(cls) -> str:
        return f"{DIALECT}.{cls.name}"

    @classmethod
    def is_variadic(cls) -> bool:
        return len(cls.operands) == 1 and cls.operands[0].endswith("*")

    @staticmethod
    def infer(*operand_types, **attrs):
        raise NotImplementedError

    @staticmethod
    def reference(*operands, **attrs):
        raise NotImplementedError

    @staticmethod
    def lower(lowering, *values, **attrs):
        raise NotImplementedError

    # -- derivatives -------------------------------------------------------------------
    #
    # Rules build s4tf code: ``ops`` is :mod:`s4tf.dialects.composition` (``ops.cos(x)``),
    # served by the AD passes' IR builder, and values have operators, so
    # ``dx * ops.cos(x)`` builds ``s4tf.cos`` and ``s4tf.mul``.

    #: Operand positions that never carry a derivative (``select``'s predicate).
    nondifferentiable_operands: ClassVar[tuple[int, ...]] = ()
    #: ``True`` for ops whose derivative is zero by definition (``stop_gradient``).
    zero_derivative: ClassVar[bool] = False
    #: ``True`` for float ops that are piecewise constant (``floor``, ``sign``): their
    #: derivative is zero almost everywhere, and differentiation takes it as zero. Ops with
    #: integer or boolean results (comparisons, ``argmax``) are treated so without it.
    piecewise_constant: ClassVar[bool] = False
    #: ``True`` for ops linear in their differentiable operands (jointly: ``pad`` in ``x``
    #: and ``value``): the JVP is the op applied to the tangents
    #: (:func:`~s4tf.dialects.derivative_helpers.linear_jvp`); ``transpose`` is the rule.
    linear: ClassVar[bool] = False
    #: ``True`` for ops of two operands linear in each (``mul``, ``dot_general``): the JVP
    #: is the sum of the op applied to each tangent and the other primal
    #: (:func:`~s4tf.dialects.derivative_helpers.bilinear_jvp`); ``transpose`` is the rule.
    bilinear: ClassVar[bool] = False
    #: ``True`` for binary ops whose operands may be swapped (``add``, ``mul``).
    commutative: ClassVar[bool] = False

    # -- canonicalization (``s4tf-canonicalize`` reads these) ----------------------------

    #: The number that leaves the other operand unchanged as the right operand of this
    #: binary op (either operand where it is ``commutative``): 0 for ``add``, 1 for ``div``.
    neutral: ClassVar = None
    #: ``True`` where the op undoes itself: ``neg(neg(x))`` is ``x``.
    involution: ClassVar[bool] = False
    #: ``True`` where the result is the first operand whenever their types agree
    #: (``reshape``, ``cast``, ``slice``).
    noop_when_same_type: ClassVar[bool] = False
    #: ``is_identity(operand_types, **attrs)``: whether the result is the first operand
    #: (``transpose`` by the identity permutation, ``concatenate`` of one tensor).
    is_identity: ClassVar = None

    @classmethod
    def is_differentiable(cls, operand_types, result_type, attrs) -> bool:
        """Whether a derivative exists for these types (host calls: no)."""
        return True

    @classmethod
    def jvp(cls, ops, primals, tangents, result, **attrs):
        """The result's tangent, linear in ``tangents`` (``None`` stands for zero)."""
        raise MissingDerivativeRule(f"'{cls.full_name()}' has no JVP rule")

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear, **attrs):
        """Cotangents for the ``linear`` operands of this linear op (``None`` elsewhere)."""
        raise MissingDerivativeRule(f"'{cls.full_name()}' has no transpose rule")

    @classmethod
    def batch(cls, ops, operands, batch_dims, **attrs):
        """The op applied to every example of a batch (``vmap``): ``operands`` carry a batch
        axis at ``batch_dims[i]`` (``None``: the operand is the same for every example, and
        at least one is not ``None``). Returns ``(results, result_batch_dims)``, lists with
        one item per result (:mod:`s4tf.dialects.batching_helpers`). Derived for ops
        whose attributes all have roles (:mod:`s4tf.dialects.attribute_roles`): every
        operand gets the batch axis in front, and each attribute changes as its role says."""
        raise MissingBatchingRule(f"'{cls.full_name()}' has no batching rule")

    #: Instead of ``transpose``, for ops that read part of their first operand (``slice``,
    #: ``gather``; other operands are indices, never linear):
    #: ``transpose_into(ops, accumulated, cotangent, operands, **attrs)`` returns the
    #: operand's cotangent so far (``accumulated``, ``None`` before the first) with this op's
    #: contribution added in place, so k reads do not cost k full-size contributions.
    transpose_into: ClassVar = None

    # -- derived behaviour -------------------------------------------------------------

    @classmethod
    def check_operand_count(cls, count: int) -> None:
        if cls.is_variadic():
            if count < 1:
                raise ShapeError(f"{cls.full_name()} needs at least one operand")
        elif count != len(cls.operands):
            raise ShapeError(
                f"{cls.full_name()} takes {len(cls.operands)} operand(s) "
                f"({', '.join(cls.operands) or 'none'}), got {count}"
            )

    @classmethod
    def normalize_attributes(cls, attrs: dict) -> dict:
        unknown = set(attrs) - set(cls.attributes)
        if unknown:
            declared = ", ".join(cls.attributes) or "none"
            raise OpAttributeError(f"{cls.full_name()} has no attribute(s) {', '.join(sorted(unknown))} (its attributes: {declared})")
        missing = set(cls.attributes) - set(attrs)
        if missing:
            raise OpAttributeError(f"{cls.full_name()} needs attribute(s) {', '.join(sorted(missing))}")
        normalized = {}
        for key, kind in cls.attributes.items():
            try:
                normalized[key] = kind.normalize(attrs[key])
            except S4tfError as error:
                raise OpAttributeError(f"{cls.full_name()} attribute '{key}': {error.message}") from None
            except (TypeError, ValueError):  # a value NumPy cannot read as the kind (a ragged list)
                raise OpAttributeError(f"{cls.full_name()} attribute '{key}': expected {kind.description}, got {attrs[key]!r}") from None
        return normalized

    @classmethod
    def result_types(cls, operand_types: list[TensorType], attrs: dict) -> list[TensorType]:
        """Checked result types; errors name the op."""
        cls.check_operand_count(len(operand_types))
        if cls.static_shapes and any(None in t.shape for t in operand_types):
            raise ShapeError(
                f"'{cls.full_name()}' does not take operands of dynamic shape ({', '.join(map(str, operand_types))})"
            )
        try:
            result = cls.infer(*operand_types, **attrs)
        except S4tfError as error:
            if error.message.startswith(cls.full_name()):
                raise
            raise type(error)(f"{cls.full_name()}: {error.message}", error.location) from None
        return list(result) if isinstance(result, tuple) else [result]

    @classmethod
    def evaluate(cls, operands: list[np.ndarray], attrs: dict, types: list[TensorType] | None = None) -> list[np.ndarray]:
        """Reference semantics, results cast to ``types`` (static result types the IR
        declares), by default the types inferred from the operands."""
        from s4tf.dialects.types import canonical_dtype, to_numpy_dtype

        if types is None:
            types = cls.result_types([TensorType(a.shape, canonical_dtype(a.dtype)) for a in operands], attrs)
        results = cls.reference(*operands, **attrs)
        results = list(results) if isinstance(results, tuple) else [results]
        return [np.asarray(r).astype(to_numpy_dtype(t.dtype), copy=False).reshape(t.shape) for r, t in zip(results, types)]


class MissingDerivativeRule(S4tfError, NotImplementedError):
    """An op reached by differentiation that has no rule for it."""


class MissingBatchingRule(S4tfError, NotImplementedError):
    """An op reached by batching (``vmap``, ``s4tf-batch``) that has no rule for it."""


def lookup(name: str) -> type[Op]:
    """The definition of ``s4tf.<name>`` (or of a full name)."""
    if not isinstance(name, str):
        raise S4tfError(f"an op name is a string such as 'add', not {name!r}")
    full_name = name if name.startswith(f"{DIALECT}.") else f"{DIALECT}.{name}"
    try:
        return OPS[full_name]
    except KeyError:
        names = [op.name for op in OPS.values()]
        close = difflib.get_close_matches(full_name.removeprefix(f"{DIALECT}."), names, n=1, cutoff=0.75)
        raise S4tfError(f"unknown op '{full_name}'" + (f"; did you mean '{DIALECT}.{close[0]}'?" if close else "")) from None


def build(op: type[Op], values: list[ir.Value], attrs: dict, location: ir.Location) -> ir.Operation:
    """Create ``op`` at the current insertion point; types are inferred and checked."""
    attrs = op.normalize_attributes(attrs)
    operand_types = [TensorType.from_mlir(v.type) for v in values]
    result_types = op.result_types(operand_types, attrs)
    with location:
        return ir.Operation.create(
            op.full_name(),
            results=[t.to_mlir() for t in result_types],
            operands=list(values),
            attributes={key: op.attributes[key].to_mlir(value) for key, value in attrs.items()},
        )


def read_attributes(op: type[Op], operation: ir.Operation) -> dict:
    """The Python values of ``operation``'s attributes (assumes it verified)."""
    return {key: kind.from_mlir(operation.attributes[key]) for key, kind in op.attributes.items()}


def verify(operation: ir.Operation) -> str | None:
    """Why ``operation`` (an ``s4tf.*`` op) is malformed, or ``None`` if it is well formed."""
    try:
        op = lookup(operation.name)
    except S4tfError as error:
        return error.message
    if op.regions:
        return op.check(operation)
    missing = sorted(key for key in op.attributes if key not in operation.attributes)
    if missing:
        return f"'{op.full_name()}' needs attribute(s) {', '.join(missing)}"
    unknown = sorted(name for name in operation.attributes if name not in op.attributes and "." not in name)
    if unknown:
        declared = ", ".join(op.attributes) or "none"
        return (
            f"'{op.full_name()}' has no attribute(s) {', '.join(unknown)} (its attributes: {declared}); "
            f"an attribute of another kind needs a dialect prefix, e.g. 's4tf.{unknown[0]}'"
        )
    try:
        attrs = read_attributes(op, operation)
    except (ValueError, TypeError):
        bad = [
            key
            for key, kind in op.attributes.items()
            if not _attribute_reads(kind, operation, key)
        ]
        return f"'{op.full_name()}' attribute '{bad[0]}' must be {op.attributes[bad[0]].description}"
    try:
        operand_types = [TensorType.from_mlir(v.type) for v in operation.operands]
    except S4tfError as error:  # an element type s4tf has no dtype for
        return f"'{op.full_name()}' operands: {error.message}"
    except ValueError:
        return f"'{op.full_name()}' operands must be ranked tensors"
    try:
        result_types = op.result_types(operand_types, attrs)
    except S4tfError as error:
        return error.message
    declared = [str(r.type) for r in operation.results]
    expected = [t.mlir_text for t in result_types]
    if declared != expected:
        return (
            f"'{op.full_name()}' result type(s) {', '.join(declared) or 'none'} do not match "
            f"the inferred {', '.join(expected)}"
        )
    return None


def _attribute_reads(kind: AttrKind, operation: ir.Operation, key: str) -> bool:
    try:  # reading the attribute may fail too: the bindings cannot even cast array<ui8: ...>
        kind.from_mlir(operation.attributes[key])
        return True
    except (ValueError, TypeError):
        return False
