#include "PtxOpcode.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>
#include <set>
#include <sstream>

namespace tk::cuemu {

int typeBytes(Type t) {
  switch (t) {
  case Type::Pred: return 1;
  case Type::B8: case Type::U8: case Type::S8: return 1;
  case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16: return 2;
  case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2: case Type::BF16x2: return 4;
  case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 8;
  case Type::None: return 0;
  }
  return 0;
}

bool isFloat(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 || t == Type::F32 || t == Type::F64;
}

bool isSigned(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

Type parseType(const std::string &m) {
  static const std::map<std::string, Type> types = {
      {".pred", Type::Pred}, {".b8", Type::B8},     {".b16", Type::B16},   {".b32", Type::B32},
      {".b64", Type::B64},   {".u8", Type::U8},     {".u16", Type::U16},   {".u32", Type::U32},
      {".u64", Type::U64},   {".s8", Type::S8},     {".s16", Type::S16},   {".s32", Type::S32},
      {".s64", Type::S64},   {".f16", Type::F16},   {".f16x2", Type::F16x2}, {".bf16", Type::BF16},
      {".bf16x2", Type::BF16x2}, {".f32", Type::F32}, {".f64", Type::F64}};
  auto it = types.find(m);
  return it == types.end() ? Type::None : it->second;
}

namespace {

const std::map<std::string, Op> &baseOps() {
  static const std::map<std::string, Op> ops = {
      {"mov", Op::Mov},     {"add", Op::Add},       {"sub", Op::Sub},       {"mul", Op::Mul},
      {"mad", Op::Mad},     {"fma", Op::Fma},       {"div", Op::Div},       {"rem", Op::Rem},
      {"neg", Op::Neg},     {"abs", Op::Abs},       {"min", Op::Min},       {"max", Op::Max},
      {"and", Op::And},     {"or", Op::Or},         {"xor", Op::Xor},       {"not", Op::Not},
      {"cnot", Op::Cnot},   {"shl", Op::Shl},       {"shr", Op::Shr},       {"lop3", Op::Lop3},
      {"bfe", Op::Bfe},     {"bfi", Op::Bfi},       {"popc", Op::Popc},     {"clz", Op::Clz},
      {"brev", Op::Brev},   {"prmt", Op::Prmt},     {"rcp", Op::Rcp},       {"sqrt", Op::Sqrt},
      {"rsqrt", Op::Rsqrt}, {"ex2", Op::Ex2},       {"lg2", Op::Lg2},       {"sin", Op::Sin},
      {"cos", Op::Cos},     {"tanh", Op::Tanh},     {"copysign", Op::Copysign}, {"setp", Op::Setp},
      {"selp", Op::Selp},   {"cvt", Op::Cvt},       {"cvta", Op::Cvta},     {"ld", Op::Ld},
      {"ldu", Op::Ld},      {"st", Op::St},         {"atom", Op::Atom},     {"red", Op::Red},
      {"bra", Op::Bra},     {"ret", Op::Ret},       {"exit", Op::Exit},     {"trap", Op::Trap},
      {"bar", Op::Bar},     {"barrier", Op::Bar},   {"membar", Op::Membar}, {"fence", Op::Membar},
      {"shfl", Op::Shfl},   {"vote", Op::Vote},     {"mma", Op::Mma},       {"ldmatrix", Op::Ldmatrix},
      {"cp", Op::CpAsync},  {"prefetch", Op::Nop},  {"prefetchu", Op::Nop}};
  return ops;
}

// Modifiers that change nothing an emulator can observe: cache and
// eviction hints, memory-model scopes and orders (execution here is
// sequentially consistent per block and atomics are real atomics), and the
// alignment/sync promises checked elsewhere.
bool ignorable(const std::string &m) {
  static const std::set<std::string> mods = {
      ".ca",       ".cg",        ".cs",      ".lu",      ".cv",       ".wb",      ".wt",      ".volatile",
      ".relaxed",  ".acquire",   ".release", ".acq_rel", ".weak",     ".gpu",     ".cta",     ".sys",
      ".sync",     ".aligned",   ".uni",     ".full",    ".nc",       ".mmio",    ".sc",      ".noftz"};
  return mods.count(m) || m.rfind(".L1::", 0) == 0 || m.rfind(".L2::", 0) == 0;
}

const std::map<std::string, Cmp> &cmps() {
  static const std::map<std::string, Cmp> c = {
      {".eq", Cmp::Eq},   {".ne", Cmp::Ne},   {".lt", Cmp::Lt},   {".le", Cmp::Le},   {".gt", Cmp::Gt},
      {".ge", Cmp::Ge},   {".lo", Cmp::Lo},   {".ls", Cmp::Ls},   {".hi", Cmp::Hi},   {".hs", Cmp::Hs},
      {".equ", Cmp::Equ}, {".neu", Cmp::Neu}, {".ltu", Cmp::Ltu}, {".leu", Cmp::Leu}, {".gtu", Cmp::Gtu},
      {".geu", Cmp::Geu}, {".num", Cmp::Num}, {".nan", Cmp::Nan}};
  return c;
}

const std::map<std::string, Rnd> &rnds() {
  static const std::map<std::string, Rnd> r = {{".rn", Rnd::Rn},   {".rz", Rnd::Rz},   {".rm", Rnd::Rm},
                                                {".rp", Rnd::Rp},   {".rni", Rnd::Rni}, {".rzi", Rnd::Rzi},
                                                {".rmi", Rnd::Rmi}, {".rpi", Rnd::Rpi}};
  return r;
}

Space parseSpace(const std::string &m) {
  if (m == ".global") return Space::Global;
  if (m == ".shared" || m == ".shared::cta") return Space::Shared;
  if (m == ".local") return Space::Local;
  if (m == ".param" || m == ".param::entry") return Space::Param;
  if (m == ".const") return Space::Const;
  return Space::Generic;
}

Kind kindOf(const Instr &in) {
  switch (in.op) {
  case Op::Ld: case Op::St: case Op::Atom: case Op::Red:
    return in.space == Space::Shared ? Kind::Shared
           : in.space == Space::Local || in.space == Space::Param ? Kind::Local : Kind::Global;
  case Op::Ldmatrix: return Kind::Shared;
  case Op::Bra: case Op::Ret: case Op::Exit: case Op::Trap: return Kind::Control;
  case Op::Bar: case Op::Membar: case Op::CpAsyncCommit: case Op::CpAsyncWait: return Kind::Sync;
  case Op::Shfl: case Op::Vote: case Op::BarWarp: return Kind::Warp;
  case Op::Mma: return Kind::Tensor;
  case Op::CpAsync: return Kind::Async;
  case Op::Cvt: case Op::Setp: case Op::Selp: case Op::Mov: return isFloat(in.type) ? Kind::Float : Kind::Int;
  default: return isFloat(in.type) ? Kind::Float : Kind::Int;
  }
}

} // namespace

bool decodeOpcode(const std::string &opcode, Instr *in, std::string *why) {
  std::vector<std::string> parts;
  size_t dot = opcode.find('.');
  std::string base = opcode.substr(0, dot);
  for (size_t p = dot; p != std::string::npos;) {
    size_t q = opcode.find('.', p + 1);
    // "::" qualifiers stay with their modifier (.shared::cta, .L2::128B).
    while (q != std::string::npos && q >= 2 && opcode.compare(q - 2, 2, "::") == 0) q = opcode.find('.', q + 1);
    parts.push_back(opcode.substr(p, q == std::string::npos ? std::string::npos : q - p));
    p = q;
  }
  auto bit = baseOps().find(base);
  if (bit == baseOps().end()) {
    *why = fmt::format("instruction '{}' is not implemented by the executor", base);
    return false;
  }
  in->op = bit->second;
  std::vector<Type> types;
  std::string cpSub;
  for (const std::string &m : parts) {
    Type t = parseType(m);
    if (t != Type::None) {
      types.push_back(t);
      continue;
    }
    Space sp = parseSpace(m);
    if (sp != Space::Generic) {
      if (in->op != Op::CpAsync || in->space == Space::Generic) in->space = sp; // cp.async: the destination's

      continue;
    }
    if (in->op == Op::Setp && cmps().count(m)) { in->cmp = cmps().at(m); continue; }
    if (rnds().count(m)) { in->rnd = rnds().at(m); continue; }
    if (m == ".ftz") { in->ftz = true; continue; }
    if (m == ".sat") { in->sat = true; continue; }
    if (m == ".approx") { in->approx = true; continue; }
    if (m == ".v2" || m == ".v4") { in->vec = static_cast<uint8_t>(m[2] - '0'); continue; }
    if (in->op == Op::Setp && (m == ".and" || m == ".or" || m == ".xor")) {
      in->boolOp = m == ".and" ? BoolOp::And : m == ".or" ? BoolOp::Or : BoolOp::Xor;
      continue;
    }
    if ((in->op == Op::Mul || in->op == Op::Mad) && (m == ".lo" || m == ".hi" || m == ".wide")) {
      in->mode = m == ".lo" ? Mode::Lo : m == ".hi" ? Mode::Hi : Mode::Wide;
      continue;
    }
    if (in->op == Op::Shfl && (m == ".up" || m == ".down" || m == ".bfly" || m == ".idx")) {
      in->mode = m == ".up" ? Mode::Up : m == ".down" ? Mode::Down : m == ".bfly" ? Mode::Bfly : Mode::Idx;
      continue;
    }
    if (in->op == Op::Vote && (m == ".all" || m == ".any" || m == ".uni" || m == ".ballot")) {
      in->mode = m == ".all" ? Mode::All : m == ".any" ? Mode::Any : m == ".uni" ? Mode::Uni : Mode::Ballot;
      continue;
    }
    if (in->op == Op::Atom || in->op == Op::Red) {
      static const std::map<std::string, Mode> am = {{".add", Mode::AAdd}, {".min", Mode::AMin},  {".max", Mode::AMax},
                                                     {".exch", Mode::AExch}, {".cas", Mode::ACas}, {".and", Mode::AAnd},
                                                     {".or", Mode::AOr},   {".xor", Mode::AXor},  {".inc", Mode::AInc},
                                                     {".dec", Mode::ADec}};
      if (am.count(m)) { in->mode = am.at(m); continue; }
    }
    if (in->op == Op::Cvta && m == ".to") { in->mode = Mode::Down; continue; } // to a space from generic
    if (in->op == Op::Bar && m == ".warp") { in->op = Op::BarWarp; continue; }
    if (in->op == Op::Bar && (m == ".sync" || m == ".arrive" || m == ".red")) {
      if (m != ".sync") { *why = fmt::format("'{}' is not implemented (only bar.sync)", opcode); return false; }
      continue;
    }
    if (in->op == Op::Ldmatrix && (m == ".x1" || m == ".x2" || m == ".x4")) { in->vec = static_cast<uint8_t>(m[2] - '0'); continue; }
    if (in->op == Op::Ldmatrix && (m == ".m8n8")) continue;
    if ((in->op == Op::Ldmatrix) && m == ".trans") { in->trans = true; continue; }
    if (in->op == Op::Mma && (m == ".m16n8k16" || m == ".row" || m == ".col")) {
      if (m == ".m16n8k16") in->vec = 16;
      continue;
    }
    if (in->op == Op::CpAsync && (m == ".async" || m == ".commit_group" || m == ".wait_group" || m == ".wait_all")) {
      cpSub = m;
      continue;
    }
    if (in->op == Op::Membar && (m == ".proxy" || m == ".async")) continue;
    if ((in->op == Op::Div || in->op == Op::Rcp || in->op == Op::Sqrt) && m == ".full") { in->approx = true; continue; }
    if (ignorable(m)) continue;
    *why = fmt::format("modifier '{}' of '{}' is not implemented by the executor", m, opcode);
    return false;
  }
  // Operation types: cvt has destination then source; mma d, a, b, c.
  if (!types.empty()) in->type = types[0];
  if (types.size() >= 2) in->type2 = types[1];
  if (in->op == Op::Cvt && types.size() != 2) { *why = fmt::format("'{}': cvt needs two types", opcode); return false; }
  if (in->op == Op::Mma) {
    bool ok = in->vec == 16 && types.size() == 4 && types[0] == Type::F32 && types[3] == Type::F32 &&
              types[1] == types[2] && (types[1] == Type::F16 || types[1] == Type::BF16) &&
              opcode.find(".row.col") != std::string::npos;
    if (!ok) { *why = fmt::format("'{}': only mma m16n8k16 .row.col with f32 accumulators and f16/bf16 inputs is implemented", opcode); return false; }
  }
  if (in->op == Op::CpAsync) {
    if (cpSub == ".commit_group") in->op = Op::CpAsyncCommit;
    else if (cpSub == ".wait_group" || cpSub == ".wait_all") {
      in->op = Op::CpAsyncWait;
      in->mode = cpSub == ".wait_all" ? Mode::All : Mode::None;
    } else if (cpSub != ".async" || in->space != Space::Shared) {
      *why = fmt::format("'{}' is not implemented (cp.async.ca|cg.shared.global, commit_group, wait_group)", opcode);
      return false;
    }
  }
  if (in->op == Op::Ldmatrix && (in->space != Space::Shared || in->type != Type::B16)) {
    *why = fmt::format("'{}': only ldmatrix.m8n8 .shared .b16 is implemented", opcode);
    return false;
  }
  if ((in->op == Op::Atom || in->op == Op::Red) && in->mode == Mode::None) {
    *why = fmt::format("'{}': atomic operation missing", opcode);
    return false;
  }
  in->kind = kindOf(*in);
  return true;
}

bool parseSpecial(const std::string &n, Special *out) {
  static const std::unordered_map<std::string, Special> sp = {
      {"%tid.x", Special::TidX},       {"%tid.y", Special::TidY},         {"%tid.z", Special::TidZ},
      {"%ntid.x", Special::NtidX},     {"%ntid.y", Special::NtidY},       {"%ntid.z", Special::NtidZ},
      {"%ctaid.x", Special::CtaidX},   {"%ctaid.y", Special::CtaidY},     {"%ctaid.z", Special::CtaidZ},
      {"%nctaid.x", Special::NctaidX}, {"%nctaid.y", Special::NctaidY},   {"%nctaid.z", Special::NctaidZ},
      {"%laneid", Special::LaneId},    {"%warpid", Special::WarpId},      {"%nwarpid", Special::NWarpId},
      {"%smid", Special::SmId},        {"%nsmid", Special::NSmId},        {"%clock", Special::Clock},
      {"%clock64", Special::Clock64},  {"%lanemask_eq", Special::LanemaskEq}, {"%lanemask_lt", Special::LanemaskLt},
      {"%lanemask_le", Special::LanemaskLe}, {"%lanemask_gt", Special::LanemaskGt},
      {"%lanemask_ge", Special::LanemaskGe}};
  auto it = sp.find(n);
  if (it == sp.end()) return false;
  *out = it->second;
  return true;
}

} // namespace tk::cuemu
