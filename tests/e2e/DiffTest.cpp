// tk_difftest: differential test of exported functions of a .tk file.
// Compiles the file with bin/tkc, loads it, calls the function on random
// shapes and inputs and compares every output with the reference
// interpreter evaluating the op's tensor IR (so a user kernel — a schedule —
// is tested against its unscheduled definition). Also checks that inputs and
// the memory around every buffer are left untouched, and that a violated
// `where` constraint or a negative derived extent returns status 1.
//
//   tk_difftest [--tkc PATH] [--libdir DIR] [--stdlib DIR] [--work DIR]
//               [--seed N] [--trials N] [--budget N] [--sizes N,N,...]
//               [--target NAME] [--tkc-flag=FLAG]... FILE SYMBOL...
//
// The file is compiled once; each SYMBOL is then tested in turn, with the
// same seed (as if tested alone).
// --sizes replaces the sizes random trials draw symbols from (ascending,
// e.g. whole tiles: `--sizes 8,16,64,72,128`); the 1 and 2039 trials stay.
// --tkc-flag passes FLAG to every tkc run (after the default flags), e.g.
// `--tkc-flag=--rank=measure` or `--tkc-flag=--shape-hint=M=64`.
// --target cuda (cuda-sm_80, ...) runs each call on device copies of the
// buffers (CudaCall.h) through the CUDA driver that libtkrt_cuda loads:
// libcuda.so.1, or $TK_CUDA_DRIVER (tkc's PTX executor in the ctests).
//
// Exit status: 0 = every check passed, 1 = a check failed, 2 = setup failed
// (usage, frontend or compile error, missing symbol).
#include "frontend/Frontend.h"
#include "tests/e2e/Compare.h"
#include "tests/e2e/CudaCall.h"
#include "tests/e2e/NativeOp.h"
#include "tests/e2e/ShapeSampler.h"

#include <algorithm>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>

using namespace tk;

namespace {

struct Options {
  std::string file;
  std::vector<std::string> symbols;
  e2e::CompileConfig compile;
  std::string stdlibDir = TK_SOURCE_STDLIB_DIR;
  uint64_t seed = 1;
  int randomTrials = 4;
  double budget = 1e5;
  std::vector<int64_t> sizes; // empty: ShapeSampler's default set
};

// "8,16,64" -> {8, 16, 64}; false unless every entry is a positive integer.
bool parseSizes(const std::string &list, std::vector<int64_t> &out) {
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception &) {
      return false;
    }
    if (used != item.size() || v < 1) return false;
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return !out.empty();
}

bool parseOptions(int argc, char **argv, Options &o) {
  o.compile.tkc = TK_DIFFTEST_TKC;
  o.compile.runtimeLibDir = TK_DIFFTEST_LIBDIR;
  o.compile.workDir = "difftest-work";
  o.compile.tkcFlags = {"-O2", "--target=host"};
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--tkc") o.compile.tkc = value();
    else if (a == "--libdir") o.compile.runtimeLibDir = value();
    else if (a == "--stdlib") o.stdlibDir = value();
    else if (a == "--work") o.compile.workDir = value();
    else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--trials") o.randomTrials = std::stoi(value());
    else if (a == "--budget") o.budget = std::stod(value());
    else if (a == "--sizes") {
      if (!parseSizes(value(), o.sizes)) return false;
    } else if (a == "--target") o.compile.tkcFlags[1] = "--target=" + value();
    else if (a.rfind("--tkc-flag=", 0) == 0) o.compile.tkcFlags.push_back(a.substr(11));
    else if (a == "--tkc-flag") o.compile.tkcFlags.push_back(value());
    else if (!a.empty() && a[0] == '-') return false;
    else positional.push_back(a);
  }
  if (positional.size() < 2) return false;
  o.file = positional[0];
  o.symbols.assign(positional.begin() + 1, positional.end());
  o.compile.tkcFlags.push_back("--stdlib=" + o.stdlibDir);
  return true;
}

std::vector<double> randomValues(ir::ScalarType t, size_t n, std::mt19937_64 &rng) {
  std::vector<double> v(n);
  std::uniform_real_distribution<double> real(-1, 1);
  std::uniform_int_distribution<int> integer(-10, 10);
  for (double &x : v) x = ir::isFloat(t) ? real(rng) : t == ir::ScalarType::Bool ? integer(rng) > 0 : integer(rng);
  return v;
}

size_t elementCount(const std::vector<int64_t> &shape) {
  size_t n = 1;
  for (int64_t x : shape) n *= static_cast<size_t>(x);
  return n;
}

enum class Outcome { Pass, Fail, Skip };

// How a trial calls the export: on the host buffers directly, or (cuda
// targets) on device copies of them (CudaCall.h).
using Caller = std::function<e2e::CallResult(std::map<std::string, e2e::TensorBuffer *> &, const ir::InterpArgs &)>;

// "returned status 3" or "synchronizing after the call failed with status 7".
std::string describeStatus(const e2e::CallResult &r) {
  if (r.failedStep.empty()) return "returned status " + std::to_string(r.status);
  return r.failedStep + " failed with status " + std::to_string(r.status);
}

// One call on the shapes in `args`: returns Pass/Fail after printing why.
Outcome runTrial(const Caller &call, const ir::Op &op, ir::InterpArgs args, bool hasRequires, std::mt19937_64 &rng) {
  std::string what = e2e::describeArgs(op, args);
  ir::InterpResult shapes = ir::computeShapes(op, args);
  std::map<std::string, std::unique_ptr<e2e::TensorBuffer>> owned;
  std::map<std::string, e2e::TensorBuffer *> buffers;
  for (const ir::Param &p : op.inputs) {
    if (p.isScalar()) continue;
    size_t n = elementCount(shapes.shapes.at(p.name));
    args.tensors[p.name] = randomValues(p.type, n, rng);
    owned[p.name] = std::make_unique<e2e::TensorBuffer>(p.type, n);
    owned[p.name]->store(args.tensors[p.name]);
  }
  for (const ir::TensorPtr &t : op.outputs) {
    owned[t->name] = std::make_unique<e2e::TensorBuffer>(t->dtype, elementCount(shapes.shapes.at(t->name)));
    owned[t->name]->fillNaN();
  }
  for (auto &[name, b] : owned) buffers[name] = b.get();

  ir::InterpResult ref = ir::interpret(op, args);
  e2e::CallResult called = call(buffers, args);
  if (called.status == 2 && called.failedStep.empty() && hasRequires) {
    std::cout << "  skip  " << what << ": kernel `require` not met (status 2)\n";
    return Outcome::Skip;
  }
  if (called.status != 0) {
    std::cout << "  FAIL  " << what << ": " << describeStatus(called) << ", expected 0\n";
    return Outcome::Fail;
  }
  bool ok = true;
  for (auto &[name, b] : owned) {
    if (!b->guardsIntact()) {
      std::cout << "  FAIL  " << what << ": memory next to `" << name << "` was overwritten\n";
      ok = false;
    }
  }
  for (const ir::Param &p : op.inputs) {
    if (p.isScalar()) continue;
    std::vector<double> expect = args.tensors[p.name];
    for (double &x : expect) x = ir::roundToType(x, p.type);
    if (owned[p.name]->load() != expect) {
      std::cout << "  FAIL  " << what << ": input `" << p.name << "` was modified\n";
      ok = false;
    }
  }
  double worst = 0;
  for (const ir::TensorPtr &t : op.outputs) {
    e2e::CompareReport rep = e2e::compareTensor(t->name, ref.shapes.at(t->name), owned[t->name]->load(),
                                                ref.tensors.at(t->name), ref.errorBounds.at(t->name));
    worst = std::max(worst, rep.worstRatio);
    if (rep.mismatches) {
      std::cout << "  FAIL  " << what << ": " << rep.mismatches << " wrong elements; first: " << rep.firstMismatch
                << "\n";
      ok = false;
    }
  }
  if (ok) std::cout << "  ok    " << what << " (worst error " << worst << " of tolerance)\n";
  return ok ? Outcome::Pass : Outcome::Fail;
}

// A violated `where` or a negative derived extent must return 1 without
// touching memory (null buffers).
Outcome checkRejected(const Caller &call, const ir::Op &op, e2e::Violation kind, std::mt19937_64 &rng) {
  std::optional<ir::InterpArgs> bad = e2e::sampleViolating(op, kind, rng);
  if (!bad) return Outcome::Skip;
  ir::InterpResult r = ir::computeShapes(op, *bad);
  std::map<std::string, e2e::TensorBuffer *> nulls;
  for (const ir::Param &p : op.inputs)
    if (!p.isScalar()) nulls[p.name] = nullptr;
  for (const ir::TensorPtr &t : op.outputs) nulls[t->name] = nullptr;
  e2e::CallResult called = call(nulls, *bad);
  std::string what = e2e::describeArgs(op, *bad) + " (" + r.message + ")";
  if (called.status != 1 || !called.failedStep.empty()) {
    std::cout << "  FAIL  " << what << ": " << describeStatus(called) << ", expected 1\n";
    return Outcome::Fail;
  }
  std::cout << "  ok    " << what << ": status 1\n";
  return Outcome::Pass;
}

} // namespace

// The trials of export `symbol` of `mod`, compiled into `lib`: 0 when
// every check passed, 1 when one failed, 2 when the symbol is missing.
int testSymbol(const Options &o, const ir::Module &mod, ir::TargetFamily family, e2e::NativeLibrary &lib,
               const std::string &symbol) {
  const ir::Export *exp = nullptr;
  for (const ir::Export &e : mod.exports)
    if (e.symbol == symbol) exp = &e;
  if (!exp) {
    std::cerr << "tk_difftest: " << o.file << " exports no `" << symbol << "`\n";
    return 2;
  }
  std::string error;
  void *fn = lib.symbol(symbol);
  if (!fn) {
    std::cerr << "tk_difftest: the compiled library has no symbol `" << symbol << "`\n";
    return 2;
  }
  const ir::Op &op = *exp->op;
  // A cuda target's export takes device pointers: the trials' host buffers
  // are copied to and from the device around each call.
  std::unique_ptr<e2e::CudaDevice> device;
  if (family == ir::TargetFamily::Cuda && !(device = e2e::CudaDevice::bind(lib, &error))) {
    std::cerr << "tk_difftest: " << error;
    return 2;
  }
  Caller call = [&](std::map<std::string, e2e::TensorBuffer *> &buffers, const ir::InterpArgs &args) {
    if (device) return device->call(fn, op, buffers, args);
    return e2e::CallResult{e2e::callExport(fn, op, buffers, args), ""};
  };
  bool hasRequires = exp->kernel && !exp->kernel->requires_.empty();

  std::vector<e2e::SampleRequest> requests;
  e2e::SampleRequest ones;
  ones.allOnes = true;
  requests.push_back(ones);
  for (const std::string &s : op.symbols) {
    e2e::SampleRequest prime;
    prime.forcedSymbol = s;
    prime.forcedValue = 2039;
    requests.push_back(prime);
  }
  for (int i = 0; i < o.randomTrials; ++i) requests.push_back({});
  for (e2e::SampleRequest &r : requests) {
    r.workBudget = o.budget;
    r.sizes = o.sizes;
  }

  std::mt19937_64 rng(o.seed);
  int passed = 0, failed = 0, skipped = 0;
  auto count = [&](Outcome out) {
    (out == Outcome::Pass ? passed : out == Outcome::Fail ? failed : skipped)++;
  };
  std::cout << symbol << " (" << o.file << "):\n";
  for (const e2e::SampleRequest &r : requests) {
    std::optional<ir::InterpArgs> args = e2e::sampleValid(op, r, rng);
    if (!args) {
      std::cout << "  skip  no valid shapes with " << (r.allOnes ? "all symbols 1" : r.forcedSymbol + "=2039")
                << " within the work budget\n";
      count(Outcome::Skip);
      continue;
    }
    count(runTrial(call, op, *args, hasRequires, rng));
  }
  count(checkRejected(call, op, e2e::Violation::Where, rng));
  count(checkRejected(call, op, e2e::Violation::NegativeExtent, rng));
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  return failed ? 1 : passed ? 0 : 1;
}

int main(int argc, char **argv) {
  Options o;
  if (!parseOptions(argc, argv, o)) {
    std::cerr << "usage: tk_difftest [--tkc PATH] [--libdir DIR] [--stdlib DIR] [--work DIR] [--seed N]"
                 " [--trials N] [--budget N] [--sizes N,N,...] [--target NAME] [--tkc-flag=FLAG]... FILE SYMBOL...\n";
    return 2;
  }
  SourceManager sm;
  DiagEngine diags(sm);
  FrontendOptions fo;
  fo.stdlibDir = o.stdlibDir;
  // The target's kernels are the exported ones (sunway-pro is the sunway
  // family, cuda-sm_80 the cuda one).
  const std::string &target = o.compile.tkcFlags[1];
  if (target.rfind("--target=sunway", 0) == 0) fo.target = ir::TargetFamily::Sunway;
  else if (target.rfind("--target=cuda", 0) == 0) fo.target = ir::TargetFamily::Cuda;
  std::optional<ir::Module> mod = buildModule(o.file, fo, sm, diags);
  if (!mod) return 2;
  std::string error;
  std::unique_ptr<e2e::NativeLibrary> lib = e2e::NativeLibrary::build(o.file, o.compile, &error);
  if (!lib) {
    std::cerr << "tk_difftest: " << error;
    return 2;
  }
  int status = 0;
  for (const std::string &s : o.symbols) status = std::max(status, testSymbol(o, *mod, fo.target, *lib, s));
  return status;
}
