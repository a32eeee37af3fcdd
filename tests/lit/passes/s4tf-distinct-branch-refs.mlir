// RUN: s4tf-opt %s -p s4tf-distinct-branch-refs | filecheck %s

// s4tf-distinct-branch-refs passes a vm.ref given more than once to one block of a branch
// as a new value for every repeat: an identity (a select on the ref's own non-nullness)
// chained from the previous one (IREE 3.13's VM register allocator moved a repeated ref
// out of the register of a block argument it had coalesced with it). A ref repeated
// across the two blocks of a vm.cond_br, and repeated integers, are left alone.

// CHECK-LABEL: vm.func private @loop
// CHECK:         %[[NZ:.*]] = vm.cmp.nz.ref %arg0 : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[NULL:.*]] = vm.const.ref.zero : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[B1:.*]] = vm.select.ref %[[NZ]], %arg0, %[[NULL]] : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[NZ2:.*]] = vm.cmp.nz.ref %[[B1]] : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[NULL2:.*]] = vm.const.ref.zero : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[B2:.*]] = vm.select.ref %[[NZ2]], %[[B1]], %[[NULL2]] : !vm.ref<!hal.buffer>
// CHECK-NEXT:    vm.br ^bb1(%arg0, %[[B1]], %arg1, %arg1, %[[B2]] : !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>, i32, i32, !vm.ref<!hal.buffer>)
// CHECK:       ^bb1(
// CHECK:         %[[NZ3:.*]] = vm.cmp.nz.ref %[[A:.*]] : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[NULL3:.*]] = vm.const.ref.zero : !vm.ref<!hal.buffer>
// CHECK-NEXT:    %[[A1:.*]] = vm.select.ref %[[NZ3]], %[[A]], %[[NULL3]] : !vm.ref<!hal.buffer>
// CHECK-NEXT:    vm.cond_br %{{.*}}, ^bb1(%[[A]], %[[A1]], %{{.*}}, %{{.*}}, %{{.*}} : {{.*}}), ^bb2(%[[A]] : !vm.ref<!hal.buffer>)
vm.module @module {
  vm.func private @loop(%arg0: !vm.ref<!hal.buffer>, %arg1: i32) -> !vm.ref<!hal.buffer> {
    vm.br ^bb1(%arg0, %arg0, %arg1, %arg1, %arg0 : !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>, i32, i32, !vm.ref<!hal.buffer>)
  ^bb1(%a: !vm.ref<!hal.buffer>, %b: !vm.ref<!hal.buffer>, %i: i32, %j: i32, %c: !vm.ref<!hal.buffer>):
    %n = vm.add.i32 %i, %j : i32
    vm.cond_br %n, ^bb1(%a, %a, %n, %j, %c : !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>, i32, i32, !vm.ref<!hal.buffer>), ^bb2(%a : !vm.ref<!hal.buffer>)
  ^bb2(%r: !vm.ref<!hal.buffer>):
    vm.return %r : !vm.ref<!hal.buffer>
  }
}
