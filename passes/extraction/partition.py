"""``s4tf-partition``: split a function with host calls into device functions and a host program.

Graph program extraction (S4TF): the device ops between host interactions become
*device functions*, as large as the dependencies allow; the function itself becomes the
*host program*, which launches them (``func.call``; asynchronous at run time), receives
device values its host calls need (``s4tf.recv``), calls the host functions
(``s4tf.host_call``) and sends their results back (``s4tf.send``).

```mlir
func.func @step(%w: tensor<3x4xf32>, %x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %0 = "s4tf.dot_general"(%x, %w) ...
  %1 = "s4tf.host_call"(%0) {callee = "cpu_solver", ...} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = "s4tf.add"(%0, %1) ...
  return %2 : tensor<2x4xf32>
}
// becomes
func.func @step(%w: tensor<3x4xf32>, %x: tensor<2x3xf32>) -> tensor<2x4xf32> attributes {s4tf.host_program} {
  %0 = call @step_device_0(%w, %x) : (...) -> tensor<2x4xf32>
  %1 = "s4tf.recv"(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = "s4tf.host_call"(%1) {callee = "cpu_solver", ...}
  %3 = "s4tf.send"(%2) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = call @step_device_1(%0, %3) : (...) -> tensor<2x4xf32>
  return %4 : tensor<2x4xf32>
}
func.func private @step_device_0(...) attributes {s4tf.device_function} { "s4tf.dot_general" ... }
func.func private @step_device_1(...) attributes {s4tf.device_function} { "s4tf.add" ... }
```

Placement follows the dependencies, not the text: a device op goes into device function
*k*, where *k* counts the host calls on its dependency chain, so device work that does not
depend on a host call runs in the first device function; host calls keep their order. The
host program's arguments and results are device values. Constants are never sent: each
device function that uses one gets its own copy, and the host program evaluates those
its host calls use. With ``warn_transfers=true`` every send and receive is reported at
the user's line, like S4TF's "value implicitly copied to the host" warnings.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from s4tf.dialects.symbols import functions, symbol_name, unique_symbol
from s4tf.core.mlir import func, ir
from s4tf.passes.diagnostics import parse_location
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, emit_warning, register
from s4tf.passes.verify import verify_module

HOST_CALL = "s4tf.host_call"
CONSTANT = "s4tf.constant"
HOST_PROGRAM_ATTR = "s4tf.host_program"
DEVICE_FUNCTION_ATTR = "s4tf.device_function"


@dataclass
class DeviceRegion:
    """The ops of one device function, and the values that cross its boundary."""

    ops: list[ir.Operation] = field(default_factory=list)
    inputs: list[ir.Value] = field(default_factory=list)  #: original values it reads from outside
    outputs: list[ir.Value] = field(default_factory=list)  #: original values read outside


def body(function: ir.Operation) -> ir.Block:
    return function.regions[0].blocks[0]


def callee(operation: ir.Operation) -> str:
    return ir.FlatSymbolRefAttr(operation.attributes["callee"]).value


def has_host_calls(function: ir.Operation) -> bool:
    """Whether ``function``'s body calls the host (a declaration, without a body, does not)."""
    blocks = function.regions[0].blocks
    return len(blocks) > 0 and any(op.operation.name == HOST_CALL for block in blocks for op in block.operations)


class Partitioner:
    """Partitions one function (see the module docstring)."""

    def __init__(self, function: ir.Operation, symbols: set[str], warn_transfers: bool):
        self.function = function
        self.name = symbol_name(function)
        self.block = body(function)
        self.symbols = symbols
        self.warn_transfers = warn_transfers
        self.ops = [op.operation for op in self.block.operations]
        self.terminator = self.ops[-1]
        self.level: dict[ir.Operation, int] = {}
        self.region_of: dict[ir.Operation, int] = {}
        self.regions: list[DeviceRegion] = []
        self.region_levels: list[int] = []  #: the level of each device function
        self.host_calls: list[ir.Operation] = []
        self.last_function = function

    # -- analysis ------------------------------------------------------------------------

    def kind(self, operation: ir.Operation | None) -> str:
        if operation is None:
            return "argument"
        if operation.name == HOST_CALL:
            return "host"
        if operation.name == CONSTANT:
            return "constant"
        return "device"

    def assign_levels(self) -> None:
        """Device op: the number of host calls its inputs wait for; host call: the device
        function it waits for (and no earlier than the host call before it). Levels without
        device ops (a host call on arguments only) get no device function."""
        previous_host = 0
        by_level: dict[int, DeviceRegion] = {}
        for operation in self.ops[:-1]:
            kind = self.kind(operation)
            if kind == "constant":
                continue
            level = previous_host if kind == "host" else 0
            for value in operation.operands:
                producer = defining_op(value)
                producer_kind = self.kind(producer)
                if producer_kind in ("device", "host"):
                    step = 1 if producer_kind == "host" and kind == "device" else 0
                    level = max(level, self.level[producer] + step)
            self.level[operation] = level
            if kind == "host":
                previous_host = level
                self.host_calls.append(operation)
            else:
                by_level.setdefault(level, DeviceRegion()).ops.append(operation)
        self.region_levels = sorted(by_level)
        self.regions = [by_level[level] for level in self.region_levels]
        for index, region in enumerate(self.regions):
            self.region_of.update((operation, index) for operation in region.ops)

    def regions_before(self, host_call: ir.Operation) -> int:
        """How many device functions ``host_call`` may wait for (those launched before it)."""
        return bisect.bisect_right(self.region_levels, self.level[host_call])

    def collect_boundaries(self) -> None:
        for index, region in enumerate(self.regions):
            for operation in region.ops:
                for value in operation.operands:
                    producer = defining_op(value)
                    if self.kind(producer) == "constant" or self.region_of.get(producer) == index:
                        continue
                    if value not in region.inputs:
                        region.inputs.append(value)
                    if producer in self.region_of:
                        self.add_output(value)
        for operation in [*self.host_calls, self.terminator]:
            for value in operation.operands:
                if defining_op(value) in self.region_of:
                    self.add_output(value)

    def add_output(self, value: ir.Value) -> None:
        outputs = self.regions[self.region_of[defining_op(value)]].outputs
        if value not in outputs:
            outputs.append(value)

    # -- rewriting -----------------------------------------------------------------------

    def run(self) -> None:
        self.assign_levels()
        self.collect_boundaries()
        device_functions = [self.build_device_function(index) for index in range(len(self.regions))]
        self.build_host_program(device_functions)
        self.function.attributes[HOST_PROGRAM_ATTR] = ir.UnitAttr.get()

    def build_device_function(self, index: int) -> ir.Operation:
        region = self.regions[index]
        symbol = unique_symbol(f"{self.name}_device_{index}", self.symbols)
        self.symbols.add(symbol)
        function = outline_device_function(
            self.function, symbol, region.ops, region.inputs, region.outputs, self.last_function,
            lambda producer: self.kind(producer) == "constant",
        )
        self.last_function = function  # after the host program, in order
        return function

    def build_host_program(self, device_functions: list[ir.Operation]) -> None:
        device_value: dict[ir.Value, ir.Value] = {}  # original device value -> launch result
        received: dict[ir.Value, ir.Value] = {}
        sent: dict[ir.Value, ir.Value] = {}
        launched = set()

        def on_device(value: ir.Value, user: ir.Operation) -> ir.Value:
            producer = defining_op(value)
            if self.kind(producer) in ("host", "constant"):
                if value not in sent:
                    sent[value] = self.transfer("s4tf.send", value, producer)
                return sent[value]
            return device_value.get(value, value)

        def launch(index: int) -> None:
            region = self.regions[index]
            operands = [on_device(v, self.terminator) for v in region.inputs]
            with region.ops[0].location, ir.InsertionPoint(self.terminator):
                call = func.CallOp(
                    [v.type for v in region.outputs], ir.FlatSymbolRefAttr.get(symbol_name(device_functions[index])), operands
                )
            device_value.update(zip(region.outputs, call.results))
            launched.add(index)

        for host_call in self.host_calls:
            for index in range(self.regions_before(host_call)):
                if index not in launched:
                    launch(index)
            for value in list(host_call.operands):
                if self.kind(defining_op(value)) in ("device", "argument"):
                    if value not in received:
                        received[value] = self.transfer("s4tf.recv", device_value.get(value, value), host_call)
                    host_call.replace_uses_of_with(value, received[value])
            host_call.move_before(self.terminator)
        for index in range(len(self.regions)):
            if index not in launched:
                launch(index)
        for value in list(self.terminator.operands):
            self.terminator.replace_uses_of_with(value, on_device(value, self.terminator))
        for operation in self.ops:
            if operation.name == CONSTANT and not any(True for _ in operation.results[0].uses):
                operation.erase()

    def transfer(self, name: str, value: ir.Value, at: ir.Operation) -> ir.Value:
        """Insert ``name`` (send or receive) of ``value`` before the terminator, reported at ``at``."""
        with at.location, ir.InsertionPoint(self.terminator):
            operation = ir.Operation.create(name, results=[value.type], operands=[value])
        if self.warn_transfers:
            emit_warning(at.location, transfer_message(name, value, at))
        return operation.results[0]


def transfer_message(name: str, value: ir.Value, at: ir.Operation) -> str:
    if name == "s4tf.recv":
        function = host_function(at)
        return f"value of type {value.type} is copied from the device to the host for host function '{function}'"
    producer = defining_op(value)
    if producer is not None and producer.name == HOST_CALL:
        function = host_function(producer)
        return f"result of host function '{function}' ({value.type}) is copied from the host to the device"
    return f"value of type {value.type} is copied from the host to the device"


def host_callers(table: dict[str, ir.Operation]) -> dict[str, tuple[ir.Operation, list[str]]]:
    """The functions that call the host, themselves or through the functions they call
    (anywhere in their bodies): name -> (a host call, the functions it is reached through)."""
    reached: dict[str, tuple[ir.Operation, list[str]]] = {}
    calls: list[tuple[str, ir.Operation]] = []  # (caller, func.call)
    for name, function in table.items():
        for operation in collect(function, lambda op: op.name in (HOST_CALL, "func.call"), pre_order=True):
            if operation.name == "func.call":
                calls.append((name, operation))
            elif name not in reached:
                reached[name] = (operation, [])
    changed = True
    while changed:
        changed = False
        for caller, call in calls:
            target = callee(call)
            if target in reached and caller not in reached:
                operation, via = reached[target]
                reached[caller] = (operation, [target, *via])
                changed = True
    return reached


def check_host_calls_are_top_level(table: dict[str, ir.Operation]) -> None:
    """Host calls must be made at the top level of a function that no other function calls:
    report those inside control flow, and every call of a function that makes host calls
    (itself or through the functions it calls)."""
    failed = False
    for function in table.values():
        for operation in collect(function, lambda op: op.name == HOST_CALL, pre_order=True):
            parent = operation.parent
            if parent.name != "func.func":
                emit_error(operation, f"host function '{host_function(operation)}' is called inside '{parent.name}'; "
                           "an extracted function calls s4tf.host at its top level, outside control flow")
                failed = True
    reached = host_callers(table)
    for function in table.values():
        for call in collect(function, lambda op: op.name == "func.call", pre_order=True):
            target = callee(call)
            if target not in reached:
                continue
            operation, via = reached[target]
            through = "".join(f"{' through' if i == 0 else ', then'} '{name}'" for i, name in enumerate(via))
            parent = call.parent
            rule = (
                f"it is called inside '{parent.name}', and an extracted function calls s4tf.host at its top level, "
                "outside control flow" if parent.name != "func.func" else
                "only the extracted function itself may call s4tf.host, not a staged function it calls "
                "(s4tf-inline-host-calls inlines such calls first)"
            )
            emit_error(call, f"'{target}' calls host function '{host_function(operation)}'"
                       f"{place(operation.location, call.location)}{through}; {rule}")
            failed = True
    if failed:
        raise PassFailed()


def place(location: ir.Location, seen_from: ir.Location) -> str:
    """`` at line N`` of ``location`` (`` at file:N`` in another file than ``seen_from``)."""
    file, line, _ = parse_location(location)
    if line is None:
        return ""
    return f" at line {line}" if file == parse_location(seen_from)[0] else f" at {file}:{line}"


def host_function(host_call: ir.Operation) -> str:
    return ir.StringAttr(host_call.attributes["callee"]).value


@register
@dataclass(frozen=True)
class Partition(ModulePass):
    name = "s4tf-partition"
    description = "Split functions with host calls into device functions and a host program"

    #: Warn of every host/device copy the pass inserts, at its location.
    warn_transfers: bool = False

    def apply(self, module: ir.Operation) -> None:
        partition(module, self.warn_transfers)


def partition(module: ir.Operation, warn_transfers: bool = False) -> None:
    verify_module(module)
    table = functions(module)
    check_host_calls_are_top_level(table)
    symbols = set(table)
    for name in sorted(name for name, function in table.items() if has_host_calls(function)):
        Partitioner(table[name], symbols, warn_transfers).run()


@register
@dataclass(frozen=True)
class DeviceModule(ModulePass):
    name = "s4tf-device-module"
    description = "Keep the device functions of a partitioned module, public, for IREE (drops host programs)"

    def apply(self, module: ir.Operation) -> None:
        device_module(module)


def device_module(module: ir.Operation) -> None:
    """What IREE compiles of a module after ``s4tf-partition``: its host programs erased,
    its device functions public (they are the functions a host program launches)."""
    for function in functions(module).values():
        if HOST_PROGRAM_ATTR in function.attributes:
            function.erase()
        elif DEVICE_FUNCTION_ATTR in function.attributes and "sym_visibility" in function.attributes:
            del function.attributes["sym_visibility"]


def outline_device_function(beside: ir.Operation, symbol: str, ops: list[ir.Operation], inputs: list[ir.Value],
                            outputs: list[ir.Value], after: ir.Operation, is_constant) -> ir.Operation:
    """A private device function ``@symbol``, placed after ``after``, that the ``ops`` (in
    order) move into: ``inputs`` become its arguments, ``outputs`` its results, and each
    constant they read (``is_constant(producer)``) is copied in once."""
    location = ops[0].location
    with location, ir.InsertionPoint(beside):
        function = func.FuncOp(symbol, ir.FunctionType.get([v.type for v in inputs], [v.type for v in outputs]))
    function.attributes["sym_visibility"] = ir.StringAttr.get("private")
    function.attributes[DEVICE_FUNCTION_ATTR] = ir.UnitAttr.get()
    function.move_after(after)
    block = function.add_entry_block()
    arguments = dict(zip(inputs, block.arguments))
    constants: dict[ir.Operation, ir.Operation] = {}
    for operation in ops:
        for value in list(operation.operands):
            producer = defining_op(value)
            if producer is not None and is_constant(producer):
                if producer not in constants:
                    constants[producer] = producer.clone(ip=ir.InsertionPoint.at_block_begin(block))
                operation.replace_uses_of_with(value, constants[producer].results[0])
            elif value in arguments:
                operation.replace_uses_of_with(value, arguments[value])
        operation.detach_from_parent()
        block.append(operation)
    with location, ir.InsertionPoint(block):
        func.ReturnOp(outputs)
    return function.operation
