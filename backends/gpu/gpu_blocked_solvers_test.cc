// Large solvers on the gpu (kernel emulator): cholesky and triangular-solve of more than 64
// rows run as counted loops over 32-row blocks (backends/cpu/passes/blocked_solvers.h, whose
// own test checks every variant on the interpreter): their small factors (a block per
// matrix), solves, f64 and c128 dots and in-place column updates agree with the interpreter,
// no solver larger than a block is left, and the loops read nothing back.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/gpu/gpu_expanders.h"
#include "backends/gpu/testing/emulated_gpu.h"
#include "backends/gpu/testing/fake_cuda_hooks.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "backends/gpu/testing/kernel_emulator.h"
#include "backends/testing/hlo_test_util.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla {
namespace gpu {
namespace {

using ::xla::testing::LiteralNear;
using ::xla::testing::SharedInterpreter;

// The largest last dimension of the compiled module's cholesky and triangular-solve results
// (a factor's order; a solve's right-hand sides or order).
int64_t LargestSolver(const HloModule& module) {
  int64_t largest = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& hlo : computation->instructions()) {
      if (hlo->opcode() == HloOpcode::kCholesky || hlo->opcode() == HloOpcode::kTriangularSolve) {
        largest = std::max(largest, hlo->shape().dimensions().back());
      }
    }
  }
  return largest;
}

// Real lower (a = x x^T + 80 I) and complex upper (c = z z^H + 100 I, z = zr + i zi) factors,
// with solves of both sides, transposed and adjoint.
constexpr char kSolvers[] = R"(HloModule solvers
ENTRY main {
  x = f32[80,80] parameter(0)
  b = f32[80,3] parameter(1)
  zr = f32[2,100,100] parameter(2)
  zi = f32[2,100,100] parameter(3)
  d = c64[2,4,100] parameter(4)
  xx = f32[80,80] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}, operand_precision={highest,highest}
  i = s32[80,80] iota(), iota_dimension=0
  j = s32[80,80] iota(), iota_dimension=1
  eq = pred[80,80] compare(i, j), direction=EQ
  n = f32[] constant(80)
  nb = f32[80,80] broadcast(n), dimensions={}
  zero = f32[] constant(0)
  zb = f32[80,80] broadcast(zero), dimensions={}
  dg = f32[80,80] select(eq, nb, zb)
  a = f32[80,80] add(xx, dg)
  l = f32[80,80] cholesky(a), lower=true
  y = f32[80,3] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  s = f32[80,3] triangular-solve(l, y), left_side=true, lower=true, transpose_a=TRANSPOSE
  z = c64[2,100,100] complex(zr, zi)
  nzi = f32[2,100,100] negate(zi)
  zc = c64[2,100,100] complex(zr, nzi)
  zz = c64[2,100,100] dot(z, zc), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}, operand_precision={highest,highest}
  i3 = s32[2,100,100] iota(), iota_dimension=1
  j3 = s32[2,100,100] iota(), iota_dimension=2
  eq3 = pred[2,100,100] compare(i3, j3), direction=EQ
  hundred = f32[] constant(100)
  h = c64[] complex(hundred, zero)
  hb = c64[2,100,100] broadcast(h), dimensions={}
  czero = c64[] complex(zero, zero)
  cz = c64[2,100,100] broadcast(czero), dimensions={}
  cd = c64[2,100,100] select(eq3, hb, cz)
  c = c64[2,100,100] add(zz, cd)
  u = c64[2,100,100] cholesky(c), lower=false
  w = c64[2,4,100] triangular-solve(u, d), left_side=false, lower=false, transpose_a=ADJOINT
  ROOT t = (f32[80,80], f32[80,3], c64[2,100,100], c64[2,4,100]) tuple(l, s, u, w)
})";

TEST(GpuBlockedSolversTest, AgreeWithTheInterpreterAndReadNothingBack) {
  backend::Backend* gpu = EmulatedGpu();
  ASSERT_NE(gpu, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndReturnUnverifiedModule(kSolvers);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  uint64_t seed = 3;
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    absl::StatusOr<Literal> arg = Literal::Create(p->shape());
    ASSERT_TRUE(arg.ok()) << arg.status();
    testing::FillRandom(&*arg, p->shape(), &seed);
    args.push_back(*std::move(arg));
  }
  absl::StatusOr<std::unique_ptr<backend::Executable>> exe = gpu->Compile(*std::move(module), backend::CompileOptions());
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(LargestSolver((*exe)->module()), kGpuSolverBlock);
  std::vector<std::shared_ptr<backend::Buffer>> buffers;
  for (const Literal& arg : args) {
    absl::StatusOr<std::shared_ptr<backend::Buffer>> buffer = gpu->TransferToDevice(arg, 0);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    buffers.push_back(*std::move(buffer));
  }
  const int copies = FakeCudaCount("xla_fake_cuda_device_to_host_copies");
  absl::StatusOr<std::shared_ptr<backend::Buffer>> result = (*exe)->Execute(buffers, backend::ExecuteOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  // The loops are counted: nothing is read back to decide an iteration.
  EXPECT_EQ(FakeCudaCount("xla_fake_cuda_device_to_host_copies"), copies);
  absl::StatusOr<Literal> actual = gpu->TransferFromDevice(**result);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<Literal> expected = ::xla::testing::RunHloOn(*SharedInterpreter(), kSolvers, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // x x^T sums 80 (z z^H 100) f32 products in another order than the interpreter.
  EXPECT_TRUE(LiteralNear(*expected, actual, 1e-4, 1e-5));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
