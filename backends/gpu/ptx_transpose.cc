// Tiled transposes (ptx_emitter.h): a kernel whose output's minor dimension is not where some
// operand's minor dimension goes reads that operand along its own minor dimension into a
// shared-memory tile, then writes the output along the output's minor dimension, so both
// sides of the transpose touch memory in consecutive addresses (a thread per element would
// read one element per 32-byte sector from the transposed operand).

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/gpu/ptx_kernel_util.h"
#include "hlo/primitive_util.h"
#include "hlo/shape_util.h"

namespace xla {
namespace gpu {
namespace {

constexpr int64_t kTile = 32;                                   // a tile is kTile x kTile elements
constexpr int64_t kTileRowsPerPass = kGpuThreadsPerBlock / kTile;  // rows a block's threads cover at once
static_assert(kGpuThreadsPerBlock % kTile == 0, "a block covers whole tile rows");
constexpr int64_t kMinTiledExtent = 16;     // both transposed dimensions at least this long
constexpr int64_t kMaxTiledOperands = 4;    // operands read through tiles (shared memory)
constexpr int64_t kMaxTileBytes = 48 << 10;  // all of their tiles, in static shared memory

using DimensionMap = std::optional<std::vector<int64_t>>;  // operand dim j -> output dim; nullopt: none

// For every instruction of `fused` that the root reads through elementwise ops, copies and
// transposes only (and consistently, on every path): which output dimension each of its
// dimensions follows. Anything read through another op maps to nullopt.
absl::flat_hash_map<const HloInstruction*, DimensionMap> MapToOutput(const HloComputation& fused) {
  absl::flat_hash_map<const HloInstruction*, DimensionMap> maps;
  const HloInstruction* root = fused.root_instruction();
  if (!root->shape().IsArray()) return maps;
  std::vector<int64_t> identity(root->shape().rank());
  for (size_t d = 0; d < identity.size(); ++d) identity[d] = static_cast<int64_t>(d);
  maps[root] = identity;
  std::vector<HloInstruction*> order = fused.MakeInstructionPostOrder();
  for (auto x = order.rbegin(); x != order.rend(); ++x) {
    auto found = maps.find(*x);
    if (found == maps.end()) continue;  // not read by the root
    const DimensionMap map = found->second;
    const HloInstruction& user = **x;
    for (const HloInstruction* operand : user.operands()) {
      DimensionMap through;
      if (map.has_value() && operand->shape().IsArray()) {
        const bool elementwise = HloOpcodeCategoryOf(user.opcode()) != HloOpcodeCategory::kOther &&
                                 operand->shape().dimensions() == user.shape().dimensions();
        if (elementwise || user.opcode() == HloOpcode::kCopy) {
          through = map;
        } else if (user.opcode() == HloOpcode::kTranspose) {
          through = std::vector<int64_t>(map->size());
          for (size_t i = 0; i < map->size(); ++i) (*through)[user.attrs().dimensions(static_cast<int>(i))] = (*map)[i];
        }
      }
      auto [it, fresh] = maps.emplace(operand, through);
      if (!fresh && it->second != through) it->second = std::nullopt;
    }
  }
  return maps;
}

// Each operand of `hlo`'s dimension map to its output (nullopt: read otherwise).
std::vector<DimensionMap> OperandMaps(const HloInstruction& hlo) {
  std::vector<DimensionMap> maps(hlo.operand_count());
  const int64_t rank = hlo.shape().rank();
  if (hlo.opcode() == HloOpcode::kTranspose && hlo.operand_count() == 1) {
    std::vector<int64_t> map(rank);
    for (int64_t i = 0; i < rank; ++i) map[hlo.attrs().dimensions(static_cast<int>(i))] = i;
    maps[0] = map;
  } else if (hlo.opcode() == HloOpcode::kCopy && hlo.operand_count() == 1) {
    std::vector<int64_t> map(rank);
    for (int64_t i = 0; i < rank; ++i) map[i] = i;
    maps[0] = map;
  } else if (hlo.opcode() == HloOpcode::kFusion && hlo.to_apply() != nullptr) {
    const absl::flat_hash_map<const HloInstruction*, DimensionMap> fused = MapToOutput(*hlo.to_apply());
    for (const HloInstruction* p : hlo.to_apply()->parameter_instructions()) {
      auto it = fused.find(p);
      if (it != fused.end() && p->parameter_number() < hlo.operand_count()) maps[p->parameter_number()] = it->second;
    }
  }
  return maps;
}

}  // namespace

std::optional<TiledTranspose> FindTiledTranspose(const HloInstruction& hlo) {
  const Shape& out = hlo.shape();
  if (!out.IsArray() || !out.has_layout() || out.rank() < 2 || ShapeUtil::ElementsIn(out) == 0) return std::nullopt;
  const int64_t b_dim = out.layout().minor_to_major(0);
  const std::vector<DimensionMap> maps = OperandMaps(hlo);
  TiledTranspose t;
  t.out_dim.assign(hlo.operand_count(), {});
  int64_t tile_bytes = 0, tiled = 0;
  for (int64_t i = 0; i < hlo.operand_count(); ++i) {
    const Shape& operand = hlo.operand(i)->shape();
    if (!maps[i].has_value() || !operand.IsArray() || !operand.has_layout() || operand.rank() != out.rank()) continue;
    const int64_t a_dim = (*maps[i])[operand.layout().minor_to_major(0)];
    if (a_dim == b_dim || (t.a_dim >= 0 && a_dim != t.a_dim) || tiled == kMaxTiledOperands) continue;
    const int64_t bytes = kTile * (kTile + 1) * std::max(1, primitive_util::ByteWidth(operand.element_type()));
    if (tile_bytes + bytes > kMaxTileBytes) continue;
    t.a_dim = a_dim;
    t.out_dim[i] = *maps[i];
    tile_bytes += bytes;
    ++tiled;
  }
  if (t.a_dim < 0 || out.dimensions(t.a_dim) < kMinTiledExtent || out.dimensions(b_dim) < kMinTiledExtent) {
    return std::nullopt;
  }
  t.b_dim = b_dim;
  const int64_t a = out.dimensions(t.a_dim), b = out.dimensions(b_dim);
  t.tiles = ShapeUtil::ElementsIn(out) / (a * b) * ((a + kTile - 1) / kTile) * ((b + kTile - 1) / kTile);
  return t;
}

absl::Status EmitTiledTransposeBody(KernelContext& k, const HloInstruction* hlo, const TiledTranspose& t) {
  llvm::IRBuilder<>& b = *k.b;
  const Shape& out = hlo->shape();
  const int64_t a_len = out.dimensions(t.a_dim), b_len = out.dimensions(t.b_dim);
  const int64_t tiles_a = (a_len + kTile - 1) / kTile, tiles_b = (b_len + kTile - 1) / kTile;
  std::vector<int64_t> rest_dims, rest_of;  // the other output dimensions (row-major), and which they are
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (d == t.a_dim || d == t.b_dim) continue;
    rest_dims.push_back(out.dimensions(d));
    rest_of.push_back(d);
  }
  // A tile per tiled operand: [kTile][kTile + 1] elements as stored (the padding column keeps
  // a warp's column reads on distinct shared-memory banks).
  std::vector<llvm::GlobalVariable*> tiles(hlo->operand_count(), nullptr);
  for (int64_t i = 0; i < hlo->operand_count(); ++i) {
    if (t.out_dim[i].empty()) continue;
    llvm::Type* type = k.elemental->StorageType(hlo->operand(i)->shape().element_type());
    auto* array = llvm::ArrayType::get(llvm::ArrayType::get(type, kTile + 1), kTile);
    tiles[i] = new llvm::GlobalVariable(*k.module, array, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::UndefValue::get(array), absl::StrCat(k.kernel->getName().str(), ".tile", i),
                                        nullptr, llvm::GlobalValue::NotThreadLocal, 3);
  }
  auto slot = [&](int64_t i, llvm::Value* row, llvm::Value* column) {
    return b.CreateInBoundsGEP(tiles[i]->getValueType(), tiles[i], {b.getInt64(0), row, column});
  };
  llvm::Function* barrier = llvm::Intrinsic::getDeclaration(k.module, llvm::Intrinsic::nvvm_barrier0);
  llvm::Value* tid = ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* lane = b.CreateURem(tid, b.getInt64(kTile));
  llvm::Value* row0 = b.CreateUDiv(tid, b.getInt64(kTile));
  const int64_t tile_count = t.tiles;
  return EmitStridedLoop(
      &b, ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), b.getInt64(tile_count),
      ReadSpecialRegister(&b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), "tile", [&](llvm::Value* tile) -> absl::Status {
        llvm::Value* a0 = b.CreateMul(b.CreateURem(b.CreateUDiv(tile, b.getInt64(tiles_b)), b.getInt64(tiles_a)),
                                      b.getInt64(kTile));
        llvm::Value* b0 = b.CreateMul(b.CreateURem(tile, b.getInt64(tiles_b)), b.getInt64(kTile));
        const std::vector<llvm::Value*> rest =
            RowMajorIndex(&b, rest_dims, b.CreateUDiv(tile, b.getInt64(tiles_a * tiles_b)));
        // The output index of tile element (la, lb): dimension a_dim at a0 + la, b_dim at b0 + lb.
        auto index = [&](llvm::Value* a, llvm::Value* bb) {
          cpu::IrIndex at;
          at.multi.assign(out.rank(), nullptr);
          for (size_t r = 0; r < rest_of.size(); ++r) at.multi[rest_of[r]] = rest[r];
          at.multi[t.a_dim] = a;
          at.multi[t.b_dim] = bb;
          return at;
        };
        // `body(a, b)` for this thread's elements of the tile inside the output, a tile row
        // (`along_b`: a tile column) per pass, consecutive threads taking consecutive elements
        // of it along a (along b).
        auto each = [&](bool along_b, const char* name, const std::function<absl::Status(llvm::Value*, llvm::Value*,
                                                                                          llvm::Value*, llvm::Value*)>& body) {
          for (int64_t pass = 0; pass < kTile / kTileRowsPerPass; ++pass) {
            llvm::Value* across = b.CreateAdd(row0, b.getInt64(pass * kTileRowsPerPass));
            llvm::Value* la = along_b ? across : lane;
            llvm::Value* lb = along_b ? lane : across;
            llvm::Value* a = b.CreateAdd(a0, la);
            llvm::Value* bb = b.CreateAdd(b0, lb);
            llvm::Value* inside = b.CreateAnd(b.CreateICmpULT(a, b.getInt64(a_len)), b.CreateICmpULT(bb, b.getInt64(b_len)));
            RETURN_IF_ERROR(EmitIf(&b, inside, name, [&]() { return body(a, bb, la, lb); }));
          }
          return absl::OkStatus();
        };
        // Read: each tiled operand along its minor dimension (output dimension a_dim) into its tile.
        RETURN_IF_ERROR(each(false, "load", [&](llvm::Value* a, llvm::Value* bb, llvm::Value* la, llvm::Value* lb) {
          const cpu::IrIndex at = index(a, bb);
          for (int64_t i = 0; i < hlo->operand_count(); ++i) {
            if (tiles[i] == nullptr) continue;
            cpu::IrIndex in;
            for (const int64_t d : t.out_dim[i]) in.multi.push_back(at.multi[d]);
            ASSIGN_OR_RETURN(cpu::Generator read, k.operand(i));
            ASSIGN_OR_RETURN(llvm::Value* v, read(in));
            b.CreateStore(k.elemental->ToStorage(v, hlo->operand(i)->shape().element_type()), slot(i, lb, la));
          }
          return absl::OkStatus();
        }));
        b.CreateCall(barrier);
        // Write: the output along its minor dimension, tiled operands read from their tiles
        // (an operand index follows the output's: its dimension j is output dimension out_dim[j]).
        cpu::OperandGenerator operand = [&](int64_t i) -> absl::StatusOr<cpu::Generator> {
          if (tiles[i] == nullptr) return k.operand(i);
          const std::vector<int64_t>& dims = t.out_dim[i];
          const int64_t ja = std::find(dims.begin(), dims.end(), t.a_dim) - dims.begin();
          const int64_t jb = std::find(dims.begin(), dims.end(), t.b_dim) - dims.begin();
          const PrimitiveType type = hlo->operand(i)->shape().element_type();
          return cpu::Generator([&, i, ja, jb, type](const cpu::IrIndex& at) -> absl::StatusOr<llvm::Value*> {
            llvm::Value* stored = b.CreateLoad(k.elemental->StorageType(type),
                                               slot(i, b.CreateSub(at.multi[jb], b0), b.CreateSub(at.multi[ja], a0)));
            return k.elemental->FromStorage(stored, type);
          });
        };
        ASSIGN_OR_RETURN(cpu::Generator generator, k.elemental->MakeGenerator(hlo, operand));
        RETURN_IF_ERROR(each(true, "store", [&](llvm::Value* a, llvm::Value* bb, llvm::Value*, llvm::Value*) {
          const cpu::IrIndex at = index(a, bb);
          ASSIGN_OR_RETURN(llvm::Value* v, generator(at));
          k.elemental->StoreElement(v, k.kernel->getArg(0), out, at);
          return absl::OkStatus();
        }));
        // Every thread is done reading the tiles before the next tile is loaded into them.
        b.CreateCall(barrier);
        return absl::OkStatus();
      });
}

}  // namespace gpu
}  // namespace xla
