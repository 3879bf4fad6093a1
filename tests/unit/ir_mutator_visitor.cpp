// IRVisitor / IRMutator: the defaults reach every child field of every node
// kind, the scope holds exactly the variables and tensors bound around a
// node, an unchanged tree comes back as the same pointer, and a scope-aware
// rename only renames what the renamed binder binds.
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "sched_build.h"

#include <doctest/doctest.h>

#include <set>

using namespace tk;
using namespace tk::ir;
using namespace tk::schedtest;

namespace {

// Every expression field of the expression kinds, each holding its own
// variable `<tag>_...`.
Expr everyExprField(const std::string &tag, const TensorPtr &in) {
  auto v = [&](const std::string &n) { return lv(tag + "_" + n); };
  Expr ld = load(in, {v("ldidx")}, v("pad"), binary(BinOp::LT, v("ldpred"), ci(4)));
  Expr red = reduce(ReduceOp::Sum, {{"r", v("rext"), {}}}, binary(BinOp::Add, ld, v("rbody")));
  Expr sh = shuffle(ShuffleOp::Xor, cast(ScalarType::F32, v("shval")), v("lane"));
  Expr sel = select(binary(BinOp::LT, v("selc"), ci(0)), call(MathFn::Exp, cast(ScalarType::F32, v("call"))),
                    unary(UnOp::Neg, cast(ScalarType::F32, v("neg"))));
  return binary(BinOp::Add, binary(BinOp::Add, red, sh), sel);
}

std::set<std::string> exprFieldVars(const std::string &tag) {
  std::set<std::string> out;
  for (const char *n : {"ldidx", "pad", "ldpred", "rext", "rbody", "shval", "lane", "selc", "call", "neg"})
    out.insert(tag + "_" + n);
  return out;
}

struct Fixture {
  TensorPtr in = tensor("X", {sym("N")}, TensorRole::Input);
  TensorPtr out = tensor("Y", {sym("N")}, TensorRole::Output);
  TensorPtr local = scratchTensor("t", ScalarType::F32, {ci(4)}, Scope::Local);
};

LStmtPtr lStore(const TensorPtr &t, std::vector<Expr> idx, Expr value, Expr pred = nullptr) {
  auto s = lStmt(LStmt::Kind::Store);
  s->tensor = t;
  s->indices = std::move(idx);
  s->value = std::move(value);
  s->pred = std::move(pred);
  return s;
}

LStmtPtr lLet(const std::string &v, Expr value, LStmtPtr body) {
  auto s = lStmt(LStmt::Kind::Let);
  s->var = v;
  s->value = std::move(value);
  s->body = std::move(body);
  return s;
}

// A loop-IR tree with every statement kind, each field holding its own variable.
LStmtPtr everyLoopField(const Fixture &f) {
  auto check = lStmt(LStmt::Kind::Check);
  check->cond = binary(BinOp::GE, lv("check"), ci(0));
  auto intr = lStmt(LStmt::Kind::Intrinsic);
  intr->intrinsic = GpuIntrinsic::AtomicAdd;
  intr->operands = {load(f.out, {lv("opidx")}), everyExprField("op", f.in)};
  auto pf = lStmt(LStmt::Kind::Prefetch);
  pf->tensor = f.in;
  pf->indices = {lv("pf")};
  LStmtPtr st = lStore(f.out, {lv("stidx")}, everyExprField("val", f.in), binary(BinOp::LT, lv("stpred"), ci(3)));
  LStmtPtr branch = lIf(binary(BinOp::LT, lv("cond"), ci(1)), st, lBlock({check, lStmt(LStmt::Kind::Barrier)}));
  LStmtPtr let = lLet("x", lv("letval"), lBlock({branch, intr, pf}));
  return lFor("i", lv("min"), lv("ext"), lAlloc(f.local, let));
}

std::set<std::string> loopFieldVars() {
  std::set<std::string> out = exprFieldVars("val");
  for (const std::string &v : exprFieldVars("op")) out.insert(v);
  for (const char *n : {"check", "opidx", "pf", "stidx", "stpred", "cond", "letval", "min", "ext"}) out.insert(n);
  return out;
}

// A mapping-IR tree with every statement kind, each field holding its own variable.
MStmtPtr everyMappingField(const Fixture &f) {
  auto intr = mStmt(MStmt::Kind::Intrinsic);
  intr->intrinsic = GpuIntrinsic::AtomicAdd;
  intr->operands = {load(f.out, {lv("opidx")}), everyExprField("op", f.in)};
  MStmtPtr st = store(f.out, {lv("stidx")}, everyExprField("val", f.in));
  MStmtPtr branch = mIf(binary(BinOp::LT, lv("cond"), ci(1)), st, mStmt(MStmt::Kind::Sync));
  MStmtPtr seq = seqFor("k", lv("begin"), lv("end"), mBlock({branch, intr, mPrefetch(f.in, {lv("pf")})}));
  return mBlock({mAlloc(f.local), mapFor({"i"}, {spatial({lv("dim0")}), repeat({lv("dim1")})}, WorkerKind::Cores, seq)});
}

std::set<std::string> mappingFieldVars() {
  std::set<std::string> out = exprFieldVars("val");
  for (const std::string &v : exprFieldVars("op")) out.insert(v);
  for (const char *n : {"opidx", "stidx", "cond", "begin", "end", "pf", "dim0", "dim1"}) out.insert(n);
  return out;
}

template <class Base> struct VarCollector : Base {
  std::set<std::string> seen;
  void visitVar(const Expr &e) override { seen.insert(e->name); }
};

std::string join(const std::set<std::string> &names) {
  std::string out;
  for (const std::string &n : names) out += n + " ";
  return out;
}

// Renames every variable `v` to `v'` (all fields reached: nothing unprimed remains).
template <class Base> struct PrimeAll : Base {
  Expr mutateVar(const Expr &e) override { return var(e->name + "'", e->varKind, e->type, e->loc); }
};

std::set<std::string> primed(const std::set<std::string> &names) {
  std::set<std::string> out;
  for (const std::string &n : names) out.insert(n + "'");
  return out;
}

} // namespace

TEST_CASE("ir visitor: the defaults reach every child field") {
  Fixture f;
  VarCollector<LoopVisitor> loop;
  loop.walkStmt(everyLoopField(f));
  CHECK(join(loop.seen) == join(loopFieldVars()));
  VarCollector<MappingVisitor> mapping;
  mapping.walkStmt(everyMappingField(f));
  CHECK(join(mapping.seen) == join(mappingFieldVars()));
}

TEST_CASE("ir mutator: the defaults rebuild every child field, leaving the input unchanged") {
  Fixture f;
  LStmtPtr l = everyLoopField(f);
  std::string before = printExpr(l->body->body->value);
  VarCollector<LoopVisitor> loop;
  loop.walkStmt(PrimeAll<LoopMutator>().mutateStmt(l));
  CHECK(join(loop.seen) == join(primed(loopFieldVars())));
  CHECK(printExpr(l->body->body->value) == before);
  VarCollector<LoopVisitor> original;
  original.walkStmt(l);
  CHECK(join(original.seen) == join(loopFieldVars()));

  VarCollector<MappingVisitor> mapping;
  mapping.walkStmt(PrimeAll<MappingMutator>().mutateStmt(everyMappingField(f)));
  CHECK(join(mapping.seen) == join(primed(mappingFieldVars())));
}

TEST_CASE("ir mutator: nothing changed returns the same pointer; a change rebuilds its path only") {
  Fixture f;
  LStmtPtr l = everyLoopField(f);
  CHECK(LoopMutator().mutateStmt(l) == l);
  MStmtPtr m = everyMappingField(f);
  CHECK(MappingMutator().mutateStmt(m) == m);
  Expr e = everyExprField("e", f.in);
  CHECK(ExprMutator().mutateExpr(e) == e);

  // Only `cond` changes: the If and its ancestors are rebuilt; the branches,
  // the let's other statements and every expression elsewhere are shared.
  struct OnlyCond : LoopMutator {
    Expr mutateVar(const Expr &e) override { return e->name == "cond" ? lv("cond2") : e; }
  };
  LStmtPtr n = OnlyCond().mutateStmt(l);
  REQUIRE(n != l);
  const LStmtPtr &let = l->body->body, &let2 = n->body->body;
  CHECK(let2 != let);
  CHECK(let2->value == let->value);
  CHECK(n->min == l->min);
  CHECK(let2->body->stmts[0] != let->body->stmts[0]);
  CHECK(let2->body->stmts[0]->thenS == let->body->stmts[0]->thenS);
  CHECK(let2->body->stmts[1] == let->body->stmts[1]);
  CHECK(let2->body->stmts[2] == let->body->stmts[2]);
  CHECK(let->body->stmts[0]->cond->args[0]->name == "cond");
}

namespace {

std::string names(const BindingScope &s) {
  std::string out;
  for (const Binding &b : s.vars()) out += b.name + ":" + std::to_string(int(b.kind)) + " ";
  for (const TensorPtr &t : s.tensors()) out += "[" + t->name + "] ";
  return out;
}

} // namespace

TEST_CASE("ir visitor: the scope at a store holds exactly the bindings around it") {
  Fixture f;
  struct AtLoopStores : LoopVisitor {
    std::vector<std::string> seen, atVars;
    void visitStore(const LStmt &s) override {
      seen.push_back(names(scope()));
      LoopVisitor::visitStore(s);
    }
    void visitVar(const Expr &e) override {
      if (e->name == "r") atVars.push_back(names(scope()));
    }
  };
  // for i { alloc t { let x = i { Y[x] = sum(r < 4: X[r]) } } }; Y[0] = 0
  Expr red = reduce(ReduceOp::Sum, {{"r", ci(4), {}}}, load(f.in, {lv("r")}));
  LStmtPtr inner = lStore(f.out, {lv("x")}, red);
  LStmtPtr tree = lBlock({lFor("i", ci(0), sym("N"), lAlloc(f.local, lLet("x", lv("i"), inner))),
                          lStore(f.out, {ci(0)}, floatImm(0))});
  AtLoopStores v;
  v.walkStmt(tree);
  REQUIRE(v.seen.size() == 2);
  CHECK(v.seen[0] == "i:1 x:2 [t] ");
  CHECK(v.seen[1] == "");
  REQUIRE(v.atVars.size() == 1);
  CHECK(v.atVars[0] == "i:1 x:2 r:4 [t] ");

  struct AtMappingStores : MappingVisitor {
    std::vector<std::string> seen;
    std::vector<std::string> events;
    void visitStore(const MStmt &s) override {
      seen.push_back(names(scope()));
      MappingVisitor::visitStore(s);
    }
    void enterScope(const MStmt &s) override { events.push_back("enter " + std::to_string(int(s.kind))); }
    void leaveScope(const MStmt &s) override { events.push_back("leave " + std::to_string(int(s.kind))); }
  };
  // { alloc t; for (i, j) in spatial(N, N) { for k in 0..N { alloc u; Y[i] = 0 } }; Y[0] = 0 }
  TensorPtr u = scratchTensor("u", ScalarType::F32, {ci(2)}, Scope::Register);
  MStmtPtr body = seqFor("k", ci(0), sym("N"), mBlock({mAlloc(u), store(f.out, {lv("i")}, floatImm(0))}));
  MStmtPtr m = mBlock({mAlloc(f.local), mapFor({"i", "j"}, {spatial({sym("N"), sym("N")})}, WorkerKind::Cores, body),
                       store(f.out, {ci(0)}, floatImm(0))});
  AtMappingStores mv;
  mv.walkStmt(m);
  REQUIRE(mv.seen.size() == 2);
  CHECK(mv.seen[0] == "i:3 j:3 k:1 [t] [u] ");
  CHECK(mv.seen[1] == "[t] "); // u ended with its block, t is visible to the end of its own
  CHECK(mv.scope().vars().empty());
  CHECK(mv.scope().tensors().empty());
  // Alloc=3, MapFor=1, SeqFor=2
  CHECK(mv.events == std::vector<std::string>{"enter 3", "enter 1", "enter 2", "enter 3", "leave 3", "leave 2",
                                              "leave 1", "leave 3"});
}

TEST_CASE("ir mutator: a scope-aware rename renames a loop variable, not a let that shadows it") {
  // Renames the variables that a For binds (and those loops) to `<name>_o`.
  struct RenameLoops : LoopMutator {
    LStmtPtr mutateFor(const LStmtPtr &s) override {
      LStmtPtr n = LoopMutator::mutateFor(s);
      auto c = std::make_shared<LStmt>(*n);
      c->var = s->var + "_o";
      return c;
    }
    Expr mutateVar(const Expr &e) override {
      const Binding *b = scope().lookup(e->name);
      return b && b->kind == BindingKind::Loop ? lv(e->name + "_o") : e;
    }
  };
  Fixture f;
  // for i in 0..N { let i = i + 1 { Y[i] = X[i] }; Y[i] = 0 }; Y[i] = 1 (i free)
  LStmtPtr body = lBlock({lLet("i", add(lv("i"), ci(1)), lStore(f.out, {lv("i")}, load(f.in, {lv("i")}))),
                          lStore(f.out, {lv("i")}, floatImm(0))});
  LStmtPtr tree = lBlock({lFor("i", ci(0), sym("N"), body), lStore(f.out, {lv("i")}, floatImm(1))});
  LStmtPtr out = RenameLoops().mutateStmt(tree);
  const LStmtPtr &loop = out->stmts[0];
  CHECK(loop->var == "i_o");
  const LStmtPtr &let = loop->body->stmts[0];
  CHECK(let->var == "i");
  CHECK(printExpr(let->value) == "i_o + 1");
  CHECK(printExpr(let->body->indices[0]) == "i");
  CHECK(printExpr(let->body->value) == "X[i]");
  CHECK(printExpr(loop->body->stmts[1]->indices[0]) == "i_o");
  CHECK(printExpr(out->stmts[1]->indices[0]) == "i"); // outside the loop: free, untouched
  CHECK(out->stmts[1] == tree->stmts[1]);
  CHECK(tree->stmts[0]->var == "i"); // the input is untouched
  CHECK(printExpr(tree->stmts[0]->body->stmts[0]->value) == "i + 1");
}
