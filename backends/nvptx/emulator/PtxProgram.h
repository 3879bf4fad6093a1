// PtxProgram: a PTX module decoded for execution (PtxParser builds it, the
// executor runs it). Written from NVIDIA's PTX ISA manual (version 8.5),
// independently of tkc's own PTX generator: nothing here includes
// backends/nvptx. Registers are numbered slots holding raw bits (64 per lane);
// every operand is resolved to a slot, an immediate, an address or a special
// register at load time so that execution never looks at text.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tk::cuemu {

enum class Type : uint8_t { None, Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, BF16x2, F32, F64 };
int typeBytes(Type t);
bool isFloat(Type t);
bool isSigned(Type t);

enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };

// One opcode per semantic family; modifiers select the variant.
enum class Op : uint8_t {
  Mov, Add, Sub, Mul, Mad, Fma, Div, Rem, Neg, Abs, Min, Max, And, Or, Xor, Not, Cnot, Shl, Shr, Lop3, Bfe, Bfi,
  Popc, Clz, Brev, Prmt, Rcp, Sqrt, Rsqrt, Ex2, Lg2, Sin, Cos, Tanh, Copysign, Setp, Selp, Cvt, Cvta, Ld, St,
  Atom, Red, Bra, Ret, Exit, Trap, Bar, BarWarp, Membar, Shfl, Vote, Mma, Ldmatrix, CpAsync, CpAsyncCommit,
  CpAsyncWait, Nop
};

enum class Cmp : uint8_t { None, Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class Rnd : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };
// Mul/Mad width, shfl mode, vote mode, atomic operation: one field, read by op.
enum class Mode : uint8_t {
  None, Lo, Hi, Wide, Up, Down, Bfly, Idx, All, Any, Uni, Ballot,
  AAdd, AMin, AMax, AExch, ACas, AAnd, AOr, AXor, AInc, ADec
};
enum class Special : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ, LaneId, WarpId,
  NWarpId, SmId, NSmId, Clock, Clock64, LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe
};

struct Operand {
  enum Kind : uint8_t { None, Reg, Imm, Addr, Vec, Spec, Sink } kind = None;
  bool negate = false;   // "!%p" as a predicate source
  int32_t reg = -1;      // Reg; Addr base register (-1: none)
  uint64_t imm = 0;      // Imm bits; Addr byte offset (symbol's address folded in)
  Space symSpace = Space::Generic; // Addr/Imm naming a symbol: its space
  Special spec{};
  std::vector<int32_t> regs; // Vec: slots, -1 for "_"
};

// Statistics kind of an instruction (tk_cuda_emu_kind).
enum class Kind : uint8_t { Int, Float, Global, Shared, Local, Control, Sync, Warp, Tensor, Async };

struct Instr {
  Op op = Op::Nop;
  Type type = Type::None;   // result / operation type
  Type type2 = Type::None;  // cvt source; mma A/B element type
  Space space = Space::Generic;
  Cmp cmp = Cmp::None;
  BoolOp boolOp = BoolOp::None;
  Rnd rnd = Rnd::None;
  Mode mode = Mode::None;
  uint8_t vec = 1;          // ld/st .v2/.v4; ldmatrix .x1/.x2/.x4
  bool ftz = false, sat = false, trans = false, approx = false;
  bool pair = false;        // "d|p": ops[1] is a second (predicate) destination
  int32_t guard = -1;       // predicate slot guarding the instruction
  bool guardNeg = false;
  int32_t target = -1;      // bra: instruction index
  Kind kind = Kind::Int;
  std::vector<Operand> ops;
  int line = 0;             // 1-based line in the PTX text
};

struct Param {
  std::string name;
  uint32_t offset = 0, size = 0;
};

struct SharedVar {
  std::string name;
  uint32_t align = 1, size = 0; // size 0 with dynamic = the extern array
  bool dynamic = false;
};

struct Kernel {
  std::string name;
  std::vector<Instr> code;
  std::vector<Param> params;
  uint32_t paramBytes = 0;
  uint32_t numSlots = 0;          // register slots
  std::vector<uint8_t> slotUnits; // per slot: 32-bit units (0 for predicates)
  uint32_t liveRegs = 0;          // most 32-bit units live at once (PtxRegisters)
  uint32_t staticShared = 0;      // bytes of the statically sized shared variables it uses
  uint32_t localBytes = 0;        // per thread
  uint32_t maxThreads = 1024;     // .maxntid product, if given
  std::vector<std::string> lines; // PTX source lines (messages)
  // Where the extern (dynamic) shared array starts: after the static
  // variables, 16-byte aligned.
  uint32_t dynamicSharedOffset() const { return (staticShared + 15) / 16 * 16; }
};

// A module: kernels by name, and module-scope .global variables (allocated
// by the driver when the module loads; their addresses are folded into the
// code as immediates).
struct Module {
  std::map<std::string, Kernel> kernels;
  std::vector<std::vector<uint8_t>> globals; // storage of .global variables
};

// Special-register windows that make a generic address tell its space
// (cvta): host pointers stay below 2^47, so these never collide.
constexpr uint64_t kSharedWindow = 1ull << 56, kLocalWindow = 2ull << 56, kParamWindow = 3ull << 56;
constexpr uint64_t kWindowMask = 0xffull << 56;

} // namespace tk::cuemu
