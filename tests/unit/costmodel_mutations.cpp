// The cost model's two file parsers on mutated inputs: records (JSON Lines)
// and network weights. Thousands of deterministic mutations of valid files —
// flipped, deleted and inserted bytes, huge numbers, truncations, repeated
// lines — must each parse or be refused with a located error: never a
// crash, an exception, a hang or an error-free refusal. Runs under ASan and
// UBSan in CI.
#include "costmodel_network_reference.h"
#include "scheduler/costmodel/Records.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace tk;
using namespace tk::costmodel;

namespace {

std::string mutate(const std::string &s, std::mt19937_64 &rng) {
  std::string t = s;
  const char *pieces[] = {"9999999999999999999", "-1", "1e308", "nan", "\"", "{", "}", "[", "]", ",", ":", "\n",
                          "0x", " ", "\\u0000", "\xff", "-0", "1e-400", "tk-costmodel 1\n"};
  int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits && !t.empty(); ++e) {
    size_t at = rng() % (t.size() + 1);
    switch (rng() % 6) {
    case 0: t[at % t.size()] = static_cast<char>(rng() % 256); break;
    case 1: t.erase(at % t.size(), 1 + rng() % 8); break;
    case 2: t.insert(at, pieces[rng() % (sizeof(pieces) / sizeof(*pieces))]); break;
    case 3: t.resize(at); break;
    case 4: t.insert(at, t.substr(at / 2, 1 + rng() % 40)); break;
    default: t.insert(at, std::string(1 + rng() % 6, static_cast<char>('0' + rng() % 10))); break;
    }
  }
  return t;
}

template <typename Parse> void fuzz(const std::string &valid, uint64_t seed, int rounds, Parse parse) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < rounds; ++i) {
    std::string input = mutate(valid, rng);
    SourceManager sm;
    DiagEngine diags(sm);
    std::ostringstream sink;
    diags.setStream(&sink);
    bool ok = false;
    CHECK_NOTHROW(ok = parse(sm.addFile("in", input), sm, diags));
    // Refused exactly when an error was reported.
    CHECK(ok == !diags.hasErrors());
  }
}

} // namespace

TEST_CASE("costmodel mutations: mutated records files are parsed or refused with an error") {
  Record r;
  r.hardware = "zen5-2c";
  r.op = "matmul";
  r.ir = "0123456789abcdef";
  r.shape = {{"M", 96}, {"N", 80}};
  r.candidate = "rule";
  r.decisions = {{PrimitiveKind::Op, {4}, {"matmul"}}, {PrimitiveKind::TaskTile, {126, 512, 2, 0}, {}}};
  r.latency = {0.001, 5, 0.02};
  r.tkc = "0.1.0";
  std::string valid = printRecord(r) + "\n" + printRecord(r) + "\n";
  fuzz(valid, 1, 3000, [](int file, const SourceManager &sm, DiagEngine &diags) {
    return parseRecords(file, sm, diags).has_value();
  });
}

TEST_CASE("costmodel mutations: mutated weights files are loaded or refused with an error") {
  std::string valid = TlpNetwork(nettest::tinyShape(), 3).serialize();
  fuzz(valid, 2, 2000, [](int file, const SourceManager &sm, DiagEngine &diags) {
    return TlpNetwork::parse(file, sm, diags).has_value();
  });
}
