// ConstructConvolution: which ops are windowed contractions (and why the
// others are not), the roles read off the index expressions, and the
// run-time version whose image index is unit-stride. The kernels' results
// are checked end to end (tests/e2e/construct_convolution.tk, stdlib conv2d)
// and their hot loops in tests/codegen.
#include "source_module.h"
#include "ir/IRRewrite.h"
#include "scheduler/cpu/ConstructConvolution.h"

#include <doctest/doctest.h>

#include <regex>

using namespace tk;
using namespace tk::ir;

// The x86 AVX-512 and AVX2 instruction sets as their backend resolves them.
const TargetDesc kAvx512{ir::TargetFamily::Cpu, 512, 32};
const TargetDesc kAvx2{ir::TargetFamily::Cpu, 256, 16};

namespace {

OpPtr opFrom(const std::string &src, const std::string &name) {
  ir::Module m = unittest::moduleFromSource(src);
  for (const OpPtr &op : m.ops)
    if (op->name == name) return op;
  FAIL("no op " << name);
  return nullptr;
}

std::string whyNot(const std::string &body, const std::string &sig) {
  OpPtr op = opFrom("op t" + sig + " {\n" + body + "\n}\n", "t");
  std::string why;
  CHECK_FALSE(constructConvolutionApplies(*op, &why));
  return why;
}

bool mentions(const Expr &e, const std::string &name) {
  bool found = false;
  visitExpr(e, [&](const Expr &n) { found |= n->kind == ExprKind::Var && n->name == name; });
  return found;
}

// `text` without the numbers FreshNames appends (k_1 -> k).
std::string unnumbered(const std::string &text) { return std::regex_replace(text, std::regex("_[0-9]+\\b"), ""); }

// A run-time version (an if of the kernel's), not the zeroing of a first
// channel block (`if (cb == 0)`).
bool version(const MStmt &s) { return s.kind == MStmt::Kind::If && printExpr(s.cond) != "cb == 0"; }

} // namespace

TEST_CASE("construct convolution: stdlib conv2d applies, other ops say why") {
  OpPtr conv = opFrom("import \"std/nn.tk\";\n", "conv2d");
  std::string why;
  CHECK(constructConvolutionApplies(*conv, &why));
  CHECK_FALSE(constructConvolutionApplies(*opFrom("import \"std/linalg.tk\";\n", "matmul"), &why));
  CHECK(why.find("no window") != std::string::npos);
  CHECK_FALSE(constructConvolutionApplies(*opFrom("import \"std/nn.tk\";\n", "avgpool2d"), &why));
  CHECK(why.find("not a sum") != std::string::npos); // a sum divided by the window size
  // Depthwise: the channel indexes both factors, no output index is the filter's own.
  CHECK(whyNot("O[n, c, x] = sum(s) (X[n, c, x + s - 1] else 0) * Wt[c, s];",
               "(X: f32[N, C, W], Wt: f32[C, S]) -> O: f32[N, C, W]")
            .find("also indexes the image") != std::string::npos);
  // A constant stride of 2 is never unit-stride: no fast version exists.
  CHECK(whyNot("O[f, x] = sum(c, s) (X[c, 2*x + s] else 0) * Wt[f, c, s];",
               "(X: f32[C, W], Wt: f32[F, C, S]) -> O: f32[F, (W - S) / 2 + 1]")
            .find("not unit-stride") != std::string::npos);
  // The filter depends on two output indices (a per-sample filter).
  CHECK(whyNot("O[n, f, x] = sum(c, s) (X[c, x + s] else 0) * Wt[n, f, c, s];",
               "(X: f32[C, W], Wt: f32[N, F, C, S]) -> O: f32[N, F, W - S + 1]")
            .find("exactly one output index") != std::string::npos);
}

TEST_CASE("construct convolution: a unit-stride version behind a run-time test") {
  OpPtr conv = opFrom("import \"std/nn.tk\";\n", "conv2d");
  KernelPtr k = constructConvolution(conv, chooseConvolutionTiles(kAvx512, 4));
  const MStmt *branch = nullptr; // the outermost `if`
  visitMStmt(k->body, [&](const MStmt &s) {
    if (s.kind == MStmt::Kind::If && !branch) branch = &s;
  });
  REQUIRE(branch);
  CHECK(mentions(branch->cond, "stride"));
  CHECK(mentions(branch->cond, "dilation"));
  CHECK_FALSE(mentions(branch->cond, "pad"));
  // The image's last index: x + s - pad in the tiles of the then-branch
  // (stride and dilation substituted; the flat pixel version comes first,
  // then the packed tiles' panel copy and the row tiles), the general form
  // in the else-branch's panel copy.
  auto imageIndex = [&](const MStmtPtr &root) {
    Expr last;
    visitMStmt(root, [&](const MStmt &s) {
      if (s.kind == MStmt::Kind::Store)
        visitExpr(s.value, [&](const Expr &e) {
          if (e->kind == ExprKind::Load && e->tensor->name == "X") last = e->args.back();
        });
    });
    return last;
  };
  Expr fast = imageIndex(branch->thenS), general = imageIndex(branch->elseS);
  REQUIRE(fast);
  REQUIRE(general);
  CHECK_FALSE(mentions(fast, "stride"));
  CHECK_FALSE(mentions(fast, "dilation"));
  CHECK(mentions(general, "stride"));
  // Other strides read the image through a local panel (no default
  // schedule): a window row's channels where S * C fit one, else blocks of
  // 64 channels per window step.
  int panels = 0;
  visitMStmt(branch->elseS, [&](const MStmt &s) {
    panels += s.kind == MStmt::Kind::Alloc && s.tensor->scope == Scope::Local && s.tensor->name.rfind("panel_X", 0) == 0;
  });
  CHECK(panels == 2);
  REQUIRE(branch->elseS->kind == MStmt::Kind::If);
  CHECK(printExpr(branch->elseS->cond) == "S * C <= 64");
  // The filter is packed once, contiguous in the register tile's rows.
  CHECK(k->body->stmts[0]->kind == MStmt::Kind::Alloc);
  CHECK(k->body->stmts[0]->tensor->shape.back()->intValue == 6);
}

TEST_CASE("construct convolution: constant unit stride needs no version, tiles follow the registers") {
  OpPtr op = opFrom("op t(X: f32[N, C, H, W], Wt: f32[F, C, R, S]) -> O: f32[N, F, H - R + 1, W - S + 1] {\n"
                    "  O[n, f, y, x] = sum(c, r, s) (X[n, c, y + r, x + s] else 0) * Wt[f, c, r, s];\n}\n",
                    "t");
  KernelPtr k = constructConvolution(op, chooseConvolutionTiles(kAvx512, 4));
  // The flat pixel version's `if`: R = S = 1 (then H - R + 1 is H); inside
  // its else-branch the choice between packed and row tiles (the waste of
  // 64-lane rows against the cost of the panel copies, a run-time test).
  std::vector<Expr> conds;
  visitMStmt(k->body, [&](const MStmt &s) {
    if (version(s)) conds.push_back(s.cond);
  });
  REQUIRE(conds.size() == 2);
  CHECK(printExpr(conds[0]) == "R == 1 && S == 1");
  CHECK(printExpr(conds[1]) == "cdiv(F, 6) * 6 * (S - W + cdiv(-S + W + 1, 64) * 64 - 1) > S * -48 + W * 48 + 48");
  ConvolutionTiles z = chooseConvolutionTiles(kAvx512, 4), y = chooseConvolutionTiles(kAvx2, 4), d = chooseConvolutionTiles(kAvx512, 8);
  CHECK(z.mr * (z.nr / 16) + z.nr / 16 + 1 <= 32);
  CHECK(z.nr == 64);
  CHECK(y.mr * (y.nr / 8) + y.nr / 8 + 1 <= 16);
  CHECK(d.nr == 32);
}

TEST_CASE("construct convolution: 1x1 filters read flattened pixels") {
  // A 1x1 window, no stride or padding: the flat pixel version only, tasks
  // of 64 consecutive pixels p = pb*64 + xx whose image and output elements
  // are [p / W, p % W], the packed filter read at window position 0.
  OpPtr op = opFrom("op t(X: f32[N, C, H, W], Wt: f32[F, C, 1, 1]) -> O: f32[N, F, H, W] {\n"
                    "  O[n, f, y, x] = sum(c, r, s) (X[n, c, y + r, x + s] else 0) * Wt[f, c, r, s];\n}\n",
                    "t");
  KernelPtr k = constructConvolution(op, chooseConvolutionTiles(kAvx512, 4));
  bool branches = false;
  const MStmt *fma = nullptr;
  visitMStmt(k->body, [&](const MStmt &s) {
    branches |= version(s);
    if (s.kind == MStmt::Kind::Store && s.accum == AccumOp::Add) fma = &s;
  });
  CHECK_FALSE(branches);
  REQUIRE(fma);
  CHECK(printExpr(fma->indices[2]) == "(pb * 64 + xx) / W");
  CHECK(printExpr(fma->indices[3]) == "(pb * 64 + xx) % W");
  std::string value = printExpr(fma->value);
  CHECK(value.find("X[n, c + cb * 64, (pb * 64 + xx) / W, (pb * 64 + xx) % W]") != std::string::npos);
  CHECK(value.find("packed_Wt[fb, 0, 0, c + cb * 64, fr]") != std::string::npos);
  // A 3x3 filter has no flat version; neither has a 1-D convolution (no
  // pixel row to flatten).
  OpPtr conv1d = opFrom("op t(X: f32[C, W], Wt: f32[F, C, 1]) -> O: f32[F, W] {\n"
                        "  O[f, x] = sum(c, s) (X[c, x + s] else 0) * Wt[f, c, s];\n}\n",
                        "t");
  bool flat = false;
  visitMStmt(constructConvolution(conv1d, chooseConvolutionTiles(kAvx512, 4))->body, [&](const MStmt &s) {
    flat |= s.kind == MStmt::Kind::Store && printExpr(s.value).find(" % W") != std::string::npos;
  });
  CHECK_FALSE(flat);
}

TEST_CASE("construct convolution: each panel is zeroed right before its first channel block") {
  // for cb in 0..max(1, cdiv(C, 64)) { for fb { if (cb == 0) { O[panel] = 0 } PANEL(cb) } }:
  // the zeroing and the nest that accumulates into it are adjacent, and
  // the nest is not copied for the first block (the x86 backend runs the
  // register tile once and picks its stores by cb, tileStart).
  OpPtr op = opFrom("op t(X: f32[N, C, H, W], Wt: f32[F, C, 1, 1]) -> O: f32[N, F, H, W] {\n"
                    "  O[n, f, y, x] = sum(c, r, s) (X[n, c, y + r, x + s] else 0) * Wt[f, c, r, s];\n}\n",
                    "t");
  KernelPtr k = constructConvolution(op, chooseConvolutionTiles(kAvx512, 4));
  const MStmt *blocks = nullptr;
  size_t fmas = 0;
  visitMStmt(k->body, [&](const MStmt &s) {
    if (s.kind == MStmt::Kind::SeqFor && s.var == "cb") blocks = &s;
    fmas += s.kind == MStmt::Kind::Store && s.accum == AccumOp::Add;
  });
  REQUIRE(blocks);
  CHECK(printExpr(blocks->end) == "max(1, cdiv(C, 64))");
  CHECK(fmas == 1);
  const MStmt *filters = blocks->body.get();
  REQUIRE(filters->kind == MStmt::Kind::SeqFor);
  REQUIRE(filters->body->kind == MStmt::Kind::Block);
  REQUIRE(filters->body->stmts.size() == 2);
  const MStmt &zeroing = *filters->body->stmts[0];
  REQUIRE(zeroing.kind == MStmt::Kind::If);
  CHECK(printExpr(zeroing.cond) == "cb == 0");
  CHECK_FALSE(zeroing.elseS);
  std::vector<const MStmt *> stores;
  for (const MStmtPtr &part : filters->body->stmts)
    visitMStmt(part, [&](const MStmt &s) {
      if (s.kind == MStmt::Kind::Store) stores.push_back(&s);
    });
  REQUIRE(stores.size() == 2);
  CHECK(stores[0]->accum == AccumOp::None);
  CHECK(printExpr(stores[0]->value) == "0.0");
  CHECK(stores[1]->accum == AccumOp::Add);
  CHECK(printExpr(stores[1]->value).find("X[n, c + cb * 64, (pb * 64 + xx) / W, (pb * 64 + xx) % W]") != std::string::npos);
}

TEST_CASE("construct convolution: fewer pixel tasks than cores split the filter blocks") {
  // N * cdiv(H * W, 64) < cores (a 7 x 7 layer of one image is one task):
  // a version whose tasks also take one of `cores` groups of filter blocks,
  // each its consecutive share, chosen at run time; the whole version
  // otherwise. Built only for more than one core.
  OpPtr op = opFrom("op t(X: f32[N, C, H, W], Wt: f32[F, C, 1, 1]) -> O: f32[N, F, H, W] {\n"
                    "  O[n, f, y, x] = sum(c, r, s) (X[n, c, y + r, x + s] else 0) * Wt[f, c, r, s];\n}\n",
                    "t");
  ConvolutionTiles tiles = chooseConvolutionTiles(kAvx512, 4);
  tiles.cores = 2;
  KernelPtr k = constructConvolution(op, tiles);
  std::vector<std::string> conds;
  std::vector<const MStmt *> groupLoops;
  size_t groupedTasks = 0;
  visitMStmt(k->body, [&](const MStmt &s) {
    if (version(s)) conds.push_back(printExpr(s.cond));
    if (s.kind == MStmt::Kind::MapFor && std::find(s.vars.begin(), s.vars.end(), "fg") != s.vars.end()) ++groupedTasks;
    if (s.kind == MStmt::Kind::SeqFor && s.var == "fb" && s.begin && mentions(s.begin, "fg")) groupLoops.push_back(&s);
  });
  REQUIRE(conds.size() == 1);
  CHECK(conds[0] == "N * cdiv(H * W, 64) < 2");
  CHECK(groupedTasks == 1);
  REQUIRE(!groupLoops.empty());
  CHECK(printExpr(groupLoops[0]->begin) == "fg * cdiv(cdiv(F, 6), 2)");
  // One core: no second version.
  size_t ifs = 0;
  visitMStmt(constructConvolution(op, chooseConvolutionTiles(kAvx512, 4))->body,
             [&](const MStmt &s) { ifs += version(s); });
  CHECK(ifs == 0);
}

TEST_CASE("construct convolution: few channels share a panel with their window row") {
  // 3 channels x 7 window columns = 21 panel rows k = s*3 + c: the strided
  // tiles sum over all of them in one loop (not 3 channels per window
  // step), reading the packed filter through the flat pair [k / 3, k % 3]
  // (its s and c dimensions as one). Constant C and S: no run-time test.
  OpPtr op = opFrom("op t(X: f32[N, 3, H, W], Wt: f32[F, 3, 7, 7], st: i64)\n"
                    "  -> O: f32[N, F, (H - 7) / st + 1, (W - 7) / st + 1] where st >= 1 {\n"
                    "  O[n, f, y, x] = sum(c, r, s) (X[n, c, y*st + r, x*st + s] else 0) * Wt[f, c, r, s];\n}\n",
                    "t");
  KernelPtr k = constructConvolution(op, chooseConvolutionTiles(kAvx512, 4));
  MStmtPtr strided; // the else-branch of `if (st == 1)`
  visitMStmt(k->body, [&](const MStmt &s) {
    if (version(s) && printExpr(s.cond) == "st == 1") strided = s.elseS;
  });
  REQUIRE(strided);
  std::vector<std::string> copies, fmas, loops;
  visitMStmt(strided, [&](const MStmt &s) {
    if (s.kind == MStmt::Kind::Store && s.tensor->name.rfind("panel_X", 0) == 0)
      copies.push_back(printExpr(s.indices[0]));
    if (s.kind == MStmt::Kind::Store && s.accum == AccumOp::Add) fmas.push_back(unnumbered(printExpr(s.value)));
    if (s.kind == MStmt::Kind::SeqFor) loops.push_back(unnumbered(s.var + " < " + printExpr(s.end)));
  });
  REQUIRE(copies.size() == 1);
  CHECK(copies[0] == "s * 3 + c");
  REQUIRE(fmas.size() == 1);
  CHECK(fmas[0] == "panel_X[k, xx] * packed_Wt[fb, r, k / 3, k % 3, fr]");
  CHECK(std::find(loops.begin(), loops.end(), "k < 21") != loops.end());
  bool cbLoop = false; // no channel blocks
  for (const std::string &l : loops) cbLoop |= l.rfind("cb ", 0) == 0;
  CHECK_FALSE(cbLoop);
}
