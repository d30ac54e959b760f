#include "backends/gpu/ptx_emitter.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backends/cpu/passes/pass_test_util.h"
#include "backends/cpu/passes/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla {
namespace gpu {
namespace {

using ::testing::HasSubstr;

// The module after the cpu pipeline, and the entry instructions that become kernels.
struct Lowered {
  std::unique_ptr<HloModule> module;
  std::vector<const HloInstruction*> kernels;
};

Lowered Lower(const std::string& text) {
  Lowered out;
  out.module = cpu::testing::ParseOrNull(text);
  if (out.module == nullptr) return out;
  absl::Status s = cpu::RunCpuPipeline(out.module.get());
  EXPECT_TRUE(s.ok()) << s;
  for (const HloInstruction* hlo : out.module->entry_computation()->MakeInstructionPostOrder()) {
    if (hlo->opcode() == HloOpcode::kParameter || hlo->opcode() == HloOpcode::kConstant ||
        hlo->opcode() == HloOpcode::kTuple) {
      continue;
    }
    EXPECT_TRUE(IsKernelCandidate(*hlo)) << hlo->name();
    out.kernels.push_back(hlo);
  }
  return out;
}

// ptxas's verdict on `ptx` for sm_90 ("" when it accepts it); skipped without the toolkit.
std::string Assemble(const std::string& ptx) {
#ifdef XLA_PTXAS
  char dir[] = "/tmp/xla_ptx_XXXXXX";
  if (mkdtemp(dir) == nullptr) return "mkdtemp failed";
  const std::string src = std::string(dir) + "/k.ptx", log = std::string(dir) + "/log";
  std::ofstream(src) << ptx;
  const std::string command = std::string(XLA_PTXAS) + " -arch=sm_90 " + src + " -o " + dir + "/k.cubin > " + log +
                              " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::system((std::string("rm -rf ") + dir).c_str());
  return rc == 0 ? "" : "ptxas failed: " + text;
#else
  (void)ptx;
  return "";
#endif
}

void ExpectAssembles(const PtxModule& m) {
#ifndef XLA_PTXAS
  GTEST_LOG_(INFO) << "no ptxas in /usr/local/cuda/bin: the PTX is not assembled";
#endif
  EXPECT_EQ(Assemble(m.ptx), "") << m.ptx;
}

// A dot, a batched dot, a convolution, a reduce-window, a gather and a dynamic-update-slice.
constexpr char kContractions[] = R"(HloModule contractions
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  a = f32[32,48] parameter(0)
  b = f32[48,16] parameter(1)
  ba = bf16[4,8,16] parameter(2)
  bb = bf16[4,16,8] parameter(3)
  img = f32[2,9,9,3] parameter(4)
  k = f32[3,3,3,5] parameter(5)
  idx = s32[6,1] parameter(6)
  d = f32[32,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bd = bf16[4,8,8] dot(ba, bb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  conv = f32[2,7,7,5] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  zero = f32[] constant(0)
  pool = f32[2,4,4,3] reduce-window(img, zero), window={size=1x3x3x1 stride=1x2x2x1}, to_apply=add_f32
  g = f32[6,48] gather(a, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,48}
  i0 = s32[] constant(3)
  i1 = s32[] constant(5)
  upd = f32[32,48] dynamic-update-slice(a, g, i0, i1)
  ROOT t = (f32[32,16], bf16[4,8,8], f32[2,7,7,5], f32[2,4,4,3], f32[32,48]) tuple(d, bd, conv, pool, upd)
})";

TEST(PtxEmitterTest, GeluIsOneKernelThatPtxasAccepts) {
  Lowered l = Lower(R"(HloModule gelu
ENTRY main {
  x = f32[1024,256] parameter(0)
  half = f32[] constant(0.5)
  one = f32[] constant(1)
  c = f32[] constant(0.7978845608)
  k = f32[] constant(0.044715)
  bh = f32[1024,256] broadcast(half), dimensions={}
  b1 = f32[1024,256] broadcast(one), dimensions={}
  bc = f32[1024,256] broadcast(c), dimensions={}
  bk = f32[1024,256] broadcast(k), dimensions={}
  x2 = f32[1024,256] multiply(x, x)
  x3 = f32[1024,256] multiply(x2, x)
  kx3 = f32[1024,256] multiply(bk, x3)
  inner = f32[1024,256] add(x, kx3)
  scaled = f32[1024,256] multiply(bc, inner)
  t = f32[1024,256] tanh(scaled)
  onept = f32[1024,256] add(b1, t)
  hx = f32[1024,256] multiply(bh, x)
  ROOT y = f32[1024,256] multiply(hx, onept)
})");
  ASSERT_EQ(l.kernels.size(), 1u);
  EXPECT_EQ(l.kernels[0]->opcode(), HloOpcode::kFusion);
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "gelu");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->kernels.size(), 1u);
  EXPECT_EQ(m->kernels[0].elements, 1024 * 256);
  EXPECT_THAT(m->ptx, HasSubstr(".target sm_90"));
  EXPECT_THAT(m->ptx, HasSubstr(".version 7.8"));
  EXPECT_THAT(m->ptx, HasSubstr(".visible .entry " + m->kernels[0].name));
  EXPECT_THAT(m->ptx, HasSubstr("%ctaid.x"));  // the grid-stride loop reads the block index
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, SoftmaxRowsWithReductionsInsideTheKernels) {
  Lowered l = Lower(R"(HloModule softmax
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,128] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[64] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bmx = f32[64,128] broadcast(mx), dimensions={0}
  sub = f32[64,128] subtract(x, bmx)
  e = f32[64,128] exponential(sub)
  s = f32[64] reduce(e, zero), dimensions={1}, to_apply=add_f32
  bs = f32[64,128] broadcast(s), dimensions={0}
  ROOT y = f32[64,128] divide(e, bs)
})");
  ASSERT_FALSE(l.kernels.empty());
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "softmax");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->kernels.size(), l.kernels.size());
  // The cpu pipeline fuses softmax into one fusion with two row reductions: one row kernel,
  // a block per row reducing through shared memory.
  ASSERT_EQ(m->kernels.size(), 1u);
  EXPECT_EQ(m->kernels[0].rows, 64);
  EXPECT_THAT(m->ptx, HasSubstr(".shared"));
  EXPECT_THAT(m->ptx, HasSubstr("bar.sync"));
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, ReductionsToRowsAndColumns) {
  Lowered l = Lower(R"(HloModule reductions
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[300,7,5] parameter(0)
  i = s32[40,33] parameter(1)
  zero = f32[] constant(0)
  lowest = s32[] constant(-2147483648)
  sq = f32[300,7,5] multiply(x, x)
  rows = f32[300] reduce(sq, zero), dimensions={1,2}, to_apply=add_f32
  cols = s32[33] reduce(i, lowest), dimensions={0}, to_apply=max_s32
  ROOT t = (f32[300], s32[33]) tuple(rows, cols)
})");
  ASSERT_EQ(l.kernels.size(), 2u);
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "reductions");
  ASSERT_TRUE(m.ok()) << m.status();
  int64_t row_kernels = 0;
  for (const PtxKernel& k : m->kernels) {
    if (k.rows > 0) {
      EXPECT_EQ(k.rows, 300) << k.name;  // the sum over each row's 35 elements
      ++row_kernels;
    } else {
      EXPECT_EQ(k.elements, 33) << k.name;  // a column reduction: a thread per output
    }
  }
  EXPECT_EQ(row_kernels, 1);
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, IntegerBf16PredicateAndDataMovementKernels) {
  Lowered l = Lower(R"(HloModule mixed
ENTRY main {
  a = s32[16,8] parameter(0)
  b = s32[16,8] parameter(1)
  h = bf16[8,16] parameter(2)
  sum = s32[16,8] add(a, b)
  sh = s32[16,8] shift-right-arithmetic(sum, b)
  lt = pred[16,8] compare(a, b), direction=LT
  sel = s32[16,8] select(lt, sh, a)
  t = s32[8,16] transpose(sel), dimensions={1,0}
  f = bf16[8,16] convert(t)
  prod = bf16[8,16] multiply(f, h)
  sl = bf16[4,16] slice(prod), slice={[2:6], [0:16]}
  io = s32[4,16] iota(), iota_dimension=1
  iof = bf16[4,16] convert(io)
  cat = bf16[8,16] concatenate(sl, iof), dimensions={0}
  zero = bf16[] constant(0)
  p = bf16[10,20] pad(cat, zero), padding=1_1x2_2
  r = bf16[10,20] reverse(p), dimensions={1}
  ROOT out = (bf16[10,20], s32[16,8]) tuple(r, sel)
})");
  ASSERT_FALSE(l.kernels.empty());
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "mixed");
  ASSERT_TRUE(m.ok()) << m.status();
  for (const PtxKernel& k : m->kernels) EXPECT_THAT(m->ptx, HasSubstr(".entry " + k.name));
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, ContractionsWindowsAndIndexing) {
  Lowered l = Lower(kContractions);
  ASSERT_FALSE(l.kernels.empty());
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "contractions");
  ASSERT_TRUE(m.ok()) << m.status();
  ExpectAssembles(*m);
}

TEST(PtxEmitterTest, HostRoutinesAreAClearErrorNotAFatalOne) {
  // f32 sine is a libm call on cpu; device code cannot call it (yet: libdevice would).
  Lowered l = Lower(R"(HloModule sine
ENTRY main {
  x = f32[32] parameter(0)
  ROOT y = f32[32] sine(x)
})");
  ASSERT_EQ(l.kernels.size(), 1u);
  absl::StatusOr<PtxModule> m = EmitPtx(l.kernels, "sine");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsUnimplemented(m.status())) << m.status();
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("sinf"));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr(l.kernels[0]->name()));
}

TEST(PtxEmitterTest, NonCandidatesAreRefusedByName) {
  std::unique_ptr<HloModule> module = cpu::testing::ParseOrNull(R"(HloModule sort
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[32] parameter(0)
  ROOT s = f32[32] sort(x), dimensions={0}, to_apply=cmp
})");
  ASSERT_NE(module, nullptr);
  const HloInstruction* sort = module->entry_computation()->root_instruction();
  EXPECT_FALSE(IsKernelCandidate(*sort));
  absl::StatusOr<PtxModule> m = EmitPtx({sort}, "sort");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsUnimplemented(m.status())) << m.status();
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("sort s"));
}

}  // namespace
}  // namespace gpu
}  // namespace xla
