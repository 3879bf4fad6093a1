#include "PtxParser.h"

#include "PtxOpcode.h"
#include "PtxOperands.h"
#include "PtxRegisters.h"
#include "PtxStatements.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace tk::cuemu {

namespace {

struct ParseError {
  std::string message;
};

[[noreturn]] void fail(int line, const std::string &msg) { throw ParseError{fmt::format("line {}: {}", line, msg)}; }

uint32_t alignUp(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

struct SymbolInfo {
  Space space;
  uint64_t address = 0; // param/local: offset; global: host pointer; shared: resolved per kernel
  uint32_t align = 1, size = 0;
  bool dynamic = false;
};

class Parser {
public:
  explicit Parser(Module *m) : mod(m) {}

  void run(const std::vector<Statement> &st) {
    for (size_t i = 0; i < st.size(); ++i) {
      const Statement &s = st[i];
      if (s.kind == Statement::Open) { // a function body whose header we skipped (.func)
        i = skipBlock(st, i);
        continue;
      }
      if (s.kind != Statement::Text) fail(s.line, "unexpected '" + s.text + "' at module scope");
      std::vector<std::string> w = splitWords(s.text);
      if (w.empty()) continue;
      const std::string &d = w[0];
      if (d == ".version" || d == ".target" || d == ".address_size" || d == ".file") continue;
      if (s.text.find(".entry") != std::string::npos) {
        if (i + 1 >= st.size() || st[i + 1].kind != Statement::Open) fail(s.line, "kernel declaration without a body");
        i = kernel(st, i);
        continue;
      }
      if (s.text.find(".func") != std::string::npos) continue; // bodies skipped; a call to one is refused
      variable(s, w, nullptr);
    }
  }

private:
  Module *mod;
  std::unordered_map<std::string, SymbolInfo> moduleSyms;

  static size_t skipBlock(const std::vector<Statement> &st, size_t open) {
    int depth = 0;
    for (size_t i = open; i < st.size(); ++i) {
      if (st[i].kind == Statement::Open) ++depth;
      if (st[i].kind == Statement::Close && --depth == 0) return i;
    }
    fail(st[open].line, "block without '}'");
  }

  // .global/.const/.shared/.local declarations (module or kernel scope).
  void variable(const Statement &s, const std::vector<std::string> &w, Kernel *k) {
    SymbolInfo info{};
    bool haveSpace = false, external = false;
    std::string name;
    uint32_t elemBytes = 1;
    for (size_t j = 0; j < w.size(); ++j) {
      const std::string &x = w[j];
      if (x == ".visible" || x == ".weak" || x == ".common") continue;
      if (x == ".extern") { external = true; continue; }
      if (x == ".global" || x == ".const" || x == ".shared" || x == ".local") {
        info.space = x == ".global" ? Space::Global : x == ".const" ? Space::Const : x == ".shared" ? Space::Shared : Space::Local;
        haveSpace = true;
        continue;
      }
      if (x == ".align" && j + 1 < w.size()) { info.align = static_cast<uint32_t>(std::atoi(w[++j].c_str())); continue; }
      if (x == "=") fail(s.line, "initialized variables are not implemented by the executor");
      Type t = parseType(x);
      if (t != Type::None) { elemBytes = static_cast<uint32_t>(typeBytes(t)); continue; }
      if (x[0] == '.') fail(s.line, fmt::format("directive '{}' is not implemented by the executor", x));
      name = x;
    }
    if (!haveSpace || name.empty()) fail(s.line, fmt::format("cannot read the declaration '{}'", s.text));
    uint32_t count = 1;
    size_t br = name.find('[');
    if (br != std::string::npos) {
      std::string n = name.substr(br + 1, name.find(']') - br - 1);
      if (n.empty()) info.dynamic = true;
      else count = static_cast<uint32_t>(std::strtoul(n.c_str(), nullptr, 10));
      name = name.substr(0, br);
    }
    info.size = count * elemBytes;
    info.align = std::max(info.align, elemBytes);
    if (info.dynamic && !(info.space == Space::Shared && external)) fail(s.line, "only extern .shared arrays may be unsized");
    if (info.space == Space::Global || info.space == Space::Const) {
      mod->globals.emplace_back(info.size + 16, 0);
      info.address = reinterpret_cast<uint64_t>(mod->globals.back().data());
      info.space = Space::Global; // constant memory is read-only global memory here
    } else if (info.space == Space::Local) {
      if (!k) fail(s.line, ".local variables at module scope are not implemented");
      k->localBytes = alignUp(k->localBytes, info.align);
      info.address = k->localBytes;
      k->localBytes += info.size;
    }
    (k ? kernelSyms : moduleSyms)[name] = info;
  }

  // ---- kernels ----
  std::unordered_map<std::string, SymbolInfo> kernelSyms;
  std::vector<std::unordered_map<std::string, int>> scopes;
  std::unordered_map<std::string, uint64_t> sharedOffsets; // shared symbols this kernel uses
  std::vector<std::pair<size_t, size_t>> dynamicUses;      // (instr, operand) using the extern array
  std::unordered_map<std::string, int> labels;
  std::vector<std::pair<size_t, std::string>> branches;

  size_t kernel(const std::vector<Statement> &st, size_t at) {
    const Statement &h = st[at];
    size_t lp = h.text.find('('), rp = h.text.rfind(')');
    std::vector<std::string> hw = splitWords(h.text.substr(0, lp == std::string::npos ? h.text.size() : lp));
    Kernel k;
    k.name = hw.back();
    kernelSyms.clear();
    scopes.assign(1, {});
    sharedOffsets.clear();
    dynamicUses.clear();
    labels.clear();
    branches.clear();
    if (lp != std::string::npos && rp != std::string::npos) params(h, h.text.substr(lp + 1, rp - lp - 1), &k);
    std::string after = rp == std::string::npos ? "" : h.text.substr(rp + 1);
    if (size_t m = after.find(".maxntid"); m != std::string::npos) {
      std::vector<std::string> mw = splitWords(after.substr(m + 8));
      uint32_t prod = 1;
      for (size_t j = 0; j < mw.size() && j < 3 && std::isdigit(static_cast<unsigned char>(mw[j][0])); ++j)
        prod *= static_cast<uint32_t>(std::atoi(mw[j].c_str()));
      k.maxThreads = prod;
    }
    size_t end = skipBlock(st, at + 1);
    for (size_t i = at + 2; i < end; ++i) {
      const Statement &s = st[i];
      k.lines.resize(std::max<size_t>(k.lines.size(), static_cast<size_t>(s.line) + 1));
      k.lines[static_cast<size_t>(s.line)] = s.text;
      switch (s.kind) {
      case Statement::Open: scopes.emplace_back(); break;
      case Statement::Close: scopes.pop_back(); break;
      case Statement::Label:
        if (labels.count(s.text)) fail(s.line, fmt::format("label '{}' defined twice", s.text));
        labels[s.text] = static_cast<int>(k.code.size());
        break;
      case Statement::Text: bodyStatement(s, &k); break;
      }
    }
    for (auto &[idx, name] : branches) {
      auto it = labels.find(name);
      if (it == labels.end()) fail(k.code[idx].line, fmt::format("branch to undefined label '{}'", name));
      k.code[idx].target = it->second;
    }
    // Shared layout: statically sized variables first, the extern array after them.
    for (auto &[idx, op] : dynamicUses) k.code[idx].ops[op].imm += k.dynamicSharedOffset();
    // Falling off the end of the body returns.
    Instr ret;
    ret.op = Op::Ret;
    ret.kind = Kind::Control;
    ret.line = st[end].line;
    k.code.push_back(ret);
    k.liveRegs = maxLiveRegisters(k);
    mod->kernels[k.name] = std::move(k);
    return end;
  }

  void params(const Statement &h, const std::string &list, Kernel *k) {
    for (const std::string &p : splitOperands(list)) {
      std::vector<std::string> w = splitWords(p);
      uint32_t align = 0, bytes = 0, count = 1;
      std::string name;
      for (size_t j = 0; j < w.size(); ++j) {
        if (w[j] == ".param" || w[j] == ".ptr" || w[j] == ".global" || w[j] == ".shared" || w[j] == ".const" ||
            w[j] == ".local")
          continue;
        if (w[j] == ".align" && j + 1 < w.size()) { align = static_cast<uint32_t>(std::atoi(w[++j].c_str())); continue; }
        Type t = parseType(w[j]);
        if (t != Type::None) { bytes = static_cast<uint32_t>(typeBytes(t)); continue; }
        name = w[j];
      }
      if (size_t br = name.find('['); br != std::string::npos) {
        count = static_cast<uint32_t>(std::strtoul(name.c_str() + br + 1, nullptr, 10));
        name = name.substr(0, br);
      }
      if (name.empty() || bytes == 0) fail(h.line, fmt::format("cannot read the kernel parameter '{}'", p));
      uint32_t a = std::max(align, bytes);
      k->paramBytes = alignUp(k->paramBytes, a);
      k->params.push_back({name, k->paramBytes, bytes * count});
      kernelSyms[name] = SymbolInfo{Space::Param, k->paramBytes, a, bytes * count, false};
      k->paramBytes += bytes * count;
    }
  }

  void declareRegs(const Statement &s, const std::vector<std::string> &w, Kernel *k) {
    if (w.size() < 3) fail(s.line, "cannot read the register declaration");
    Type t = parseType(w[1]);
    if (t == Type::None) fail(s.line, fmt::format("unknown register type '{}'", w[1]));
    uint32_t units = t == Type::Pred ? 0 : typeBytes(t) > 4 ? 2 : 1;
    for (size_t j = 2; j < w.size(); ++j) {
      const std::string &n = w[j];
      size_t lt = n.find('<');
      if (lt == std::string::npos) {
        scopes.back()[n] = static_cast<int>(k->numSlots++);
        k->slotUnits.push_back(static_cast<uint8_t>(units));
        continue;
      }
      int count = std::atoi(n.c_str() + lt + 1);
      std::string stem = n.substr(0, lt);
      for (int r = 0; r < count; ++r) {
        scopes.back()[stem + std::to_string(r)] = static_cast<int>(k->numSlots++);
        k->slotUnits.push_back(static_cast<uint8_t>(units));
      }
    }
  }

  void bodyStatement(const Statement &s, Kernel *k) {
    std::vector<std::string> w = splitWords(s.text);
    if (w[0] == ".reg") return declareRegs(s, w, k);
    if (w[0] == ".pragma" || w[0] == ".loc" || w[0] == ".file") return;
    if (w[0] == ".shared" || w[0] == ".local" || w[0] == ".global" || w[0] == ".const" || w[0] == ".extern" ||
        w[0] == ".align")
      return variable(s, w, k);
    if (w[0][0] == '.') fail(s.line, fmt::format("directive '{}' is not implemented by the executor", w[0]));
    Instr in;
    in.line = s.line;
    std::string text = s.text;
    if (text[0] == '@') {
      size_t sp = text.find(' ');
      std::string g = text.substr(1, sp - 1);
      in.guardNeg = g[0] == '!';
      in.guard = reg(s, in.guardNeg ? g.substr(1) : g);
      text = text.substr(sp + 1);
    }
    size_t sp = text.find(' ');
    std::string opcode = text.substr(0, sp);
    if (opcode == "call" || opcode.rfind("call.", 0) == 0) fail(s.line, "calls are not implemented by the executor (inline the function)");
    std::string why;
    if (!decodeOpcode(opcode, &in, &why)) fail(s.line, why);
    std::string rest = sp == std::string::npos ? "" : text.substr(sp + 1);
    for (std::string o : splitOperands(rest)) {
      size_t bar = o.find('|');
      if (bar != std::string::npos && o[0] != '[') {
        in.ops.push_back(operand(s, o.substr(0, bar), in, k));
        in.ops.push_back(operand(s, o.substr(bar + 1), in, k));
        in.pair = true;
        continue;
      }
      if (in.op == Op::Bra) {
        branches.emplace_back(k->code.size(), o);
        continue;
      }
      in.ops.push_back(operand(s, o, in, k));
    }
    if (in.op == Op::Bra && (branches.empty() || branches.back().first != k->code.size()))
      fail(s.line, "bra without a target label");
    if (std::string why; !checkOperands(in, &why)) fail(s.line, fmt::format("'{}': {}", opcode, why));
    k->code.push_back(std::move(in));
  }

  int reg(const Statement &s, const std::string &name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    fail(s.line, fmt::format("register '{}' is not declared", name));
  }

  // A symbol's address in its own space (or a host pointer for globals).
  bool symbol(const Statement &s, const std::string &name, Operand *o, Kernel *k, size_t opIndex) {
    const SymbolInfo *info = nullptr;
    if (auto it = kernelSyms.find(name); it != kernelSyms.end()) info = &it->second;
    else if (auto jt = moduleSyms.find(name); jt != moduleSyms.end()) info = &jt->second;
    if (!info) return false;
    o->symSpace = info->space;
    if (info->space == Space::Shared) {
      if (info->dynamic) {
        dynamicUses.emplace_back(k->code.size(), opIndex);
        o->imm = 0;
        return true;
      }
      auto it = sharedOffsets.find(name);
      if (it == sharedOffsets.end()) {
        k->staticShared = alignUp(k->staticShared, info->align);
        it = sharedOffsets.emplace(name, k->staticShared).first;
        k->staticShared += info->size;
      }
      o->imm = it->second;
      return true;
    }
    (void)s;
    o->imm = info->address;
    return true;
  }

  uint64_t immediate(const Statement &s, const std::string &t, const Instr &in) {
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F'))
      return std::strtoull(t.c_str() + 2, nullptr, 16);
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'd' || t[1] == 'D'))
      return std::strtoull(t.c_str() + 2, nullptr, 16);
    int64_t v;
    if (parseInteger(t, &v)) return static_cast<uint64_t>(v);
    char *end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (end && !*end && end != t.c_str()) {
      if (in.type == Type::F64) { uint64_t b; std::memcpy(&b, &d, 8); return b; }
      float f = static_cast<float>(d);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    fail(s.line, fmt::format("cannot read the operand '{}'", t));
  }

  Operand operand(const Statement &s, const std::string &t, const Instr &in, Kernel *k) {
    Operand o;
    size_t idx = in.ops.size();
    if (t == "_") { o.kind = Operand::Sink; return o; }
    if (t[0] == '{') {
      o.kind = Operand::Vec;
      for (const std::string &e : splitOperands(t.substr(1, t.size() - 2)))
        o.regs.push_back(e == "_" ? -1 : reg(s, e));
      return o;
    }
    if (t[0] == '[') {
      o.kind = Operand::Addr;
      std::string inner = t.substr(1, t.size() - 2);
      std::string base = inner, off;
      size_t plus = inner.find('+', 1);
      if (plus != std::string::npos) {
        base = inner.substr(0, plus);
        off = inner.substr(plus + 1);
      }
      while (!base.empty() && base.back() == ' ') base.pop_back();
      int64_t v = 0;
      if (!off.empty()) {
        std::string o2 = off;
        while (!o2.empty() && o2[0] == ' ') o2.erase(0, 1);
        if (!parseInteger(o2, &v)) fail(s.line, fmt::format("cannot read the address '{}'", t));
      }
      if (base[0] == '%') {
        o.reg = reg(s, base);
      } else if (int64_t lit; parseInteger(base, &lit)) {
        v += lit;
      } else if (!symbol(s, base, &o, k, idx)) {
        fail(s.line, fmt::format("'{}' is not a declared variable or parameter", base));
      }
      o.imm += static_cast<uint64_t>(v);
      return o;
    }
    if (t[0] == '!') {
      o = operand(s, t.substr(1), in, k);
      o.negate = true;
      return o;
    }
    if (t[0] == '%') {
      if (parseSpecial(t, &o.spec)) { o.kind = Operand::Spec; return o; }
      o.kind = Operand::Reg;
      o.reg = reg(s, t);
      return o;
    }
    if (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-' || t[0] == '.') {
      o.kind = Operand::Imm;
      o.imm = immediate(s, t, in);
      return o;
    }
    o.kind = Operand::Imm;
    if (!symbol(s, t, &o, k, idx)) fail(s.line, fmt::format("'{}' is not a declared variable or parameter", t));
    return o;
  }
};

} // namespace

bool parseModule(const std::string &ptx, Module *out, std::string *error) {
  std::vector<Statement> st = splitStatements(ptx, error);
  if (!error->empty()) return false;
  try {
    Parser(out).run(st);
  } catch (const ParseError &e) {
    *error = e.message;
    return false;
  }
  return true;
}

} // namespace tk::cuemu
