// LoopTune (scheduler/looptune, frontend/driver/Tune.h): the action space
// and its legality, the state vector, every action's result against the
// reference interpreter (JIT-compiled), searches, Q-network weights files and
// tuning records with their located errors.
#include <doctest/doctest.h>

#include "frontend/Frontend.h"
#include "frontend/driver/JitMeasure.h"
#include "frontend/driver/Tune.h"
#include "ir/Interpreter.h"
#include "scheduler/looptune/LowerTunedNest.h"
#include "scheduler/looptune/Policy.h"
#include "scheduler/looptune/StateVector.h"
#include "scheduler/looptune/TuningRecords.h"

#include <cmath>
#include <random>
#include <sstream>

using namespace tk;
using namespace tk::looptune;

namespace {

const char *kOps = R"(
op mm(A: f32[16, 24], B: f32[24, 32]) -> C: f32[16, 32] { C[i, j] = sum(k) A[i, k] * B[k, j]; }
op rowmax(X: f32[12, 40]) -> Y: f32[12] { Y[i] = max(j) X[i, j]; }
op conv(X: f32[3, 10, 18], W: f32[4, 3, 3, 3]) -> Y: f32[4, 8, 16] {
  Y[f, y, x] = sum(c, r, s) (X[c, y + r, x + s] else 0.0) * W[f, c, r, s];
}
op scale(X: f32[6, 20]) -> Y: f32[6, 20] { Y[a, b] = X[a, b] * 2.0 + 1.0; }
op twice(X: f32[4], n: i64) -> Y: f32[4] { Y[i] = X[i] * 2.0; }
)";

struct Fixture {
  SourceManager sm;
  std::ostringstream err;
  DiagEngine diags{sm};
  ir::Module m;
  Fixture() {
    diags.setStream(&err);
    std::string src = kOps;
    auto mod = buildModule("t.tk", FrontendOptions{}, sm, diags, nullptr, &src);
    REQUIRE(mod);
    m = *mod;
  }
  TuneNest nest(const std::string &op) {
    std::string why;
    auto n = extractTuneNest(m.findOp(op), &why);
    REQUIRE_MESSAGE(n, why);
    return *n;
  }
};

CpuTarget hostTarget() {
  std::string e;
  return *resolveCpuTarget("host", &e);
}

// Runs the nest's code (JIT) and the interpreter on the same inputs.
void checkAgainstInterpreter(const TuneNest &n) {
  JitKernel k(lowerTunedNest(n, "t_kernel"), hostTarget());
  ir::InterpArgs args;
  for (size_t i = 0; i < n.op->inputs.size(); ++i)
    args.tensors[n.op->inputs[i].name].assign(k.buffer(i).begin(), k.buffer(i).end());
  REQUIRE(k.call() == 0);
  ir::InterpResult ref = ir::interpret(*n.op, args);
  const std::string &out = n.op->outputs[0]->name;
  const std::vector<float> &got = k.buffer(n.op->inputs.size());
  for (size_t e = 0; e < got.size(); ++e) {
    double tol = 2 * ref.errorBounds[out][e] + 1e-6;
    if (std::fabs(got[e] - ref.tensors[out][e]) > tol)
      FAIL(printNest(n) << ": element " << e << " is " << got[e] << ", expected " << ref.tensors[out][e]);
  }
}

} // namespace

TEST_CASE("looptune: which ops give a nest") {
  Fixture f;
  TuneNest mm = f.nest("mm");
  CHECK(printNest(mm) == ">i j k");
  CHECK(mm.vars[2].reduction);
  CHECK(nestFlops(mm) == 2.0 * 16 * 24 * 32);
  CHECK(printNest(f.nest("conv")) == ">f y x c r s");
  std::string why;
  CHECK_FALSE(extractTuneNest(f.m.findOp("twice"), &why));
  CHECK(why.find("scalar parameter 'n'") != std::string::npos);
}

TEST_CASE("looptune: legality of every action") {
  Fixture f;
  TuneNest n = f.nest("mm");
  std::string why;
  CHECK_FALSE(applies(n, Action::Up, 8, &why));
  CHECK(why == "the cursor is on the outermost loop");
  CHECK_FALSE(applies(n, Action::SwapUp, 8, &why));
  CHECK(applies(n, Action::Down, 8, &why));
  CHECK(applies(n, Action::SwapDown, 8, &why));
  CHECK(applies(n, Action::Split8, 8, &why));
  CHECK_FALSE(applies(n, Action::Split16, 8, &why)); // 16 of 16 rows: one outer iteration
  CHECK(why.find("single outer iteration") != std::string::npos);
  TuneNest s = applyAction(n, Action::Split4, 8);
  CHECK(printNest(s) == "i@4 >i j k");
  CHECK(loopSize(s, 0) == 4);
  CHECK(loopSize(s, 1) == 4);
  CHECK_FALSE(applies(s, Action::SwapUp, 8, &why)); // i@4 over i
  CHECK(why == "both loops iterate 'i'");
  // Moving k out leaves j innermost (32 = 4 x 8 lanes); a split of the
  // innermost loop by 2 leaves ranges of 2 and 24/2 = 12 (not x8): refused.
  TuneNest last = applyAction(applyAction(n, Action::Down, 8), Action::Down, 8);
  CHECK_FALSE(applies(last, Action::Down, 8, &why));
  CHECK(why == "the cursor is on the innermost loop");
  CHECK_FALSE(applies(last, Action::SwapDown, 8, &why));
  CHECK_FALSE(applies(last, Action::Split2, 8, &why));
  CHECK(why.find("not vectorizable") != std::string::npos);
  CHECK(applies(last, Action::Split8, 8, &why)); // range 8 = one vector
  CHECK(applies(last, Action::SwapUp, 8, &why));
  // Splits with a tail: 24 = 16 + 8.
  TuneNest t = applyAction(last, Action::Split16, 16);
  CHECK(printNest(t) == "i j k@16 >k");
  CHECK(loopSize(t, 2) == 2);
  CHECK(loopTail(t, 2) == 8);
  // At most 10 loops.
  TuneNest big = f.nest("conv");
  for (int i = 0; i < 4; ++i) big = applyAction(applyAction(big, Action::Down, 1), Action::Split2, 1);
  CHECK(big.loops.size() == 10);
  CHECK_FALSE(applies(big, Action::Split2, 1, &why));
  CHECK(why == "the nest already has 10 loops");
  CHECK(parseAction("swap_down") == Action::SwapDown);
  CHECK_FALSE(parseAction("swap"));
}

TEST_CASE("looptune: state vector of a known nest") {
  Fixture f;
  TuneNest n = applyAction(f.nest("mm"), Action::Down, 8); // i >j k
  std::vector<float> v = stateVector(n);
  REQUIRE(v.size() == 200u);
  auto row = [&](int l) { return &v[l * kFeaturesPerLoop]; };
  CHECK(row(0)[0] == 0.0f);
  CHECK(row(1)[0] == 1.0f);
  CHECK(row(0)[1] == doctest::Approx(4.0 / 8)); // 16 iterations
  CHECK(row(2)[1] == doctest::Approx(std::log2(24.0) / 8));
  CHECK(row(2)[3] == 1.0f);
  // j: C and B move by 1 (bin 0); i: C by 32 (bin 5), A by 24 (bin 5);
  // k: A by 1 (bin 0), B by 32 (bin 5), C not at all.
  CHECK(row(1)[4] == doctest::Approx(1.0));
  CHECK(row(0)[4 + 5] == doctest::Approx(1.0));
  CHECK(row(2)[4 + 0] == doctest::Approx(0.5));
  CHECK(row(2)[4 + 5] == doctest::Approx(0.5));
  // The write-back nest (C = 0 over i, j) follows with flag 0.
  CHECK(row(3)[3] == 0.0f);
  CHECK(row(3)[1] == doctest::Approx(4.0 / 8));
  CHECK(row(4)[4] == doctest::Approx(1.0));
  for (int l = 5; l < kMaxLoops; ++l)
    for (int k = 0; k < kFeaturesPerLoop; ++k) CHECK(row(l)[k] == 0.0f);
}

TEST_CASE("looptune: every action's result computes the op (random walks vs the interpreter)") {
  Fixture f;
  int lanes = vectorLanes(hostTarget().vectorBits);
  std::mt19937 rng(7);
  for (const char *op : {"mm", "rowmax", "conv", "scale"}) {
    TuneNest n = f.nest(op);
    checkAgainstInterpreter(n);
    for (int step = 0; step < 12; ++step) {
      std::vector<Action> legal = legalActions(n, lanes);
      if (legal.empty()) break;
      Action a = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
      n = applyAction(n, a, lanes);
      if (a != Action::Up && a != Action::Down) checkAgainstInterpreter(n);
    }
  }
}

TEST_CASE("looptune: every action kind on mm computes the op") {
  Fixture f;
  TuneNest n = f.nest("mm");
  for (Action a : {Action::SwapDown, Action::Split2, Action::Up, Action::Split4, Action::Down, Action::Down,
                   Action::SwapUp, Action::Split16}) {
    n = applyAction(n, a, 1);
    checkAgainstInterpreter(n);
  }
  CHECK(printNest(n) == "j i@8 i@2 k@16 >k i");
  CHECK(loopTail(n, 3) == 8); // 24 = 16 + 8
}

TEST_CASE("looptune: searches return legal, correct, no-worse schedules") {
  Fixture f;
  CpuTarget t = hostTarget();
  SearchLimits lim;
  lim.vectorLanes = vectorLanes(t.vectorBits);
  lim.budgetSec = 0.3;
  for (const char *s : {"greedy1", "greedy2", "beam2dfs", "beam4bfs", "random"}) {
    Evaluator eval(jitGflops(t));
    TuneNest start = f.nest("mm");
    SearchResult r = runSearch(s, start, eval, lim, nullptr);
    CHECK(r.gflops >= r.startGflops);
    TuneNest replay = start;
    for (Action a : r.actions) {
      REQUIRE(applies(replay, a, lim.vectorLanes, nullptr));
      replay = applyAction(replay, a, lim.vectorLanes);
    }
    CHECK(loopsKey(replay) == loopsKey(r.best));
    checkAgainstInterpreter(r.best);
  }
}

TEST_CASE("looptune: Q-network weights round trip and located errors") {
  std::mt19937 rng(3);
  QNetwork q({kStateSize, 16, kNumActions}, rng);
  SourceManager sm;
  std::ostringstream err;
  DiagEngine diags(sm);
  diags.setStream(&err);
  auto q2 = QNetwork::parse(sm.addFile("w.qnet", q.serialize()), sm, diags);
  REQUIRE(q2);
  std::vector<float> x(kStateSize, 0.25f);
  CHECK(q2->forward(x) == q.forward(x));
  auto bad = [&](const std::string &text) {
    err.str("");
    CHECK_FALSE(QNetwork::parse(sm.addFile("bad.qnet", text), sm, diags));
    return err.str();
  };
  CHECK(bad("weights 1\n").find("bad.qnet:1:1: error: not a Q-network weights file") != std::string::npos);
  CHECK(bad("tk-looptune-qnet 2\n").find("bad.qnet:1:18: error: unsupported Q-network weights version") !=
        std::string::npos);
  CHECK(bad("tk-looptune-qnet 1\nlayers 1 2 1\n0.5 x 0\n").find("bad.qnet:3:5: error: expected a finite number") !=
        std::string::npos);
  CHECK(bad("tk-looptune-qnet 1\nlayers 1 2 1\n0.5\n").find("weights end early") != std::string::npos);
  // A policy rollout never revisits a state and only takes legal actions.
  Fixture f;
  PolicyRollout r = rolloutPolicy(*q2, f.nest("conv"), 8);
  CHECK(r.actions.size() == r.states.size() - 1);
  for (size_t i = 0; i < r.actions.size(); ++i) CHECK(applies(r.states[i], r.actions[i], 8, nullptr));
}

TEST_CASE("looptune: tuning records print, parse and apply; errors are located") {
  Fixture f;
  TuneNest n = f.nest("mm");
  std::vector<TuningRecord> recs{{"mm", opFingerprint(*f.m.findOp("mm")), "greedy1", 5.5, 2.25,
                                  {Action::SwapDown, Action::Split4}, {}}};
  std::string text = printTuningRecords(recs);
  auto parsed = parseTuningRecords(f.sm.addFile("r.tkr", text), f.sm, f.diags);
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 1u);
  CHECK(printTuningRecords(*parsed) == text);
  std::vector<ir::LoweredFunc> funcs{ir::LoweredFunc{"mm", f.m.findOp("mm"), ir::TargetFamily::Cpu, nullptr, {}}};
  applyTuningRecords(f.m, *parsed, 8, funcs, f.diags);
  REQUIRE_FALSE(f.diags.hasErrors());
  TuneNest tuned = applyAction(applyAction(n, Action::SwapDown, 8), Action::Split4, 8);
  CHECK(ir::printLoweredFunc(funcs[0]) == ir::printLoweredFunc(lowerTunedNest(tuned, "mm")));

  auto errors = [&](const std::string &t) {
    f.err.str("");
    SourceManager &sm = f.sm;
    auto p = parseTuningRecords(sm.addFile("e.tkr", t), sm, f.diags);
    if (p) applyTuningRecords(f.m, *p, 8, funcs, f.diags);
    return f.err.str();
  };
  std::string h = "tkc-tuning-records 1\n";
  CHECK(errors("tkc-tuning-records 9\n").find("e.tkr:1:20: error: unsupported tuning-records version") !=
        std::string::npos);
  CHECK(errors(h + "mm 0 greedy1 1 1 swap_down hop\n").find("e.tkr:2:28: error: unknown action 'hop'") !=
        std::string::npos);
  CHECK(errors(h + "mm 0 greedy1 1 1\n").find("e.tkr:2:1: error: tuning record for 'mm' was made for a different op") !=
        std::string::npos);
  std::string fp = opFingerprint(*f.m.findOp("mm"));
  CHECK(errors(h + "mm " + fp + " greedy1 1 1 up\n").find("action 1 (up) of 'mm' does not apply") != std::string::npos);
  CHECK(errors(h + "nope " + fp + " greedy1 1 1\n").find("which this file does not export") != std::string::npos);
  CHECK(errors(h + "mm " + fp + " g 1 1\nmm " + fp + " g 1 1\n").find("e.tkr:3:1: error: 'mm' is recorded twice") !=
        std::string::npos);
}
