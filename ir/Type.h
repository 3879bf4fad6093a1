// Scalar types of the .tk language, shared by every IR level.
#pragma once
#include <optional>
#include <string_view>

namespace tk::ir {

enum class ScalarType { F16, BF16, F32, F64, I8, I32, I64, Bool };

std::string_view scalarTypeName(ScalarType t);           // "f32", ...
std::optional<ScalarType> parseScalarType(std::string_view name);
int scalarTypeBytes(ScalarType t);                       // storage size; bool = 1
bool isFloat(ScalarType t);                              // f16 bf16 f32 f64
bool isInteger(ScalarType t);                            // i8 i32 i64
// The common type of a binary arithmetic expression (C-like promotion:
// any float wins, wider wins; bool promotes to i32).
ScalarType promote(ScalarType a, ScalarType b);

// Where a buffer lives. CPU targets accept global/local/register; CUDA adds
// shared; Sunway adds ldm. `local` is per-worker stack memory.
enum class Scope { Global, Shared, Register, Ldm, Local };
std::string_view scopeName(Scope s);
std::optional<Scope> parseScope(std::string_view name);

// Who executes the tasks of a task mapping.
enum class WorkerKind { Cores, Lanes, Blocks, Warps, Threads, Cpes };
std::string_view workerKindName(WorkerKind w);
std::optional<WorkerKind> parseWorkerKind(std::string_view name);

enum class TargetFamily { Cpu, Cuda, Sunway };
std::string_view targetFamilyName(TargetFamily t);       // "cpu", "cuda", "sunway"
std::optional<TargetFamily> parseTargetFamily(std::string_view name);
// Which worker kinds / scopes a target family provides.
bool targetHasWorker(TargetFamily t, WorkerKind w);
bool targetHasScope(TargetFamily t, Scope s);

} // namespace tk::ir
