// The cost model's data: records (docs/records.md) printed and parsed back,
// malformed lines located; an op's nest decisions; the
// featurizer's exact rows; TLP's metrics on tasks with known answers; the
// training set's labels and held-out split; compressed records files.
#include "frontend/driver/TrainCostModel.h"
#include "scheduler/costmodel/Featurize.h"
#include "scheduler/costmodel/Metrics.h"
#include "scheduler/costmodel/Records.h"
#include "scheduler/costmodel/TrainingSet.h"

#include <doctest/doctest.h>
#include <unistd.h>
#include <zstd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tk;
using namespace tk::costmodel;

namespace {

Record sampleRecord(double seconds, int64_t mr) {
  Record r;
  r.hardware = "zen5-2c";
  r.op = "matmul";
  r.ir = "0123456789abcdef";
  r.shape = {{"M", 96}, {"N", 80}, {"K", 64}};
  r.candidate = "random";
  r.decisions = {{PrimitiveKind::Op, {4}, {"matmul"}},
                 {PrimitiveKind::Loop, {96, 0, 0}, {"i"}},
                 {PrimitiveKind::RegisterTile, {double(mr), 64, 96, 80}, {}}};
  r.latency = {seconds, 15, 0.03};
  r.tkc = "0.1.0";
  return r;
}

struct Parsed {
  SourceManager sm;
  DiagEngine diags{sm};
  std::ostringstream out;
  std::optional<std::vector<Record>> records;
  explicit Parsed(const std::string &text) {
    diags.setStream(&out);
    records = parseRecords(sm.addFile("r.jsonl", text), sm, diags);
  }
  std::string first() const { return diags.all().empty() ? "" : diags.all()[0].message; }
  SourceLoc loc() const { return diags.all().empty() ? SourceLoc{} : diags.all()[0].loc; }
};

} // namespace

TEST_CASE("costmodel records: a record prints as one JSON line and parses back") {
  Record r = sampleRecord(0.00125, 6);
  std::string line = printRecord(r);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find(R"("format":"tk-record")") != std::string::npos);
  CHECK(line.find(R"({"k":"register_tile","n":[6.0,64.0,96.0,80.0]})") != std::string::npos);
  Parsed p(line + "\n\n" + printRecord(sampleRecord(0.002, 4)) + "\n");
  REQUIRE(p.records);
  REQUIRE(p.records->size() == 2);
  const Record &back = (*p.records)[0];
  CHECK(back.decisions == r.decisions);
  CHECK(back.shape == r.shape);
  CHECK(back.latency.median == r.latency.median);
  CHECK(back.latency.runs == 15);
  CHECK(back.task() == r.task());
  CHECK((*p.records)[1].loc.line == 3); // the blank line counts
  CHECK(r.task() == "zen5-2c|0123456789abcdef|K=64|M=96|N=80");
}

TEST_CASE("costmodel records: a malformed line is an error at its line, never skipped") {
  std::string good = printRecord(sampleRecord(0.001, 6));
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return good + "\n" + s + "\n";
  };
  {
    Parsed p(good + "\n{\"format\": \"tk-record\", \n");
    CHECK(!p.records);
    CHECK(p.loc().line == 2);
    CHECK(p.loc().col > 1);
    CHECK(p.first().rfind("malformed record: ", 0) == 0);
  }
  struct Case {
    std::string from, to, message;
  } cases[] = {
      {R"("k":"register_tile")", R"("k":"unroll")", "unknown decision kind 'unroll'"},
      {R"("n":[6.0,64.0,96.0,80.0])", R"("n":[6.0])", "decision 'register_tile' has 1 numbers, expected 4"},
      {R"("median_s":0.001)", R"("median_s":0)", "latency median_s is not positive"},
      {R"("version":1)", R"("version":7)", "unsupported record version 7 (this tkc reads version 1)"},
      {R"("hardware":"zen5-2c",)", "", "record has no 'hardware'"},
      {R"("runs":15)", R"("runs":"15")", "record field 'runs' has the wrong type (string)"},
      {R"("n":[6.0,64.0,96.0,80.0])", R"("n":[-6.0,64.0,96.0,80.0])", "decision 'register_tile' has a negative number"},
  };
  for (const Case &c : cases) {
    Parsed p(replaced(c.from, c.to));
    CHECK(!p.records);
    CHECK(p.first() == c.message);
    CHECK(p.loc().line == 2);
  }
}

TEST_CASE("costmodel records: hardware ids are stable slugs") {
  CHECK(hardwareId("zen5-2c", "", 2) == "zen5-2c");
  CHECK(hardwareId("host", " AMD EPYC 9R45 (64-Core)", 2) == "host-amd-epyc-9r45-64-core-2c");
  CHECK(hardwareId("host", "", 1) == "host-1c");
}

TEST_CASE("costmodel records: an op's nest decisions") {
  construct::LoopNest nest;
  nest.op = "matmul";
  nest.dims = {{"i", 64, false}, {"j", 32, false}, {"k", 16, true}};
  construct::HardwareDesc hw;
  hw.units = 2;
  DecisionSequence n = nestDecisions(nest, hw);
  REQUIRE(n.size() == 5);
  CHECK(printPrimitive(n[0]) == "op(4) [matmul]");
  CHECK(printPrimitive(n[3]) == "loop(16, 1, 2) [k]");
  CHECK(printPrimitive(n.back()) == "threads(2)");
}

TEST_CASE("costmodel records: the featurizer's rows") {
  FeatureLayout layout;
  layout.seqLen = 3;
  REQUIRE(layout.embed() == 17); // the buffers below are sized for it
  CHECK(layout.signature() == "tk-features-1 seq=3 kinds=9 numbers=4 names=4");
  DecisionSequence seq{{PrimitiveKind::Loop, {255, 1, 0}, {"k"}}, {PrimitiveKind::RegisterTile, {7, 64, 3, 0}, {}},
                       {PrimitiveKind::Threads, {2}, {}}, {PrimitiveKind::Op, {4}, {"mm"}}};
  std::vector<float> x(3 * 17, -1.0f);
  CHECK(featurize(seq, layout, x.data()) == 3); // cropped to seqLen
  // loop: one-hot column 1, log2(1 + 255) / 8 = 1, log2(2) / 8, log2(1) / 8,
  // an absent fourth number, then the low 4 bits of FNV-1a("k") =
  // 0xee0c38ea, lowest first.
  std::vector<float> row0(x.begin(), x.begin() + 17);
  std::vector<float> want0{0, 1, 0, 0, 0, 0, 0, 0, 0, 1.0f, 0.125f, 0, 0, 0, 1, 0, 1};
  CHECK(row0 == want0);
  CHECK(x[17 + 3] == 1.0f);                   // register_tile's one-hot
  CHECK(x[17 + 9] == doctest::Approx(0.375)); // log2(8) / 8
  CHECK(x[17 + 10] == doctest::Approx(std::log2(65.0) / 8));
  CHECK(x[17 + 11] == doctest::Approx(0.25));
  CHECK(x[34 + 2] == 1.0f);
  std::vector<float> empty(3 * 17, 5.0f);
  CHECK(featurize({}, layout, empty.data()) == 1); // one zero row to sum
  CHECK(std::all_of(empty.begin(), empty.end(), [](float v) { return v == 0; }));
}

TEST_CASE("costmodel records: top-k scores and measurements on tasks with known answers") {
  // Task 1: the ranking's first pick is 2x slower than the best, which is
  // its second. Task 2: the first pick is the best.
  std::vector<RankedTask> tasks{{{2.0, 1.0, 4.0}, {0.9, 0.5, 0.1}}, {{3.0, 6.0}, {1.0, 0.0}}};
  CHECK(topKScore(tasks, 1) == doctest::Approx(2.0 / (2.0 + 1.0))); // harmonic mean of 1/2 and 1
  CHECK(topKScore(tasks, 2) == doctest::Approx(1.0));
  CHECK(measurementsToReach(tasks, 0.95) == doctest::Approx((2.0 + 1.0) / 2));
  CHECK(measurementsToReach(tasks, 0.5) == doctest::Approx(1.0)); // 2.0 is half the best speed
  auto r = randomScores(tasks, 7);
  CHECK(r[0].latency == tasks[0].latency);
  CHECK(r[0].score != tasks[0].score);
}

TEST_CASE("costmodel records: labels are the task's best latency over each candidate's; the split is by task") {
  std::vector<Record> rs{sampleRecord(0.002, 6), sampleRecord(0.001, 4), sampleRecord(0.004, 2)};
  Record other = sampleRecord(0.01, 6);
  other.shape["M"] = 97;
  rs.push_back(other);
  Record elsewhere = sampleRecord(0.01, 6);
  elsewhere.hardware = "icx-2c";
  rs.push_back(elsewhere);
  TrainingSet set = buildTrainingSet(rs, FeatureLayout{}, {"zen5-2c"});
  REQUIRE(set.tasks.size() == 2); // the other machine's record has no head
  CHECK(set.rows() == 4);
  CHECK(set.labels == std::vector<float>{0.5f, 1.0f, 0.25f, 1.0f});
  CHECK(set.group == std::vector<int>{0, 0, 0, 1});
  CHECK(hardwareIds(rs) == std::vector<std::string>{"zen5-2c", "icx-2c"});
  rs[1].candidate = "rule";
  CHECK(candidateScores(set, rs, "rule") == std::vector<double>{0, 1, 0, 0});
  auto ranked = rankedTasks(set, {3, 2, 1, 0});
  CHECK(topKScore(ranked, 1) == doctest::Approx(2.0 / (2.0 + 1.0)));
  // The held-out split depends on the task alone, and roughly on the fraction.
  int held = 0;
  for (int i = 0; i < 1000; ++i) held += heldOut("task" + std::to_string(i), 0.2);
  CHECK(held > 150);
  CHECK(held < 250);
  CHECK(heldOut("task1", 0.2) == heldOut("task1", 0.2));
  CHECK(!heldOut("task1", 0.0));
}

TEST_CASE("costmodel records: records files may be zstd-compressed; a truncated stream is an error") {
  std::string text = printRecord(sampleRecord(0.001, 6)) + "\n" + printRecord(sampleRecord(0.002, 4)) + "\n";
  std::string packed(ZSTD_compressBound(text.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), text.data(), text.size(), 19));
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tk-records-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string &name, const std::string &bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return (dir / name).string();
  };
  std::string got, error;
  CHECK(driver::readRecordsFile(write("r.jsonl.zst", packed), got, &error));
  CHECK(got == text);
  CHECK(driver::readRecordsFile(write("plain.jsonl", text), got, &error));
  CHECK(got == text);
  CHECK(!driver::readRecordsFile(write("cut.jsonl.zst", packed.substr(0, packed.size() / 2)), got, &error));
  CHECK(error.find("are not a complete zstd stream") != std::string::npos);
  CHECK(!driver::readRecordsFile((dir / "absent.jsonl").string(), got, &error));
  CHECK(error.find("cannot read records") == 0);
  std::filesystem::remove_all(dir);
}
