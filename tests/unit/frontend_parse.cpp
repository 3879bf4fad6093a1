// Parser and AST: precedence, the max(a, b) / max(k) body ambiguity,
// locations, syntax-error wording and robustness on hostile input.
#include "frontend/Frontend.h"

#include <doctest/doctest.h>

#include <sstream>

namespace {

struct Parsed {
  std::optional<std::string> ast;
  std::string diags;
};

Parsed parse(const std::string &src) {
  tk::SourceManager sm;
  tk::DiagEngine diags(sm);
  std::ostringstream os;
  diags.setStream(&os);
  Parsed p;
  p.ast = tk::dumpAst("t.tk", sm, diags, &src);
  p.diags = os.str();
  CHECK(p.ast.has_value() != diags.hasErrors());
  return p;
}

std::string stmtLine(const std::string &body) {
  Parsed p = parse("op f(A: f32[N]) -> B: f32[N] {\n  " + body + "\n}\n");
  REQUIRE(p.ast);
  std::istringstream in(*p.ast);
  std::string line;
  for (int i = 0; i < 4; ++i) std::getline(in, line);
  return line;
}

} // namespace

TEST_CASE("frontend parse: binary precedence and associativity") {
  CHECK(stmtLine("B[i] = 1 + 2 * 3 - 4 - 5;") == "  B[i] = (((1 + (2 * 3)) - 4) - 5)  # 2:3");
  CHECK(stmtLine("B[i] = -A[i] * 2 < 3 == true || false && !true;") ==
        "  B[i] = (((((-A[i]) * 2) < 3) == true) || (false && (!true)))  # 2:3");
}

TEST_CASE("frontend parse: a reduction body extends as far right as possible") {
  CHECK(stmtLine("B[i] = sum(k) A[k] * 2 + 1;") == "  B[i] = (sum(k) ((A[k] * 2) + 1))  # 2:3");
  CHECK(stmtLine("B[i] = 1 + sum(k, r < 3) A[k];") == "  B[i] = (1 + (sum(k, r < 3) A[k]))  # 2:3");
}

TEST_CASE("frontend parse: max(a, b) is a call when both readings parse") {
  CHECK(stmtLine("B[i] = max(A[i], 0.0) - 1.0;") == "  B[i] = (max(A[i], 0.0) - 1.0)  # 2:3");
  CHECK(stmtLine("B[i] = max(k) A[k] - 1.0;") == "  B[i] = (max(k) (A[k] - 1.0))  # 2:3");
  CHECK(stmtLine("B[i] = min(a, b) (A[a] + A[b]);") == "  B[i] = (min(a, b) (A[a] + A[b]))  # 2:3");
}

TEST_CASE("frontend parse: declaration keywords are usable as names") {
  Parsed p = parse("op pool(X: f32[N], kernel: i64, on: i64) -> Y: f32[N] { Y[i] = X[i] * f32(kernel + on); }");
  REQUIRE(p.ast);
  CHECK(p.ast->find("input kernel: i64") != std::string::npos);
}

TEST_CASE("frontend parse: syntax errors are located and worded plainly") {
  Parsed p = parse("op f(A: f32[N]) -> B: f32[N] {\n  B[i] = A[i]\n}\n");
  CHECK_FALSE(p.ast);
  CHECK(p.diags.rfind("t.tk:2:14: error: expected ';' after statement\n", 0) == 0);
  p = parse("op f(A: f32[N] -> B: f32[N] { }");
  CHECK(p.diags.rfind("t.tk:1:16: error: expected ')' after ']', found '->'", 0) == 0);
  p = parse("op f(A: f32[N]) -> B: f32[N] { B[i] = \"x\"; }");
  CHECK(p.diags.find("expected an expression after '=', found string \"x\"") != std::string::npos);
}

TEST_CASE("frontend parse: columns count bytes after non-ASCII text") {
  Parsed p = parse("/* \xC3\xA9\xC3\xA9 */ @");
  CHECK(p.diags.rfind("t.tk:1:12: error: unexpected character '@'", 0) == 0);
  p = parse("op \xFF");
  CHECK(p.diags.rfind("t.tk:1:4: error: invalid UTF-8 byte 0xFF", 0) == 0);
}

TEST_CASE("frontend parse: hostile input gives a diagnostic, not a crash") {
  CHECK_FALSE(parse(std::string(100000, '(')).ast);
  CHECK_FALSE(parse("op f(A: f32[N]) -> B: f32[N] { B[i] = " + std::string(5000, '-') + "A[i]; }").ast);
  std::string chain = "A[i]";
  for (int i = 0; i < 3000; ++i) chain += " + A[i]";
  CHECK_FALSE(parse("op f(A: f32[N]) -> B: f32[N] { B[i] = " + chain + "; }").ast);
  std::string elif = "kernel k implements f on cpu { if (true) { }";
  for (int i = 0; i < 5000; ++i) elif += " else if (true) { }";
  CHECK_FALSE(parse(elif + " }").ast);
  CHECK_FALSE(parse(std::string("op \0 f", 6)).ast);
  CHECK_FALSE(parse("/* open").ast);
  CHECK(parse("").ast == std::string());
}
