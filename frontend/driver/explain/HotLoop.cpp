#include "frontend/driver/explain/HotLoop.h"

#include <charconv>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace tk::explain {

namespace {

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}


// The function a line opens, or "": x86 assembly declares each one with
// `.type NAME,@function` (task bodies outlined from an export are local:
// `.Lmm.tile0`), PTX opens it with an `.entry` or `.func` header.
std::string functionOpened(const std::string &line) {
  if (size_t type = line.find(".type"); type != std::string::npos && line.find("@function") != std::string::npos) {
    size_t begin = line.find_first_not_of(" \t", type + 5), end = line.find(',', begin);
    std::string name = line.substr(begin, end - begin);
    return name.starts_with(".L") ? name.substr(2) : name;
  }
  for (const char *kw : {".entry ", ".func "}) {
    size_t at = line.find(kw);
    if (at == std::string::npos || line.find('(') == std::string::npos) continue;
    size_t begin = at + std::string(kw).size();
    size_t end = line.find_first_of(" (", begin);
    return line.substr(begin, end - begin);
  }
  return "";
}

bool closesFunction(const std::string &line) { return line.starts_with(".Lfunc_end") || line == "}"; }

// A local label a line defines (`.LBB0_3:`, `$L__BB0_3:`), or "".
std::string labelDefined(const std::string &line) {
  if (line.empty() || line.back() != ':' || (line[0] != '.' && line[0] != '$')) return "";
  return line.substr(0, line.size() - 1);
}

// The instruction's mnemonic and first operand: leading blanks and a PTX
// guard predicate (`@%p1`, `@!%p1`) skipped.
std::pair<std::string, std::string> instruction(const std::string &line) {
  std::istringstream in(line);
  std::string mnemonic, operand;
  in >> mnemonic;
  if (!mnemonic.empty() && mnemonic[0] == '@') in >> mnemonic;
  in >> operand;
  if (!operand.empty() && operand.back() == ';') operand.pop_back();
  return {mnemonic, operand};
}

// The label a branch on this line jumps to (x86 `jne .LBB0_3`, PTX
// `bra.uni $L__BB0_3;`), or "".
std::string branchTarget(const std::string &line) {
  auto [mnemonic, operand] = instruction(line);
  bool branch = (!mnemonic.empty() && mnemonic[0] == 'j') || mnemonic == "bra" || mnemonic == "bra.uni";
  return branch && !operand.empty() && (operand[0] == '.' || operand[0] == '$') ? operand : "";
}

// Whether the instruction does the arithmetic a kernel is for: vector FMAs,
// multiplies and adds, byte dot products (x86); FMAs, MMAs, float
// multiplies and adds (PTX).
bool isArithmetic(const std::string &line) {
  std::string mnemonic = instruction(line).first;
  for (const char *p : {"vfmadd", "vfnmadd", "vfmsub", "vpdpbusd", "vmulp", "vaddp", "vmuls", "vadds", "fma.",
                        "mma.", "wgmma.", "mul.f", "mul.rn.f", "add.f", "add.rn.f"})
    if (mnemonic.starts_with(p)) return true;
  return false;
}

} // namespace

long deviceKernelIndex(std::string_view name, std::string_view symbol) {
  if (name.size() < symbol.size() + 3 || !name.starts_with(symbol) || name.substr(symbol.size(), 2) != "_k") return -1;
  long n = 0;
  const char *b = name.data() + symbol.size() + 2, *e = name.data() + name.size();
  auto [p, ec] = std::from_chars(b, e, n);
  return ec == std::errc() && p == e ? n : -1;
}

// The functions export `symbol` runs: those named for it, and the
// functions they call or tail-call (x86 `call .Lf`, `jmp f`),
// transitively. LLVM's MergeFunctions leaves an export calling another
// export's register tile, or a task body that only jumps to another
// export's, where the two were alike.
static std::set<std::string> exportFunctions(const std::vector<std::string> &lines, const std::string &symbol) {
  std::map<std::string, std::set<std::string>> calls;
  std::set<std::string> reached, all;
  std::string function;
  for (const std::string &line : lines) {
    if (std::string opened = functionOpened(line); !opened.empty()) {
      function = opened;
      all.insert(opened);
      if (opened == symbol || opened.starts_with(symbol + ".") || deviceKernelIndex(opened, symbol) >= 0)
        reached.insert(opened);
      continue;
    }
    if (closesFunction(line)) function.clear();
    auto [mnemonic, operand] = instruction(line);
    if (!function.empty() && (mnemonic.starts_with("call") || mnemonic == "jmp") && !operand.empty())
      calls[function].insert(operand.starts_with(".L") ? operand.substr(2) : operand);
  }
  for (std::vector<std::string> work(reached.begin(), reached.end()); !work.empty();) {
    std::string f = work.back();
    work.pop_back();
    for (const std::string &callee : calls[f]) // a jump to a label of f itself is no call
      if (all.count(callee) && reached.insert(callee).second) work.push_back(callee);
  }
  return reached;
}

std::optional<HotLoop> findHotLoop(const std::string &text, const std::string &symbol) {
  std::vector<std::string> lines = splitLines(text);
  std::set<std::string> functions = exportFunctions(lines, symbol);
  struct Loop {
    size_t first, last;
    std::string function;
  };
  std::vector<Loop> loops;
  std::string function;
  std::map<std::string, size_t> labels; // of the current function
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string opened = functionOpened(lines[i]);
    if (!opened.empty()) {
      function = functions.count(opened) ? opened : "";
      labels.clear();
      continue;
    }
    if (closesFunction(lines[i])) function.clear();
    if (function.empty()) continue;
    if (std::string l = labelDefined(lines[i]); !l.empty()) labels[l] = i;
    if (std::string t = branchTarget(lines[i]); !t.empty())
      if (auto it = labels.find(t); it != labels.end()) loops.push_back({it->second, i, function});
  }
  std::optional<HotLoop> best;
  for (const Loop &l : loops) {
    bool innermost = true;
    for (const Loop &o : loops)
      if (&o != &l && o.first >= l.first && o.last <= l.last) innermost = false;
    if (!innermost) continue;
    HotLoop h{l.function, static_cast<int>(l.first) + 1, "", 0};
    for (size_t i = l.first; i <= l.last; ++i) {
      h.text += lines[i] + "\n";
      h.arithmetic += isArithmetic(lines[i]) ? 1 : 0;
    }
    if (!best || h.arithmetic > best->arithmetic) best = std::move(h);
  }
  return best;
}

} // namespace tk::explain
