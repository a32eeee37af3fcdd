// IREE 3.13 bug report (not a lit test: tests/lit/lit.cfg.py excludes this folder).
//
// A host-stepped `while` whose body passes one carry on to two carries (`r1 = r0` while
// `r0` stays: a stack popped by shifting its registers, the first one kept) fails to
// compile on every CPU backend:
//
//   iree-compile --iree-input-type=stablehlo --iree-hal-target-backends=llvm-cpu \
//     --iree-llvmcpu-target-cpu=generic while_carry_passed_on_twice.mlir -o out.vmfb
//
//   error: 'scf.while' op along control flow edge from Operation scf.condition to
//   Region #1: region branch point has 8 operands, but region successor needs 10 inputs
//
// The same loop rotating its registers (`r0 = r3`, each carry passed on once) compiles.
// s4tf met it in the pullback of a `while` over a large state, a module of its own
// (`s4tf.vjp`), whose backward pass pops each segment's states from 16 shift registers
// (34 operands against 64 inputs); `grad`, one module, compiled. IREE-3.13-WORKAROUND:
// passes/autodiff/region_derivatives.py (`popping`) rotates the registers.
func.func @main(%n: tensor<i32>, %x: tensor<262144xf32>, %ct: tensor<262144xf32>) -> tensor<262144xf32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %x1 = stablehlo.multiply %x, %x : tensor<262144xf32>
  %x2 = stablehlo.add %x1, %x : tensor<262144xf32>
  %x3 = stablehlo.sine %x2 : tensor<262144xf32>
  %r:6 = stablehlo.while(%k = %n, %r0 = %x, %r1 = %x1, %r2 = %x2, %r3 = %x3, %c = %ct) : tensor<i32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
  cond {
    %p = stablehlo.compare GT, %k, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %k1 = stablehlo.subtract %k, %one : tensor<i32>
    %d = stablehlo.cosine %r3 : tensor<262144xf32>
    %c1 = stablehlo.multiply %c, %d : tensor<262144xf32>
    stablehlo.return %k1, %r0, %r0, %r1, %r2, %c1 : tensor<i32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>, tensor<262144xf32>
  }
  return %r#5 : tensor<262144xf32>
}
