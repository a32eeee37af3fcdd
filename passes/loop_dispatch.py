"""``s4tf-loops-to-dispatch{target=cpu}``: run small elementwise loops inside one dispatch.

A ``stablehlo.while`` (what ``s4tf.while``/``s4tf.fori_loop`` lower to) runs on IREE's
host VM: one dispatch and one read of the condition per iteration. This pass rewrites a
loop that qualifies into ONE ``flow.dispatch.region`` holding an ``scf.while`` whose
carried values are ``vector``s (tensors of rank 0 become scalars), read with
``vector.transfer_read``/``tensor.extract`` before the loop and written with
``vector.transfer_write``/``tensor.from_elements`` after it. ``stablehlo.if`` and
``stablehlo.while`` nested in the loop become ``scf.if``/``scf.while``. (Carrying tensors
that ops compute as a whole through the ``scf.while`` fails IREE's bufferization:
``/work/shared/probes``.) A *tape*, a tensor larger than :data:`MAX_DYNAMIC_VECTOR_BYTES`
that the loop only indexes with ``dynamic_slice``/``dynamic_update_slice`` (reverse mode's
checkpoints), is the exception: it stays a tensor in memory, read with
``vector.transfer_read`` and updated in place with ``vector.transfer_write``, which IREE
bufferizes in place into the dispatch's output buffer.

```mlir
%r:2 = stablehlo.while(%i = %c0, %x = %x0) : tensor<i32>, tensor<2xf32> cond {...} do {...}
// becomes
%r:2 = flow.dispatch.region -> (tensor<i32>, tensor<2xf32>) {
  %i0 = tensor.extract %c0[] : tensor<i32>
  %x1 = vector.transfer_read %x0[%c0_0], %pad : tensor<2xf32>, vector<2xf32>
  %w:2 = scf.while (%a = %i0, %b = %x1) : (i32, vector<2xf32>) -> (i32, vector<2xf32>) {...} do {...}
  ...
  flow.return %ri, %rx : tensor<i32>, tensor<2xf32>
}
```

**Criterion.** A loop qualifies when (1) the target compiles such dispatches: the
``llvm-cpu`` targets (``cpu``, ``android-arm64``, ``linux-arm64``); VMVX and Vulkan reject
vectors read from tensors inside a dispatch (IREE 3.13), CUDA was not tried; (2) every
carried value, every value the loop reads from outside and every value computed in it is a
statically shaped tensor of f16/f32/f64 or i1/i8/i16/i32/i64 of at most
:data:`MAX_VALUE_BYTES` bytes, the carried ones together at most :data:`MAX_CARRIED_BYTES`;
(3) every op in it is elementwise arithmetic, math, comparison, select or conversion, a
constant, a broadcast or reshape, a reduction with one of add/mul/max/min/and/or/xor, a
``dynamic_slice``/``dynamic_update_slice`` of at most :data:`MAX_SLICE` elements of a
vector of at most :data:`MAX_DYNAMIC_VECTOR_BYTES`, or of any row of a tape (a tape is used
by nothing else; one the loop writes starts from a splat constant, so its buffer is made
inside the dispatch), a ``gather`` of one slice at one start index vector (``xs[i]``, taken
as the ``dynamic_slice`` it equals), a ``clamp``, a float ``dot_general`` of at most
:data:`MAX_DOT_PRODUCTS` multiply-adds (shuffles and multiply-adds, :meth:`_Emitter.op_dot_general`:
matrix-vector products, reverse mode's outer products and transposed products), or a
nested ``if``/``while`` of such ops (the tables
:data:`FLOAT_OPS`, :data:`INTEGER_OPS`, and the ``op_*`` methods of :class:`_Emitter`);
(4) all its vector values together take at most :data:`MAX_STACK_BYTES` for the target
(LLVM keeps large vectors on a worker thread's stack), and the tapes it writes that nobody
reads after it at most :data:`MAX_SCRATCH_TAPE_BYTES`. Other loops stay host-stepped;
with ``remarks=true`` the pass says at each such loop why (a warning at its location).
"""

from __future__ import annotations

import re

import numpy as np

from s4tf.mlir import ir
from s4tf.passes.ir_walk import defining_op
from s4tf.passes.registry import emit_warning, register
from s4tf.passes.availability import TARGET_NAMES

#: Bytes of all carried values together, tapes aside (Newton's method on 1,000 float64s
#: carries 16,000).
MAX_CARRIED_BYTES = 64 * 1024
#: Bytes of any one value in the loop (LLVM keeps each vector in registers or on the stack).
MAX_VALUE_BYTES = 32 * 1024
#: Elements one ``vector.shuffle`` (a broadcast, or a step of a partial reduction) may make.
MAX_SHUFFLE = 1024
#: The bytes of all vector values in a loop (each SSA value, block arguments included):
#: LLVM keeps large vectors on the stack, and IREE's worker threads have 128 KiB stacks by
#: default. s4tf's own runtime gives them 2 MiB (s4tf.runtime.device), so the host target
#: allows more; modules for other machines must fit the default. The count is an upper
#: bound: 540 KB counted took 83 KB of stack frame (Newton's gradient below). Big vectors
#: cost compile time: Newton's method on 1,000 float64s compiles in 4.6 s, not 1.2 s, and
#: runs in 0.15 ms instead of milliseconds.
MAX_STACK_BYTES = {"cpu": 256 * 1024, None: 48 * 1024}
#: The bytes of the tapes a loop writes but nobody reads after it (the backward pass's
#: second tape): IREE drops such results of a dispatch, and the tape becomes a
#: ``memref.alloca`` on the worker's stack. IREE allows 32 KiB of those by default; the
#: ``cpu`` target raises it to 512 KiB (``--iree-llvmcpu-stack-allocation-limit``,
#: :mod:`s4tf.runtime.targets`) and s4tf's runtime gives workers 2 MiB of stack. (Measured:
#: the backward loop of Newton's method on 1,000 float64s, counted as 540 KB of vectors
#: and a 264,000-byte scratch tape here, has a stack frame of 347,264 bytes.)
MAX_SCRATCH_TAPE_BYTES = {"cpu": 512 * 1024, None: 32 * 1024}
#: Elements one dynamic slice or update of a vector may have, and the bytes of the vector it
#: indexes: LLVM lowers each element's dynamic ``insertelement`` through a stack copy of the
#: whole vector. With reverse mode's 1,025-row tapes (8 KiB for 2 floats) as vectors the
#: gradient of a 10,000-step loop ran in 100 ms instead of 1.7 s but took 80 s instead of
#: 3 s to compile; larger tensors indexed dynamically are tapes in memory instead.
MAX_SLICE = 64
#: Multiply-adds one ``dot_general`` in the loop may make (a 32x32 matrix times a vector:
#: 1,024), unrolled over its contracted positions into vector multiply-adds. Compile time
#: grows fast: the RNN of ``tools/bench/bench_loops.py`` with 32 hidden units (1,024) compiles
#: in 2-6 s, with 64 (4,096) in 35 s (load 8).
MAX_DOT_PRODUCTS = 2048
MAX_DYNAMIC_VECTOR_BYTES = 1024
#: A tensor indexed by a dynamic slice or update that is larger than
#: :data:`MAX_DYNAMIC_VECTOR_BYTES` is a *tape*: held as a tensor in memory inside the
#: dispatch (an output buffer of the dispatch, written in place with
#: ``vector.transfer_write`` and read with ``vector.transfer_read``), never a vector. Reverse
#: mode's checkpoint tapes are such tensors (1,025 rows of the changing carried values).
MAX_TAPE_BYTES = 64 * 1024 * 1024
#: The targets whose dispatches compile an ``scf.while`` over vectors: IREE's ``llvm-cpu``
#: ones (:mod:`s4tf.runtime.targets`).
DISPATCH_TARGETS = ("cpu", "android-arm64", "linux-arm64")

_ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
_FLOATS = ("f16", "f32", "f64")
_INTEGERS = ("i1", "i8", "i16", "i32", "i64")

#: StableHLO elementwise op -> the arith/math op computing it on float scalars or vectors.
FLOAT_OPS = {
    "add": "arith.addf", "subtract": "arith.subf", "multiply": "arith.mulf", "divide": "arith.divf",
    "remainder": "arith.remf", "maximum": "arith.maximumf", "minimum": "arith.minimumf", "power": "math.powf",
    "atan2": "math.atan2", "negate": "arith.negf", "abs": "math.absf", "sine": "math.sin", "cosine": "math.cos",
    "tan": "math.tan", "tanh": "math.tanh", "exponential": "math.exp", "exponential_minus_one": "math.expm1",
    "log": "math.log", "log_plus_one": "math.log1p", "sqrt": "math.sqrt", "rsqrt": "math.rsqrt", "cbrt": "math.cbrt",
    "floor": "math.floor", "ceil": "math.ceil", "round_nearest_even": "math.roundeven",
    "round_nearest_afz": "math.round",
}
#: StableHLO elementwise op -> the arith/math op computing it on (signless, signed) integers.
INTEGER_OPS = {
    "add": "arith.addi", "subtract": "arith.subi", "multiply": "arith.muli", "divide": "arith.divsi",
    "remainder": "arith.remsi", "maximum": "arith.maxsi", "minimum": "arith.minsi", "abs": "math.absi",
    "and": "arith.andi", "or": "arith.ori", "xor": "arith.xori", "shift_left": "arith.shli",
    "shift_right_arithmetic": "arith.shrsi", "shift_right_logical": "arith.shrui",
}
_FLOAT_COMPARE = {"EQ": "oeq", "NE": "une", "LT": "olt", "LE": "ole", "GT": "ogt", "GE": "oge"}
_SIGNED_COMPARE = {"EQ": "eq", "NE": "ne", "LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}
_UNSIGNED_COMPARE = {"EQ": "eq", "NE": "ne", "LT": "ult", "LE": "ule", "GT": "ugt", "GE": "uge"}
#: Reduction body op -> vector combining kind, for floats and integers.
_FLOAT_REDUCTIONS = {"add": "add", "multiply": "mul", "maximum": "maximumf", "minimum": "minimumf"}
_INTEGER_REDUCTIONS = {"add": "add", "multiply": "mul", "maximum": "maxsi", "minimum": "minsi", "and": "and",
                       "or": "or", "xor": "xor"}


class Unsupported(Exception):
    """Why a loop stays host-stepped, and the op that decided it."""

    def __init__(self, reason: str, operation: ir.Operation | None = None):
        super().__init__(reason)
        self.reason = reason
        self.operation = operation


class Kind:
    """How a tensor value is held inside the dispatch: its scalar or vector type, or, for a
    tape (``memory``), the tensor itself, in memory."""

    def __init__(self, tensor_type: ir.Type, memory: bool = False):
        try:
            shaped = ir.RankedTensorType(tensor_type)
        except ValueError:
            raise Unsupported(f"a value of type {tensor_type} (not a ranked tensor)") from None
        if not shaped.has_static_shape:
            raise Unsupported(f"a value of dynamic shape {tensor_type}")
        self.element = str(shaped.element_type)
        if self.element not in _ELEMENT_BYTES or self.element == "bf16":
            raise Unsupported(f"a value of element type {self.element}")
        self.shape = list(shaped.shape)
        self.tensor = str(tensor_type)
        self.count = 1
        for size in self.shape:
            self.count *= size
        self.bytes = self.count * _ELEMENT_BYTES[self.element]
        self.memory = memory
        if memory and self.bytes > MAX_TAPE_BYTES:
            raise Unsupported(f"a tape of {self.bytes} bytes ({tensor_type}; at most {MAX_TAPE_BYTES})")
        if not memory and self.bytes > MAX_VALUE_BYTES:
            raise Unsupported(f"a value of {self.bytes} bytes ({tensor_type}; at most {MAX_VALUE_BYTES})")
        if self.count == 0:
            raise Unsupported(f"an empty tensor {tensor_type}")

    @property
    def scalar(self) -> bool:
        return not self.shape

    @property
    def text(self) -> str:
        """A scalar, or a 1-D vector of all elements: LLVM cannot carry n-D vectors through
        ``scf.while`` (an unrealized cast remains), and elementwise ops ignore the shape; a
        tape is its tensor type."""
        if self.memory:
            return self.tensor
        return self.element if self.scalar else f"vector<{self.count}x{self.element}>"

    @property
    def shaped(self) -> str:
        """The n-D vector type, for ops that need the shape (broadcast, reduction, reads)."""
        return self.element if self.scalar else f"vector<{'x'.join(map(str, self.shape))}x{self.element}>"

    def with_element(self, element: str, shape=None) -> "Kind":
        """Elements of type ``element``, of this shape or ``shape``."""
        return Kind(ir.RankedTensorType.get(self.shape if shape is None else shape, ir.Type.parse(element)))

    @property
    def vector_bytes(self) -> int:
        return 0 if self.scalar or self.memory else self.bytes

    @property
    def is_float(self) -> bool:
        return self.element in _FLOATS


def _short_name(operation: ir.Operation) -> str:
    return operation.name.removeprefix("stablehlo.")


def _dense_inner(attribute: ir.Attribute) -> str:
    """``dense<1.0> : tensor<f32>`` -> ``1.0``."""
    text = str(attribute)
    return text[len("dense<") : text.rindex("> : ")]


class _Emitter:
    """Writes the dispatch region of one loop as MLIR text, one op of the loop at a time."""

    def __init__(self, loop: ir.Operation):
        self.loop = loop
        self.lines: list[str] = []
        self.names: dict = {}  # ir.Value -> (ssa name, Kind)
        self.counter = 0
        self.inputs: list[ir.Value] = []  # values from outside the loop, in argument order
        self.constants: dict[str, str] = {}
        self.prologue: list[str] = []  # ops before the region (converting i1 inputs to i8)
        #: Bytes of every vector value written (LLVM keeps large vectors on the stack).
        self.vector_bytes = 0
        self.tapes, self.written_tapes = _tapes(loop)
        #: Bytes of the written tapes that are results of the loop nobody uses (see
        #: :data:`MAX_SCRATCH_TAPE_BYTES`).
        self.scratch_bytes = 0

    def kind(self, value: ir.Value) -> Kind:
        """How ``value`` is held: a scalar or vector, or a tensor in memory for a tape."""
        return Kind(value.type, memory=value in self.tapes)

    # -- names and small helpers --------------------------------------------------------
    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text: str, location: ir.Location | None = None) -> None:
        """One op, at ``location`` (by default the loop's: every op keeps a real location)."""
        self.lines.append(f"{text} {location if location is not None else self.loop.location}")

    def structure(self, text: str) -> None:
        """A line that is not a whole op (``} do {``, a block label, an op's opening)."""
        self.lines.append(text)

    def value(self, value: ir.Value) -> tuple[str, Kind]:
        if value not in self.names:
            raise Unsupported("a value defined outside the loop that is read in a nested region only")
        return self.names[value]

    def index_zero(self) -> str:
        if "index" not in self.constants:
            self.constants["index"] = self.fresh()
            self.emit(f"{self.constants['index']} = arith.constant 0 : index")
        return self.constants["index"]

    def splat(self, scalar: str, kind: Kind, location=None) -> str:
        """A constant of ``kind`` with every element ``scalar`` (MLIR's text for the value)."""
        name = self.fresh()
        if not kind.scalar:
            self.emit(f"{name} = arith.constant dense<{scalar}> : {kind.text}", location)
        elif kind.element == "i1":  # `true`/`false` carry their type
            self.emit(f"{name} = arith.constant {scalar}", location)
        else:
            self.emit(f"{name} = arith.constant {scalar} : {kind.element}", location)
        return name

    def zero(self, kind: Kind) -> str:
        return self.splat("false" if kind.element == "i1" else ("0.0" if kind.is_float else "0"), kind)

    def all_ones(self, kind: Kind) -> str:
        return self.splat("true" if kind.element == "i1" else "-1", kind)

    # -- the boundary: reading inputs, writing results -----------------------------------
    def read(self, value: ir.Value) -> tuple[str, Kind]:
        """Bind an outside value: a constant is re-made inside, anything else is read."""
        kind = self.kind(value)
        producer = defining_op(value)
        if producer is not None and producer.name == "stablehlo.constant":
            if kind.memory:
                return self.filled_tape(producer.attributes["value"], kind, producer.location), kind
            return self.constant(producer.attributes["value"], kind, producer.location), kind
        if value in self.written_tapes:
            raise Unsupported(f"a tape {kind.tensor} that it writes, made outside it (a constant, or nothing "
                              "the loop reads, keeps its buffer inside the dispatch)")
        self.inputs.append(value)
        argument = f"%in{len(self.inputs) - 1}"
        if kind.memory:  # read in place, never written (a pass-through or dynamic slices)
            return argument, kind
        if kind.element == "i1":  # IREE stores i1 as i8 in buffers: read i8, convert outside
            bytes_kind = kind.with_element("i8")
            converted = f"%bytes{len(self.inputs) - 1}"
            self.prologue.append(f"{converted} = stablehlo.convert {argument} : ({kind.tensor}) -> {bytes_kind.tensor} "
                                 f"{self.loop.location}")
            name, _ = self.read_tensor(converted, bytes_kind)
            result = self.fresh()
            self.emit(f"{result} = arith.trunci {name} : {bytes_kind.text} to {kind.text}")
            return result, kind
        return self.read_tensor(argument, kind)

    def read_tensor(self, argument: str, kind: Kind) -> tuple[str, Kind]:
        name = self.fresh()
        if kind.scalar:
            self.emit(f"{name} = tensor.extract {argument}[] : {kind.tensor}")
        else:
            zero = self.index_zero()
            pad = self.zero(kind.with_element(kind.element, shape=[]))
            indices = ", ".join([zero] * len(kind.shape))
            shaped = self.fresh()
            self.emit(f"{shaped} = vector.transfer_read {argument}[{indices}], {pad} : {kind.tensor}, {kind.shaped}")
            name = self.flatten(shaped, kind)
        return name, kind

    def flatten(self, shaped: str, kind: Kind) -> str:
        """The n-D vector ``shaped`` as ``kind.text``."""
        if kind.shaped == kind.text:
            return shaped
        name = self.fresh()
        self.emit(f"{name} = vector.shape_cast {shaped} : {kind.shaped} to {kind.text}")
        return name

    def unflatten(self, name: str, kind: Kind) -> str:
        """``name`` (of ``kind.text``) as the n-D vector ``kind.shaped``."""
        if kind.shaped == kind.text:
            return name
        shaped = self.fresh()
        self.emit(f"{shaped} = vector.shape_cast {name} : {kind.text} to {kind.shaped}")
        return shaped

    def write(self, name: str, kind: Kind) -> tuple[str, Kind]:
        """Write ``name`` into a tensor; i1 as i8 (converted back outside the region); a tape
        is one already."""
        if kind.memory:
            return name, kind
        if kind.element == "i1":
            bytes_kind = kind.with_element("i8")
            wide = self.fresh()
            self.emit(f"{wide} = arith.extui {name} : {kind.text} to {bytes_kind.text}")
            return self.write_tensor(wide, bytes_kind), bytes_kind
        return self.write_tensor(name, kind), kind

    def write_tensor(self, name: str, kind: Kind) -> str:
        result = self.fresh()
        if kind.scalar:
            self.emit(f"{result} = tensor.from_elements {name} : {kind.tensor}")
            return result
        shaped = self.unflatten(name, kind)
        empty = self.fresh()
        self.emit(f"{empty} = tensor.empty() : {kind.tensor}")
        indices = ", ".join([self.index_zero()] * len(kind.shape))
        self.emit(f"{result} = vector.transfer_write {shaped}, {empty}[{indices}] : {kind.shaped}, {kind.tensor}")
        return result

    def constant(self, attribute: ir.Attribute, kind: Kind, location) -> str:
        if kind.memory:
            raise Unsupported(f"a tape {kind.tensor} made inside the loop (its buffer would be on the stack)")
        return self.splat(_dense_inner(attribute), kind, location)

    def filled_tape(self, attribute: ir.Attribute, kind: Kind, location) -> str:
        """A tape holding the splat constant ``attribute``: ``tensor.empty`` written one row
        at a time by an ``scf.for`` (a ``linalg.fill`` inside the region fails IREE's
        workgroup distribution: "write affecting operations on global resources are
        restricted to workgroup distributed contexts")."""
        if not ir.DenseElementsAttr(attribute).is_splat:
            raise Unsupported(f"a tape {kind.tensor} initialized with a constant that is not one value repeated")
        row = f"vector<1x{'x'.join(map(str, kind.shape[1:] + [kind.element]))}>"
        value, empty, result, index, accumulator = (self.fresh() for _ in range(5))
        self.emit(f"{value} = arith.constant dense<{_dense_inner(attribute)}> : {row}", location)
        self.emit(f"{empty} = tensor.empty() : {kind.tensor}", location)
        zero, rows, one = self.index_constant(0), self.index_constant(kind.shape[0]), self.index_constant(1)
        self.structure(f"{result} = scf.for {index} = {zero} to {rows} step {one} iter_args({accumulator} = {empty}) "
                       f"-> ({kind.tensor}) {{")
        written = self.fresh()
        indices = ", ".join([index] + [self.index_constant(0) for _ in kind.shape[1:]])
        bounds = ", ".join(["true"] * len(kind.shape))
        self.emit(f"{written} = vector.transfer_write {value}, {accumulator}[{indices}] {{in_bounds = [{bounds}]}} : "
                  f"{row}, {kind.tensor}", location)
        self.emit(f"scf.yield {written} : {kind.tensor}", location)
        self.emit("}", location)
        return result

    # -- the loop ------------------------------------------------------------------------
    def dispatch(self) -> str:
        """The text of a function ``@loop(inputs...) -> results`` holding the dispatch region."""
        loop = self.loop
        for value in _outside_values(loop):
            if value not in self.names:
                self.names[value] = self.read(value)
        results = self.while_loop(loop, [self.value(v) for v in loop.operands])
        # a value the loop passes through unchanged is its input, not a result of the region
        # (IREE 3.13 returned one of two such results twice: the gradient of a loop carrying
        # the same tensor twice came back wrong)
        for index in _unchanged(loop):
            if loop.operands[index] in self.inputs:
                results[index] = (f"%in{self.inputs.index(loop.operands[index])}", results[index][1])
        inputs = {f"%in{i}" for i in range(len(self.inputs))}
        made = [(name, kind) for name, kind in results if name not in inputs]
        self.scratch_bytes = sum(kind.bytes for (name, kind), value in zip(results, loop.results)
                                 if kind.memory and name not in inputs and not list(value.uses))
        written = [self.write(name, kind) for name, kind in made]
        region_types = ", ".join(k.tensor for _, k in written)
        returned = []
        epilogue = []
        for name, kind in results:
            if name in inputs:
                returned.append(name)
                continue
            index = len([r for r in returned if r.startswith(("%r#", "%bool"))])
            stored = written[index][1]
            returned.append(f"%r#{index}" if kind is stored else f"%bool{index}")
            if kind is not stored:
                epilogue.append(f"%bool{index} = stablehlo.convert %r#{index} : ({stored.tensor}) -> {kind.tensor} "
                                f"{loop.location}")
        result_types = ", ".join(k.tensor for _, k in results)
        arguments = ", ".join(f"%in{i}: {v.type}" for i, v in enumerate(self.inputs))
        body = "\n".join("    " + line for line in self.lines)
        return "\n".join([
            f"func.func private @loop({arguments}) -> ({result_types}) {{",
            *("  " + line for line in self.prologue),
            f"  %r:{len(written)} = flow.dispatch.region -> ({region_types}) {{\n{body}",
            f"    flow.return {', '.join(n for n, _ in written)} : {region_types} {loop.location}\n  }} {loop.location}",
            *("  " + line for line in epilogue),
            f"  return {', '.join(returned)} : {result_types}\n}}",
        ])

    def while_loop(self, loop: ir.Operation, initial: list[tuple[str, Kind]]) -> list[tuple[str, Kind]]:
        """An ``scf.while`` carrying ``loop``'s values; a value the body passes through
        unchanged is not carried (a tape is read in place: carrying it would copy it)."""
        cond, body = (region.blocks[0] for region in loop.regions)
        every_kind = [self.kind(v) for v in loop.operands]
        unchanged = _unchanged(loop)
        carried = [i for i in range(len(every_kind)) if i not in unchanged]
        if not carried:
            raise Unsupported("a loop whose body changes none of its values")
        for index in set(range(len(every_kind))) - set(carried):
            self.names[cond.arguments[index]] = self.names[body.arguments[index]] = initial[index]
        kinds = [every_kind[i] for i in carried]
        self.vector_bytes += 3 * sum(k.vector_bytes for k in kinds)  # before, after, results
        types = ", ".join(k.text for k in kinds)
        results = self.fresh()
        before = [self.fresh() for _ in kinds]
        inits = ", ".join(f"{b} = {initial[i][0]}" for b, i in zip(before, carried))
        self.structure(f"{results}:{len(kinds)} = scf.while ({inits}) : ({types}) -> ({types}) {{")
        for index, name, kind in zip(carried, before, kinds):
            self.names[cond.arguments[index]] = (name, kind)
        (predicate,) = self.block(cond)
        self.emit(f"scf.condition({predicate[0]}) {', '.join(before)} : {types}")
        after = [self.fresh() for _ in kinds]
        self.structure("} do {")
        self.structure(f"^bb0({', '.join(f'{a}: {k.text} {loop.location}' for a, k in zip(after, kinds))}):")
        for index, name, kind in zip(carried, after, kinds):
            self.names[body.arguments[index]] = (name, kind)
        yielded = self.block(body)
        self.emit(f"scf.yield {', '.join(yielded[i][0] for i in carried)} : {types}")
        self.emit("}", loop.location)
        position = {index: place for place, index in enumerate(carried)}
        return [(f"{results}#{position[i]}", kind) if i in position else initial[i] for i, kind in enumerate(every_kind)]

    def block(self, block: ir.Block) -> list[tuple[str, Kind]]:
        """Emit ``block``'s ops; what its ``stablehlo.return`` returns."""
        for operation in block.operations:
            operation = operation.operation
            if operation.name == "stablehlo.return":
                return [self.value(v) for v in operation.operands]
            results = self.operation(operation)
            for result, name in zip(operation.results, results):
                self.names[result] = (name, self.kind(result))
                self.vector_bytes += self.names[result][1].vector_bytes
        raise Unsupported("a region without stablehlo.return")

    def operation(self, op: ir.Operation) -> list[str]:
        if not op.name.startswith("stablehlo."):
            raise Unsupported(f"'{op.name}'", op)
        name = _short_name(op)
        tape = next((v for v in op.operands if v in self.tapes), None)
        if tape is not None and name != "while" and (name not in ("dynamic_slice", "dynamic_update_slice", "gather")
                                                     or op.operands[0] != tape or op.operands[1] in self.tapes):
            raise Unsupported(f"'{op.name}' on the tape {tape.type} (a tape is only sliced and updated)", op)
        method = getattr(self, f"op_{name}", None)
        if method is not None:
            return method(op)
        if len(op.results) != 1:
            raise Unsupported(f"'{op.name}'", op)
        kind = Kind(op.results[0].type)
        operands = [self.value(v) for v in op.operands]
        table = FLOAT_OPS if operands and operands[0][1].is_float else INTEGER_OPS
        if name not in table or (name == "abs" and operands[0][1].element == "i1"):
            raise Unsupported(f"'{op.name}' on {operands[0][1].element if operands else kind.element} "
                              "(not an elementwise op this pass knows)", op)
        result = self.fresh()
        self.emit(f"{result} = {table[name]} {', '.join(n for n, _ in operands)} : {kind.text}", op.location)
        return [result]

    def op_optimization_barrier(self, op):
        """The identity: its operands' vectors. (Reverse mode's barriers shape IREE's host-side
        allocations of a host-stepped loop; inside a dispatch there are none.)"""
        return [self.value(v)[0] for v in op.operands]

    # -- ops needing more than one arith/math op -----------------------------------------
    def op_constant(self, op):
        return [self.constant(op.attributes["value"], Kind(op.results[0].type), op.location)]

    def op_negate(self, op):
        (value, kind) = self.value(op.operands[0])
        result = self.fresh()
        if kind.is_float:
            self.emit(f"{result} = arith.negf {value} : {kind.text}", op.location)
        else:
            self.emit(f"{result} = arith.subi {self.zero(kind)}, {value} : {kind.text}", op.location)
        return [result]

    def op_sign(self, op):
        """-1, 0 or 1 (floats: NaN and the zeros' signs kept, as StableHLO says)."""
        (value, kind) = self.value(op.operands[0])
        if kind.element == "i1":
            return [value]
        zero, one, minus_one = self.zero(kind), self.splat("1.0" if kind.is_float else "1", kind), \
            self.splat("-1.0" if kind.is_float else "-1", kind)
        positive, negative, low, result = self.fresh(), self.fresh(), self.fresh(), self.fresh()
        compare = "arith.cmpf ogt" if kind.is_float else "arith.cmpi sgt"
        self.emit(f"{positive} = {compare}, {value}, {zero} : {kind.text}", op.location)
        self.emit(f"{negative} = {compare}, {zero}, {value} : {kind.text}", op.location)
        predicate = "" if kind.scalar else f"{self.with_bool(kind)}, "
        self.emit(f"{low} = arith.select {negative}, {minus_one}, {value} : {predicate}{kind.text}", op.location)
        self.emit(f"{result} = arith.select {positive}, {one}, {low} : {predicate}{kind.text}", op.location)
        return [result]

    @staticmethod
    def with_bool(kind: Kind) -> str:
        """The vector of booleans of ``kind``'s shape (a comparison's result)."""
        return f"vector<{kind.count}xi1>"

    def op_not(self, op):
        (value, kind) = self.value(op.operands[0])
        result = self.fresh()
        self.emit(f"{result} = arith.xori {value}, {self.all_ones(kind)} : {kind.text}", op.location)
        return [result]

    def op_compare(self, op):
        (left, kind), (right, _) = (self.value(v) for v in op.operands)
        direction = re.search(r"\b(EQ|NE|LT|LE|GT|GE)\b", str(op.attributes["comparison_direction"])).group(1)
        compare_type = str(op.attributes["compare_type"]) if "compare_type" in op.attributes else ""
        result = self.fresh()
        if kind.is_float:
            self.emit(f"{result} = arith.cmpf {_FLOAT_COMPARE[direction]}, {left}, {right} : {kind.text}", op.location)
        else:
            table = _UNSIGNED_COMPARE if "UNSIGNED" in compare_type or kind.element == "i1" else _SIGNED_COMPARE
            self.emit(f"{result} = arith.cmpi {table[direction]}, {left}, {right} : {kind.text}", op.location)
        return [result]

    def op_select(self, op):
        (predicate, predicate_kind), (left, kind), (right, _) = (self.value(v) for v in op.operands)
        result = self.fresh()
        types = kind.text if predicate_kind.scalar else f"{predicate_kind.text}, {kind.text}"
        self.emit(f"{result} = arith.select {predicate}, {left}, {right} : {types}", op.location)
        return [result]

    def op_clamp(self, op):
        """``min(max(x, low), high)``; a scalar bound is broadcast to ``x``'s shape."""
        (low, low_kind), (value, kind), (high, high_kind) = (self.value(v) for v in op.operands)
        bounds = []
        for bound, bound_kind in ((low, low_kind), (high, high_kind)):
            if bound_kind.scalar and not kind.scalar:
                broadcast = self.fresh()
                self.emit(f"{broadcast} = vector.broadcast {bound} : {bound_kind.text} to {kind.text}", op.location)
                bound = broadcast
            bounds.append(bound)
        table = FLOAT_OPS if kind.is_float else INTEGER_OPS
        raised, result = self.fresh(), self.fresh()
        self.emit(f"{raised} = {table['maximum']} {value}, {bounds[0]} : {kind.text}", op.location)
        self.emit(f"{result} = {table['minimum']} {raised}, {bounds[1]} : {kind.text}", op.location)
        return [result]

    def op_dot_general(self, op):
        """Unrolled over the contracted positions: for each, the operands' elements in the
        result's layout (``vector.shuffle``s; a matrix the loop does not change gives the
        same ones every iteration, which LLVM hoists out of the loop) multiplied and added
        (``math.fma``); at most :data:`MAX_DOT_PRODUCTS` products, floats only. A product
        with a scalar result is a multiply and a ``vector.reduction``.

        ``W h`` (``32x32`` by ``32x1``, contracting ``[1] x [0]``): 32 columns of ``W``,
        each times a broadcast element of ``h``, summed. (A ``vector.contract`` instead ran
        the RNN of ``tools/bench/bench_loops.py`` at 0.48-0.67 us an iteration, this at
        0.09-0.11 us: ``docs/control-flow.md``.)"""
        (left, left_kind), (right, right_kind) = (self.value(v) for v in op.operands)
        target = Kind(op.results[0].type)
        if not (left_kind.is_float and left_kind.element == right_kind.element == target.element):
            raise Unsupported(f"a matrix product of {left_kind.element} and {right_kind.element} into "
                              f"{target.element} (floats of one type only)", op)
        if left_kind.scalar or right_kind.scalar:
            raise Unsupported("a matrix product of a scalar", op)
        numbers = str(op.attributes["dot_dimension_numbers"])

        def dims(name):
            found = re.search(rf"{name} = \[([^\]]*)\]", numbers)
            return [int(n) for n in re.findall(r"\d+", found.group(1))] if found else []

        batch = list(zip(dims("lhs_batching_dimensions"), dims("rhs_batching_dimensions")))
        contracting = list(zip(dims("lhs_contracting_dimensions"), dims("rhs_contracting_dimensions")))
        left_free = [a for a in range(len(left_kind.shape)) if a not in dict(batch) and a not in dict(contracting)]
        right_used = {b for _, b in batch} | {b for _, b in contracting}
        right_free = [a for a in range(len(right_kind.shape)) if a not in right_used]
        # iteration space: batch, left free, right free (the result's order), then contracting
        left_map, right_map = [None] * len(left_kind.shape), [None] * len(right_kind.shape)
        position = 0
        for a, b in batch:
            left_map[a] = right_map[b] = position
            position += 1
        for a in left_free:
            left_map[a] = position
            position += 1
        for b in right_free:
            right_map[b] = position
            position += 1
        for a, b in contracting:
            left_map[a] = right_map[b] = position
            position += 1
        depth = int(np.prod([left_kind.shape[a] for a, _ in contracting] or [1]))
        if target.count * depth > MAX_DOT_PRODUCTS:
            raise Unsupported(f"a matrix product of {target.count * depth} multiply-adds (at most {MAX_DOT_PRODUCTS})", op)
        # the flat position in each operand of every (result element, contracted position)
        sizes = [0] * position
        for axis, at in enumerate(left_map):
            sizes[at] = left_kind.shape[axis]
        for axis, at in enumerate(right_map):
            sizes[at] = right_kind.shape[axis]
        grid = np.indices(sizes).reshape(position, target.count, depth)
        left_at = np.ravel_multi_index([grid[at] for at in left_map], left_kind.shape)
        right_at = np.ravel_multi_index([grid[at] for at in right_map], right_kind.shape)
        if target.scalar:  # one dot product: the elements in contraction order, multiplied and summed
            vector = Kind(ir.RankedTensorType.get([depth], ir.Type.parse(target.element)))
            product, result = self.fresh(), self.fresh()
            self.emit(f"{product} = arith.mulf {self.shuffle(left, left_kind, left_at[0], vector, op.location)}, "
                      f"{self.shuffle(right, right_kind, right_at[0], vector, op.location)} : {vector.text}", op.location)
            self.emit(f"{result} = vector.reduction <add>, {product} : {vector.text} into {target.element}", op.location)
            return [result]
        total = None
        for column in range(depth):
            left_part = self.shuffle(left, left_kind, left_at[:, column], target, op.location)
            right_part = self.shuffle(right, right_kind, right_at[:, column], target, op.location)
            result = self.fresh()
            if total is None:
                self.emit(f"{result} = arith.mulf {left_part}, {right_part} : {target.text}", op.location)
            else:
                self.emit(f"{result} = math.fma {left_part}, {right_part}, {total} : {target.text}", op.location)
            total = result
        self.vector_bytes += 2 * depth * target.vector_bytes
        return [total]

    def op_convert(self, op):
        (value, source) = self.value(op.operands[0])
        target = Kind(op.results[0].type)
        if source.element == target.element:
            return [value]
        result = self.fresh()
        to, fro = target.element, source.element
        if to == "i1":  # x != 0
            compare = f"arith.cmpf une" if source.is_float else "arith.cmpi ne"
            self.emit(f"{result} = {compare}, {value}, {self.zero(source)} : {source.text}", op.location)
            return [result]
        if source.is_float and target.is_float:
            cast = "arith.extf" if _ELEMENT_BYTES[to] > _ELEMENT_BYTES[fro] else "arith.truncf"
        elif target.is_float:
            cast = "arith.uitofp" if fro == "i1" else "arith.sitofp"
        elif source.is_float:
            cast = "arith.fptosi"
        else:
            cast = ("arith.extui" if fro == "i1" else "arith.extsi") if _ELEMENT_BYTES[to] > _ELEMENT_BYTES[fro] \
                else "arith.trunci"
        self.emit(f"{result} = {cast} {value} : {source.text} to {target.text}", op.location)
        return [result]

    def op_broadcast_in_dim(self, op):
        (value, source) = self.value(op.operands[0])
        target = Kind(op.results[0].type)
        dimensions = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        if source.shape == target.shape and dimensions == sorted(dimensions):
            return [value]
        result = self.fresh()
        if source.scalar:
            self.emit(f"{result} = vector.broadcast {value} : {source.text} to {target.text}", op.location)
            return [result]
        # which source element each result element is, in row-major order
        order = np.argsort(dimensions)
        expanded = [1] * len(target.shape)
        for axis in order:
            expanded[dimensions[axis]] = source.shape[axis]
        indices = np.arange(source.count).reshape(source.shape).transpose(order).reshape(expanded)
        return [self.shuffle(value, source, np.broadcast_to(indices, target.shape).ravel(), target, op.location)]

    def shuffle(self, value: str, source: Kind, indices, target: Kind, location) -> str:
        """The elements ``indices`` of the vector ``value``, as ``target``."""
        if target.scalar:
            result = self.fresh()
            self.emit(f"{result} = vector.extract {value}[{int(indices[0])}] : {target.text} from {source.text}", location)
            return result
        if len(indices) > MAX_SHUFFLE:
            raise Unsupported(f"a broadcast or reduction making {len(indices)} elements (at most {MAX_SHUFFLE})")
        result = self.fresh()
        if len(set(int(i) for i in indices)) == 1:  # one element, repeated
            element = self.fresh()
            self.emit(f"{element} = vector.extract {value}[{int(indices[0])}] : {source.element} from {source.text}",
                      location)
            self.emit(f"{result} = vector.broadcast {element} : {source.element} to {target.text}", location)
            return result
        mask = ", ".join(str(int(i)) for i in indices)
        self.emit(f"{result} = vector.shuffle {value}, {value} [{mask}] : {source.text}, {source.text}", location)
        return result

    def op_reshape(self, op):
        (value, source) = self.value(op.operands[0])
        target = Kind(op.results[0].type)
        if source.text == target.text:  # the same elements, in the same order
            return [value]
        result = self.fresh()
        if source.scalar:
            self.emit(f"{result} = vector.broadcast {value} : {source.text} to {target.text}", op.location)
        else:
            self.emit(f"{result} = vector.extract {value}[0] : {target.text} from {source.text}", op.location)
        return [result]

    def op_reduce(self, op):
        if len(op.operands) != 2:
            raise Unsupported("a reduction of several operands", op)
        (value, source), (initial, _) = (self.value(v) for v in op.operands)
        body = list(op.regions[0].blocks[0].operations)
        combiner = _short_name(body[0].operation) if len(body) == 2 else None
        table = _FLOAT_REDUCTIONS if source.is_float else _INTEGER_REDUCTIONS
        if combiner not in table:
            raise Unsupported(f"a reduction by {combiner or 'several ops'}", op)
        dimensions = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        target = Kind(op.results[0].type)
        result = self.fresh()
        if target.scalar:
            self.emit(f"{result} = vector.reduction <{table[combiner]}>, {value}, {initial} : "
                      f"{source.text} into {source.element}", op.location)
            return [result]
        # a reduction over some axes: one shuffle per position along them, combined in turn
        kept = [axis for axis in range(len(source.shape)) if axis not in dimensions]
        indices = np.arange(source.count).reshape(source.shape).transpose(kept + dimensions).reshape(target.count, -1)
        if indices.shape[1] > MAX_SHUFFLE:
            raise Unsupported(f"a reduction over {indices.shape[1]} elements per result (at most {MAX_SHUFFLE})", op)
        combine = (FLOAT_OPS if source.is_float else INTEGER_OPS)[combiner]
        self.emit(f"{result} = vector.broadcast {initial} : {source.element} to {target.text}")
        for column in indices.T:
            part = self.shuffle(value, source, column, target, op.location)
            combined = self.fresh()
            self.emit(f"{combined} = {combine} {result}, {part} : {target.text}", op.location)
            result = combined
        return [result]

    def op_dynamic_slice(self, op):
        (value, source), *starts = (self.value(v) for v in op.operands)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        return self.dynamic_slice(value, source, starts, sizes, Kind(op.results[0].type), op)

    def op_gather(self, op):
        """A gather of one slice at one start index vector (``xs[i]``: a row at a scalar
        index) is a ``dynamic_slice`` of the same sizes (StableHLO clamps both alike),
        starting at 0 along the axes the index does not name; other gathers are not."""
        (value, source), (indices, index_kind) = (self.value(v) for v in op.operands)
        numbers = str(op.attributes["dimension_numbers"])
        fields = {name: [int(n) for n in re.findall(r"-?\d+", items)]
                  for name, items in re.findall(r"(\w+) = \[([^\]]*)\]", numbers)}
        vector_dim = re.search(r"index_vector_dim = (\d+)", numbers)
        target = Kind(op.results[0].type)
        if index_kind.scalar or len(index_kind.shape) != 1 or (vector_dim and int(vector_dim.group(1)) != 0) \
                or fields.get("operand_batching_dims") or fields.get("offset_dims") != list(range(len(target.shape))):
            raise Unsupported("a gather of more than one slice (one start index vector only)", op)
        starts, zero = [], None
        positions = fields.get("start_index_map", [])
        for axis in range(len(source.shape)):
            if axis in positions:
                element = self.fresh()
                self.emit(f"{element} = vector.extract {indices}[{positions.index(axis)}] : {index_kind.element} "
                          f"from {index_kind.text}", op.location)
                starts.append((element, index_kind.with_element(index_kind.element, shape=[])))
            else:
                zero = zero or (self.zero(index_kind.with_element(index_kind.element, shape=[])),
                                index_kind.with_element(index_kind.element, shape=[]))
                starts.append(zero)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        return self.dynamic_slice(value, source, starts, sizes, target, op)

    def dynamic_slice(self, value: str, source: Kind, starts, sizes, target: Kind, op) -> list[str]:
        """The slice of ``sizes`` of ``value`` at ``starts`` (clamped), as ``target``."""
        if source.memory:  # read from the tape in memory
            shaped, result = self.fresh(), self.fresh()
            indices = ", ".join(self.clamped_starts(source, sizes, starts))
            vector = f"vector<{'x'.join(map(str, sizes + [source.element]))}>"
            pad = self.zero(source.with_element(source.element, shape=[]))
            self.emit(f"{shaped} = vector.transfer_read {value}[{indices}], {pad} {{in_bounds = [{self.in_bounds(sizes)}]}} "
                      f": {source.tensor}, {vector}", op.location)
            if target.scalar:
                self.emit(f"{result} = vector.extract {shaped}[{', '.join(['0'] * len(sizes))}] : {target.element} "
                          f"from {vector}", op.location)
            elif vector != target.text:
                self.emit(f"{result} = vector.shape_cast {shaped} : {vector} to {target.text}", op.location)
            else:
                result = shaped
            return [result]
        positions = self.slice_positions(source, sizes, starts, op)
        elements = []
        for position in positions:
            element = self.fresh()
            self.emit(f"{element} = vector.extract {value}[{position}] : {source.element} from {source.text}", op.location)
            elements.append(element)
        if target.scalar:
            return elements
        result = self.fresh()
        self.emit(f"{result} = vector.from_elements {', '.join(elements)} : {target.text}", op.location)
        return [result]

    def op_dynamic_update_slice(self, op):
        (value, source), (update, update_kind), *starts = (self.value(v) for v in op.operands)
        if source.memory:  # written in place into the tape in memory
            sizes = update_kind.shape
            vector = f"vector<{'x'.join(map(str, sizes + [source.element]))}>"
            shaped, result = self.fresh(), self.fresh()
            if vector == update_kind.text:
                shaped = update
            else:
                self.emit(f"{shaped} = vector.{'broadcast' if update_kind.scalar else 'shape_cast'} {update} : "
                          f"{update_kind.text} to {vector}", op.location)
            indices = ", ".join(self.clamped_starts(source, sizes, starts))
            self.emit(f"{result} = vector.transfer_write {shaped}, {value}[{indices}] {{in_bounds = [{self.in_bounds(sizes)}]}} "
                      f": {vector}, {source.tensor}", op.location)
            return [result]
        positions = self.slice_positions(source, update_kind.shape, starts, op)
        result = value
        for offset, position in enumerate(positions):
            element = update
            if not update_kind.scalar:
                element = self.fresh()
                self.emit(f"{element} = vector.extract {update}[{offset}] : {source.element} from {update_kind.text}")
            inserted = self.fresh()
            self.vector_bytes += source.vector_bytes
            self.emit(f"{inserted} = vector.insert {element}, {result}[{position}] : {source.element} into {source.text}",
                      op.location)
            result = inserted
        return [result]

    @staticmethod
    def in_bounds(sizes) -> str:
        return ", ".join(["true"] * len(sizes))

    def clamped_starts(self, source: Kind, sizes, starts) -> list[str]:
        """``index`` values of the starts of a slice of ``sizes``, clamped into ``source`` as
        StableHLO says (``0 <= start <= extent - size``)."""
        indices = []
        for (start, kind), size, extent in zip(starts, sizes, source.shape):
            clamped, index = self.fresh(), self.fresh()
            low, high = self.splat("0", kind), self.splat(str(extent - size), kind)
            self.emit(f"{clamped} = arith.maxsi {start}, {low} : {kind.text}")
            self.emit(f"{clamped}c = arith.minsi {clamped}, {high} : {kind.text}")
            self.emit(f"{index} = arith.index_cast {clamped}c : {kind.text} to index")
            indices.append(index)
        return indices

    def slice_positions(self, source: Kind, sizes, starts, op) -> list[str]:
        """Index values of the flat positions of a slice of ``sizes`` at ``starts`` (clamped
        into ``source`` as StableHLO says), in row-major order."""
        count = int(np.prod(sizes)) if sizes else 1
        if source.scalar or count > MAX_SLICE:
            raise Unsupported(f"a dynamic slice of {count} elements (at most {MAX_SLICE})", op)
        if source.bytes > MAX_DYNAMIC_VECTOR_BYTES:
            raise Unsupported(f"a dynamic slice of a {source.bytes}-byte tensor {source.tensor} "
                              f"(at most {MAX_DYNAMIC_VECTOR_BYTES} bytes compile quickly)", op)
        strides = [int(np.prod(source.shape[axis + 1:])) for axis in range(len(source.shape))]
        base = None
        for index, stride in zip(self.clamped_starts(source, sizes, starts), strides):
            term = self.fresh()
            self.emit(f"{term} = arith.muli {index}, {self.index_constant(stride)} : index")
            if base is not None:
                total = self.fresh()
                self.emit(f"{total} = arith.addi {base}, {term} : index")
                term = total
            base = term
        offsets = np.arange(int(np.prod(source.shape))).reshape(source.shape)[tuple(slice(0, n) for n in sizes)].ravel()
        positions = []
        for offset in offsets:
            position = self.fresh()
            self.emit(f"{position} = arith.addi {base}, {self.index_constant(int(offset))} : index")
            positions.append(position)
        return positions

    def index_constant(self, value: int) -> str:
        """An ``index`` constant, made where it is used (a nested region cannot share it)."""
        name = self.fresh()
        self.emit(f"{name} = arith.constant {value} : index")
        return name

    def op_if(self, op):
        (predicate, _) = self.value(op.operands[0])
        kinds = [self.kind(r) for r in op.results]
        types = ", ".join(k.text for k in kinds)
        result = self.fresh()
        head = f"{result}:{len(kinds)} = " if kinds else ""
        self.structure(f"{head}scf.if {predicate} {'-> (' + types + ') ' if kinds else ''}{{")
        for index, region in enumerate(op.regions):
            if index:
                self.structure("} else {")
            yielded = self.block(region.blocks[0])
            if kinds:
                self.emit(f"scf.yield {', '.join(n for n, _ in yielded)} : {types}")
        self.emit("}", op.location)
        return [f"{result}#{i}" for i in range(len(kinds))]

    def op_while(self, op):
        return [name for name, _ in self.while_loop(op, [self.value(v) for v in op.operands])]


def _tapes(loop: ir.Operation) -> tuple[set, set]:
    """``(tapes, written)``: the values ``loop`` holds as tensors in memory, and those of
    them that it writes. A tape is the tensor a ``dynamic_slice`` or ``dynamic_update_slice``
    indexes when it has more than :data:`MAX_DYNAMIC_VECTOR_BYTES` (and is not boolean),
    together with every value it flows to or from through the update, a loop's carried
    values, and an ``if``'s results."""
    parent: dict = {}

    def find(value):
        parent.setdefault(value, value)
        while parent[value] != value:
            parent[value] = parent[parent[value]]
            value = parent[value]
        return value

    def union(*values):
        roots = [find(v) for v in values]
        for root in roots[1:]:
            parent[root] = roots[0]

    seeds, updates = [], []

    def visit(operation):
        operation = operation.operation
        name = operation.name
        if name == "stablehlo.while":
            cond, body = (region.blocks[0] for region in operation.regions)
            returned = list(body.operations)[-1].operands
            for index, initial in enumerate(operation.operands):
                union(initial, cond.arguments[index], body.arguments[index], returned[index], operation.results[index])
        elif name == "stablehlo.if":
            for region in operation.regions:
                returned = list(region.blocks[0].operations)[-1].operands
                for result, value in zip(operation.results, returned):
                    union(result, value)
        elif name in ("stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.gather"):
            source = ir.RankedTensorType(operation.operands[0].type)
            element = str(source.element_type)
            if source.has_static_shape and element in _ELEMENT_BYTES and element != "i1" and \
                    int(np.prod(source.shape)) * _ELEMENT_BYTES[element] > MAX_DYNAMIC_VECTOR_BYTES:
                seeds.append(operation.operands[0])
                if name == "stablehlo.dynamic_update_slice":
                    union(operation.operands[0], operation.results[0])
                    updates.append(operation.operands[0])
        return ir.WalkResult.ADVANCE

    loop.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    roots = {find(v) for v in seeds}
    written_roots = {find(v) for v in updates}
    tapes = {v for v in parent if find(v) in roots} | set(seeds)
    return tapes, {v for v in tapes if find(v) in written_roots}


def _unchanged(loop: ir.Operation) -> set[int]:
    """The positions of the values ``loop``'s body passes through unchanged."""
    body = loop.regions[1].blocks[0]
    returned = list(body.operations)[-1].operands
    return {i for i, argument in enumerate(body.arguments) if returned[i] == argument}


def _outside_values(loop: ir.Operation) -> list[ir.Value]:
    """Values defined outside ``loop`` that ops inside it read, in the order first read."""
    inside: set = set()
    found: list[ir.Value] = list(loop.operands)

    def visit(operation):
        operation = operation.operation
        for region in operation.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        if operation != loop:
            for value in operation.operands:
                if value not in inside and value not in found:
                    found.append(value)
            inside.update(operation.results)
        return ir.WalkResult.ADVANCE

    loop.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


def dispatch_problem(loop: ir.Operation, target: str) -> str | None:
    """Why ``loop`` cannot run inside one dispatch on ``target`` (``None``: it can)."""
    if target not in DISPATCH_TARGETS:
        return f"target '{target}' does not compile loops inside a dispatch (IREE's llvm-cpu targets do)"
    try:
        emitter = _Emitter(loop)
        carried = sum(kind.bytes for kind in map(emitter.kind, loop.operands) if not kind.memory)
        if carried > MAX_CARRIED_BYTES:
            return f"the loop carries {carried} bytes (at most {MAX_CARRIED_BYTES} run inside one dispatch)"
        emitter.dispatch()
        limit = MAX_STACK_BYTES.get(target, MAX_STACK_BYTES[None])
        if emitter.vector_bytes > limit:
            return (f"the loop's vectors take {emitter.vector_bytes} bytes (at most {limit} on target '{target}', "
                    "whose dispatches keep them on the stack of a worker thread)")
        scratch = MAX_SCRATCH_TAPE_BYTES.get(target, MAX_SCRATCH_TAPE_BYTES[None])
        if emitter.scratch_bytes > scratch:
            return (f"the tapes it writes and nobody reads after it take {emitter.scratch_bytes} bytes (at most "
                    f"{scratch} on target '{target}', whose dispatches keep them on the stack of a worker thread)")
    except Unsupported as problem:
        return f"the loop reads {problem.reason}" if problem.operation is None else f"the loop has {problem.reason}"
    return None


def replace_loop(loop: ir.Operation) -> None:
    """Replace ``loop`` by the dispatch region the emitter writes for it."""
    emitter = _Emitter(loop)
    text = emitter.dispatch()
    try:
        parsed = ir.Module.parse(text, loop.context)
    except ir.MLIRError as error:  # a bug in the emitter: keep the loop as it is
        raise RuntimeError(f"the dispatch region written for the loop does not parse: {error}\n{text}") from None
    function = parsed.body.operations[0]
    entry = function.regions[0].blocks[0]
    for argument, value in zip(entry.arguments, emitter.inputs):
        argument.replace_all_uses_with(value)
    *operations, returned = [op.operation for op in entry.operations]
    for operation in operations:  # the region, and the conversions of booleans around it
        operation.detach_from_parent()
        ir.InsertionPoint(loop).insert(operation)
    for old, new in zip(loop.results, returned.operands):
        old.replace_all_uses_with(new)
    loop.erase()


def _loops(root: ir.Operation) -> list[ir.Operation]:
    """The outermost ``stablehlo.while`` ops in ``root``."""
    found = []

    def visit(operation):
        operation = operation.operation
        if operation.name == "stablehlo.while":
            found.append(operation)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    root.walk(visit, walk_order=ir.WalkOrder.PRE_ORDER)
    return found


@register(
    "s4tf-loops-to-dispatch",
    "Run each stablehlo.while with small elementwise carried state inside one dispatch "
    "(options: target=cpu|..., remarks=true to say why a loop stays host-stepped)",
    choices={"target": TARGET_NAMES},
)
def loops_to_dispatch(module: ir.Operation, target: str = "cpu", remarks: bool = False) -> None:
    pending = _loops(module)
    while pending:
        loop = pending.pop(0)
        problem = dispatch_problem(loop, target)
        if problem is None:
            replace_loop(loop)
            continue
        if remarks:
            emit_warning(loop.location, f"loop stays host-stepped: {problem}")
        pending[:0] = [inner for region in loop.regions for block in region.blocks
                       for op in block.operations for inner in _loops(op.operation)]
