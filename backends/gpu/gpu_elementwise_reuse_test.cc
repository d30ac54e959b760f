// An elementwise kernel on gpu writes its output over an operand's buffer
// (ElementwiseReuseOperands, gpu_plan.h) when that operand has the output's dimensions, layout
// and bytes, is read at the output element's own position only, and nothing else holds it or
// reads it later: a donated argument (`params - lr * grads` with donate_argnums) or a value
// whose last reader the kernel is. Run on the kernel emulator (blocks run last first, so a
// thread reading an element another thread overwrote would be seen): results agree with the
// interpreter, the emulator counts launches writing over an operand, and the caller's
// arguments that are not donated keep their bytes.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu/testing/checked_run.h"
#include "backends/gpu/testing/gpu_test_modules.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/primitive_util.h"

namespace xla {
namespace gpu {
namespace {

namespace modules = ::xla::gpu::testing;
using modules::Outcome;
using modules::RunChecked;

// One step of SGD: a loop fusion reading both arrays at its own positions.
constexpr char kSgdStep[] = R"(HloModule sgd
ENTRY e {
  p = f32[256,128] parameter(0)
  g = f32[256,128] parameter(1)
  lr = f32[] constant(0.125)
  b = f32[256,128] broadcast(lr), dimensions={}
  m = f32[256,128] multiply(b, g)
  ROOT s = f32[256,128] subtract(p, m)
}
)";

TEST(GpuElementwiseReuseTest, ADonatedArgumentBecomesTheResult) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {256, 128}, 1));
  args.push_back(modules::RandomLiteral(F32, {256, 128}, 2));
  // Donated: the result is written over a donated operand (either, when both are).
  for (const auto& [donated, into] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{}, {-1}}, {{0}, {0}}, {{1}, {1}}, {{0, 1}, {0, 1}}}) {
    absl::StatusOr<Outcome> run = RunChecked(kSgdStep, args, donated);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_NE(std::find(into.begin(), into.end(), run->result_argument), into.end()) << donated.size();
    EXPECT_EQ(run->overwriting, donated.empty() ? 0 : 1) << donated.size();
  }
  // Donated but still held by the caller elsewhere: new memory, and the argument survives.
  absl::StatusOr<Outcome> kept = RunChecked(kSgdStep, args, {0}, /*keep=*/true);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->result_argument, -1);
  EXPECT_EQ(kept->overwriting, 0);
}


// `tail` computes the result from s = sort(x) (f32[64,64], sorted along dimension 1, a value
// of the execution's own that only the steps of `tail` read).
std::string AfterSort(const std::string& tail) {
  return R"(HloModule after_sort
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[64,64] parameter(0)
  s = f32[64,64] sort(x), dimensions={1}, to_apply=lt
)" + tail + "}\n";
}

TEST(GpuElementwiseReuseTest, AnIntermediateIsWrittenOverOnlyWhenEveryReadIsAtItsOwnPosition) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {64, 64}, 3));
  struct Case {
    const char* what;
    std::string tail;
    int overwriting;
  };
  const std::vector<Case> cases = {
      {"a fusion of elementwise ops", R"(
  c = f32[] constant(2)
  b = f32[64,64] broadcast(c), dimensions={}
  m = f32[64,64] multiply(s, b)
  n = f32[64,64] negate(s)
  ROOT a = f32[64,64] add(m, n)
)", 1},
      {"a convert to a type of the same width", "  ROOT c = s32[64,64] convert(s)\n", 1},
      {"a bitcast-convert", "  ROOT c = u32[64,64] bitcast-convert(s)\n", 1},
      {"a convert to a narrower type", "  ROOT c = f16[64,64] convert(s)\n", 0},
      {"a compare (pred is narrower)", "  z = f32[64,64] negate(s)\n  ROOT c = pred[64,64] compare(s, z), direction=GT\n", 0},
      // The reverse is a kernel of its own (not fused with the add), which the add may then
      // write over: it is the reverse's output, not s, that is read at other positions.
      {"a reverse read with the value", "  r = f32[64,64] reverse(s), dimensions={1}\n  ROOT a = f32[64,64] add(r, s)\n", 1},
      {"a transpose read with the value", "  t = f32[64,64] transpose(s), dimensions={1,0}\n  ROOT a = f32[64,64] add(t, s)\n", 0},
      {"a row broadcast read with the value", R"(
  r = f32[64,1] slice(s), slice={[0:64], [5:6]}
  rr = f32[64] reshape(r)
  b = f32[64,64] broadcast(rr), dimensions={0}
  ROOT a = f32[64,64] subtract(s, b)
)", 0},
      {"a value read again later", R"(
  m = f32[64,64] multiply(s, s)
  ROOT t = (f32[64,64], f32[64,64]) tuple(m, s)
)", 0},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Outcome> run = RunChecked(AfterSort(c.tail), args);
    ASSERT_TRUE(run.ok()) << c.what << ": " << run.status();
    EXPECT_EQ(run->overwriting, c.overwriting) << c.what;
  }
}

// A row kernel (a fusion with row reductions: a block per row) writes over an operand its
// reductions read as well as its output pass, at the row's own positions. The reductions are
// max, min and integer sums, exact in any order, so the results must equal the interpreter's.
TEST(GpuElementwiseReuseTest, ARowKernelWritesOverTheRowsItReduces) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {64, 64}, 5));
  const std::string reductions = R"(
  lo = f32[] constant(-inf)
  hi = f32[] constant(inf)
  m = f32[64] reduce(s, lo), dimensions={1}, to_apply=max_f32
  mb = f32[64,64] broadcast(m), dimensions={0}
  d = f32[64,64] subtract(s, mb)
)";
  struct Case {
    const char* what;
    std::string tail;
    int overwriting;
  };
  const std::vector<Case> cases = {
      {"x - max(x) per row", reductions + "  ROOT r = f32[64,64] add(d, s)\n", 1},
      {"two reductions, the second of the first's result", reductions + R"(
  n = f32[64] reduce(d, hi), dimensions={1}, to_apply=min_f32
  nb = f32[64,64] broadcast(n), dimensions={0}
  ROOT r = f32[64,64] multiply(d, nb)
)", 1},
      // Every row's reduction reads row 5 too, which its own block may already have written:
      // s is kept. (A reverse would be a kernel of its own, not fused with the reduction.)
      {"a reduction reading another row", R"(
  lo = f32[] constant(-inf)
  r5 = f32[1,64] slice(s), slice={[5:6], [0:64]}
  r = f32[64] reshape(r5)
  b = f32[64,64] broadcast(r), dimensions={1}
  a = f32[64,64] add(s, b)
  m = f32[64] reduce(a, lo), dimensions={1}, to_apply=max_f32
  mb = f32[64,64] broadcast(m), dimensions={0}
  ROOT d = f32[64,64] subtract(s, mb)
)", 0},
      {"a value read again later", reductions + "  ROOT t = (f32[64,64], f32[64,64]) tuple(d, s)\n", 0},
  };
  for (const Case& c : cases) {
    const std::string text = absl::StrReplaceAll(AfterSort(c.tail), {{"ENTRY", std::string(modules::kRowCombiners) + "ENTRY"}});
    absl::StatusOr<Outcome> run = RunChecked(text, args);
    ASSERT_TRUE(run.ok()) << c.what << ": " << run.status();
    EXPECT_EQ(run->overwriting, c.overwriting) << c.what;
  }
}

// A donated argument becomes a row kernel's result: rows short enough to stay in registers,
// rows re-read from memory for each pass (20000 elements), and an integer sum with the output.
TEST(GpuElementwiseReuseTest, ADonatedArgumentBecomesARowKernelsResult) {
  struct Case {
    PrimitiveType type;
    int64_t columns;
    const char* reduce;  // of p into m, from init z
  };
  for (const Case& c : std::vector<Case>{{F32, 64, "max"}, {F32, 20000, "max"}, {S32, 20000, "add"}, {S32, 96, "add"}}) {
    const std::string t(primitive_util::LowercasePrimitiveTypeName(c.type));
    const std::string array = absl::StrCat(t, "[8,", c.columns, "]");
    const std::string text = absl::StrCat("HloModule rows\n", modules::kRowCombiners, R"(ENTRY e {
  p = )", array, R"( parameter(0)
  z = )", t, R"([] constant(0)
  m = )", t, R"([8] reduce(p, z), dimensions={1}, to_apply=)", c.reduce, "_", t, R"(
  mb = )", array, R"( broadcast(m), dimensions={0}
  ROOT r = )", array, R"( multiply(p, mb)
}
)");
    std::vector<Literal> args;
    args.push_back(modules::RandomLiteral(c.type, {8, c.columns}, 6));
    absl::StatusOr<Outcome> run = RunChecked(text, args, {0});
    ASSERT_TRUE(run.ok()) << text << run.status();
    EXPECT_EQ(run->result_argument, 0) << array;
    EXPECT_EQ(run->overwriting, 1) << array;
    run = RunChecked(text, args);
    ASSERT_TRUE(run.ok()) << text << run.status();
    EXPECT_EQ(run->result_argument, -1) << array;
    EXPECT_EQ(run->overwriting, 0) << array;
  }
}

// The device check's curated case: three row kernels, each over a value nothing reads later
// (a sort's output under a two-reduction kernel kept in registers, a reverse's rows of
// 20000 re-read for each pass, an integer sum), each writing over it.
TEST(GpuElementwiseReuseTest, TheCuratedRowKernelsWriteOverTheirDeadOperands) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {200, 300}, 7));
  args.push_back(modules::RandomLiteral(F32, {4, 20000}, 8));
  args.push_back(modules::RandomLiteral(S32, {64, 1000}, 9));
  absl::StatusOr<Outcome> run = RunChecked(modules::RowsOverDeadValuesModule(), args);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->overwriting, 3);
}

// A loop updating its state elementwise, x = x / 2 + 1, 16 times (a counted loop). The first
// iteration reads the caller's argument and writes new memory; each later one writes over the
// state the previous one made, as does each increment of the counter after the first (whose
// operand is the entry's constant). Donated, the first iteration writes over the argument too.
constexpr char kDecayLoop[] = R"(HloModule decay
body {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4096] get-tuple-element(s), index=1
  h = f32[] constant(0.5)
  hb = f32[4096] broadcast(h), dimensions={}
  one = f32[] constant(1)
  ob = f32[4096] broadcast(one), dimensions={}
  m = f32[4096] multiply(x, hb)
  y = f32[4096] add(m, ob)
  k = s32[] constant(1)
  next = s32[] add(i, k)
  ROOT t = (s32[], f32[4096]) tuple(next, y)
}
cond {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[4096] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4096]) tuple(z, x)
  l = (s32[], f32[4096]) while(init), condition=cond, body=body
  ROOT r = f32[4096] get-tuple-element(l), index=1
}
)";

TEST(GpuElementwiseReuseTest, ALoopUpdatesItsStateInPlace) {
  std::vector<Literal> args;
  args.push_back(modules::RandomLiteral(F32, {4096}, 4));
  absl::StatusOr<Outcome> run = RunChecked(kDecayLoop, args);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->overwriting, 15 + 15);
  EXPECT_EQ(run->result_argument, -1);
  run = RunChecked(kDecayLoop, args, {0});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->overwriting, 16 + 15);
  EXPECT_EQ(run->result_argument, 0);
}

}  // namespace
}  // namespace gpu
}  // namespace xla
