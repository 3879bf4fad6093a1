// tkc driver pieces: response files, option parsing, depfile escaping, header.
#include <doctest/doctest.h>

#include "backends/common/CHeader.h"
#include "frontend/driver/CommandLine.h"
#include "frontend/driver/Depfile.h"

using namespace tk::driver;

TEST_CASE("driver: response files split on whitespace with quotes and escapes") {
  auto v = splitResponseFile("-I 'a dir' \"b \\\"q\\\"\"\n c\\ d  ''\t-O3\n");
  CHECK(v == std::vector<std::string>{"-I", "a dir", "b \"q\"", "c d", "", "-O3"});
  std::string err;
  CHECK_FALSE(expandResponseFiles({"@/nonexistent/x.rsp"}, &err));
  CHECK(err.find("cannot read response file") != std::string::npos);
}

TEST_CASE("driver: command line parsing") {
  std::string err;
  auto o = parseCommandLine({"x.tk", "-Iinc", "-I", "other", "-O3", "--emit=llvm", "-o", "-", "-MD",
                             "-MFdep.d", "-MT", "t", "--color=never", "--diagnostics-format=json",
                             "-Werror", "--target=x86_64-avx2", "--stdlib=/s"},
                            &err);
  REQUIRE(o);
  CHECK(o->input == "x.tk");
  CHECK(o->includeDirs == std::vector<std::string>{"inc", "other"});
  CHECK(o->optLevel == 3);
  CHECK(o->emit == EmitKind::LLVM);
  CHECK(o->output == "-");
  CHECK((o->depfile && o->depfilePath == "dep.d" && o->depTargets == std::vector<std::string>{"t"}));
  CHECK(o->color == ColorMode::Never);
  CHECK(o->jsonDiagnostics);
  CHECK(o->werror);
  CHECK(o->target == "x86_64-avx2");
  CHECK(o->stdlibDir == "/s");

  CHECK_FALSE(parseCommandLine({"x.tk", "y.tk"}, &err));
  CHECK(err.find("more than one input") != std::string::npos);
  CHECK_FALSE(parseCommandLine({"x.tk", "-o"}, &err));
  CHECK(err == "missing argument to '-o'");
  CHECK_FALSE(parseCommandLine({"x.tk", "--emit=sunway"}, &err));
  CHECK(err.find("not available in this build") != std::string::npos);
  // ptx and cuda targets parse; the driver checks that they go together.
  auto ptx = parseCommandLine({"x.tk", "--emit=ptx", "--target=cuda-sm_80"}, &err);
  REQUIRE(ptx);
  CHECK(ptx->emit == EmitKind::Ptx);
  CHECK(ptx->target == "cuda-sm_80");
  auto sw = parseCommandLine({"x.tk", "--target=sunway-pro", "-o", "out/"}, &err);
  REQUIRE(sw);
  CHECK(sw->target == "sunway-pro");
  CHECK_FALSE(parseCommandLine({"x.tk", "--color=sometimes"}, &err));
  CHECK_FALSE(parseCommandLine({}, &err));
  CHECK(parseCommandLine({"--version"}, &err));
}

TEST_CASE("driver: --print-hw needs no input; --dump-after-each-pass and -o DIR/ parse") {
  std::string err;
  auto hw = parseCommandLine({"--print-hw", "--hw=zen5-2c"}, &err);
  REQUIRE(hw);
  CHECK(hw->printHardware);
  CHECK(hw->input.empty());
  auto dump = parseCommandLine({"x.tk", "--dump-after-each-pass", "-o", "out/"}, &err);
  REQUIRE(dump);
  CHECK(dump->dumpAfterEachPass);
  CHECK_FALSE(dump->printHardware);
  CHECK(dump->output == "out/");
}

TEST_CASE("driver: schedule and Sunway DMA choices") {
  std::string err;
  auto o = parseCommandLine({"x.tk", "--schedule=swtvm", "--sunway-dma=sync"}, &err);
  REQUIRE(o);
  CHECK((o->constructContractions && o->swtvmLdmSizing && !o->sunwayDoubleBuffer));
  o = parseCommandLine({"x.tk"}, &err);
  REQUIRE(o);
  CHECK((o->constructContractions && !o->swtvmLdmSizing && o->sunwayDoubleBuffer &&
         o->sunwayBroadcast == tk::PipelineOptions::SunwayBroadcast::On));
  o = parseCommandLine({"x.tk", "--sunway-broadcast=off"}, &err);
  REQUIRE(o);
  CHECK(o->sunwayBroadcast == tk::PipelineOptions::SunwayBroadcast::Off);
  CHECK_FALSE(parseCommandLine({"x.tk", "--sunway-broadcast=maybe"}, &err));
  CHECK(err == "invalid value 'maybe' for --sunway-broadcast (expected on, rows or off)");
  o = parseCommandLine({"x.tk", "--schedule=fixed64", "--sunway-loop-order=natural"}, &err);
  REQUIRE(o);
  CHECK((o->sunwayFixedBuffers && o->sunwayNaturalOrder && !o->swtvmLdmSizing));
  CHECK_FALSE(parseCommandLine({"x.tk", "--sunway-loop-order=random"}, &err));
  CHECK(err == "invalid value 'random' for --sunway-loop-order (expected reordered or natural)");
  CHECK_FALSE(parseCommandLine({"x.tk", "--sunway-dma=triple"}, &err));
  CHECK(err == "invalid value 'triple' for --sunway-dma (expected double or sync)");
  CHECK_FALSE(parseCommandLine({"x.tk", "--schedule=fast"}, &err));
  CHECK(err == "invalid value 'fast' for --schedule (expected construct, default, swtvm or fixed64)");
}

TEST_CASE("driver: -mllvm collects LLVM's options in order") {
  std::string err;
  auto o = parseCommandLine({"-mllvm", "-disable-lsr", "x.tk", "-mllvm", "-unroll-runtime=false"}, &err);
  REQUIRE(o);
  CHECK(o->input == "x.tk");
  CHECK(o->llvmArgs == std::vector<std::string>{"-disable-lsr", "-unroll-runtime=false"});
  CHECK_FALSE(parseCommandLine({"x.tk", "-mllvm"}, &err));
  CHECK(err == "missing argument to '-mllvm'");
}

TEST_CASE("driver: depfile escaping") {
  CHECK(escapeDepfilePath("a b$c#d:e") == "a\\ b$$c\\#d:e");
  CHECK(escapeDepfilePath("x\\ y") == "x\\\\\\ y");
  CHECK(makeDepfile({"o.o"}, {"a.tk", "b c.tk", "a.tk"}) == "o.o: \\\n  a.tk \\\n  b\\ c.tk\n");
  // Every output of a compile is a target of the same rule.
  // Targets are written as given (the driver escapes output paths and -MQ).
  CHECK(makeDepfile({"d/x.o", escapeDepfilePath("d/x y.h")}, {"x.tk"}) == "d/x.o d/x\\ y.h: \\\n  x.tk\n");
  // -MP: a phony rule for each listed dependency.
  CHECK(makeDepfile({"o.o"}, {"a.tk", "b.tk"}, {"b.tk"}) == "o.o: \\\n  a.tk \\\n  b.tk\n\nb.tk:\n");
}

TEST_CASE("driver: header prototypes follow the ABI") {
  using namespace tk::ir;
  auto X = std::make_shared<TensorDecl>();
  X->name = "float";
  X->dtype = ScalarType::F16;
  X->shape = {var("N", VarKind::Symbol)};
  auto Y = std::make_shared<TensorDecl>(*X);
  Y->name = "Y";
  Y->dtype = ScalarType::Bool;
  auto op = std::make_shared<Op>();
  op->name = "f";
  op->inputs = {Param{"float", ScalarType::F16, X, {}}, Param{"s", ScalarType::F64, nullptr, {}}};
  op->outputs = {Y};
  op->symbols = {"N"};
  std::string h = tk::emitCHeader({Export{"f_sym", op, nullptr, {}}}, "TK_F_H");
  CHECK(h.find("int f_sym(const uint16_t *float_, double s, uint8_t *Y, int64_t N);") != std::string::npos);
  CHECK(h.find("#ifndef TK_STATUS_OUT_OF_MEMORY\n#define TK_STATUS_OUT_OF_MEMORY 3") != std::string::npos);
  CHECK(h.find("extern \"C\" {") != std::string::npos);
}
