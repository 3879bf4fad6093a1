#include "ir/Type.h"

#include <array>

namespace tk::ir {

namespace {
struct TypeInfo {
  ScalarType type;
  std::string_view name;
  int bytes;
};
constexpr std::array<TypeInfo, 8> kTypes{{{ScalarType::F16, "f16", 2},
                                          {ScalarType::BF16, "bf16", 2},
                                          {ScalarType::F32, "f32", 4},
                                          {ScalarType::F64, "f64", 8},
                                          {ScalarType::I8, "i8", 1},
                                          {ScalarType::I32, "i32", 4},
                                          {ScalarType::I64, "i64", 8},
                                          {ScalarType::Bool, "bool", 1}}};
constexpr std::array<std::string_view, 5> kScopes{"global", "shared", "register", "ldm", "local"};
constexpr std::array<std::string_view, 6> kWorkers{"cores", "lanes", "blocks", "warps", "threads", "cpes"};
constexpr std::array<std::string_view, 3> kTargets{"cpu", "cuda", "sunway"};

template <typename E, size_t N>
std::optional<E> lookup(const std::array<std::string_view, N> &names, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}
} // namespace

std::string_view scalarTypeName(ScalarType t) { return kTypes[static_cast<int>(t)].name; }
int scalarTypeBytes(ScalarType t) { return kTypes[static_cast<int>(t)].bytes; }

std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (const TypeInfo &ti : kTypes)
    if (ti.name == name) return ti.type;
  return std::nullopt;
}

bool isFloat(ScalarType t) {
  return t == ScalarType::F16 || t == ScalarType::BF16 || t == ScalarType::F32 || t == ScalarType::F64;
}
bool isInteger(ScalarType t) { return t == ScalarType::I8 || t == ScalarType::I32 || t == ScalarType::I64; }

// Rank used for promotion: floats above integers, wider above narrower.
// f16 and bf16 meet at f32 (neither holds the other exactly).
static int rankOf(ScalarType t) {
  switch (t) {
  case ScalarType::Bool: return 0;
  case ScalarType::I8: return 1;
  case ScalarType::I32: return 2;
  case ScalarType::I64: return 3;
  case ScalarType::F16: return 4;
  case ScalarType::BF16: return 4;
  case ScalarType::F32: return 5;
  case ScalarType::F64: return 6;
  }
  return 0;
}

ScalarType promote(ScalarType a, ScalarType b) {
  if (a == b) return a == ScalarType::Bool ? ScalarType::I32 : a;
  if ((a == ScalarType::F16 && b == ScalarType::BF16) || (a == ScalarType::BF16 && b == ScalarType::F16))
    return ScalarType::F32;
  ScalarType r = rankOf(a) >= rankOf(b) ? a : b;
  return r == ScalarType::Bool ? ScalarType::I32 : r;
}

std::string_view scopeName(Scope s) { return kScopes[static_cast<int>(s)]; }
std::optional<Scope> parseScope(std::string_view n) { return lookup<Scope>(kScopes, n); }
std::string_view workerKindName(WorkerKind w) { return kWorkers[static_cast<int>(w)]; }
std::optional<WorkerKind> parseWorkerKind(std::string_view n) { return lookup<WorkerKind>(kWorkers, n); }
std::string_view targetFamilyName(TargetFamily t) { return kTargets[static_cast<int>(t)]; }
std::optional<TargetFamily> parseTargetFamily(std::string_view n) { return lookup<TargetFamily>(kTargets, n); }

bool targetHasWorker(TargetFamily t, WorkerKind w) {
  switch (t) {
  case TargetFamily::Cpu: return w == WorkerKind::Cores || w == WorkerKind::Lanes;
  case TargetFamily::Cuda: return w == WorkerKind::Blocks || w == WorkerKind::Warps || w == WorkerKind::Threads;
  case TargetFamily::Sunway: return w == WorkerKind::Cpes;
  }
  return false;
}

bool targetHasScope(TargetFamily t, Scope s) {
  switch (s) {
  case Scope::Global:
  case Scope::Register:
  case Scope::Local: return true;
  case Scope::Shared: return t == TargetFamily::Cuda;
  case Scope::Ldm: return t == TargetFamily::Sunway;
  }
  return false;
}

} // namespace tk::ir
