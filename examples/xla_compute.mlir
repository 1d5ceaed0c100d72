// The program of the xla_compute examples (a * b + 1, and a transposed),
// read by examples/xla_compute.py and tests/python/test_executable.py, and
// compiled into examples/xla_compute.c and tests/lib/test_executable.c as a
// C string (examples/CMakeLists.txt generates xla_compute_program.h).
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %one = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %m = stablehlo.multiply %a, %b : tensor<2x3xf32>
  %s = stablehlo.add %m, %one : tensor<2x3xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %s, %t : tensor<2x3xf32>, tensor<3x2xf32>
}
