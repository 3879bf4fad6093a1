#include "scheduler/costmodel/Decisions.h"

#include <fmt/format.h>

#include <array>

namespace tk::costmodel {
namespace {

struct KindInfo {
  const char *name;
  int numbers, names;
};
constexpr std::array<KindInfo, kPrimitiveKinds> kKinds{{
    {"op", 1, 1},
    {"loop", 3, 1},
    {"threads", 1, 0},
    {"register_tile", 4, 0},
    {"pack_depth", 3, 0},
    {"task_tile", 4, 0},
    {"direct_depth", 3, 0},
    {"stream", 3, 0},
    {"nest_loop", 4, 1},
}};

} // namespace

const char *primitiveName(PrimitiveKind k) { return kKinds[static_cast<size_t>(k)].name; }

std::optional<PrimitiveKind> primitiveKind(const std::string &name) {
  for (size_t i = 0; i < kKinds.size(); ++i)
    if (name == kKinds[i].name) return static_cast<PrimitiveKind>(i);
  return std::nullopt;
}

int primitiveNumbers(PrimitiveKind k) { return kKinds[static_cast<size_t>(k)].numbers; }
int primitiveNames(PrimitiveKind k) { return kKinds[static_cast<size_t>(k)].names; }

std::string printPrimitive(const Primitive &p) {
  std::string s = fmt::format("{}({})", primitiveName(p.kind), fmt::join(p.numbers, ", "));
  if (!p.names.empty()) s += fmt::format(" [{}]", fmt::join(p.names, ", "));
  return s;
}

DecisionSequence nestDecisions(const construct::LoopNest &nest, const construct::HardwareDesc &hw) {
  DecisionSequence seq{{PrimitiveKind::Op, {double(nest.elemBytes)}, {nest.op}}};
  for (size_t d = 0; d < nest.dims.size(); ++d)
    seq.push_back({PrimitiveKind::Loop, {double(nest.dims[d].extent), nest.dims[d].reduction ? 1.0 : 0.0, double(d)},
                   {nest.dims[d].name}});
  seq.push_back({PrimitiveKind::Threads, {double(hw.units)}, {}});
  return seq;
}

} // namespace tk::costmodel
