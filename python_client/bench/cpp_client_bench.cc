// The C++ client's side of python_client/bench/client_bench.py: the same transfers and
// round trips through xla::client::Client, so both clients are measured against one server
// in one run. Prints one line per measurement: "<name> <median seconds> <bytes or 0>".
//
//   cpp_client_bench TARGET TOKEN MIB REPEATS ROUNDTRIPS

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "client/xla_client.h"
#include "hlo/shape_util.h"

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr char kAddOne[] = R"(HloModule add_one
ENTRY main {
  x = f32[16] parameter(0)
  one = f32[] constant(1)
  b = f32[16] broadcast(one), dimensions={}
  ROOT y = f32[16] add(x, b)
})";

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s TARGET TOKEN MIB REPEATS ROUNDTRIPS\n", argv[0]);
    return 2;
  }
  xla::client::ClientOptions options;
  options.target = argv[1];
  options.auth_token = argv[2];
  options.client_name = "cpp_client_bench";
  const int64_t mib = std::atoll(argv[3]);
  const int repeats = std::atoi(argv[4]);
  const int roundtrips = std::atoi(argv[5]);
  auto client_or = xla::client::Client::Connect(options);
  if (!client_or.ok()) {
    std::fprintf(stderr, "connect: %s\n", std::string(client_or.status().message()).c_str());
    return 1;
  }
  auto client = std::move(*client_or);

  const int64_t elements = std::max<int64_t>(mib * (int64_t{1} << 20) / 4, 1);
  auto literal_or = xla::Literal::Create(xla::ShapeUtil::MakeShapeWithDescendingLayout(xla::F32, {elements}));
  if (!literal_or.ok()) return 1;
  xla::Literal literal = std::move(*literal_or);
  std::memset(literal.untyped_data(), 1, literal.size_bytes());
  std::vector<double> up, down;
  for (int i = 0; i < repeats && mib > 0; ++i) {
    double start = Now();
    auto data = client->TransferToServer(literal);
    if (!data.ok()) return 1;
    up.push_back(Now() - start);
    start = Now();
    auto back = client->Transfer(**data);
    if (!back.ok()) return 1;
    down.push_back(Now() - start);
  }
  if (mib > 0) {
    std::printf("transfer_to_server %.6f %lld\n", Median(up), static_cast<long long>(literal.size_bytes()));
    std::printf("transfer %.6f %lld\n", Median(down), static_cast<long long>(literal.size_bytes()));
  }

  auto exe = client->Compile(kAddOne);
  if (!exe.ok()) return 1;
  auto arg_or = xla::Literal::Create(xla::ShapeUtil::MakeShapeWithDescendingLayout(xla::F32, {16}));
  if (!arg_or.ok()) return 1;
  std::vector<xla::Literal> args;
  args.push_back(std::move(*arg_or));
  std::vector<double> rt;
  for (int i = 0; i < 20; ++i) {  // warm up the channel and the executable
    if (!client->ExecuteAndTransfer(*exe, args).ok()) return 1;
  }
  for (int i = 0; i < roundtrips; ++i) {
    double start = Now();
    auto out = client->ExecuteAndTransfer(*exe, args);
    if (!out.ok()) return 1;
    rt.push_back(Now() - start);
  }
  if (roundtrips > 0) std::printf("execute_and_transfer %.6f 0\n", Median(rt));
  return 0;
}
